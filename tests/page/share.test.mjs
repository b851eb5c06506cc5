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

// A link the page refuses: it opens without running, says why in the
// status line, and starts no device workers.
async function refusedLink(hash, reason, { program = null } = {}) {
  const page = await h.page(hash);
  await page.waitForFunction(() => /the link was not run/.test(document.getElementById('status').textContent), null,
    { timeout: 60000 });
  const status = await page.textContent('#status');
  assert.match(status, reason);
  await page.waitForTimeout(500);
  assert.equal(await page.evaluate(() => document.body.dataset.runs), undefined);
  // Only the lab's coordinator: its device workers start with a parallel run.
  assert.ok(await page.evaluate(() => window.workersStarted) <= 1);
  assert.equal(await page.getByLabel('Devices').inputValue(), '8');
  const code = await page.$$eval('.cm-line', (ls) => ls.map((l) => l.textContent).join('\n'));
  if (program !== null) assert.equal(code, program);
  else assert.ok(code.includes('import jax'));
  await page.close();
}

function link(fields) {
  return '#' + new URLSearchParams(fields).toString();
}

const CODE = Buffer.from(PROGRAM).toString('base64url');

test('a link with too many, negative or huge devices is refused', async () => {
  for (const devices of ['100000', '-5', '1e9']) {
    await refusedLink(link({ devices, mode: 'parallel', code: CODE }), /devices must be a whole number from 1 to 16/,
      { program: PROGRAM });
  }
});

test('a link with an unknown mode or example is refused', async () => {
  await refusedLink(link({ devices: '4', mode: 'turbo', code: CODE }), /mode must be parallel or lockstep/,
    { program: PROGRAM });
  await refusedLink(link({ devices: '4', mode: 'lockstep', example: '../x.py', code: CODE }), /no example/,
    { program: PROGRAM });
});

test('a link whose program is broken base64 opens the first example', async () => {
  await refusedLink('#devices=4&mode=parallel&code=%%%not*base64', /not valid base64url UTF-8/);
  await refusedLink(link({ devices: '4', code: Buffer.from([0xff, 0xfe, 0x41]).toString('base64url') }),
    /not valid base64url UTF-8/);
});

test('a link longer than the page reads is refused before decoding', async () => {
  // Chromium navigates to URLs up to 2 MB; decodeState's own test covers 10 MB.
  const big = Buffer.from('x'.repeat(1024 * 1024)).toString('base64url');
  await refusedLink(link({ devices: '4', code: big }), /more than 262144/);
});

test('a program that prints 300,000 lines shows the first 5,000 and a note', async () => {
  const page = await h.page(link({ devices: '8', mode: 'lockstep',
    code: Buffer.from('for i in range(300000):\n    print(i)\n').toString('base64url') }));
  await runsDone(page, 1);
  const shown = await page.textContent('[data-testid=stdout]');
  const lines = shown.split('\n');
  assert.equal(lines.length, 5001);
  assert.equal(lines[4999], '4999');
  assert.match(lines[5000], /^… output cut here: 295000 more lines \(\d+ characters\) not shown/);
  await page.close();
});
