// The collectives view: every collective is a card that can be played step
// by step on a picture of the mesh, with its groups drawn, pmean named
// pmean, and internal steps folded away. Expected values are worked out by
// hand from the programs below.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, runsDone } from './harness.mjs';

let h;
before(async () => {
  h = await open();
});
after(() => h.close());

async function runProgram(text) {
  const page = await h.page('#');
  await runsDone(page, 1);
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
  await page.click('#run');
  await runsDone(page, 2);
  assert.equal(await page.$eval('[data-testid=error]', (e) => (e.hidden ? '' : e.textContent)), '');
  return page;
}

// What a card shows now: its step, and for every device id the pieces it
// holds in this step as [sender id, text]; the arrows as [from, to] ids.
function frame(card) {
  return card.evaluate((c) => ({
    step: c.querySelector('.play-step').textContent,
    caption: c.querySelector('.play-caption').textContent,
    devices: Object.fromEntries([...c.querySelectorAll('.before-after tbody tr')].map((tr) => [tr.dataset.deviceId,
      [...tr.querySelectorAll('td.now .piece')].map((p) => [p.dataset.from, p.textContent])])),
    arrows: [...c.querySelectorAll('svg.mesh-play .arrow')].map((a) => [Number(a.dataset.from), Number(a.dataset.to)]),
  }));
}

const next = (card) => card.locator('.play-next').click();

// x = arange(8).reshape(2, 4) over P('x', 'y'): device p holds [[p]].
// y is replicated: psum over 'y' of it is a pvary (it becomes varying) and
// a sum of a value every device already holds, both internal; pmean's
// divisor 4 is made varying by a pvary too.
const MESH_2X4 = `import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))
x = jnp.arange(8.0).reshape(2, 4)
y = jnp.ones(3)
f = jax.shard_map(lambda b, c: (jax.lax.psum(b, 'x'), jax.lax.pmean(b, 'y'), jax.lax.psum(c, 'y')),
                  mesh=mesh, in_specs=(P('x', 'y'), P()), out_specs=(P(None, 'y'), P('x', None), P()))
s, m, t = f(x, y)
print(s, m, t)
`;

test('psum over x of a 2x4 mesh draws its 4 groups of 2 and steps the sum', async () => {
  const page = await runProgram(MESH_2X4);
  const card = page.locator('.collectives-box > ol > .collective').first();
  assert.equal(await card.getAttribute('data-name'), 'psum');
  // Groups over 'x': the columns of the mesh.
  const groups = await card.locator('svg.mesh-play .group').evaluateAll((gs) => gs.map((g) => g.dataset.positions));
  assert.deepEqual(groups, ['0,4', '1,5', '2,6', '3,7']);
  // Each column is a rectangle of cells, so each is outlined.
  assert.equal(await card.locator('svg.mesh-play .group-outline').count(), 4);
  const labels = await card.locator('svg.mesh-play .axis-name').evaluateAll((ts) => ts.map((t) => t.textContent));
  assert.deepEqual(labels, ['y →', 'x ↓']);

  let f = await frame(card);
  assert.equal(f.step, 'step 1 of 3');
  assert.deepEqual(f.devices['5'], [['5', '[[5.]]']]);
  await next(card);
  f = await frame(card);
  // Device 5 (x=1, y=1) gets device 1's value: both of its group.
  assert.deepEqual(f.devices['5'], [['1', '[[1.]]'], ['5', '[[5.]]']]);
  assert.deepEqual(f.arrows.slice(0, 2), [[0, 4], [4, 0]]);
  await next(card);
  f = await frame(card);
  // Column y=c ends with c + (c + 4).
  for (let p = 0; p < 8; p++) assert.deepEqual(f.devices[String(p)], [[String(p), `[[${2 * (p % 4) + 4}.]]`]]);
  await page.screenshot({ path: 'docs/screenshots/collective-play-psum.png', fullPage: true });
  await page.close();
});

test('pmean is labelled pmean, and its last step divides the sum', async () => {
  const page = await runProgram(MESH_2X4);
  const card = page.locator('.collectives-box > ol > .collective').nth(1);
  assert.equal(await card.getAttribute('data-name'), 'pmean');
  assert.match(await card.locator('.collective-head strong').textContent(), /^2\. pmean$/);
  assert.match(await card.locator('.collective-head').textContent(), /jaxpr: psum_invariant, then a division/);
  const groups = await card.locator('svg.mesh-play .group').evaluateAll((gs) => gs.map((g) => g.dataset.positions));
  assert.deepEqual(groups, ['0,1,2,3', '4,5,6,7']);
  for (let i = 0; i < 3; i++) await next(card);
  const f = await frame(card);
  assert.equal(f.step, 'step 4 of 4');
  // Row 0: (0 + 1 + 2 + 3) / 4; row 1: (4 + 5 + 6 + 7) / 4.
  assert.deepEqual(f.devices['2'], [['2', '[[1.5]]']]);
  assert.deepEqual(f.devices['6'], [['6', '[[5.5]]']]);
  await page.close();
});

test('internal steps are folded by default and shown when toggled', async () => {
  const page = await runProgram(MESH_2X4);
  const shown = await page.$$eval('.collectives-box > ol > .collective', (cs) => cs.map((c) => c.dataset.name));
  assert.deepEqual(shown, ['psum', 'pmean']);
  const toggle = page.locator('details.internal-steps');
  assert.equal(await toggle.locator('summary').textContent(), 'show internal steps (3)');
  assert.equal(await toggle.evaluate((d) => d.open), false);
  const internal = toggle.locator('.collective');
  assert.equal(await internal.first().isVisible(), false);
  await toggle.locator('summary').click();
  assert.equal(await internal.first().isVisible(), true);
  const words = await internal.evaluateAll((cs) => cs.map((c) => [c.dataset.collective, c.querySelector('.collective-words').textContent]));
  assert.deepEqual(words, [
    ['pvary', 'marks the value as varying over the axis: no data moves'],
    ['pvary', 'marks the value as varying over the axis: no data moves'],
    ['psum_invariant', 'sum of a value every device already holds: each ends with it times the group size'],
  ]);
  await page.close();
});

// x = arange(8) * 10 over 'x' (4 devices): device p holds [20p, 20p + 10].
const GATHER_PERMUTE = `import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
x = jnp.arange(8.0) * 10
def body(b):
    return jax.lax.all_gather(b, 'x'), jax.lax.ppermute(b, 'x', perm=[(0, 1), (1, 2), (2, 0)])
g, s = jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=(P('x'), P('x')))(x)
print(g.shape, s)
`;

const held = (p) => `[${20 * p}. ${20 * p + 10}.]`;

test('stepping an all_gather gives every device all pieces, in order', async () => {
  const page = await runProgram(GATHER_PERMUTE);
  const card = page.locator('.collective[data-name=all_gather]');
  let f = await frame(card);
  for (let p = 0; p < 4; p++) assert.deepEqual(f.devices[String(p)], [[String(p), held(p)]]);
  await next(card);
  f = await frame(card);
  assert.equal(f.step, 'step 2 of 3');
  const all = [0, 1, 2, 3].map((q) => [String(q), held(q)]);
  for (let p = 0; p < 4; p++) assert.deepEqual(f.devices[String(p)], all);
  // Every device sends to the 3 others.
  assert.equal(f.arrows.length, 12);
  await next(card);
  f = await frame(card);
  const stacked = '[[0. 10.]\n [20. 30.]\n [40. 50.]\n [60. 70.]]';
  for (let p = 0; p < 4; p++) assert.deepEqual(f.devices[String(p)], [[String(p), stacked]]);
  assert.equal(await card.locator('.play-next').isDisabled(), true);
  await page.close();
});

test('stepping a ppermute moves each value along its pair, and the play button plays it', async () => {
  const page = await runProgram(GATHER_PERMUTE);
  const card = page.locator('.collective[data-name=ppermute]');
  let f = await frame(card);
  assert.deepEqual(f.devices['1'], [['1', held(1)]]);
  assert.deepEqual(f.arrows, []);
  await next(card);
  f = await frame(card);
  assert.deepEqual(f.arrows, [[0, 1], [1, 2], [2, 0]]);
  assert.deepEqual(f.devices['1'], [['0', held(0)]]);
  assert.deepEqual(f.devices['2'], [['1', held(1)]]);
  assert.deepEqual(f.devices['0'], [['2', held(2)]]);
  // No pair sends to device 3: it gets zeros.
  assert.deepEqual(f.devices['3'], [['', '[0. 0.]']]);
  // Before and after stay in their columns whatever the step.
  assert.equal(await card.locator('tr[data-device-id="1"] td.before').textContent(), held(1));
  assert.equal(await card.locator('tr[data-device-id="1"] td.after').textContent(), held(0));
  await card.locator('.play-prev').click();
  assert.equal((await frame(card)).step, 'step 1 of 2');
  await card.locator('.play-play').click();
  await page.waitForFunction((c) => c.querySelector('.play-step').textContent === 'step 2 of 2', await card.elementHandle(), { timeout: 5000 });
  await page.screenshot({ path: 'docs/screenshots/collective-play-ppermute.png', fullPage: true });
  await page.close();
});
