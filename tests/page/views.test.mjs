// The spec controls, the gradient view and the training view, in the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open, runsDone } from './harness.mjs';

let h;
before(async () => {
  h = await open();
});
after(() => h.close());

const fixture = (name) => JSON.parse(readFileSync(`tests/fixtures/programs/${name}.json`, 'utf8'));
const numbers = (text) => [...text.matchAll(/-?\d+(?:\.\d*)?(?:e-?\d+)?/g)].map((m) => Number(m[0]));
const code = (page) => page.$$eval('.cm-line', (ls) => ls.map((l) => l.textContent).join('\n'));

function close(ours, jax, what) {
  assert.equal(ours.length, jax.length, `${what}: ${ours.length} values vs ${jax.length}`);
  ours.forEach((v, i) => {
    // The page shows 4 significant digits.
    assert.ok(Math.abs(v - jax[i]) <= 1e-6 + 6e-4 * Math.abs(jax[i]), `${what}[${i}]: ${v} vs JAX ${jax[i]}`);
  });
}

async function pick(page, file, runs) {
  await page.selectOption('#example', file);
  await runsDone(page, runs);
  assert.equal(await page.$eval('[data-testid=error]', (e) => (e.hidden ? '' : e.textContent)), '');
}

// A new page showing example `file`, run without an error.
async function example(file) {
  const page = await h.page('#');
  await runsDone(page, 1);
  await pick(page, file, 2);
  return page;
}

async function replaceCode(page, text) {
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

test('spec controls rewrite the code, follow it, and refuse bad axes', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  const field = page.getByLabel('in_specs of shard_map at line 8', { exact: true });
  assert.equal(await field.inputValue(), "P('x', 'y')");
  assert.equal(await page.getByLabel('out_specs of shard_map at line 8', { exact: true }).inputValue(), "P('x', None)");

  // A control rewrites the code and the result follows: rows of x over 'x',
  // nothing split over 'y', so psum over 'y' adds 4 equal copies.
  await field.fill("P('x',None)");
  await field.press('Enter');
  await runsDone(page, 2);
  assert.ok((await code(page)).includes("in_specs=P('x', None), out_specs=P('x', None))"));
  const x = Array.from({ length: 32 }, (_, i) => i);
  const expected = x.map((v) => 4 * v);
  close(numbers(await page.textContent('[data-testid=result]')), expected, 'result');

  // Refused at the control, with the reason; the code stays as it was.
  const before = await code(page);
  await field.fill("P('z', None)");
  await field.press('Enter');
  assert.match(await page.textContent('#specs-msg'), /in_specs of shard_map at line 8: axis 'z' is not in the mesh \(its axes: 'x', 'y'\)/);
  assert.equal(await field.getAttribute('aria-invalid'), 'true');
  await field.fill("P('x', 'x')");
  await field.press('Enter');
  assert.match(await page.textContent('#specs-msg'), /axis 'x' is used twice in one spec/);
  await page.screenshot({ path: 'docs/screenshots/spec-refused.png' });
  assert.equal(await code(page), before);

  // Not divisible: only the run can tell; its error shows.
  await field.fill("P(('x', 'y'))");
  await field.press('Enter');
  await runsDone(page, 3);
  assert.match(await page.textContent('[data-testid=error]'), /divisible|divide/i);

  // Editing the code updates the controls.
  const text = (await code(page)).replace("out_specs=P('x', None)", "out_specs=P('x', 'y')");
  await replaceCode(page, text);
  assert.equal(await page.getByLabel('out_specs of shard_map at line 8', { exact: true }).inputValue(), "P('x', 'y')");
  await page.close();
});

test('the gradient view shows per-device and reduced gradients of the tensor-parallel MLP', async () => {
  const page = await example('tensor_parallel_mlp.py');
  const maps = await page.$$eval('#map-select option', (o) => o.map((x) => x.textContent));
  const back = maps.findIndex((m) => m.includes('backward'));
  assert.equal(back, maps.length - 1, `maps: ${maps}`);
  await page.selectOption('#map-select', String(back));
  const { g1, g2 } = fixture('tensor_parallel_mlp').result;
  // w1 is P(None, 'model') over 4 devices: device d holds columns 4d..4d+3.
  for (let d = 0; d < 4; d++) {
    const shown = numbers(await page.textContent(`.grad-device[data-grad="1"][data-device-id="${d}"] pre`));
    close(shown, g1.flatMap((row) => row.slice(4 * d, 4 * d + 4)), `g1 on device ${d}`);
    // w2 is P('model', None): device d holds rows 4d..4d+3.
    const shown2 = numbers(await page.textContent(`.grad-device[data-grad="2"][data-device-id="${d}"] pre`));
    close(shown2, g2.slice(4 * d, 4 * d + 4).flat(), `g2 on device ${d}`);
  }
  close(numbers(await page.textContent('.grad-reduced[data-grad="1"]')), g1.flat(), 'reduced g1');
  assert.match(await page.textContent('.grad[data-grad="1"] .vma'), /varying over 'model'/);
  assert.equal(await page.getAttribute('.grad[data-grad="0"] .vma', 'data-vma'), 'invariant');
  await page.locator('.gradients').scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'docs/screenshots/gradient-view.png', fullPage: true });
  await page.close();
});

test('pmean of gradients is explained as JAX does it', async () => {
  const page = await example('tour.py');
  const maps = await page.$$eval('#map-select option', (o) => o.length);
  const texts = [];
  for (let i = 0; i < maps; i++) {
    await page.selectOption('#map-select', String(i));
    const t = await page.$$eval('.grad-explain', (e) => e.map((x) => x.textContent).join(' '));
    if (t) texts.push(t);
  }
  const all = texts.join('\n');
  assert.match(all, /check_vma=True: .*it returns the sum unchanged/);
  assert.match(all, /check_vma=False: .*the mean over devices/);
  await page.close();
});

test('the training view charts the loss per step, and play/step move through the steps', async () => {
  const page = await example('data_parallel_train.py');
  const points = await page.$$eval('svg.loss-chart circle.step-point', (c) => c.map((x) => x.textContent));
  assert.equal(points.length, 20);
  const { first, last } = fixture('data_parallel_train').result;
  close(numbers(points[0]).slice(1), [first], 'first loss');
  close(numbers(points[19]).slice(1), [last], 'last loss');
  assert.match(await page.textContent('#step-info'), /^step 1 of 20 · loss /);
  assert.equal(await page.inputValue('#map-select'), '0');
  await page.click('#step-next');
  await page.click('#step-next');
  assert.match(await page.textContent('#step-info'), /^step 3 of 20/);
  assert.equal(await page.inputValue('#map-select'), '2');
  assert.equal(await page.$eval('#step-progress', (p) => p.value), 3);
  assert.equal(await page.$$eval('circle.step-point.current', (c) => c.map((x) => x.dataset.step).join()), '2');
  await page.click('#step-play');
  await page.waitForFunction(() => /^step 20 of 20/.test(document.getElementById('step-info').textContent), null, { timeout: 20000 });
  assert.equal(await page.inputValue('#map-select'), '19');
  assert.equal(await page.textContent('#step-play'), 'Play');
  await page.click('#step-back');
  assert.match(await page.textContent('#step-info'), /^step 19 of 20/);
  await page.screenshot({ path: 'docs/screenshots/training-chart.png', fullPage: false });
  await page.close();
});

test('FSDP example: sharded parameters, all_gather, reduce-scattered gradients', async () => {
  const page = await example('fsdp_all_gather.py');
  assert.match(await page.textContent('[data-testid=stdout]'), /^True True\n/);
  const names = await page.$$eval('#report .collective', (c) => c.map((x) => x.textContent).join(' '));
  assert.match(names, /all_gather/);
  assert.match(names, /reduce_scatter|psum_scatter/);
  assert.equal(await page.$$eval('svg.loss-chart circle.step-point', (c) => c.length), 6);
  await page.screenshot({ path: 'docs/screenshots/fsdp.png', fullPage: true });
  await page.close();
});

test('the timeline has a bar per device with its collectives, in parallel and in lockstep', async () => {
  const page = await example('tensor_parallel_mlp.py');
  for (const [mode, runs] of [['parallel', 2], ['lockstep', 3]]) {
    if (mode === 'lockstep') {
      await page.selectOption('#mode', 'lockstep');
      await runsDone(page, runs);
    }
    await page.selectOption('#map-select', '0');
    assert.equal(await page.getAttribute('.timeline', 'data-mode'), mode);
    const rows = await page.$$eval('.timeline .tl-row', (r) => r.map((x) => [
      x.dataset.deviceId, [...x.querySelectorAll('.tl-coll')].map((c) => `${c.dataset.order}.${c.dataset.collective}`).join(),
    ]));
    // The forward MLP on 4 devices: pvary of x, then the psum of the output.
    assert.deepEqual(rows, [0, 1, 2, 3].map((d) => [String(d), '1.pvary,2.psum_invariant']));
    // The pvary moves no data: drawn pale, named in words, counted apart;
    // the psum is named psum.
    const steps = await page.$$eval('.timeline .tl-row[data-device-id="2"] .tl-coll', (cs) => cs.map((c) =>
      [c.dataset.name, c.classList.contains('tl-internal'), c.title.replace(/[\d.]+ (µs|ms)$/, 'T')]));
    assert.deepEqual(steps, [
      ['pvary', true, '1. pvary (internal step: marks the value as varying over the axis: no data moves): T'],
      ['psum', false, '2. psum: T'],
    ]);
    assert.match(await page.textContent('.timeline .tl-row[data-device-id="2"] .tl-sum'),
      /^[\d.]+ (µs|ms) compute, [\d.]+ (µs|ms) in 1 collective, [\d.]+ (µs|ms) in 1 internal step$/);
    assert.match((await page.$$eval('#map-select option', (o) => o.map((x) => x.textContent)))[0], /· psum$/);
  }
  await page.selectOption('#mode', 'parallel');
  await runsDone(page, 4);
  await page.locator('.timeline').scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'docs/screenshots/timeline.png' });
  await page.close();
});

test('a loop of top-level value_and_grad calls is charted from the recorded grads', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  const program = `import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
def loss(w, x):
    body = lambda w, xs: jax.lax.psum(jnp.sum((xs * w - 1.0) ** 2), 'x')
    return jax.shard_map(body, mesh=mesh, in_specs=(P(), P('x')), out_specs=P())(w, x)
x = jnp.arange(8.0) / 8
w = jnp.array(0.0)
for i in range(4):
    l, g = jax.value_and_grad(loss)(w, x)
    w = w - 0.1 * g
result = w
`;
  await replaceCode(page, program);
  await page.click('#run');
  await runsDone(page, 2);
  // x_i = i/8: sum x = 3.5, sum x^2 = 2.1875, so L(w) = 2.1875 w^2 - 7 w + 8
  // and dL/dw = 4.375 w - 7; w starts at 0 and steps by -0.1 dL/dw.
  const losses = [];
  let w = 0;
  for (let i = 0; i < 4; i++) {
    losses.push(2.1875 * w * w - 7 * w + 8);
    w -= 0.1 * (4.375 * w - 7);
  }
  const points = await page.$$eval('svg.loss-chart circle.step-point', (c) => c.map((x) => x.textContent));
  close(points.map((p) => numbers(p)[1]), losses, 'losses');
  assert.match(await page.textContent('.training h3'), /4 grad calls/);
  await page.click('#step-next');
  assert.match(await page.textContent('#step-info'), /^step 2 of 4/);
  // Step 2's gradient: 4.375 * 0.7 - 7 = -3.9375.
  assert.match(await page.textContent('.step-table'), /gradient 0\s*-3\.938/);
  const maps = await page.$$eval('#map-select option', (o) => o.map((x) => x.textContent));
  assert.match(maps[Number(await page.inputValue('#map-select'))], /backward/);
  await page.close();
});
