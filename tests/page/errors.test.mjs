// Errors show in the error panel with their line, marked in the editor,
// while the last good result stays visible, greyed; Cancel stops a long run
// and the page keeps working.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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

test('a syntax error shows its type, message and line', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  const good = await page.textContent('[data-testid=result]');
  await replaceCode(page, 'import jax\nx = 1\ny = = 2\nprint(x)\n');
  await page.click('#run');
  await runsDone(page, 2);
  const panel = page.getByTestId('error');
  assert.ok(await panel.isVisible());
  const text = await panel.textContent();
  assert.match(text, /^SyntaxError: /);
  assert.match(text, /line 3:\d+/);
  assert.equal(await panel.getAttribute('data-line'), '3');
  assert.equal(await page.$$eval('.cm-error-line', (l) => l.length), 1);
  assert.equal(await page.textContent('[data-testid=result]'), good, 'the last result stays');
  assert.ok(await page.$eval('#last-good', (e) => e.classList.contains('stale')));
  await page.screenshot({ path: 'docs/screenshots/syntax-error.png' });
  await page.close();
});

test('an error from typing shows once typing stops; a good result at once', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  await page.click('.cm-content');
  await page.keyboard.press('Control+End');
  const typedAt = Date.now();
  await page.keyboard.insertText('\nresult = (');
  // The run typing starts fails; its error waits for typing to stop
  // (ERROR_QUIET_MS in js/main.js, 800 ms).
  await page.waitForFunction(() => /the error shows once typing stops/.test(document.getElementById('status').textContent));
  assert.ok(!(await page.getByTestId('error').isVisible()), 'no error while typing');
  await runsDone(page, 2);
  assert.ok(Date.now() - typedAt >= 800, `the error showed ${Date.now() - typedAt} ms after the key`);
  assert.match(await page.getByTestId('error').textContent(), /^SyntaxError: /);
  // Finishing the line runs it, and the result shows without that wait.
  const fixedAt = Date.now();
  await page.keyboard.insertText('1 + 2)');
  await runsDone(page, 3);
  assert.ok(Date.now() - fixedAt < 800, `the result showed ${Date.now() - fixedAt} ms after the key`);
  assert.ok(!(await page.getByTestId('error').isVisible()));
  assert.equal((await page.textContent('[data-testid=result]')).trim(), '3');
  await page.close();
});

test('a runtime error names its line', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  await replaceCode(page, 'import jax.numpy as jnp\na = jnp.ones(3)\nb = jnp.ones(4)\nresult = a + b\n');
  await page.click('#run');
  await runsDone(page, 2);
  const text = await page.getByTestId('error').textContent();
  assert.match(text, /line 4:/);
  await page.close();
});

test('Cancel stops a long-running program and the page runs again', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  await page.selectOption('#example', 'long_loop.py');
  await page.waitForFunction(() => !document.getElementById('cancel').disabled);
  // The main thread still answers while the program runs, and the status
  // line follows its progress.
  await page.waitForFunction(() => /running… \d+ maps? done, \d+\.\d s/.test(document.getElementById('status').textContent));
  assert.equal(await page.evaluate(() => 1 + 1), 2);
  const t = Date.now();
  await page.click('#cancel');
  await page.waitForFunction(() => /cancelled/.test(document.getElementById('status').textContent));
  assert.ok(Date.now() - t < 3000, 'cancel took too long');
  assert.ok(await page.$eval('#cancel', (b) => b.disabled));
  await page.selectOption('#example', 'psum_2d.py');
  await runsDone(page, 2);
  // The page is cross-origin isolated here: the run stopped through the
  // engine's cancel word, and the same coordinator worker (the only one the
  // page constructed) ran the next program.
  assert.equal(await page.evaluate(() => window.workersStarted), 1);
  assert.ok(await page.getByTestId('error').isHidden());
  assert.match(await page.textContent('[data-testid=result]'), /108, 112/);
  await page.close();
});

test('a program that outgrows the memory limit shows MemoryError and the next run works', async () => {
  const page = await h.page('#');
  await runsDone(page, 1);
  const started = await page.evaluate(() => window.workersStarted);
  // A list of arrays doubled until it passes the page's 1 GiB.
  await replaceCode(
    page,
    "import jax.numpy as jnp\nprint('start')\nparts = [jnp.ones((2**20,))]\nwhile True:\n    parts = parts + [p + 1 for p in parts]\n",
  );
  await page.click('#run');
  await runsDone(page, 2);
  const panel = page.getByTestId('error');
  assert.match(await panel.textContent(), /^MemoryError: the program used more than its memory limit of 1 GiB \(maxMemory\)/);
  assert.equal(await panel.getAttribute('data-line'), '5');
  await replaceCode(page, readFileSync('www/examples/psum_2d.py', 'utf8'));
  await page.click('#run');
  await runsDone(page, 3);
  assert.ok(await page.getByTestId('error').isHidden());
  assert.match(await page.textContent('[data-testid=result]'), /108, 112/);
  // The coordinator that grew was replaced, giving its memory back.
  assert.equal(await page.evaluate(() => window.workersStarted), started + 1);
  await page.close();
});
