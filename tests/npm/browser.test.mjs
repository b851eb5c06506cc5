// The installed package in headless Chromium: (1) a Vite production build
// of an app that imports it, served cross-origin isolated and then without
// the headers, and the same app from Vite's dev server, (2) a plain page
// with two <shardlab-example> elements.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { program, fixture, assertClose, COMPUTE } from './fixtures.mjs';

const { chromium } = createRequire(join(process.env.SHARDLAB_REPO, 'package.json'))('playwright-core');
const VITE_URL = process.env.VITE_URL;
const STATIC_URL = process.env.STATIC_URL;

let browser;
before(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
});
after(() => browser && browser.close());

async function open(url) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  return { page, errors };
}

// Opens the Vite app at `url` and waits until its lab is ready; gives the
// page, its errors and the lab's mode.
async function openApp(url) {
  const { page, errors } = await open(url);
  await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('ready'), null, {
    timeout: 60000,
  });
  return { page, errors, mode: (await page.textContent('#status')).replace('ready: ', '') };
}

test('a Vite build of an app that imports shardlab runs programs in parallel', async () => {
  const { page, errors, mode } = await openApp(VITE_URL);
  assert.equal(mode, 'parallel');
  const run = await page.evaluate((s) => window.runProgram(s), program('tensor_parallel_mlp'));
  assert.equal(run.mode, 'parallel');
  assert.equal(run.devices, 4);
  assert.equal(run.typed, 'Float32Array');
  assertClose(run.result, fixture('tensor_parallel_mlp').result);
  const train = await page.evaluate((s) => window.runProgram(s), program('data_parallel_train'));
  assertClose(train.result, fixture('data_parallel_train').result);
  const bad = await page.evaluate((s) => window.runProgram(s), program('err_syntax'));
  assert.deepEqual(bad.error, { type: 'SyntaxError', line: fixture('err_syntax').error.line });
  assert.deepEqual(errors, []);
  await page.close();
});

test("Vite's dev server serves an app that imports shardlab", async () => {
  const { page, errors, mode } = await openApp(process.env.VITE_DEV_URL);
  assert.equal(mode, 'parallel');
  const run = await page.evaluate((s) => window.runProgram(s), program('tensor_parallel_mlp'));
  assert.equal(run.mode, 'parallel');
  assertClose(run.result, fixture('tensor_parallel_mlp').result);
  assert.deepEqual(errors, []);
  await page.close();
});

test('without cross-origin isolation the same build runs in lockstep', async () => {
  const { page, errors, mode } = await openApp(process.env.VITE_PLAIN_URL);
  assert.equal(mode, 'lockstep');
  const run = await page.evaluate((s) => window.runProgram(s), program('tensor_parallel_mlp'));
  assert.equal(run.mode, 'lockstep');
  assert.equal(run.typed, 'Float32Array');
  assertClose(run.result, fixture('tensor_parallel_mlp').result);
  assert.deepEqual(errors, []);
  await page.close();
});

test('two <shardlab-example> elements on a plain page run and show their results', async () => {
  const { page, errors } = await open(STATIC_URL);
  // Both started at once: they share one lab, whose queue runs them in turn.
  const runs = await page.evaluate(async () => {
    const els = [...document.querySelectorAll('shardlab-example')];
    const out = await Promise.all(els.map((el) => el.run()));
    return out.map((r) => ({ result: r.result, mode: r.mode, stdout: r.stdout }));
  });
  // mesh="2x2" makes the 2x4 mesh of the program a 2x2 one: x (4x8) is cut
  // into 2x4 blocks. rows[r][c] = x[r][c] + x[r][c+4] = 16r + 2c + 4;
  // both[i][j] = sum over the four blocks = 40 + 32i + 4j.
  const rows = [0, 1, 2, 3].map((r) => [0, 1, 2, 3].map((c) => 16 * r + 2 * c + 4));
  const both = [0, 1].map((i) => [0, 1, 2, 3].map((j) => 40 + 32 * i + 4 * j));
  assert.deepEqual(runs[0].result, [rows, both]);
  assert.equal(runs[0].mode, 'parallel');
  assertClose(runs[1].result, fixture('tensor_parallel_mlp').result);
  assert.equal(runs[1].stdout, fixture('tensor_parallel_mlp').stdout);

  const shown = await page.evaluate(() =>
    [...document.querySelectorAll('shardlab-example')].map((el) => ({
      editor: el.shadowRoot.querySelector('textarea').value,
      result: el.shadowRoot.getElementById('result').textContent,
      stdout: el.shadowRoot.getElementById('stdout').textContent,
      devices: el.shadowRoot.querySelectorAll('.device').length,
      colour: getComputedStyle(el.shadowRoot.getElementById('result')).color,
    })),
  );
  assert.match(shown[0].editor, /^import jax/);
  assert.equal(shown[0].stdout, '[[40. 44. 48. 52.]\n [72. 76. 80. 84.]]\n');
  assert.ok(shown[0].result.includes('[4, 6, 8, 10]'), shown[0].result);
  assert.ok(shown[0].result.includes('[72, 76, 80, 84]'), shown[0].result);
  assert.equal(shown[0].devices, 4);
  assert.equal(shown[1].editor, program('tensor_parallel_mlp'));
  assert.equal(shown[1].devices, 4);
  // The host page's green text does not reach into the element.
  assert.notEqual(shown[0].colour, 'rgb(0, 128, 0)');

  // The buttons: Run after an edit shows the new result; Cancel stops a long run.
  const el = page.locator('#mlp');
  await el.locator('textarea').fill('result = 6 * 7\n');
  await el.locator('button#run').click();
  await page.waitForFunction(() =>
    document.getElementById('mlp').shadowRoot.getElementById('result').textContent === '42');
  await el.locator('textarea').fill('i = 0\nwhile True:\n    i = i + 1\n');
  await el.locator('button#run').click();
  await page.waitForTimeout(300);
  await el.locator('button#cancel').click();
  await page.waitForFunction(() =>
    document.getElementById('mlp').shadowRoot.querySelector('.status').textContent === 'cancelled');
  // A computation shows its progress while it runs, and stops at Cancel.
  await el.locator('textarea').fill(COMPUTE);
  await el.locator('button#run').click();
  await page.waitForFunction(() =>
    /^running… 0 maps done · (0\.[89]|[1-9]\d*\.\d) s$/.test(
      document.getElementById('mlp').shadowRoot.querySelector('.status').textContent,
    ),
  );
  await el.locator('button#cancel').click();
  await page.waitForFunction(() =>
    document.getElementById('mlp').shadowRoot.querySelector('.status').textContent === 'cancelled');
  assert.match(await el.locator('#error').textContent(), /^Cancelled: the run was cancelled; .*stopped before /);
  await page.locator('#mesh button#run').click();
  await page.waitForFunction(() =>
    document.getElementById('mesh').shadowRoot.querySelector('.status').textContent.startsWith('parallel'));
  // A failed run shows what it printed before the error, labelled, as the
  // playground does; the next good run shows its output without the label.
  const shownParts = () => page.evaluate(() => {
    const root = document.getElementById('mlp').shadowRoot;
    const visible = (id) => !root.getElementById(id).hidden;
    return {
      status: root.querySelector('.status').textContent,
      error: visible('error') ? root.getElementById('error').textContent : null,
      label: visible('stdout-label') ? root.getElementById('stdout-label').textContent : null,
      stdout: visible('stdout') ? root.getElementById('stdout').textContent : null,
    };
  });
  await el.locator('textarea').fill("print('start')\nprint(1 + 1)\nraise ValueError('boom')\n");
  await el.locator('button#run').click();
  await page.waitForFunction(() => document.getElementById('mlp').shadowRoot.querySelector('.status').textContent === 'failed');
  const failed = await shownParts();
  assert.match(failed.error, /^ValueError: boom \(line 3, col \d+\)$/);
  assert.equal(failed.label, 'Output before the error');
  assert.equal(failed.stdout, 'start\n2\n');
  await el.locator('textarea').fill("print('fine')\n");
  await el.locator('button#run').click();
  await page.waitForFunction(() => document.getElementById('mlp').shadowRoot.querySelector('.status').textContent !== 'running…' &&
    document.getElementById('mlp').shadowRoot.querySelector('.status').textContent !== 'failed');
  const good = await shownParts();
  assert.equal(good.error, null);
  assert.equal(good.label, null);
  assert.equal(good.stdout, 'fine\n');
  assert.deepEqual(errors, []);
  await page.close();
});

test('in an isolated page a cancel or a time-out stops a computation on the same workers', async (t) => {
  const { page, errors, mode } = await openApp(VITE_URL);
  assert.equal(mode, 'parallel');
  const cancelled = await page.evaluate(([s, n]) => window.stopRun(s, 'cancel', n), [COMPUTE, program('tensor_parallel_mlp')]);
  t.diagnostic(`cancel answered in ${cancelled.ms.toFixed(0)} ms`);
  assert.equal(cancelled.error.type, 'Cancelled');
  assert.match(cancelled.error.reason, /^the run was cancelled; .*stopped before /);
  assert.ok(cancelled.ms < 1000, `rejected ${cancelled.ms} ms after the cancel`);
  assert.equal(cancelled.workersStarted, 0);
  assertClose(cancelled.next, fixture('tensor_parallel_mlp').result);
  assert.equal(cancelled.progress[0].maps, 0);

  const timedOut = await page.evaluate((s) => window.stopRun(s, 'timeout', 'result = 6 * 7', 800), COMPUTE);
  assert.equal(timedOut.error.type, 'TimeoutError');
  assert.match(timedOut.error.reason, /^the run took longer than 800 ms \(stopped after \d+ ms\); .*stopped before /);
  assert.ok(timedOut.ms >= 800 && timedOut.ms < 1800, `rejected after ${timedOut.ms} ms`);
  assert.equal(timedOut.workersStarted, 0);
  assert.equal(timedOut.next, 42);
  assert.deepEqual(errors, []);
  await page.close();
});

test('without shared memory a cancel restarts the worker, and the next run works', async () => {
  const { page, errors, mode } = await openApp(process.env.VITE_PLAIN_URL);
  assert.equal(mode, 'lockstep');
  const cancelled = await page.evaluate(([s, n]) => window.stopRun(s, 'cancel', n), [COMPUTE, program('tensor_parallel_mlp')]);
  assert.deepEqual(cancelled.error, { type: 'Cancelled', reason: 'the run was cancelled' });
  assert.equal(cancelled.workersStarted, 1);
  assertClose(cancelled.next, fixture('tensor_parallel_mlp').result);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a plain page with one <shardlab-exercise> grades a wrong and a right solution', async () => {
  const { page, errors } = await open(STATIC_URL + 'exercise.html');
  const el = page.locator('#ring');
  // The problem is fetched from ring.json: its title and starter code show.
  // (The element has no shadow root until the module defines it.)
  await page.waitForFunction(() => {
    const root = document.getElementById('ring').shadowRoot;
    return Boolean(root && root.querySelector('h3').textContent);
  });
  assert.equal(await el.locator('h3').textContent(), 'A ppermute ring');
  assert.match(await el.locator('textarea').inputValue(), /perm = \.\.\./);
  const source = async (name) => (await fetch(STATIC_URL + name)).text();
  await el.locator('textarea').fill(await source('ring_wrong.py'));
  await el.locator('button#check').click();
  await page.waitForFunction(() =>
    /cases pass$/.test(document.getElementById('ring').shadowRoot.querySelector('.status').textContent));
  assert.equal(await el.locator('.status').textContent(), '2 of 4 cases pass');
  const results = await el.locator('#results li').allTextContents();
  assert.match(results[2], /^FAIL 4 devices \(mesh ring=4, hidden\)result\[0, 0\]: differs from the expected value/);
  assert.match(results[3], /expected 28, got 4/);
  // The first failing case's devices are drawn under the results: the ring's
  // 4 devices and the ppermute that ran over them.
  assert.equal(await el.locator('#report-title').textContent(), 'Devices in the failing case “4 devices”');
  assert.ok(await el.locator('#report [data-device-id][data-mesh-coords]').count() >= 4);
  const collectives = await el.locator('#report .collective').evaluateAll((c) => c.map((x) => x.dataset.collective));
  assert.ok(collectives.includes('ppermute'), collectives.join(' '));
  // Another failing case's button draws that case.
  await el.locator('#results li[data-case="3"] button').click();
  assert.equal(await el.locator('#report-title').textContent(), 'Devices in the failing case “8 devices”');
  assert.ok(await el.locator('#report [data-device-id][data-mesh-coords]').count() >= 8);
  await el.locator('textarea').fill(await source('ring.py'));
  const verdict = await page.evaluate(() => document.getElementById('ring').check());
  assert.equal(verdict.passed, true);
  assert.equal(await el.locator('.status').textContent(), '4 of 4 cases pass');
  assert.equal(await el.locator('#report-title').isHidden(), true);
  assert.deepEqual(errors, []);
  await page.close();
});

test('an element shows the first 5,000 lines of a long output; its run keeps all of them', async () => {
  const { page, errors } = await open(STATIC_URL + 'long.html');
  await page.waitForFunction(() => customElements.get('shardlab-example'));
  const run = await page.evaluate(async () => {
    const r = await document.getElementById('long').run();
    return { lines: r.stdout.split('\n').length, last: r.stdout.slice(-7) };
  });
  assert.deepEqual(run, { lines: 300001, last: '299999\n' });
  const shown = (await page.evaluate(() =>
    document.getElementById('long').shadowRoot.getElementById('stdout').textContent)).split('\n');
  assert.equal(shown.length, 5001);
  assert.equal(shown[4999], '4999');
  assert.match(shown[5000], /^… output cut here: 295000 more lines \(\d+ characters\) not shown/);
  assert.deepEqual(errors, []);
  await page.close();
});

// The package's coordinator worker on its own in an isolated page, spoken to
// in its messages (coordinator.js), as the Node test does: the lab would
// restart it before a stopped device's grace period ends, so only here does
// a device outlast the engine's.
async function lostPool(page) {
  return page.evaluate(async () => {
    const base = new URL('./node_modules/shardlab/', location.href);
    const w = new Worker(new URL('coordinator.js', base), { type: 'module' });
    const answers = new Map();
    let ready;
    const init = new Promise((resolve) => {
      ready = resolve;
    });
    w.addEventListener('message', ({ data: m }) => {
      if (m.kind === 'ready') ready(m);
      else if (m.kind !== 'progress' && answers.has(m.id)) answers.get(m.id)(m);
    });
    w.postMessage({
      kind: 'init',
      glue: new URL('wasm/shardlab.js', base).href,
      wasm: new URL('wasm/shardlab_bg.wasm', base).href,
      devices: 2,
      parallel: true,
    });
    const word = new Int32Array((await init).cancel);
    let nextId = 1;
    const run = (source) => new Promise((resolve) => {
      const id = nextId++;
      answers.set(id, resolve);
      w.postMessage({ kind: 'run', id, source, devices: 2, lockstep: false });
    });
    const mesh = 'import jax, numpy as np, jax.numpy as jnp\nfrom jax.sharding import Mesh, PartitionSpec as P\n' +
      "mesh = Mesh(np.array(jax.devices()[:2]), ('i',))\n";
    // One equation the devices cannot be stopped in: it outlasts the
    // engine's 2 s grace after the cancel.
    const slow = mesh + 'big = lambda v: jnp.ones((4096, 4096)) @ jnp.ones((4096, 4096)) + v[0]\n' +
      "y = jax.shard_map(big, mesh=mesh, in_specs=P('i'), out_specs=P('i'))(jnp.ones(2))\n";
    const stopped = run(slow);
    setTimeout(() => {
      Atomics.store(word, 0, 1);
      Atomics.notify(word, 0);
    }, 1000);
    const lost = (await stopped).out.error;
    Atomics.store(word, 0, 0);
    const sum = mesh + "result = jax.shard_map(lambda v: jax.lax.psum(v, 'i'), mesh=mesh, " +
      "in_specs=P('i'), out_specs=P())(jnp.arange(2.0) + 1)\n";
    const next = [];
    for (let i = 0; i < 2; i++) {
      const { out } = await run(sum);
      next.push({ error: out.error, mode: out.mode, result: Array.from(out.result) });
    }
    w.terminate();
    return { lost: { type: lost.type, message: lost.message }, next };
  });
}

test('in a browser, a device that outlasts a stopped run is replaced and the next parallel run works', async () => {
  const { page, errors } = await open(STATIC_URL);
  const { lost, next } = await lostPool(page);
  assert.equal(lost.type, 'RuntimeError', lost.message);
  assert.match(lost.message, /did not stop within 2\.0 s .*the pool cannot be used again/);
  for (const n of next) assert.deepEqual(n, { error: null, mode: 'parallel', result: [3] });
  assert.deepEqual(errors, []);
  await page.close();
});

test('in a browser, a run past maxMemory stops with MemoryError and the next run works', async () => {
  const { page, errors, mode } = await openApp(VITE_URL);
  assert.equal(mode, 'parallel');
  const doubling = "import jax.numpy as jnp\nprint('start')\nparts = [jnp.ones((2**20,))]\n" +
    'while True:\n    parts = parts + [p + 1 for p in parts]\n';
  const stopped = await page.evaluate((s) => window.runProgram(s, { maxMemory: '256M' }), doubling);
  assert.deepEqual(stopped.error, { type: 'MemoryError', line: 5 });
  assert.equal(stopped.reason, 'the program used more than its memory limit of 256 MiB (maxMemory)');
  assert.equal(stopped.stdout, 'start\n');
  const run = await page.evaluate((s) => window.runProgram(s), program('tensor_parallel_mlp'));
  assert.equal(run.mode, 'parallel');
  assertClose(run.result, fixture('tensor_parallel_mlp').result);
  assert.deepEqual(errors, []);
  await page.close();
});
