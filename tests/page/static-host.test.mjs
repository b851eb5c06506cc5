// On a host that sends no COOP/COEP headers the page still runs programs
// (lockstep), and the service worker makes it isolated after one reload,
// after which runs are parallel.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, runsDone } from './harness.mjs';

let h;
before(async () => {
  h = await open({ isolated: false });
});
after(() => h.close());

test('without COOP/COEP headers: lockstep runs, then the service worker isolates', async () => {
  const page = await h.page();
  // The first visit may reload once when the service worker takes over.
  await page.waitForFunction(() => crossOriginIsolated, null, { timeout: 30000 });
  await runsDone(page, 1);
  assert.ok(await page.getByTestId('error').isHidden());
  assert.match(await page.textContent('[data-testid=result]'), /108, 112/);
  assert.equal(await page.isDisabled('#mode option[value=parallel]'), false);
  // Isolated now, so the run was on Web Worker devices.
  assert.equal(await page.inputValue('#mode'), 'parallel');
  assert.match(await page.textContent('#status'), /running in parallel/);
  await page.close();
});

test('with service workers blocked, lockstep still runs', async () => {
  const context = await h.context.browser().newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  await page.goto(h.url);
  await runsDone(page, 1);
  assert.equal(await page.evaluate(() => crossOriginIsolated), false);
  assert.match(await page.textContent('#status'), /running in lockstep: 8 devices simulated in one worker/);
  assert.match(await page.textContent('[data-testid=result]'), /108, 112/);
  assert.ok(await page.isDisabled('#mode option[value=parallel]'));
  await context.close();
});
