// What a first visit costs: bytes over the wire (page, editor, engine,
// workers) and the time until the first result shows; parallel mode gives
// the same shards as lockstep (and is the default). Prints the numbers docs/page.md quotes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, runsDone } from './harness.mjs';

let h;
before(async () => {
  h = await open();
});
after(() => h.close());

test('first load: bytes transferred and time to the first result', async () => {
  const all = [];
  const pending = [];
  const count = (req) => {
    const started = req.timing().startTime;
    pending.push((async () => {
      const sizes = await req.sizes().catch(() => null);
      if (!sizes) return;
      const size = sizes.responseBodySize + sizes.responseHeadersSize;
      const response = await req.response();
      const encoding = (response && (await response.headerValue('content-encoding'))) || 'identity';
      all.push({ url: new URL(req.url()).pathname, size, encoding, started });
    })());
  };
  h.context.on('requestfinished', count);
  const page = await h.page();
  await runsDone(page, 1, undefined, { editor: false });
  // The editor comes after the first result: wait for it, then count only
  // what was asked for before the first result showed.
  await page.waitForSelector('.cm-content');
  h.context.off('requestfinished', count);
  await Promise.all(pending);
  const [origin, ms] = await page.evaluate(() => [performance.timeOrigin, Number(document.body.dataset.firstResultMs)]);
  const files = all.filter((f) => f.started < origin + ms);
  const bytes = files.reduce((n, f) => n + f.size, 0);
  const later = all.filter((f) => !files.includes(f)).map((f) => f.url);
  assert.ok(later.some((u) => /\/editor-[\w-]+\.js$/.test(u)), `the editor after the first result: ${later}`);
  assert.ok(!files.some((f) => /\/editor-[\w-]+\.js$/.test(f.url)), 'the editor is not in the first load');
  console.log(`first load: ${files.length} files, ${bytes} bytes transferred, first result after ${ms} ms`);
  files.sort((a, b) => b.size - a.size);
  for (const f of files.slice(0, 6)) console.log(`  ${f.size} bytes ${f.url} (${f.encoding})`);
  // The coordinator compiles the engine once and hands the module to its
  // device workers: one download of the wasm, however many devices.
  // The first example imports neither Flax nor Optax: the core engine,
  // built without them, is the one fetched.
  const wasm = files.filter((f) => f.url.endsWith('.wasm'));
  assert.equal(wasm.length, 1, `the wasm was downloaded ${wasm.length} times`);
  assert.match(wasm[0].url, /\/wasm-core\/shardlab_bg\.wasm$/);
  assert.ok(bytes > 100000 && bytes < 5e6, `${bytes} bytes`);
  assert.ok(ms > 0);
  await page.screenshot({ path: 'docs/screenshots/first-load.png', fullPage: true });
  await page.close();
});

// Arms a clock in the page: it starts at the next `start` event on the
// focused element (or the editor) and stops when the page counts a
// finished run, which it does right after it has put the outcome in the
// DOM. The time is the page's own (performance.now), so the test's round
// trips to the browser are not in it.
function armClock(page, start) {
  return page.evaluate((start) => {
    window.editClock = { t0: null, t1: null };
    const target = document.activeElement || document;
    target.addEventListener(start, () => {
      if (window.editClock.t0 === null) window.editClock.t0 = performance.now();
    }, { capture: true, once: true });
    const watch = new MutationObserver(() => {
      window.editClock.t1 = performance.now();
      watch.disconnect();
    });
    watch.observe(document.body, { attributes: true, attributeFilter: ['data-runs'] });
  }, start);
}

const clockMs = (page) => page.evaluate(() => window.editClock.t1 - window.editClock.t0);

function spread(times) {
  const s = [...times].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))].toFixed(1);
  return `median ${at(0.5)} ms, quartiles ${at(0.25)}-${at(0.75)} ms, range ${s[0].toFixed(1)}-${s[s.length - 1].toFixed(1)} ms over ${s.length}`;
}

test('time from an edit to the updated result', async () => {
  const page = await h.page();
  await runsDone(page, 1);
  const field = page.getByLabel('in_specs of shard_map at line 8', { exact: true });
  const times = [];
  for (let i = 0; i < 15; i++) {
    const spec = i % 2 === 0 ? "P('x', None)" : "P('x', 'y')";
    await field.fill(spec);
    await armClock(page, 'keydown');
    await field.press('Enter');
    await runsDone(page, i + 2);
    times.push(await clockMs(page));
    assert.ok((await page.$$eval('.cm-line', (ls) => ls.map((l) => l.textContent).join('\n'))).includes(`in_specs=${spec}`));
  }
  console.log(`edit to updated result (spec control, 2-D psum, parallel, from the key to the DOM): ${spread(times)}`);
  assert.ok(times.every((t) => t > 0 && t < 5000), times.join(', '));

  // An edit in the code (a line inserted at once): the run starts once
  // typing pauses (EDIT_PAUSE_MS in js/main.js, 150 ms).
  const typed = [];
  for (let i = 0; i < 7; i++) {
    const runs = Number(await page.evaluate(() => document.body.dataset.runs));
    const before = await page.textContent('[data-testid=result]');
    await page.click('.cm-content');
    await page.keyboard.press('Control+End');
    await armClock(page, 'beforeinput');
    await page.keyboard.insertText(`\nresult = result * ${i + 2}`);
    await runsDone(page, runs + 1);
    await page.waitForFunction((b) => document.querySelector('[data-testid=result]').textContent !== b, before);
    typed.push(await clockMs(page));
  }
  console.log(`a line added in the code to updated result (includes the 150 ms pause): ${spread(typed)}`);
  assert.ok(typed.every((t) => t >= 150 && t < 5000), typed.join(', '));
  await page.close();
});

test('parallel mode (a Web Worker per device, the default) shows the same shards as lockstep', async () => {
  const page = await h.page();
  await runsDone(page, 1);
  assert.ok(await page.evaluate(() => crossOriginIsolated));
  assert.match(await page.textContent('#status'), /running in parallel: 8 device Web Workers/);
  const shards = () => page.$$eval('#report .device .values', (v) => v.map((x) => x.textContent));
  // Everything but their times, which are each run's own.
  const collectives = () => page.$$eval('#report li.collective', (c) => c.map((x) => {
    const copy = x.cloneNode(true);
    for (const t of copy.querySelectorAll('.collective-time')) t.remove();
    return copy.textContent;
  }));
  const parallel = await shards();
  // The device workers send their logs back: the same collectives, with
  // every device's values before and after.
  const parallelCollectives = await collectives();
  assert.ok(parallelCollectives.length > 0);
  await page.selectOption('#mode', 'lockstep');
  await runsDone(page, 2);
  assert.match(await page.textContent('#status'), /running in lockstep: 8 devices/);
  assert.deepEqual(await shards(), parallel);
  assert.deepEqual(await collectives(), parallelCollectives);
  await page.selectOption('#mode', 'parallel');
  await runsDone(page, 3);
  await page.getByLabel('Devices').fill('16');
  await page.getByLabel('Devices').press('Enter');
  await runsDone(page, 4);
  await page.getByLabel('Mesh shape').fill('2x2x4');
  await page.getByLabel('Mesh shape').press('Enter');
  await runsDone(page, 5);
  assert.match(await page.textContent('#status'), /running in parallel: 16 device Web Workers/);
  assert.equal(await page.getByLabel('Axis names').inputValue(), 'x,y,z');
  assert.equal(await page.$$eval('#report .facet', (f) => f.length), 2);
  assert.equal(await page.$$eval('#report .device[data-device-id]', (d) => d.length), 16);
  await page.screenshot({ path: 'docs/screenshots/mesh-3d-parallel.png', fullPage: true });
  await page.close();
});

// A program that imports Flax or Optax, or reaches another part the core
// engine leaves out, runs on the full engine: fetched once, when the first
// such program runs, and used from then on. An import the page's quick look
// misses (here after `if True:`) reaches the core engine's refusal, and the
// program runs again on the full engine.
test('Flax and Optax programs move the page to the full engine once', async () => {
  const sgd = "tx = optax.sgd(0.5)\nresult = tx.update({'w': 2.0}, tx.init({'w': 1.0}))[0]['w']\n";
  // optax.sgd(0.5) scales the gradient 2.0 by -0.5.
  for (const [what, code, expected] of [
    ['an import in the text', `import optax\n${sgd}`, /-1\b/],
    ['an import the page does not see', `if True: import optax\n${sgd}`, /-1\b/],
    // A part of a module the core engine has (jnp's compositions, jax.nn),
    // reached as an attribute.
    ['a jnp function the core engine leaves out', 'import jax.numpy as jnp\nresult = float(jnp.quantile(jnp.arange(5.0), 0.75))\n', /^3$/],
    ['jax.nn as an attribute', 'import jax\nresult = float(jax.nn.relu(-2.0) + jax.nn.relu(3.5))\n', /^3\.5$/],
    // The refusal is caught, yet the program runs again on the full engine,
    // where `re` exists.
    [
      'a refusal the program catches',
      "try:\n    if True: import re\n    result = len(re.sub('a', 'bb', 'banana'))\nexcept NotImplementedError:\n    result = -1\n",
      /^9$/,
    ],
  ]) {
    const wasm = [];
    const count = (req) => {
      const url = new URL(req.url()).pathname;
      if (url.endsWith('.wasm')) wasm.push(url);
    };
    h.context.on('requestfinished', count);
    const page = await h.page();
    await runsDone(page, 1);
    await page.click('.cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(code);
    await runsDone(page, 2);
    const error = await page.$eval('[data-testid=error]', (e) => (e.hidden ? '' : e.textContent));
    assert.equal(error, '', what);
    assert.match((await page.textContent('[data-testid=result]')).trim(), expected, what);
    h.context.off('requestfinished', count);
    const engines = wasm.map((u) => u.replace(/^.*\/(wasm(?:-core)?)\/shardlab_bg\.wasm$/, '$1'));
    assert.deepEqual(engines, ['wasm-core', 'wasm'], what);
    await page.close();
  }
});
