// Starts the page server on a free port (unless PAGE_URL names one) and
// headless Chromium, for the page tests. With { isolated: false } the server
// sends no COOP/COEP headers, like a plain static host.
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

async function startServer(isolated) {
  if (process.env.PAGE_URL && isolated) return { url: process.env.PAGE_URL, stop() {} };
  const child = spawn(process.execPath, ['scripts/serve.mjs'], {
    env: { ...process.env, PORT: '0', NO_ISOLATION: isolated ? '0' : '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
      const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(text);
      if (m) resolve(m[0]);
    });
    child.on('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return { url, stop: () => child.kill() };
}

export async function open({ isolated = true } = {}) {
  const server = await startServer(isolated);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  // Counts the Web Workers each page constructs (the lab's coordinator;
  // its device workers start inside it), so a test can tell whether the
  // lab restarted its workers.
  await context.addInitScript(() => {
    const NativeWorker = globalThis.Worker;
    if (!NativeWorker) return;
    window.workersStarted = 0;
    globalThis.Worker = class extends NativeWorker {
      constructor(...args) {
        super(...args);
        window.workersStarted += 1;
      }
    };
  });
  return {
    url: server.url,
    context,
    async page(hash = '') {
      const page = await context.newPage();
      page.on('pageerror', (e) => console.error('page error:', e.message));
      page.broken = new Promise((_, reject) => page.on('pageerror', reject));
      page.broken.catch(() => {});
      await page.goto(server.url + hash);
      return page;
    },
    async close() {
      await browser.close();
      server.stop();
    },
  };
}

// Waits until the page has finished `n` runs in all and, unless `editor` is
// false, CodeMirror is in place.
// An uncaught error in the page fails the wait at once.
export async function runsDone(page, n, timeout = 120000, { editor = true } = {}) {
  const done = page.waitForFunction((k) => Number(document.body.dataset.runs || 0) >= k, n, { timeout });
  await (page.broken ? Promise.race([done, page.broken]) : done);
  // CodeMirror replaces the plain text area after the first result.
  if (editor) await page.waitForSelector('.cm-content', { timeout });
}
