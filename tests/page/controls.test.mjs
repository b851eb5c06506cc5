// The controls never disagree with the code: Axis names renames every axis
// the program uses (or refuses, saying why), Devices follows the code's
// device count and explains a value the code cannot run with, a refused
// control greys the results as stale, long lines wrap, choosing an example
// over edits asks first, and Back walks the examples and controls.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, runsDone } from './harness.mjs';

let h;
before(async () => {
  h = await open();
});
after(() => h.close());

const code = (page) => page.$$eval('.cm-line', (ls) => ls.map((l) => l.textContent).join('\n'));

async function setField(page, label, value) {
  const field = page.getByLabel(label, { exact: true });
  await field.fill(value);
  await field.press('Enter');
}

async function replaceCode(page, text) {
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

async function assertStale(page, reason) {
  assert.ok(await page.getByTestId('stale').isVisible(), 'the stale note shows');
  assert.match(await page.getByTestId('stale').textContent(), /^Stale: /);
  assert.match(await page.getByTestId('stale').textContent(), reason);
  assert.ok(await page.$eval('#last-good', (e) => e.classList.contains('stale')));
  assert.ok(await page.$eval('#report', (e) => e.classList.contains('stale')));
}

test('renaming the axes renames them in the mesh, the specs and the collectives, not in comments', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  const result = await page.textContent('[data-testid=result]');
  const comment = (await code(page)).split('\n').slice(0, 2).join('\n');
  await setField(page, 'Axis names', 'rows,cols');
  await runsDone(page, 2);
  const text = await code(page);
  assert.ok(text.includes("Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('rows', 'cols'))"));
  assert.ok(text.includes("jax.lax.psum(block, 'cols')"));
  assert.ok(text.includes("in_specs=P('rows', 'cols'), out_specs=P('rows', None)"));
  assert.ok(!/'[xy]'/.test(text.split('\n').slice(2).join('\n')), 'no quoted x or y left in the code');
  assert.equal(text.split('\n').slice(0, 2).join('\n'), comment, 'the comments are as written');
  assert.ok(await page.getByTestId('error').isHidden());
  assert.ok(await page.getByTestId('stale').isHidden());
  assert.equal(await page.textContent('[data-testid=result]'), result, 'the same sums under the new names');
  assert.equal(await page.textContent('[data-device-id="5"] .coords'), 'rows=1 cols=1');
  // The spec fields follow the code.
  assert.equal(await page.getByLabel('in_specs of shard_map at line 8').inputValue(), "P('rows', 'cols')");
  await page.close();
});

test('a ring names its axis in mesh.shape and ppermute: both follow', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  await page.selectOption('#example', 'ppermute_ring.py');
  await runsDone(page, 2);
  const result = await page.textContent('[data-testid=result]');
  await setField(page, 'Axis names', 'ring');
  await runsDone(page, 3);
  const text = await code(page);
  assert.ok(text.includes("n = mesh.shape['ring']"));
  assert.ok(text.includes("jax.lax.ppermute(block, 'ring', perm=ring)"));
  assert.ok(text.includes("# A ring: every device passes its block to the next one along 'x'."));
  assert.equal(await page.textContent('[data-testid=result]'), result);
  await page.close();
});

test('a mesh over devices built elsewhere: its axis renames everywhere, or is refused on a clash', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  await page.selectOption('#example', 'tour.py');
  await runsDone(page, 2);
  const result = await page.textContent('[data-testid=result]');
  assert.equal(await page.getByLabel('Axis names').inputValue(), 'data');
  assert.ok(await page.getByLabel('Mesh shape').isDisabled());
  await setField(page, 'Axis names', 'x');
  assert.equal(await page.textContent('#mesh-msg'), "Axis names: 'x' already names an axis at line 19");
  await assertStale(page, /already names an axis/);
  await setField(page, 'Axis names', 'batch');
  await runsDone(page, 3);
  const text = await code(page);
  assert.ok(text.includes("mesh = Mesh(devices, ('batch',))"));
  assert.ok(text.includes("jax.lax.psum(jnp.sum(x), 'batch')"));
  assert.ok(text.includes("jax.lax.pmean(g, 'batch')"));
  assert.ok(text.includes("mesh2 = Mesh(devices.reshape(2, 4), ('x', 'y'))"), 'the other mesh keeps its axes');
  assert.ok(text.includes("# 4. Gradients. The weight w is replicated (P()); the data is split over 'data'."));
  assert.ok(!text.includes("'data')"));
  assert.equal(await page.textContent('[data-testid=result]'), result);
  assert.ok(await page.getByTestId('stale').isHidden());
  await page.close();
});

test('an axis the text cannot rename is refused at the control, and the results go stale', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  const program = `import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
axis = 'x'
f = jax.shard_map(lambda b: jax.lax.psum(b, axis), mesh=mesh, in_specs=P('x'), out_specs=P())
result = f(jnp.arange(4.0))
`;
  await replaceCode(page, program);
  await page.click('#run');
  await runsDone(page, 2);
  await setField(page, 'Axis names', 'i');
  assert.match(await page.textContent('#mesh-msg'),
    /^Axis names: line 5 gives an axis of psum\(\.\.\.\) as `axis`, which is worked out when the program runs; rename the axis in the code$/);
  assert.equal(await page.getByLabel('Axis names').getAttribute('aria-invalid'), 'true');
  assert.equal(await code(page), program, 'the program is unchanged');
  await assertStale(page, /rename the axis in the code/);
  await page.screenshot({ path: 'docs/screenshots/rename-refused.png' });
  await page.close();
});

test('Devices follows the code and explains a count the code cannot run with', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  assert.equal(await page.textContent('#devices-note'), 'set by line 6: jax.devices()[:8]');
  await page.selectOption('#example', 'all_to_all.py');
  await runsDone(page, 2);
  assert.equal(await page.getByLabel('Devices').inputValue(), '4');
  assert.equal(await page.textContent('#devices-note'), 'set by line 6: jax.devices()[:4]');
  assert.equal(await page.$$eval('#report .device[data-device-id]', (d) => d.length), 4);

  // The tour builds its meshes from jax.devices()[:8] (no control rewrites
  // them): 4 devices are refused before the run, with what to change.
  await page.selectOption('#example', 'tour.py');
  await runsDone(page, 3);
  assert.equal(await page.getByLabel('Devices').inputValue(), '8');
  await setField(page, 'Devices', '4');
  assert.equal(await page.textContent('#devices-msg'),
    'Devices: line 9 takes jax.devices()[:8], the first 8 devices: set Devices to 8 or more, or change that line first');
  await assertStale(page, /set Devices to 8 or more/);
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => document.body.dataset.runs), '3', 'nothing ran');
  await setField(page, 'Devices', '8');
  await runsDone(page, 4);
  assert.ok(await page.getByTestId('stale').isHidden());
  assert.equal(await page.textContent('#devices-msg'), '');

  // create_device_mesh lays out every device: Devices follows the edit to the code.
  await replaceCode(page, `import jax, jax.numpy as jnp
from jax.experimental import mesh_utils
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(mesh_utils.create_device_mesh((2, 2)), ('a', 'b'))
f = jax.shard_map(lambda v: jax.lax.psum(v, 'a'), mesh=mesh, in_specs=P('a', 'b'), out_specs=P(None, 'b'))
result = f(jnp.arange(8.0).reshape(2, 4))
`);
  await runsDone(page, 5);
  assert.equal(await page.getByLabel('Devices').inputValue(), '4');
  assert.equal(await page.textContent('#devices-note'), 'set by line 4: mesh_utils.create_device_mesh((2, 2))');
  // x = arange(8).reshape(2, 4): psum over 'a' adds the two rows.
  assert.match(await page.textContent('[data-testid=result]'), /4,\s*6,\s*8,\s*10/);
  await setField(page, 'Devices', '8');
  assert.match(await page.textContent('#devices-msg'), /^Devices: line 4 \(mesh_utils\.create_device_mesh\(\(2, 2\)\)\) lays out exactly 4 devices: set Devices to 4/);
  await page.close();
});

test('long lines wrap in the editor', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  const long = 'print(' + Array.from({ length: 60 }, (_, i) => `${i}`).join(' + ') + ')';
  await replaceCode(page, `import jax\n${long}\nresult = 1\n`);
  const { scroll, client } = await page.$eval('.cm-scroller', (s) => ({ scroll: s.scrollWidth, client: s.clientWidth }));
  assert.ok(scroll <= client + 1, `no horizontal scrolling (${scroll} > ${client})`);
  const heights = await page.$$eval('.cm-line', (ls) => ls.map((l) => l.getBoundingClientRect().height));
  assert.ok(heights[1] > 1.8 * heights[0], 'the long line takes several rows');
  await page.close();
});

test('choosing an example over edits asks first', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  const dialogs = [];
  let answer = 'dismiss';
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d[answer]();
  });
  // No edits: no question.
  await page.selectOption('#example', 'gather_scatter.py');
  await runsDone(page, 2);
  assert.equal(dialogs.length, 0);
  await page.click('.cm-content');
  await page.keyboard.press('Control+End');
  await page.keyboard.insertText('\n# my note');
  await runsDone(page, 3);
  await page.selectOption('#example', 'ppermute_ring.py');
  await page.waitForTimeout(300);
  assert.equal(dialogs.length, 1);
  assert.match(dialogs[0], /Replace your edits/);
  assert.ok((await code(page)).includes('# my note'), 'the edits stay');
  assert.equal(await page.inputValue('#example'), '');
  answer = 'accept';
  await page.selectOption('#example', 'ppermute_ring.py');
  await runsDone(page, 4);
  assert.equal(dialogs.length, 2);
  assert.ok((await code(page)).includes('ppermute'));
  assert.ok(!(await code(page)).includes('# my note'));
  await page.close();
});

test('Back and Forward walk the examples and the controls', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  await page.selectOption('#example', 'ppermute_ring.py');
  await runsDone(page, 2);
  await page.goBack();
  await runsDone(page, 3);
  assert.equal(await page.inputValue('#example'), 'psum_2d.py');
  assert.ok((await code(page)).includes('reshape(2, 4)'));
  await setField(page, 'Mesh shape', '4x2');
  await runsDone(page, 4);
  assert.ok((await code(page)).includes('reshape(4, 2)'));
  await page.goBack();
  await runsDone(page, 5);
  assert.equal(await page.getByLabel('Mesh shape').inputValue(), '2x4');
  assert.ok((await code(page)).includes('reshape(2, 4)'));
  // psum over 'y' of a 2x4 mesh: row 0 of arange(32).reshape(4, 8) summed in
  // column pairs, 0+2+4+6 and 1+3+5+7.
  assert.match(await page.textContent('[data-testid=result]'), /\[12, 16\]/);
  await page.goForward();
  await runsDone(page, 6);
  assert.equal(await page.getByLabel('Mesh shape').inputValue(), '4x2');
  await page.close();
});
