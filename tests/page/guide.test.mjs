// The guided tour: three steps through the examples (psum, pmean of a
// gradient inside shard_map, what jit inserts), each loading its example,
// running it and marking the part of the device view it explains; Back,
// Next and Close; edits to the code are kept unless the visitor agrees.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open, runsDone } from './harness.mjs';

let h;
before(async () => {
  h = await open();
});
after(() => h.close());

const runs = (page) => page.evaluate(() => Number(document.body.dataset.runs || 0));
const marked = (page) => page.$$eval('.guide-focus', (m) => m.map((x) => ({
  cls: x.className, name: x.dataset.name || null, line: x.dataset.line || null, text: x.textContent,
})));

// The 1-based line of `example` that starts with `start` (after indentation).
function lineOf(example, start) {
  const lines = readFileSync(`www/examples/${example}`, 'utf8').split('\n');
  return lines.findIndex((l) => l.trimStart().startsWith(start)) + 1;
}

test('the tour walks three examples and marks what each step explains', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  assert.equal(await page.isVisible('#guide'), false);
  await page.click('#guide-start');
  await page.waitForFunction(() => document.querySelector('.guide-focus'));
  assert.equal(await page.textContent('[data-guide=count]'), 'step 1 of 3');
  assert.equal(await page.textContent('[data-guide=title]'), 'What psum does');
  assert.equal(await page.inputValue('#example'), 'psum_2d.py');
  assert.equal(await page.isDisabled('[data-guide=back]'), true);
  let m = await marked(page);
  assert.equal(m.length, 1);
  assert.equal(m[0].name, 'psum');
  // The marked card is in view.
  assert.ok(await page.locator('.guide-focus').isVisible());

  let before = await runs(page);
  await page.click('[data-guide=next]');
  await runsDone(page, before + 1);
  await page.waitForFunction(() => document.querySelector('.guide-focus'));
  assert.equal(await page.textContent('[data-guide=title]'), 'Why pmean(grad) inside shard_map is a sum');
  assert.equal(await page.inputValue('#example'), 'tour.py');
  m = await marked(page);
  assert.equal(m.length, 1);
  assert.match(m[0].cls, /grad-explain/);
  // The map chosen is the check_vma=True one, whose pmean returns the sum.
  assert.match(m[0].text, /check_vma=True: .*it returns the sum unchanged/);

  before = await runs(page);
  await page.click('[data-guide=next]');
  await runsDone(page, before + 1);
  await page.waitForFunction(() => document.querySelector('.guide-focus'));
  assert.equal(await page.textContent('[data-guide=count]'), 'step 3 of 3');
  assert.equal(await page.inputValue('#example'), 'jit_mlp_auto.py');
  assert.equal(await page.isDisabled('[data-guide=next]'), true);
  m = await marked(page);
  assert.equal(m.length, 1);
  // The label of the psum jit inserted for `out = h @ params['w2']`, which
  // contracts the dimension split over 'model'.
  assert.equal(m[0].text, `inserted by jit at line ${lineOf('jit_mlp_auto.py', 'out = h @')}`);
  assert.equal(await page.$eval('.guide-focus', (x) => x.closest('.collective').dataset.name), 'psum');
  assert.match(await page.$eval('.guide-focus', (x) => x.closest('.collective').textContent), /axes=\('model',\)/);
  await page.screenshot({ path: 'docs/screenshots/guided-tour.png' });

  before = await runs(page);
  await page.click('[data-guide=back]');
  await runsDone(page, before + 1);
  assert.equal(await page.inputValue('#example'), 'tour.py');
  await page.click('[data-guide=close]');
  assert.equal(await page.isVisible('#guide'), false);
  assert.equal(await page.$$eval('.guide-focus', (x) => x.length), 0);
  await page.close();
});

test('the tour keeps edits to the code unless the visitor agrees', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  await page.click('.cm-content');
  await page.keyboard.press('Control+End');
  await page.keyboard.insertText('\n# my note\n');
  let asked = 0;
  page.on('dialog', (d) => {
    asked += 1;
    d.dismiss();
  });
  await page.click('#guide-start');
  await page.waitForFunction(() => !document.getElementById('guide').hidden);
  await page.waitForTimeout(300);
  assert.equal(asked, 1);
  assert.match(await page.textContent('.cm-content'), /# my note/);
  assert.equal(await page.$$eval('.guide-focus', (x) => x.length), 0);
  await page.close();
});
