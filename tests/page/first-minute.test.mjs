// The first minute on the page: a line saying what to do, the device view
// above the fold of a 1400x900 window, a legend for its colours, Result and
// Output explained, "training" only for programs that train, loss charts
// on a scale that reads, and no console error on load.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, runsDone } from './harness.mjs';

let h;
before(async () => {
  h = await open();
});
after(() => h.close());

async function replaceCode(page, text) {
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

test('the page loads without a console error or a failed request', async () => {
  const page = await h.context.newPage();
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
  page.on('requestfailed', (r) => errors.push(`failed ${r.url()}`));
  await page.goto(h.url);
  await runsDone(page, 1);
  // The browser asks for the icon on its own schedule: give it a moment.
  await page.waitForTimeout(500);
  assert.deepEqual(errors, []);
  assert.equal(await page.$eval('link[rel=icon]', (l) => l.href), h.url + 'favicon.svg');
  await page.close();
});

test('at 1400x900: what to do, the devices above the fold, a legend, Result and Output explained', async () => {
  const page = await h.page('#');
  await page.setViewportSize({ width: 1400, height: 900 });
  await runsDone(page, 1);
  const lead = page.locator('#lead');
  assert.match(await lead.textContent(), /^Pick an example or edit the code, then change Devices, Mesh shape or Axis names/);
  assert.ok((await lead.boundingBox()).y < 60);
  const device = await page.locator('#report .device').first().boundingBox();
  assert.ok(device.y + 40 < 900, `the first device card starts at ${device.y}, below the fold`);
  const legend = await page.$$eval('#legend > span', (s) => s.map((x) => x.textContent));
  assert.equal(legend.length, 3);
  assert.match(legend[0], /^Colour: the device/);
  assert.match(legend[1], /^Heatmap: one cell per value/);
  assert.match(legend[2], /^Stripes, dashed edge: replicated/);
  assert.ok(await page.locator('#legend').isVisible());
  assert.equal(await page.textContent('#output-explained'),
    'Output is what the program printed; Result is the value it left in its variable result.');
  await page.close();
});

test('"training" only where a loss changes over steps', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  assert.doesNotMatch(await page.textContent('#report'), /training/i);
  // The tour runs some maps several times on the same values: not training.
  await page.selectOption('#example', 'tour.py');
  await runsDone(page, 2);
  assert.equal(await page.$$eval('.training', (t) => t.length), 0);
  assert.doesNotMatch(await page.textContent('#report'), /training/i);
  await page.selectOption('#example', 'data_parallel_train.py');
  await runsDone(page, 3);
  assert.match(await page.textContent('.training h3'), /^Training: 20 steps/);
  await page.close();
});

test('a loss falling over decades is charted on a log scale with short tick labels', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  // x = 0.5 everywhere on 4 devices: L(w) = psum(sum((x w)^2)) = 4 * 0.25 * w^2 = w^2,
  // dL/dw = 2w, and w - 0.45 * 2w = 0.1 w: the loss falls 100-fold a step.
  await replaceCode(page, `import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
def loss(w, x):
    body = lambda w, xs: jax.lax.psum(jnp.sum((xs * w) ** 2), 'x')
    return jax.shard_map(body, mesh=mesh, in_specs=(P(), P('x')), out_specs=P())(w, x)
x = jnp.full(4, 0.5)
w = jnp.array(1.0)
for i in range(5):
    l, g = jax.value_and_grad(loss)(w, x)
    w = w - 0.45 * g
result = w
`);
  await page.click('#run');
  await runsDone(page, 2);
  assert.equal(await page.getAttribute('svg.loss-chart', 'data-scale'), 'log');
  const titles = await page.$$eval('svg.loss-chart circle.step-point', (c) => c.map((x) => x.textContent));
  const losses = titles.map((t) => Number(/loss (\S+)$/.exec(t)[1]));
  [1, 1e-2, 1e-4, 1e-6, 1e-8].forEach((want, k) => {
    assert.ok(Math.abs(losses[k] - want) <= want * 1e-4, `step ${k + 1}: ${losses[k]} is not ${want}`);
  });
  const ticks = await page.$$eval('svg.loss-chart .tick text', (t) => t.map((x) => x.textContent));
  assert.ok(ticks.length >= 3, `${ticks.length} ticks`);
  for (const t of ticks) {
    assert.match(t, /^(\d(\.\d{1,2})?e-?\d+|\d+(\.\d+)?)$/, `tick label ${t}`);
    assert.ok(t.length <= 6 && !t.includes('0.0000'), `tick label ${t} is too long`);
  }
  assert.ok(ticks.includes('1') && ticks.includes('1e-8'), ticks.join(' '));
  await page.click('svg.loss-chart circle[data-step="4"]');
  assert.equal(await page.textContent('#step-info'), 'step 5 of 5 · loss 1e-8');
  await page.close();
});
