// Sharded arrays in the device view: every named array laid out over a mesh
// drawn tile by tile (devices and index ranges), checked against ranges
// worked out by hand and against real JAX's shardings; and Web Worker
// devices by default on a cross-origin-isolated page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open, runsDone } from './harness.mjs';

let h;
before(async () => {
  h = await open();
});
after(() => h.close());

const link = (code) => '#devices=8&code=' + Buffer.from(code, 'utf8').toString('base64url');

// { device id: 'a:b,c:d,...' } of the layout of `name`.
async function tilesOf(page, name) {
  return page.$$eval(`.layout[data-array="${name}"] .tile`, (tiles) => {
    const out = {};
    for (const t of tiles) for (const d of t.dataset.devices.split(',')) out[d] = t.dataset.index;
    return out;
  });
}

const CUBE = `import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 2, 2), ('a', 'b', 'c'))
cube = jax.device_put(jnp.arange(64.0).reshape(4, 4, 4), NamedSharding(mesh, P('a', 'b', 'c')))
doubled = jax.shard_map(lambda t: t * 2, mesh=mesh, in_specs=P('a', 'b', 'c'), out_specs=P('a', 'b', 'c'))(cube)
print(cube.sum())
`;

test('the page runs on Web Worker devices by default where it is isolated', async () => {
  const page = await h.page();
  await runsDone(page, 1);
  assert.equal(await page.inputValue('#mode'), 'parallel');
  assert.match(await page.textContent('#status'), /running in parallel: 8 device Web Workers sharing a SharedArrayBuffer · done/);
  assert.equal(await page.getAttribute('.map-mode', 'data-mode'), 'parallel');
  assert.match(await page.textContent('.map-mode'), /ran on 8 Web Workers/);
  await page.selectOption('#mode', 'lockstep');
  await runsDone(page, 2);
  assert.match(await page.textContent('#status'), /running in lockstep: 8 devices simulated in one worker \(chosen under Mode\)/);
  assert.equal(await page.getAttribute('.map-mode', 'data-mode'), 'lockstep');
  await page.close();
});

test('a 4x4x4 array on a 2x2x2 mesh: every tile, with its device and ranges', async () => {
  const page = await h.page(link(CUBE));
  await runsDone(page, 1);
  const error = await page.$eval('[data-testid=error]', (e) => (e.hidden ? '' : e.textContent));
  assert.equal(error, '');
  // Device at mesh coordinates (i, j, k) is device 4i + 2j + k and holds
  // [2i:2i+2, 2j:2j+2, 2k:2k+2].
  const expected = {};
  for (let i = 0; i < 2; i++) {
    for (let j = 0; j < 2; j++) {
      for (let k = 0; k < 2; k++) {
        expected[String(4 * i + 2 * j + k)] = [i, j, k].map((c) => `${2 * c}:${2 * c + 2}`).join(',');
      }
    }
  }
  assert.deepEqual(await tilesOf(page, 'cube'), expected);
  assert.equal(await page.$$eval('.layout[data-array="cube"] .tile', (t) => t.length), 8);
  assert.deepEqual(await page.$$eval('.layout[data-array="cube"] .tile-slice', (s) => s.map((x) => x.dataset.slice)),
    ['0:2', '2:4']);
  assert.equal(await page.textContent('.layout[data-array="cube"] .typeof'), 'float32[4,4,4]');
  // The mesh beside it: one grid per index of 'a', every device at its
  // coordinates.
  const meshCells = await page.$$eval('.layout[data-array="cube"] .mesh-cell', (cs) =>
    cs.map((c) => [c.closest('.mesh-slice').dataset.slice, c.dataset.device, c.dataset.meshCoords]));
  assert.deepEqual(meshCells, Object.keys(expected).map((d) => {
    const [i, j, k] = [Number(d) >> 2, (Number(d) >> 1) & 1, Number(d) & 1];
    return [`a=${i}`, d, `${i},${j},${k}`];
  }));
  const splits = await page.$$eval('.layout[data-array="cube"] .splits li', (l) => l.map((x) => x.textContent));
  assert.deepEqual(splits, [
    "dim 0 (4): split by 'a' into 2 blocks of 2",
    "dim 1 (4): split by 'b' into 2 blocks of 2",
    "dim 2 (4): split by 'c' into 2 blocks of 2",
  ]);
  // The shard_map's own view of its 3-D input shows all 8 devices too.
  const mapTiles = await page.$$eval('.global-array .tile', (t) => t.map((x) => x.dataset.devices).sort());
  assert.deepEqual(mapTiles, ['0', '0', '1', '1', '2', '2', '3', '3', '4', '4', '5', '5', '6', '6', '7', '7']);
  assert.equal(await page.$$eval('.global-array figcaption', (f) => f.some((x) => /first two/.test(x.textContent))), false);
  await page.screenshot({ path: 'docs/screenshots/sharded-cube.png', fullPage: true });
  await page.close();
});

test('the sharded-arrays example: each layout is where JAX puts it', async () => {
  const jax = JSON.parse(readFileSync('tests/fixtures/layouts/sharded_arrays.json', 'utf8')).arrays;
  const page = await h.page();
  await runsDone(page, 1);
  await page.selectOption('#example', 'sharded_arrays.py');
  await runsDone(page, 2);
  const error = await page.$eval('[data-testid=error]', (e) => (e.hidden ? '' : e.textContent));
  assert.equal(error, '');
  // What it prints (typeof, shardings, values) is what JAX prints.
  const printed = JSON.parse(readFileSync('tests/fixtures/programs/sharded_arrays.json', 'utf8')).stdout;
  assert.equal(await page.textContent('[data-testid=stdout]'), printed);
  const shown = await page.$$eval('.layout', (l) => l.map((x) => x.dataset.array));
  assert.deepEqual(shown, Object.keys(jax));
  for (const [name, a] of Object.entries(jax)) {
    const section = `.layout[data-array="${name}"]`;
    assert.equal(await page.textContent(`${section} .typeof`), a.type_text, `${name}: jax.typeof`);
    assert.ok((await page.textContent(`${section} h4`)).includes(`NamedSharding(${a.spec})`), `${name}: spec`);
    const want = Object.fromEntries(Object.entries(a.tiles).map(([d, r]) => [d, r.map(([p, q]) => `${p}:${q}`).join(',')]));
    assert.deepEqual(await tilesOf(page, name), want, `${name}: tiles`);
  }
  // x is split over 'data' and copied over 'model'.
  assert.match(await page.textContent('.layout[data-array="x"] .replication'), /replicated over 'model': each block is on 4 devices/);
  await page.screenshot({ path: 'docs/screenshots/sharded-arrays.png', fullPage: true });
  await page.close();
});
