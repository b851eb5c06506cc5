// The Exercises menu: a problem opens from the menu or from an
// #exercise=NAME link with its statement and starter code; Check grades
// the editor's code case by case, a failing case shows its devices, and
// what was solved is kept in localStorage across reloads.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open, runsDone } from './harness.mjs';

let h;
before(async () => {
  h = await open();
});
after(() => h.close());

const solution = (name) => readFileSync(`examples/exercises/${name}.py`, 'utf8');

async function setCode(page, text) {
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

async function check(page) {
  const before = Number(await page.evaluate(() => document.body.dataset.checks || 0));
  await page.click('#check');
  await page.waitForFunction((k) => Number(document.body.dataset.checks || 0) > k, before, { timeout: 120000 });
}

// A page opened on an exercise runs nothing until Check: it stays ready.
async function ready(page) {
  await page.waitForFunction(() => /ready/.test(document.getElementById('status').textContent), null, { timeout: 60000 });
}

test('the menu lists every problem and a link opens one with its starter code', async () => {
  const page = await h.page('#exercise=ring');
  await ready(page);
  const names = await page.$$eval('#exercise option', (os) => os.map((o) => o.value).filter(Boolean));
  for (const n of ['global_sum', 'pmap_mean', 'shard_vmap', 'dense_shards', 'gather_scatter', 'ring', 'all_to_all', 'vma_grad', 'fsdp']) {
    assert.ok(names.includes(n), `menu lacks ${n}: ${names}`);
  }
  assert.equal(await page.inputValue('#exercise'), 'ring');
  assert.equal(await page.textContent('#exercise-title'), 'A ppermute ring');
  assert.match(await page.textContent('#exercise-statement'), /source, destination/);
  assert.match(await page.textContent('.cm-content'), /perm = \.\.\./);
  assert.equal(await page.isVisible('#check'), true);
  assert.equal(await page.isVisible('#run'), false);
  // The hidden case is listed, without its arguments.
  assert.match(await page.textContent('#cases'), /4 devices \(hidden\)/);
  await page.close();
});

test('a wrong solution fails with its reason and shows the devices of the failing case', async () => {
  // Without a link the page runs its first example at once, so "ready"
  // may never be on screen when polled: wait for that run instead.
  const page = await h.page();
  await runsDone(page, 1);
  await page.selectOption('#exercise', 'ring');
  await setCode(page, solution('ring_wrong'));
  await check(page);
  assert.equal(await page.textContent('#verdict'), '2 of 4 cases pass.');
  const passed = await page.$$eval('#cases li', (ls) => ls.map((l) => l.dataset.passed));
  assert.deepEqual(passed, ['true', 'true', 'false', 'false']);
  const eight = await page.textContent('#cases li[data-case="3"]');
  assert.match(eight, /result\[0, 0\]: expected 28, got 4/);
  // The hidden case says where, not what.
  assert.match(await page.textContent('#cases li[data-case="2"]'), /differs from the expected value/);
  // The first failing case's devices are drawn: 4 devices of the ring.
  assert.match(await page.textContent('section.report h2'), /failing case “4 devices”/);
  assert.equal(await page.$$eval('#report [data-device-id][data-mesh-coords]', (d) => d.length) > 0, true);
  const collectives = await page.$$eval('#report .collective', (c) => c.map((x) => x.dataset.collective).join(' '));
  assert.match(collectives, /ppermute/);
  // Its button shows another failing case's devices.
  await page.click('#cases li[data-case="3"] button');
  assert.match(await page.textContent('section.report h2'), /failing case “8 devices”/);
  await page.screenshot({ path: 'docs/screenshots/exercise-failing.png', fullPage: true });
  await page.close();
});

test('solving a problem is kept across a reload', async () => {
  const page = await h.page('#exercise=global_sum');
  await ready(page);
  await setCode(page, solution('global_sum'));
  await check(page);
  assert.equal(await page.textContent('#verdict'), 'Solved: all 4 cases pass.');
  assert.equal(await page.$$eval('#cases li.fail', (l) => l.length), 0);
  const mark = await page.$eval('#exercise option[value=global_sum]', (o) => o.dataset.solved);
  assert.equal(mark, 'true');
  await page.reload();
  await ready(page);
  assert.equal(await page.inputValue('#exercise'), 'global_sum');
  assert.match(await page.textContent('#verdict'), /Solved before/);
  assert.match(await page.$eval('#exercise option[value=global_sum]', (o) => o.textContent), /^✓ /);
  // The solved code is back in the editor, not the starter code.
  assert.match(await page.textContent('.cm-content'), /psum/);
  await page.close();
});
