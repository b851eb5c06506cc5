// What jit does to sharded arrays, on the page: the collectives the
// partitioner inserts, each labelled with the line of the operation that
// needed it, the per-device program behind a button, the examples of the
// modern sharding API, and a failed run's output before its error.
// Expected values are worked out by hand below or come from real JAX
// (tests/fixtures/programs, written by tests/jax/gen_programs.py).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open, runsDone } from './harness.mjs';

let h;
before(async () => {
  h = await open();
});
after(() => h.close());

const link = (code, devices = 8) => `#devices=${devices}&code=` + Buffer.from(code, 'utf8').toString('base64url');
const fixture = (name) => JSON.parse(readFileSync(`tests/fixtures/programs/${name}.json`, 'utf8'));

// x (8, 4) = arange(32), rows split over 'x' (device p: rows 2p, 2p + 1);
// w = ones((4, 8)), columns split over 'x'. XLA's compiled program for f
// (`jax.jit(f).lower(x, w).compile().as_text()`) all-gathers w and
// all-reduces the sum; shardlab inserts the same two. Row r of x sums to
// 16r + 6, so device 1 (rows 2, 3) holds (38 + 54) * 8 = 736 before the
// all-reduce and every device 3968 after it.
const MATMUL = `import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((4,), ('x',), axis_types=(jax.sharding.AxisType.Auto,))
x = jax.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(mesh, P('x', None)))
w = jax.device_put(jnp.ones((4, 8)), NamedSharding(mesh, P(None, 'x')))
def f(x, w):
    h = x @ w
    return h.sum()
result = jax.jit(f)(x, w)
`;

test('the collectives jit inserts are labelled with their operation\'s line', async () => {
  const page = await h.page(link(MATMUL, 4));
  await runsDone(page, 1);
  assert.equal(await page.$eval('[data-testid=error]', (e) => (e.hidden ? '' : e.textContent)), '');
  const title = await page.$eval('#map-select option:checked', (o) => o.textContent);
  assert.match(title, /^1\. jit at line 9 on mesh \(x=4\)/);
  const cards = page.locator('#report .collectives-box > ol.collectives > li.collective');
  assert.equal(await cards.count(), 2);
  const gather = cards.nth(0);
  const sum = cards.nth(1);
  assert.equal(await gather.getAttribute('data-name'), 'all_gather');
  assert.equal(await sum.getAttribute('data-name'), 'psum');
  assert.equal(await gather.locator('.collective-line').textContent(), 'inserted by jit at line 7');
  assert.equal(await sum.locator('.collective-line').textContent(), 'inserted by jit at line 8');
  // 4 devices each receive the other 3 blocks of 8 floats; the scalar's
  // all-reduce moves 2 * 3 * 4 bytes.
  assert.match(await gather.textContent(), /groups \{0, 1, 2, 3\} · 384 bytes moved/);
  assert.match(await sum.textContent(), /24 bytes moved/);
  const row = sum.locator('.before-after tbody tr[data-device-id="1"]');
  assert.equal((await row.locator('td.before').textContent()).trim(), '736.');
  assert.equal((await row.locator('td.after').textContent()).trim(), '3968.');
  assert.match(await page.locator('.jit-call p').textContent(), /Inserted: all_gather \(line 7\), psum \(line 8\)\./);
  // A line label selects that line in the code.
  await gather.locator('button.collective-line').click();
  assert.equal(await page.evaluate(() => document.getSelection().toString()), '    h = x @ w');
  await page.screenshot({ path: 'docs/screenshots/jit-inserted-collectives.png', fullPage: true });
  await page.close();
});

test('the per-device program of a jitted call is one click away', async () => {
  const page = await h.page(link(MATMUL, 4));
  await runsDone(page, 1);
  const program = page.getByTestId('per-device-program');
  assert.ok(await program.isHidden());
  await page.click('.per-device-button');
  assert.ok(await program.isVisible());
  const text = await program.textContent();
  // Local shapes: each device's (2, 4) rows of x and (4, 2) columns of w.
  assert.match(text, /a:f32\[2,4\] b:f32\[4,2\]/);
  assert.match(text, /all_gather\[/);
  assert.match(text, /psum\[axes=\('x',\)/);
  assert.equal(await page.getAttribute('.per-device-button', 'aria-expanded'), 'true');
  await page.click('.per-device-button');
  assert.ok(await program.isHidden());
  await page.close();
});

test('the explicit-sharding example prints what JAX prints and shows its reshard', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  await page.selectOption('#example', 'explicit_sharding.py');
  await runsDone(page, 2);
  assert.equal(await page.textContent('[data-testid=stdout]'), fixture('explicit_sharding').stdout);
  const titles = await page.$$eval('#map-select option', (o) => o.map((x) => x.textContent));
  assert.ok(titles.some((t) => /^2\. reshard at line 30 on mesh \(data=2, model=4\) · all_gather/.test(t)), titles.join(' | '));
  // The matmul with out_sharding=P('data', None) gathers w's columns.
  assert.match(titles[0], /^1\. jit at line 26 .*all_gather/);
  assert.equal(await page.locator('#report li.collective[data-name=all_gather] .collective-line').first().textContent(),
    'inserted by jit at line 23');
  await page.close();
});

test('the jitted MLP example prints JAX\'s losses and lists the collectives of each step', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  await page.selectOption('#example', 'jit_mlp_auto.py');
  await runsDone(page, 2);
  const ours = (await page.textContent('[data-testid=stdout]')).trim().split('\n');
  const jax = fixture('jit_mlp_auto').stdout.trim().split('\n');
  assert.equal(ours.length, jax.length);
  for (const [i, line] of ours.entries()) {
    const [a, b] = [line.split(' '), jax[i].split(' ')];
    // Losses agree with JAX's to float32 precision (JAX prints the
    // shortest digits of its own float, which may differ in the last).
    if (/^\d+ [\d.]+$/.test(line)) assert.ok(Math.abs(Number(a[1]) - Number(b[1])) < 1e-6, `${line} vs ${jax[i]}`);
    else assert.equal(line, jax[i]);
  }
  const titles = await page.$$eval('#map-select option', (o) => o.map((x) => x.textContent));
  assert.equal(titles.length, 3);
  // axis_index moves no data: an internal step, left out of the titles.
  assert.ok(titles.every((t) => /jit at line 36 on mesh \(data=2, model=4\) · psum$/.test(t)), titles.join(' | '));
  // The second layer's partial sums (line 26) are summed over 'model'; the
  // loss (line 27) and the gradients over 'data'.
  const lines = await page.$$eval('#report .collectives-box > ol.collectives > li.collective .collective-line', (l) => l.map((x) => x.textContent));
  assert.deepEqual(lines, [26, 27, 26, 25].map((n) => `inserted by jit at line ${n}`));
  await page.close();
});

test('a failed run shows what it printed before the error', async () => {
  const page = await h.page(link('import jax.numpy as jnp\nprint("before", jnp.arange(3.0))\nresult = jnp.ones(3) + jnp.ones(4)\n'));
  await runsDone(page, 1);
  assert.match(await page.getByTestId('error').textContent(), /line 3:/);
  const printed = page.getByTestId('error-stdout');
  assert.ok(await printed.isVisible());
  assert.equal(await printed.textContent(), 'before [0. 1. 2.]\n');
  await page.screenshot({ path: 'docs/screenshots/output-before-error.png' });
  // A good run hides it again.
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText('result = 1\n');
  await page.click('#run');
  await runsDone(page, 2);
  assert.ok(await printed.isHidden());
  await page.close();
});
