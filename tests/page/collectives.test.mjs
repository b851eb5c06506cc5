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
  // Its bytes (4 groups of 2 devices, each sending its 4-byte value to the
  // other: 32 bytes) and its time.
  assert.match(await card.locator(':scope > .dim').textContent(),
    /^groups \{0, 4\} \{1, 5\} \{2, 6\} \{3, 7\} · 32 bytes moved · \d+(\.\d)? (µs|ms) on the slowest device$/);
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

// x = arange(16).reshape(4, 4) over 'i' (4 devices): device p holds row p,
// [4p, 4p + 1, 4p + 2, 4p + 3].
const SCATTER_ALL_TO_ALL = `import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:4]), ('i',))
x = jnp.arange(16.0).reshape(4, 4)
def body(row):
    return (jax.lax.psum_scatter(row[0], 'i', scatter_dimension=0, tiled=True),
            jax.lax.all_to_all(row, 'i', split_axis=1, concat_axis=0, tiled=True))
s, t = jax.shard_map(body, mesh=mesh, in_specs=P('i'), out_specs=(P('i'), P(None, 'i')))(x)
print(s, (t == x).all())
`;

test('stepping a psum_scatter: block j of every device goes to device j and is summed there', async () => {
  const page = await runProgram(SCATTER_ALL_TO_ALL);
  // Named as the program calls it; the jaxpr's name beside it.
  const card = page.locator('.collective[data-name=psum_scatter]');
  assert.match(await card.locator('.collective-head').textContent(), /^\d+\. psum_scatter \(jaxpr: reduce_scatter\)/);
  assert.deepEqual(await card.locator('svg.mesh-play .group').evaluateAll((gs) => gs.map((g) => g.dataset.positions)),
    ['0,1,2,3']);
  let f = await frame(card);
  assert.equal(f.step, 'step 1 of 3');
  // Before: each device's row cut into 4 blocks of one element, all its own.
  for (let p = 0; p < 4; p++) {
    assert.deepEqual(f.devices[String(p)], [0, 1, 2, 3].map((j) => [String(p), `[${4 * p + j}.]`]));
  }
  assert.deepEqual(f.arrows, []);
  await next(card);
  f = await frame(card);
  // Device j now holds block j of every device q: element 4q + j.
  for (let j = 0; j < 4; j++) {
    assert.deepEqual(f.devices[String(j)], [0, 1, 2, 3].map((q) => [String(q), `[${4 * q + j}.]`]));
  }
  assert.equal(f.arrows.length, 12);
  await next(card);
  f = await frame(card);
  assert.equal(f.step, 'step 3 of 3');
  // Device j ends with 0 + 4 + 8 + 12 + 4j = 24 + 4j.
  for (let j = 0; j < 4; j++) assert.deepEqual(f.devices[String(j)], [[String(j), `[${24 + 4 * j}.]`]]);
  assert.equal(await page.textContent('[data-testid=stdout]'), '[24. 28. 32. 36.] True\n');
  await page.screenshot({ path: 'docs/screenshots/collective-play-psum-scatter.png', fullPage: true });
  await page.close();
});

test('stepping an all_to_all: chunk i of device j goes to device i, joined in order of j', async () => {
  const page = await runProgram(SCATTER_ALL_TO_ALL);
  const card = page.locator('.collective[data-name=all_to_all]');
  let f = await frame(card);
  assert.equal(f.step, 'step 1 of 3');
  // Before: device p's row [[4p .. 4p + 3]] cut along axis 1 into 4 chunks.
  for (let p = 0; p < 4; p++) {
    assert.deepEqual(f.devices[String(p)], [0, 1, 2, 3].map((i) => [String(p), `[[${4 * p + i}.]]`]));
  }
  await next(card);
  f = await frame(card);
  // Device i gets chunk i of every device j: [[4j + i]], from j.
  for (let i = 0; i < 4; i++) {
    assert.deepEqual(f.devices[String(i)], [0, 1, 2, 3].map((j) => [String(j), `[[${4 * j + i}.]]`]));
  }
  assert.equal(f.arrows.length, 12);
  assert.deepEqual(f.arrows.filter(([, to]) => to === 2).map(([from]) => from).sort(), [0, 1, 3]);
  await next(card);
  f = await frame(card);
  // Joined along axis 0: device i holds column i of x.
  for (let i = 0; i < 4; i++) {
    const column = [0, 1, 2, 3].map((j) => `[${4 * j + i}.]`).join('\n ');
    assert.deepEqual(f.devices[String(i)], [[String(i), `[${column}]`]]);
  }
  await page.screenshot({ path: 'docs/screenshots/collective-play-all-to-all.png', fullPage: true });
  await page.close();
});

// A 2x2x2 mesh: device (i, j, k) is device 4i + 2j + k and holds
// [[[4i + 2j + k]]]; psum over 'b' adds (i, 0, k) and (i, 1, k).
const CUBE_PSUM = `import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 2, 2), ('a', 'b', 'c'))
x = jnp.arange(8.0).reshape(2, 2, 2)
f = jax.shard_map(lambda t: jax.lax.psum(t, 'b'), mesh=mesh, in_specs=P('a', 'b', 'c'), out_specs=P('a', None, 'c'))
print(f(x))
`;

test('a 2x2x2 mesh is drawn as one 2-D grid per index of its first axis, in every view', async () => {
  const page = await runProgram(CUBE_PSUM);
  const coords = [];
  for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) for (let k = 0; k < 2; k++) coords.push([i, j, k]);
  // The device cards: a facet per index of 'a', each card in its facet.
  assert.deepEqual(await page.$$eval('.mesh.facets > .facet', (fs) => fs.map((f) => f.dataset.facet)), ['a=0', 'a=1']);
  const cards = await page.$$eval('.facet .device', (ds) => ds.map((d) => [d.closest('.facet').dataset.facet, d.dataset.deviceId, d.dataset.meshCoords]));
  assert.deepEqual(cards, coords.map(([i, j, k]) => [`a=${i}`, String(4 * i + 2 * j + k), `${i},${j},${k}`]));
  // The collective's picture: a panel per index of 'a', rows 'b', columns 'c'.
  const card = page.locator('.collective[data-name=psum]');
  assert.deepEqual(await card.locator('svg.mesh-play .panel-title').evaluateAll((t) => t.map((x) => x.textContent)), ['a=0', 'a=1']);
  assert.deepEqual(await card.locator('svg.mesh-play .axis-name').evaluateAll((t) => t.map((x) => x.textContent)),
    ['c →', 'b ↓', 'c →', 'b ↓']);
  const cells = await card.locator('svg.mesh-play .device-cell').evaluateAll((cs) => cs.map((c) =>
    [c.dataset.deviceId, c.dataset.panel, Number(c.dataset.row), Number(c.dataset.col)]));
  assert.deepEqual(cells, coords.map(([i, j, k]) => [String(4 * i + 2 * j + k), `a=${i}`, j, k]));
  // Groups over 'b' are the columns of each panel, all outlined.
  assert.deepEqual(await card.locator('svg.mesh-play .group').evaluateAll((gs) => gs.map((g) => g.dataset.positions)),
    ['0,2', '1,3', '4,6', '5,7']);
  assert.equal(await card.locator('svg.mesh-play .group-outline').count(), 4);
  await next(card);
  await next(card);
  const f = await frame(card);
  for (const [i, j, k] of coords) {
    assert.deepEqual(f.devices[String(4 * i + 2 * j + k)], [[String(4 * i + 2 * j + k), `[[[${8 * i + 2 * k + 2}.]]]`]]);
  }
  await page.screenshot({ path: 'docs/screenshots/mesh-2x2x2.png', fullPage: true });
  await page.close();
});

// Groups of 8 on a 2x4 mesh. x: device p holds [[p]]; rows = arange(64)
// as 8 rows of 8, device p holding row p, [[8p .. 8p + 7]].
const MESH_2X4_ALL = `import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))
x = jnp.arange(8.0).reshape(2, 4)
rows = jnp.arange(64.0).reshape(8, 8)
def body(b, r):
    return jax.lax.psum(b, ('x', 'y')), jax.lax.all_to_all(r, ('x', 'y'), split_axis=1, concat_axis=0, tiled=True)
s, t = jax.shard_map(body, mesh=mesh, in_specs=(P('x', 'y'), P(('x', 'y'))), out_specs=(P(), P(None, ('x', 'y'))))(x, rows)
print(s, (t == rows).all())
`;

// Round k: every device of rank r sends to rank r + k (mod 8).
const shifted = (k) => [0, 1, 2, 3, 4, 5, 6, 7].map((r) => [r, (r + k) % 8]);

test('a psum over both axes of a 2x4 mesh plays as 7 rounds of one piece per device', async () => {
  const page = await runProgram(MESH_2X4_ALL);
  assert.equal(await page.textContent('[data-testid=stdout]'), '[[28.]] True\n');
  const card = page.locator('.collective[data-name=psum]');
  assert.deepEqual(await card.locator('svg.mesh-play .group').evaluateAll((gs) => gs.map((g) => g.dataset.positions)),
    ['0,1,2,3,4,5,6,7']);
  // The whole mesh is one group: outlined as one block.
  assert.equal(await card.locator('svg.mesh-play .group-outline').count(), 1);
  let f = await frame(card);
  assert.equal(f.step, 'step 1 of 9');
  for (let k = 1; k <= 7; k++) {
    await next(card);
    f = await frame(card);
    assert.match(f.caption, new RegExp(`round ${k} of 7, every device sends to the device ${k} places? after it in its group$`));
    assert.deepEqual(f.arrows, shifted(k));
    // Device 5 holds its own value and those of the k ranks before it,
    // in rank order.
    const from = [0, 1, 2, 3, 4, 5, 6, 7].filter((q) => (5 - q + 8) % 8 <= k);
    assert.deepEqual(f.devices['5'], from.map((q) => [String(q), `[[${q}.]]`]));
  }
  await next(card);
  f = await frame(card);
  assert.equal(f.step, 'step 9 of 9');
  for (let p = 0; p < 8; p++) assert.deepEqual(f.devices[String(p)], [[String(p), '[[28.]]']]);
  await page.close();
});

test('an all_to_all over 8 devices plays chunk by chunk, and device i ends with column i', async () => {
  const page = await runProgram(MESH_2X4_ALL);
  const card = page.locator('.collective[data-name=all_to_all]');
  let f = await frame(card);
  assert.equal(f.step, 'step 1 of 9');
  // Before: row p cut into 8 chunks of one element.
  assert.deepEqual(f.devices['3'], [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ['3', `[[${24 + i}.]]`]));
  await next(card);
  f = await frame(card);
  // Round 1: device i gets chunk i of device i - 1.
  assert.deepEqual(f.arrows, shifted(1));
  assert.deepEqual(f.devices['3'], [['2', '[[19.]]'], ['3', '[[27.]]']]);
  assert.deepEqual(f.devices['0'], [['0', '[[0.]]'], ['7', '[[56.]]']]);
  await next(card);
  await card.screenshot({ path: 'docs/screenshots/collective-play-all-to-all-8.png' });
  for (let k = 3; k <= 8; k++) await next(card);
  f = await frame(card);
  assert.equal(f.step, 'step 9 of 9');
  const column = (i) => `[${[0, 1, 2, 3, 4, 5, 6, 7].map((j) => `[${8 * j + i}.]`).join('\n ')}]`;
  for (let i = 0; i < 8; i++) assert.deepEqual(f.devices[String(i)], [[String(i), column(i)]]);
  await page.close();
});

// The same rows on a 2x2x2 mesh: a psum_scatter over all three axes (one
// group of 8 spread over both panels) and a psum over 'a' (pairs that
// cross from one panel to the other).
const CUBE_ALL = `import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
cube = Mesh(np.array(jax.devices()[:8]).reshape(2, 2, 2), ('a', 'b', 'c'))
rows = jnp.arange(64.0).reshape(8, 8)
def body(r):
    return jax.lax.psum_scatter(r[0], ('a', 'b', 'c'), scatter_dimension=0, tiled=True), jax.lax.psum(r, 'a')
u, v = jax.shard_map(body, mesh=cube, in_specs=P(('a', 'b', 'c')), out_specs=(P(('a', 'b', 'c')), P(('b', 'c'))))(rows)
print(u)
print(v[:, :2])
`;

test('on a 2x2x2 mesh a group of 8 and groups across panels play on both panels', async () => {
  const page = await runProgram(CUBE_ALL);
  assert.equal(await page.textContent('[data-testid=stdout]'),
    '[224. 232. 240. 248. 256. 264. 272. 280.]\n[[32. 34.]\n [48. 50.]\n [64. 66.]\n [80. 82.]]\n');
  const scatter = page.locator('.collective[data-name=psum_scatter]');
  assert.deepEqual(await scatter.locator('svg.mesh-play .group').evaluateAll((gs) => gs.map((g) => g.dataset.positions)),
    ['0,1,2,3,4,5,6,7']);
  // The group fills both panels: outlined in each.
  assert.equal(await scatter.locator('svg.mesh-play .group-outline').count(), 2);
  await next(scatter);
  await next(scatter);
  let f = await frame(scatter);
  // Round 2: device 6 (a=1, b=1, c=0) has block 6 of devices 4, 5 and its own.
  assert.deepEqual(f.arrows, shifted(2));
  assert.deepEqual(f.devices['6'], [4, 5, 6].map((q) => [String(q), `[${8 * q + 6}.]`]));
  for (let k = 3; k <= 8; k++) await next(scatter);
  f = await frame(scatter);
  assert.equal(f.step, 'step 9 of 9');
  // Device j: the sum over q of 8q + j.
  for (let j = 0; j < 8; j++) assert.deepEqual(f.devices[String(j)], [[String(j), `[${224 + 8 * j}.]`]]);

  const pairs = page.locator('.collective[data-name=psum]');
  assert.deepEqual(await pairs.locator('svg.mesh-play .group').evaluateAll((gs) => gs.map((g) => g.dataset.positions)),
    ['0,4', '1,5', '2,6', '3,7']);
  // One cell in each panel: shown by colour, not outlined.
  assert.equal(await pairs.locator('svg.mesh-play .group-outline').count(), 0);
  await next(pairs);
  f = await frame(pairs);
  assert.equal(f.step, 'step 2 of 3');
  assert.deepEqual(f.arrows, [[0, 4], [4, 0], [1, 5], [5, 1], [2, 6], [6, 2], [3, 7], [7, 3]]);
  // Each arrow runs from a cell of panel a=0 to the same cell of a=1.
  const ends = await pairs.locator('svg.mesh-play .device-cell').evaluateAll((cs) => cs.map((c) => c.dataset.panel));
  assert.deepEqual(ends, ['a=0', 'a=0', 'a=0', 'a=0', 'a=1', 'a=1', 'a=1', 'a=1']);
  await pairs.screenshot({ path: 'docs/screenshots/collective-play-2x2x2.png' });
  await page.close();
});

// Steps that move no data, each for its own reason: a psum over an axis of
// size 1, a psum of an array with no elements, and a ppermute without
// pairs, which moves nothing yet gives zeros.
const NO_DATA = `import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:4]).reshape(4, 1), ('x', 'y'))
x = jnp.arange(4.0)
e = jnp.zeros((4, 0))
def body(b, z):
    return jax.lax.psum(b, 'y'), jax.lax.psum(z, 'x'), jax.lax.ppermute(b, 'x', perm=[])
s, t, u = jax.shard_map(body, mesh=mesh, in_specs=(P('x'), P('x')), out_specs=(P('x'), P(), P('x')))(x, e)
print(s, t.shape, u)
`;

test('steps that move no data say why, and a ppermute without pairs stays in view', async () => {
  const page = await runProgram(NO_DATA);
  assert.equal(await page.textContent('[data-testid=stdout]'), '[0. 1. 2. 3.] (1, 0) [0. 0. 0. 0.]\n');
  const cards = await page.$$eval('li.collective', (cs) => cs.map((c) => [c.dataset.collective, c.dataset.name,
    c.dataset.internal, c.querySelector('.collective-words').textContent,
    c.querySelector(':scope > .dim').textContent.replace(/ · [\d.]+ (µs|ms) on the slowest device$/, '')]));
  assert.deepEqual(cards, [
    ['ppermute', 'ppermute', 'false', 'no pair sends anything: every device gets zeros', 'groups {0, 1, 2, 3} · 0 bytes moved'],
    ['pvary', 'pvary', 'true', 'marks the value as varying over the axis: no data moves', 'groups {0} {1} {2} {3} · 0 bytes moved'],
    ['psum_invariant', 'psum', 'true', 'every group is one device: no data moves', 'groups {0} {1} {2} {3} · 0 bytes moved'],
    ['psum_invariant', 'psum', 'true', 'the value has no elements: no data moves', 'groups {0, 1, 2, 3} · 0 bytes moved'],
  ]);
  assert.equal(await page.textContent('details.internal-steps > summary'), 'show internal steps (3)');
  await page.close();
});
