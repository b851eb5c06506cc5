// Every example in the Example menu runs without an error and shows a
// result and its devices.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open, runsDone } from './harness.mjs';

// JAX's output of a program (tests/fixtures/programs, from tests/jax/gen_programs.py).
const fixture = (name) => JSON.parse(readFileSync(`tests/fixtures/programs/${name}.json`, 'utf8'));

let h;
before(async () => {
  h = await open();
});
after(() => h.close());

// The examples that import neither Flax nor Optax run first: all of them on
// the core engine, which the page loads first.
test('every example runs without an error', async () => {
  const wasm = [];
  const count = (req) => {
    if (req.url().endsWith('.wasm')) wasm.push(new URL(req.url()).pathname);
  };
  h.context.on('requestfinished', count);
  const page = await h.page();
  await runsDone(page, 1);
  const files = await page.$$eval('#example option', (os) => os.map((o) => o.value).filter((v) => v));
  assert.ok(files.length >= 10, `examples: ${files}`);
  const full = (f) => /^\s*(?:import|from)\s[^\n]*\b(?:flax|optax)\b/m.test(readFileSync(`www/examples/${f}`, 'utf8'));
  const core = files.filter((f) => !full(f));
  let runs = 1;
  for (const file of [...core, null, ...files.filter(full)].filter((f) => f !== 'long_loop.py')) {
    if (file === null) {
      assert.deepEqual(wasm, ['/dist/wasm-core/shardlab_bg.wasm'], `${core} ran on the core engine`);
      continue;
    }
    await page.selectOption('#example', file);
    runs += 1;
    await runsDone(page, runs);
    const error = await page.$eval('[data-testid=error]', (e) => (e.hidden ? '' : e.textContent));
    assert.equal(error, '', `${file} failed`);
    const result = await page.textContent('[data-testid=result]');
    assert.ok(result.trim().length > 0, `${file} shows no result`);
    const hasMaps = await page.$$eval('#map-select option', (o) => o.length);
    if (hasMaps > 0) {
      const devices = await page.$$eval('#report [data-device-id][data-mesh-coords]', (d) => d.length);
      assert.ok(devices > 0, `${file} shows no device`);
    }
  }
  h.context.off('requestfinished', count);
  await page.close();
});

test('the tensor-parallel MLP shows its collectives and gradients', async () => {
  const page = await h.page();
  await runsDone(page, 1);
  await page.selectOption('#example', 'tensor_parallel_mlp.py');
  await runsDone(page, 2);
  const result = await page.textContent('[data-testid=result]');
  for (const key of ['"y"', '"g1"', '"g2"']) assert.ok(result.includes(key), `result lacks ${key}`);
  assert.match(await page.textContent('[data-testid=stdout]'), /True\nTrue True/);
  const maps = await page.$$eval('#map-select option', (o) => o.map((x) => x.textContent));
  assert.ok(maps.length >= 2, `maps: ${maps}`);
  assert.ok((await page.$$('.collective')).length >= 1);
  await page.screenshot({ path: 'docs/screenshots/tensor-parallel-mlp.png', fullPage: true });
  await page.close();
});

test('data-parallel training shows every step as a map', async () => {
  const page = await h.page();
  await runsDone(page, 1);
  await page.selectOption('#example', 'data_parallel_train.py');
  await runsDone(page, 2);
  assert.match(await page.textContent('[data-testid=stdout]'), /final loss \d/);
  const maps = await page.$$eval('#map-select option', (o) => o.length);
  assert.ok(maps >= 20, `${maps} maps`);
  assert.ok((await page.$$('.collective[data-collective=pmean], .collective')).length >= 1);
  await page.screenshot({ path: 'docs/screenshots/data-parallel-train.png', fullPage: true });
  await page.close();
});

test('ppermute draws its pairs as arrows', async () => {
  const page = await h.page();
  await runsDone(page, 1);
  await page.selectOption('#example', 'ppermute_ring.py');
  await runsDone(page, 2);
  const card = page.locator('.collective[data-name=ppermute]');
  await card.locator('.play-next').click();
  const arrows = await card.locator('svg.mesh-play .arrow').evaluateAll((as) => as.map((a) => `${a.dataset.from}→${a.dataset.to}`));
  assert.deepEqual(arrows, ['0→1', '1→2', '2→3', '3→4', '4→5', '5→6', '6→7', '7→0']);
  await page.screenshot({ path: 'docs/screenshots/ppermute-ring.png', fullPage: true });
  await page.close();
});

test('the pipeline example prints JAX\'s output and shows its stages passing microbatches', async () => {
  const page = await h.page();
  await runsDone(page, 1);
  await page.selectOption('#example', 'pipeline_scan.py');
  await runsDone(page, 2);
  assert.equal(await page.textContent('[data-testid=stdout]'), fixture('pipeline_scan').stdout);
  const titles = await page.$$eval('#map-select option', (o) => o.map((x) => x.textContent));
  assert.equal(titles.length, 1, titles.join(' | '));
  assert.match(titles[0], /shard_map .*stage=4/);
  // The scan runs 6 + 4 - 1 = 9 steps, one ppermute each, then one psum.
  const names = await page.$$eval('#report ol.collectives > li.collective', (l) => l.map((x) => x.dataset.name));
  assert.equal(names.filter((n) => n === 'ppermute').length, 9, names.join(' '));
  assert.equal(names.filter((n) => n === 'psum').length, 1, names.join(' '));
  await page.close();
});

test('the NNX FSDP example prints JAX\'s losses and parameter shardings', async () => {
  const page = await h.page();
  await runsDone(page, 1);
  await page.selectOption('#example', 'nnx_fsdp.py');
  await runsDone(page, 2);
  assert.equal(await page.textContent('[data-testid=stdout]'), fixture('nnx_fsdp').stdout);
  await page.close();
});
