// The mesh controls rewrite the program's Mesh(...) line, re-run it, and
// refuse values that cannot work; editing the code updates them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, runsDone } from './harness.mjs';

let h;
before(async () => {
  h = await open();
});
after(() => h.close());

// The numbers of a shard shown on a device, in order.
async function shardValues(page, device, array) {
  const text = await page.textContent(
    `#report [data-device-id="${device}"] [data-array="${array}"] .values`,
  );
  return [...text.matchAll(/-?\d+(\.\d*)?/g)].map((m) => Number(m[0]));
}

async function setField(page, label, value) {
  const field = page.getByLabel(label, { exact: true });
  await field.fill(value);
  await field.press('Enter');
}

test('2x4 to 4x2 on the 2-D psum example', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  assert.equal(await page.inputValue('#example'), 'psum_2d.py');
  assert.equal(await page.getByLabel('Mesh shape').inputValue(), '2x4');
  assert.equal(await page.getByLabel('Axis names').inputValue(), 'x,y');

  await setField(page, 'Mesh shape', '4x2');
  await runsDone(page, 2);
  const code = await page.textContent('.cm-content');
  assert.ok(
    code.includes("Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ('x', 'y'))"),
    'the Mesh line was rewritten',
  );
  // x = arange(32).reshape(4, 8) over a 4x2 mesh with P('x', 'y'): the
  // device at (i, j) holds row i, columns 4j..4j+3, i.e. 8i+4j .. 8i+4j+3.
  // psum over 'y' adds the two halves of row i:
  //   (8i + k) + (8i + 4 + k) = 16i + 4 + 2k for k = 0..3.
  assert.equal(await page.getAttribute('[data-device-id="3"]', 'data-mesh-coords'), '1,1');
  assert.deepEqual(await shardValues(page, 3, 'in 0'), [12, 13, 14, 15]); // row 1, cols 4..7
  assert.deepEqual(await shardValues(page, 0, 'out 0'), [4, 6, 8, 10]); // i = 0
  assert.deepEqual(await shardValues(page, 1, 'out 0'), [4, 6, 8, 10]); // i = 0, replicated over y
  assert.deepEqual(await shardValues(page, 2, 'out 0'), [20, 22, 24, 26]); // i = 1
  assert.deepEqual(await shardValues(page, 7, 'out 0'), [52, 54, 56, 58]); // i = 3
  assert.equal(
    await page.textContent('[data-testid=result]'),
    '[\n  [4, 6, 8, 10],\n  [20, 22, 24, 26],\n  [36, 38, 40, 42],\n  [52, 54, 56, 58]\n]',
  );
  await page.screenshot({ path: 'docs/screenshots/psum-2d-4x2.png', fullPage: true });
  await page.close();
});

test('invalid mesh values are refused at the control with the reason', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  const before = await page.textContent('.cm-content');

  await setField(page, 'Mesh shape', '3x3');
  assert.match(await page.textContent('#mesh-msg'), /needs 9 devices, there are 8/);
  assert.equal(await page.getByLabel('Mesh shape').getAttribute('aria-invalid'), 'true');

  await setField(page, 'Mesh shape', '3');
  assert.match(await page.textContent('#mesh-msg'), /8 devices do not divide into meshes of 3/);

  await setField(page, 'Mesh shape', '2x4');
  await runsDone(page, 2);
  await setField(page, 'Axis names', 'x,x');
  assert.match(await page.textContent('#mesh-msg'), /"x" is used twice/);
  await setField(page, 'Axis names', 'x,');
  assert.match(await page.textContent('#mesh-msg'), /empty/);
  await setField(page, 'Axis names', 'x');
  assert.match(await page.textContent('#mesh-msg'), /2 axes but 1 axis name$/);
  await setField(page, 'Devices', '17');
  assert.match(await page.textContent('#devices-msg'), /1 to 16/);
  assert.equal(await page.textContent('.cm-content'), before, 'the program is unchanged');
  await page.screenshot({ path: 'docs/screenshots/refused-mesh.png' });
  await page.close();
});

test('editing the Mesh line updates the controls', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  const text = await page.$$eval('.cm-line', (ls) => ls.map((l) => l.textContent).join('\n'));
  const edited = text.replace('reshape(2, 4), (\'x\', \'y\')', 'reshape(2, 2, 2), (\'a\', \'b\', \'c\')');
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(edited);
  assert.equal(await page.getByLabel('Mesh shape').inputValue(), '2x2x2');
  assert.equal(await page.getByLabel('Axis names').inputValue(), 'a,b,c');
  await page.close();
});

// Explicit sharding's usual mesh: make_mesh with axis_types. The printed
// lines are what JAX 0.10.2 prints for the 2x4 and the 4x2 mesh.
const EXPLICIT = `import jax, jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((2, 4), ('x', 'y'), axis_types=(AxisType.Explicit,) * 2)
a = jax.device_put(jnp.arange(16.0).reshape(4, 4), NamedSharding(mesh, P('x', 'y')))
print(jax.typeof(a), dict(mesh.shape), a.addressable_shards[0].data.shape)
`;

test('a make_mesh with axis_types: Mesh shape changes its sizes, keeps axis_types, refuses a new number of axes', async () => {
  const page = await h.page('#devices=8&code=' + Buffer.from(EXPLICIT, 'utf8').toString('base64url'));
  await runsDone(page, 1);
  assert.equal(await page.textContent('[data-testid=stdout]'), "float32[4@x,4@y] {'x': 2, 'y': 4} (2, 1)\n");
  assert.equal(await page.getByLabel('Mesh shape').inputValue(), '2x4');
  assert.equal(await page.getByLabel('Mesh shape').isDisabled(), false);

  await setField(page, 'Mesh shape', '4x2');
  await runsDone(page, 2);
  assert.ok((await page.textContent('.cm-content'))
    .includes("mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Explicit,) * 2)"));
  assert.equal(await page.textContent('[data-testid=stdout]'), "float32[4@x,4@y] {'x': 4, 'y': 2} (1, 2)\n");

  const code = await page.textContent('.cm-content');
  await setField(page, 'Mesh shape', '8');
  assert.equal(await page.textContent('#mesh-msg'),
    'Mesh shape: line 3 gives axis_types, one per axis: for a mesh of 1 axis, change that line in the code; here only the sizes of its 2 axes can change');
  assert.equal(await page.textContent('.cm-content'), code, 'the program is unchanged');
  assert.ok(await page.locator('#stale').isVisible());
  await page.close();
});
