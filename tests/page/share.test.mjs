// The URL holds the program and the device count, so a link reproduces the
// view; "Download as JAX" adds the XLA_FLAGS prelude.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { open, runsDone } from './harness.mjs';

let h;
before(async () => {
  h = await open();
});
after(() => h.close());

const PROGRAM = `import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:4]), ('i',))
f = jax.shard_map(lambda v: jax.lax.psum(v, 'i'), mesh=mesh, in_specs=P('i'), out_specs=P())
result = f(jnp.arange(4.0) + 0.5)  # 0.5 + 1.5 + 2.5 + 3.5 = 8
print("shared program")
`;

test('a shared link reproduces the program and its result', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(PROGRAM);
  await page.getByLabel('Devices').fill('4');
  await page.getByLabel('Devices').press('Enter');
  await runsDone(page, 2);
  assert.equal(await page.textContent('[data-testid=result]'), '[8]');
  const url = page.url();
  assert.match(url, /#devices=4&mode=parallel&code=/);
  await page.close();

  const other = await h.context.newPage();
  await other.goto(url);
  await runsDone(other, 1);
  const code = await other.$$eval('.cm-line', (ls) => ls.map((l) => l.textContent).join('\n'));
  assert.equal(code, PROGRAM);
  assert.equal(await other.getByLabel('Devices').inputValue(), '4');
  assert.equal(await other.getByLabel('Mesh shape').inputValue(), '4');
  assert.equal(await other.getByLabel('Axis names').inputValue(), 'i');
  assert.equal(await other.textContent('[data-testid=result]'), '[8]');
  assert.equal(await other.textContent('[data-testid=stdout]'), 'shared program\n');

  const [file] = await Promise.all([other.waitForEvent('download'), other.click('#download')]);
  const text = await readFile(await file.path(), 'utf8');
  assert.ok(text.startsWith('# Run with JAX'));
  assert.ok(text.includes('os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"\n'));
  assert.ok(text.indexOf('XLA_FLAGS') < text.indexOf('import jax'));
  assert.ok(text.endsWith(PROGRAM));
  await other.close();
});
