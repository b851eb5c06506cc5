// The installed package in Node: worker_threads devices over a
// SharedArrayBuffer, numbers checked against JAX's.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createLab, ShardlabError } from 'shardlab';
import { Worker } from 'node:worker_threads';
import { program, fixture, layouts, assertClose, COMPUTE, manyMaps, tanhTimes, exercise, solution } from './fixtures.mjs';

const lab = await createLab({ devices: 4 });
after(() => lab.close());

test('a lab in Node runs on 4 worker_threads devices', () => {
  assert.equal(lab.mode, 'parallel');
  assert.deepEqual(lab.options, { devices: 4, mesh: null, mode: 'auto', timeoutMs: null, maxMemory: 2 ** 30 });
});

test('a psum program (tensor-parallel MLP) agrees with JAX', async () => {
  const run = await lab.run(program('tensor_parallel_mlp'));
  assert.equal(run.mode, 'parallel');
  assert.equal(run.devices, 4);
  assert.equal(run.stdout, fixture('tensor_parallel_mlp').stdout);
  assertClose(run.result, fixture('tensor_parallel_mlp').result);
  assert.ok(run.elapsedMs > 0);
  const map = run.report.maps[0];
  assert.equal(map.kind, 'shard_map');
  assert.deepEqual(map.mesh_shape, [4]);
  assert.equal(map.mode, 'parallel');
  assert.match(map.jaxpr, /psum/);
  // w1 is split by columns: device p holds columns 4p..4p+3 of sin(k).
  const w1 = map.inputs[1];
  assert.equal(w1.shards.length, 4);
  const shard = w1.shards[2].value;
  assert.ok(shard.data instanceof Float32Array);
  assert.deepEqual(shard.shape, [8, 4]);
  assertClose(shard.data[0], Math.sin(8 / 100));
});

test('a data-parallel training step agrees with JAX', async () => {
  const run = await lab.run(program('data_parallel_train'));
  const jax = fixture('data_parallel_train');
  assertClose(run.result, jax.result);
  assert.equal(run.stdout.split('\n')[0], jax.stdout.split('\n')[0]);
  assert.ok(run.report.maps.length >= 20);
  // Each step's pmean of the two gradients and the loss is a psum over the
  // 4 devices (then a division): on every device the sum, in float32 and in
  // rank order, of the four operands, as the device workers logged them.
  const colls = run.report.maps[0].collectives;
  assert.equal(colls.length, 3);
  for (const c of colls) {
    assert.equal(c.name, 'psum');
    assert.deepEqual(c.groups, [[0, 1, 2, 3]]);
    for (let i = 0; i < c.before[0].data.length; i++) {
      const sum = c.before.reduce((acc, b) => Math.fround(acc + b.data[i]), 0);
      for (const after of c.after) assert.equal(after.data[i], sum);
    }
  }
});

test('the mesh option rewrites the Mesh line', async () => {
  // psum_1d has an 8-device mesh; on 4 devices each holds 2 rows of
  // arange(16).reshape(8, 2), and psum adds the four 2x2 blocks.
  const run = await lab.run(program('psum_1d'), { mesh: [4] });
  assert.deepEqual(run.result, [[24, 28], [32, 36]]);
  assert.deepEqual(run.report.maps[0].mesh_shape, [4]);
});

test('int32 and bool arrays come as Int32Array and Uint8Array', async () => {
  const run = await lab.run(`import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
f = jax.shard_map(lambda v: (jax.lax.psum(v, 'x'), v > 2), mesh=mesh, in_specs=P('x'), out_specs=(P(), P('x')))
s, b = f(jnp.arange(4))
result = [s, b]
`);
  assert.deepEqual(run.result, [[6], [false, false, false, true]]);
  const [sum, gt] = run.report.maps[0].outputs;
  assert.ok(sum.global.data instanceof Int32Array);
  assert.deepEqual([...sum.global.data], [6]);
  assert.ok(gt.global.data instanceof Uint8Array);
  assert.deepEqual([...gt.global.data], [0, 0, 0, 1]);
});

test('bad options are refused before any worker starts', async () => {
  await assert.rejects(createLab({ devices: 0 }), RangeError);
  await assert.rejects(createLab({ devices: 17 }), RangeError);
  await assert.rejects(createLab({ devices: 2.5 }), RangeError);
  await assert.rejects(createLab({ devices: '4' }), TypeError);
  await assert.rejects(createLab({ devices: 4, mesh: [3, 2] }), /a 3x2 mesh has 6 devices, but devices is 4/);
  await assert.rejects(createLab({ devices: 4, mesh: '2x2x2' }), RangeError);
  await assert.rejects(createLab({ devices: 4, mesh: 4 }), TypeError);
  await assert.rejects(createLab({ mode: 'fast' }), RangeError);
  await assert.rejects(createLab({ device: 4 }), /unknown option "device"/);
  await assert.rejects(createLab({ timeoutMs: -1 }), RangeError);
  await assert.rejects(createLab({ maxMemory: 0 }), RangeError);
  await assert.rejects(createLab({ maxMemory: '5G' }), /at most 4G/);
  await assert.rejects(createLab({ maxMemory: 'lots' }), /a size such as/);
  await assert.rejects(createLab({ maxMemory: true }), TypeError);
  await assert.rejects(lab.run('result = 1', { devices: 99 }), RangeError);
  await assert.rejects(lab.run(42), TypeError);
});

test("a syntax error carries the type, line and column", async () => {
  const jax = fixture('err_syntax');
  const err = await lab.run(program('err_syntax')).catch((e) => e);
  assert.ok(err instanceof ShardlabError);
  assert.equal(err.type, jax.error.type);
  assert.equal(err.line, jax.error.line);
  // "def f(x)" misses its ':' right after the ')', column 9.
  assert.equal(err.col, 9);
  // The lab goes on.
  assert.deepEqual((await lab.run('result = 1 + 1')).result, 2);
});

test('a Python error keeps what was printed before it', async () => {
  const err = await lab.run('print("before")\nx = undefined_name\n').catch((e) => e);
  assert.equal(err.type, 'NameError');
  assert.equal(err.line, 2);
  assert.equal(err.stdout, 'before\n');
});

test('a panic in the engine fails the run, and the next run works', async () => {
  // Under a 4 GiB limit, which a wasm32 memory cannot pass, arrays of
  // 512 MiB pile up until an allocation fails: an abort, which traps the
  // coordinator's instance.
  const source = 'import jax.numpy as jnp\nxs = []\nwhile True:\n    xs.append(jnp.zeros((2**27,)) + len(xs))\n';
  const err = await lab.run(source, { maxMemory: '4G' }).catch((e) => e);
  assert.ok(err instanceof ShardlabError, String(err));
  assert.equal(err.type, 'InternalError');
  assert.match(err.reason, /trapped.*restarted/);
  assertClose((await lab.run(program('tensor_parallel_mlp'))).result, fixture('tensor_parallel_mlp').result);
});


// A function that recurses n levels and returns n.
const recurse = (n) => `def f(n):\n    return 0 if n == 0 else f(n - 1) + 1\nprint(f(${n}))\n`;

test('recursion past the stack is a RecursionError a program can catch; deeper nesting too', async () => {
  // 198 calls from the module make 200 frames: the most the build holds.
  assert.equal((await lab.run(recurse(198))).stdout, '198\n');
  const err = await lab.run(recurse(199)).catch((e) => e);
  assert.equal(err.type, 'RecursionError');
  assert.equal(err.line, 2);
  assert.match(err.reason, /holds 200 nested Python calls; CPython's default limit is 1000/);
  const caught = await lab.run('def g(n):\n    return g(n + 1)\ntry:\n    g(0)\nexcept RecursionError:\n    print("caught")\n');
  assert.equal(caught.stdout, 'caught\n');
  // Dropping a million nested lists outruns any bound the engine keeps; it
  // overflows the worker's own stack, which is reported as Python would.
  const deep = await lab.run('x = []\nfor i in range(1000000):\n    x = [x]\nx = 0\n').catch((e) => e);
  assert.equal(deep.type, 'RecursionError');
  assert.match(deep.reason, /deeper than the browser's stack holds/);
  assertClose((await lab.run(program('tensor_parallel_mlp'))).result, fixture('tensor_parallel_mlp').result);
});
const MESH2 = 'import jax, numpy as np, jax.numpy as jnp\nfrom jax.sharding import Mesh, PartitionSpec as P\n' +
  "mesh = Mesh(np.array(jax.devices()[:2]), ('i',))\n";

// Doubles a list of arrays until the memory runs out.
const DOUBLING = "import jax.numpy as jnp\nprint('start')\nparts = [jnp.ones((2**20,))]\n" +
  'while True:\n    parts = parts + [p + 1 for p in parts]\n';

test('a run past maxMemory stops with MemoryError; the next run starts on a fresh coordinator', async () => {
  const before = await nextThreadId();
  const err = await lab.run(DOUBLING, { maxMemory: '256M' }).catch((e) => e);
  assert.ok(err instanceof ShardlabError, String(err));
  assert.equal(err.type, 'MemoryError');
  assert.equal(err.reason, 'the program used more than its memory limit of 256 MiB (maxMemory)');
  assert.equal(err.line, 5);
  assert.equal(err.stdout, 'start\n');
  // The coordinator's memory grew past the limit and stays so: the lab
  // replaces it (and its device workers) before the next run.
  assertClose((await lab.run(program('tensor_parallel_mlp'))).result, fixture('tensor_parallel_mlp').result);
  assert.ok((await nextThreadId()) > before + 1, 'a new coordinator started');
  const list = await lab.run('x = [0] * 10000000\nfor i in range(5):\n    x = x + x\n').catch((e) => e);
  // A list that outgrows the default limit stops too.
  assert.equal(list.type, 'MemoryError');
  assert.match(list.reason, /memory limit of (1 GiB \(maxMemory\)|1024 MiB)$/);
});

test('a device past maxMemory fails the run with MemoryError; its workers are replaced', async () => {
  // Each device makes an array of 256 MiB; the coordinator makes none.
  const big = MESH2 + 'big = lambda v: v + jnp.sum(jnp.ones((2**26,)) * v[0])\n' +
    "print('start')\ny = jax.shard_map(big, mesh=mesh, in_specs=P('i'), out_specs=P('i'))(jnp.ones(2))\n";
  const err = await lab.run(big, { maxMemory: '200M', mode: 'parallel' }).catch((e) => e);
  assert.ok(err instanceof ShardlabError, String(err));
  assert.equal(err.type, 'MemoryError');
  assert.match(err.reason,
    /^device [01]: the program used more than its memory limit of 200 MiB \(maxMemory, a total over the coordinator and every device worker\)$/);
  assert.equal(err.line, 6);
  assert.equal(err.stdout, 'start\n');
  const before = await nextThreadId();
  const run = await lab.run(program('tensor_parallel_mlp'), { mode: 'parallel' });
  assert.equal(run.mode, 'parallel');
  assertClose(run.result, fixture('tensor_parallel_mlp').result);
  assert.ok((await nextThreadId()) > before + 1, 'new device workers started');
});

// Each device makes arrays of 2**23 float32 (about 300 MB at its peak, with
// the engine's temporaries): one device and the coordinator stay under
// 512 MiB, four devices together do not, though each alone would.
const wide = (n) => 'import jax, numpy as np, jax.numpy as jnp\nfrom jax.sharding import Mesh, PartitionSpec as P\n' +
  `mesh = Mesh(np.array(jax.devices()[:${n}]), ('i',))\n` +
  'big = lambda v: v + jnp.sum(jnp.ones((2**23,)) * v[0])\n' +
  `print('start')\ny = jax.shard_map(big, mesh=mesh, in_specs=P('i'), out_specs=P('i'))(jnp.ones(${n}))\nprint(y)\n`;

test('maxMemory is a total over the coordinator and every device worker', async () => {
  // A lab of its own, whose workers start small.
  const fresh = await createLab({ devices: 4 });
  try {
    // 2**23 + 1 on every device.
    const one = await fresh.run(wide(1), { maxMemory: '512M', mode: 'parallel' });
    assert.equal(one.stdout, 'start\n[8.388609e+06]\n');
    assert.equal(one.report.maps[0].mode, 'parallel');
    const err = await fresh.run(wide(4), { maxMemory: '512M', mode: 'parallel' }).catch((e) => e);
    assert.ok(err instanceof ShardlabError, String(err));
    assert.equal(err.type, 'MemoryError');
    assert.match(err.reason,
      /^device [0-3]: the program used more than its memory limit of 512 MiB \(maxMemory, a total over the coordinator and every device worker\)$/);
    assert.equal(err.line, 6);
    assert.equal(err.stdout, 'start\n');
    // Under a limit their sum fits in, the same program runs.
    const four = await fresh.run(wide(4), { maxMemory: '2G', mode: 'parallel' });
    assert.equal(four.stdout, 'start\n[8.388609e+06 8.388609e+06 8.388609e+06 8.388609e+06]\n');
    // The coordinator and the four device workers now hold more than 1 GiB
    // together: a lockstep run under 1G starts on fresh workers instead of
    // failing on their memory.
    const after = await fresh.run("print('small')\n", { maxMemory: '1G', mode: 'lockstep' });
    assert.equal(after.stdout, 'small\n');
    assert.equal(after.mode, 'lockstep');
  } finally {
    fresh.close();
  }
});

test('two runs at once are queued and both finish', async () => {
  const order = [];
  const a = lab.run(program('tensor_parallel_mlp')).then((r) => (order.push('a'), r));
  const b = lab.run('result = 3 * 7').then((r) => (order.push('b'), r));
  const [ra, rb] = await Promise.all([a, b]);
  assert.deepEqual(order, ['a', 'b']);
  assertClose(ra.result, fixture('tensor_parallel_mlp').result);
  assert.equal(rb.result, 21);
});

// Runs until stopped.
const LONG = 'i = 0\nwhile True:\n    i = i + 1\n';

test('cancel stops a plain Python loop at the interpreter\'s check, on the same workers', async () => {
  const long = lab.run(LONG);
  let asked = 0;
  setTimeout(() => {
    asked = Date.now();
    lab.cancel();
  }, 300);
  const err = await long.catch((e) => e);
  assert.ok(err instanceof ShardlabError, String(err));
  assert.equal(err.type, 'Cancelled');
  assert.equal(err.reason, 'the run was cancelled');
  // The error points into the loop, and it came well inside the grace period.
  assert.ok(err.line >= 2 && err.line <= 3, `line ${err.line}`);
  assert.ok(Date.now() - asked < 1000, `rejected ${Date.now() - asked} ms after the cancel`);
  assertClose((await lab.run(program('tensor_parallel_mlp'))).result, fixture('tensor_parallel_mlp').result);
});

// One matrix product of 137 GFLOP (several seconds in wasm, well past the
// 300 ms + 1500 ms the test waits, even in the size-optimised build on an
// idle machine): a single operation, which nothing interrupts once it has
// started.
const NATIVE = 'import jax.numpy as jnp\nx = jnp.ones((4096, 4096))\ny = x @ x\n';

test('cancel restarts the workers when one operation outlasts the grace period', async () => {
  const started = Date.now();
  const long = lab.run(NATIVE);
  setTimeout(() => lab.cancel(), 300);
  const err = await long.catch((e) => e);
  assert.ok(err instanceof ShardlabError, String(err));
  assert.equal(err.type, 'Cancelled');
  assert.match(err.reason, /did not stop within 1500 ms, so its workers were restarted/);
  assert.ok(Date.now() - started < 10000);
  assertClose((await lab.run(program('tensor_parallel_mlp'))).result, fixture('tensor_parallel_mlp').result);
});

test('an aborted signal stops its run; timeoutMs stops a run', async () => {
  const controller = new AbortController();
  const long = lab.run(LONG, { signal: controller.signal });
  setTimeout(() => controller.abort(), 200);
  assert.equal((await long.catch((e) => e)).type, 'Cancelled');
  // Aborting a queued run rejects it at once; the run before it goes on.
  const first = lab.run(LONG, { timeoutMs: 1500 });
  const queued = new AbortController();
  const second = lab.run('result = 1', { signal: queued.signal });
  queued.abort();
  const early = await second.catch((e) => e);
  assert.equal(early.type, 'Cancelled');
  assert.match(early.reason, /before it started/);
  assert.equal((await first.catch((e) => e)).type, 'TimeoutError');
  const err = await lab.run(LONG, { timeoutMs: 300 }).catch((e) => e);
  assert.equal(err.type, 'TimeoutError');
  assert.equal((await lab.run('result = 5')).result, 5);
});

test("the report lays out the program's named sharded arrays as JAX does", async () => {
  const run = await lab.run(program('sharded_arrays'), { devices: 8 });
  assert.equal(run.stdout, fixture('sharded_arrays').stdout);
  const jax = layouts('sharded_arrays');
  assert.deepEqual(run.report.arrays.map((a) => a.name), Object.keys(jax));
  for (const a of run.report.arrays) {
    const want = jax[a.name];
    assert.equal(a.type_text, want.type_text, a.name);
    assert.equal(a.spec, want.spec, a.name);
    assert.deepEqual(a.shape, want.shape, a.name);
    assert.deepEqual(a.mesh_shape, want.mesh_shape, a.name);
    const tiles = Object.fromEntries(a.tiles.map((t) => [String(a.device_ids[t.position]), t.index]));
    assert.deepEqual(tiles, want.tiles, a.name);
  }
});

test('a lockstep lab gives the same numbers', async () => {
  const one = await createLab({ devices: 4, mode: 'lockstep' });
  try {
    assert.equal(one.mode, 'lockstep');
    const run = await one.run(program('data_parallel_train'));
    assert.equal(run.mode, 'lockstep');
    assertClose(run.result, fixture('data_parallel_train').result);
    // pmean of the gradient of w runs as a psum: each device's operand and
    // result, as typed arrays; every device gets the sum of the operands.
    const psum = run.report.maps[0].collectives.find((c) => c.name === 'psum' && c.before[0].shape[0] === 2);
    assert.equal(psum.before.length, 4);
    assert.ok(psum.after[0].data instanceof Float32Array);
    for (const j of [0, 1]) {
      const sum = psum.before.reduce((acc, b) => acc + b.data[j], 0);
      for (const a of psum.after) assertClose(a.data[j], sum);
    }
  } finally {
    one.close();
  }
});

test('run after close rejects, and so do runs queued at close', async () => {
  const other = await createLab({ devices: 2 });
  const running = other.run(LONG);
  const queued = other.run('result = 1');
  other.close();
  await assert.rejects(running, /closed/);
  await assert.rejects(queued, /closed/);
  await assert.rejects(other.run('result = 1'), /this lab is closed/);
  assert.equal(other.closed, true);
});

// The id the next worker thread of this process gets. Ids only grow, so
// two probes one after the other differ by 1 exactly when no other thread
// (a coordinator or a device of a restarted lab) started in between.
async function nextThreadId() {
  const probe = new Worker('', { eval: true });
  const id = probe.threadId;
  await probe.terminate();
  return id;
}

// Runs `source` with `options`; `computing` resolves at the first progress
// report, when the run is computing on the devices.
function runComputing(source, options = {}) {
  let computing;
  const reported = new Promise((resolve) => {
    computing = resolve;
  });
  const run = lab.run(source, { ...options, onProgress: () => computing() });
  return { run, computing: reported };
}

test('cancel stops a computation on the same workers; a queued run goes on', async (t) => {
  const { run, computing } = runComputing(COMPUTE);
  const queued = lab.run('result = 3 * 7');
  await computing;
  const before = await nextThreadId();
  const asked = Date.now();
  const cancelled = lab.cancel();
  const err = await run.catch((e) => e);
  const latency = Date.now() - asked;
  assert.ok(err instanceof ShardlabError, String(err));
  assert.equal(err.type, 'Cancelled');
  // The engine's own answer, naming where the run (before its shard_map)
  // or each device (inside it) stopped.
  assert.match(err.reason, /^the run was cancelled; .*stopped before /);
  assert.equal(err.stdout, '');
  // Well before the 1.5 s after which the workers would be restarted.
  assert.ok(latency < 1000, `rejected ${latency} ms after the cancel`);
  await cancelled;
  assert.equal((await queued).result, 21);
  const next = Date.now();
  assertClose((await lab.run(program('tensor_parallel_mlp'))).result, fixture('tensor_parallel_mlp').result);
  t.diagnostic(`rejected ${latency} ms after the cancel; the next run took ${Date.now() - next} ms`);
  assert.equal(await nextThreadId(), before + 1, 'no worker thread started');
});

test('timeoutMs and an aborted signal stop a computation the same way', async (t) => {
  const before = await nextThreadId();
  const started = Date.now();
  const err = await lab.run(COMPUTE, { timeoutMs: 800 }).catch((e) => e);
  const ms = Date.now() - started;
  assert.ok(err instanceof ShardlabError, String(err));
  assert.equal(err.type, 'TimeoutError');
  assert.match(err.reason, /^the run took longer than 800 ms \(stopped after \d+ ms\); .*stopped before /);
  assert.ok(ms >= 800 && ms < 1800, `rejected after ${ms} ms`);
  assert.equal((await lab.run('result = 5')).result, 5);

  const controller = new AbortController();
  const { run, computing } = runComputing(COMPUTE, { signal: controller.signal });
  await computing;
  const asked = Date.now();
  controller.abort();
  const aborted = await run.catch((e) => e);
  const latency = Date.now() - asked;
  assert.equal(aborted.type, 'Cancelled');
  assert.match(aborted.reason, /^the run was cancelled; .*stopped before /);
  assert.ok(latency < 1000, `rejected ${latency} ms after the abort`);
  assert.deepEqual((await lab.run(program('psum_1d'), { mesh: [4] })).result, [[24, 28], [32, 36]]);
  t.diagnostic(`time-out after ${ms} ms; abort answered in ${latency} ms`);
  assert.equal(await nextThreadId(), before + 1, 'no worker thread started');
});

test('onProgress reports the maps finished so far, at most every 100 ms', async (t) => {
  const calls = [];
  const run = await lab.run(manyMaps(8), { onProgress: (p) => calls.push(p) });
  // Ten tanh steps per map.
  assertClose(run.result, tanhTimes(80));
  assert.equal(run.report.maps.length, 8);
  t.diagnostic(`${run.elapsedMs.toFixed(0)} ms: ${JSON.stringify(calls)}`);
  assert.ok(calls.length >= 2, JSON.stringify(calls));
  assert.ok(calls.length <= run.elapsedMs / 100 + 1, JSON.stringify(calls));
  for (const c of calls) {
    assert.deepEqual(Object.keys(c).sort(), ['elapsedMs', 'maps']);
    assert.ok(Number.isInteger(c.maps) && c.maps >= 0 && c.maps <= 8, JSON.stringify(c));
  }
  for (let i = 1; i < calls.length; i++) {
    assert.ok(calls[i].maps >= calls[i - 1].maps, JSON.stringify(calls));
    assert.ok(calls[i].elapsedMs - calls[i - 1].elapsedMs >= 99, JSON.stringify(calls));
  }
  assert.ok(calls.at(-1).maps > calls[0].maps, JSON.stringify(calls));
  await assert.rejects(lab.run('result = 1', { onProgress: 1 }), /onProgress must be a function/);
});

test('a cancel with no run going does nothing', async () => {
  const before = await nextThreadId();
  await lab.cancel();
  await lab.cancel();
  assert.equal((await lab.run('result = 2 + 3')).result, 5);
  assert.equal(await nextThreadId(), before + 1, 'no worker thread started');
});

test('startDevices: false starts the device workers at the first parallel run', async () => {
  const before = await nextThreadId();
  const later = await createLab({ devices: 3, startDevices: false });
  try {
    assert.equal(later.mode, 'parallel');
    // The coordinator alone started (then the probe).
    assert.equal(await nextThreadId(), before + 2);
    assert.equal((await later.run('result = 2 * 3', { mode: 'lockstep' })).result, 6);
    assert.equal(await nextThreadId(), before + 3, 'a lockstep run started no device worker');
    const run = await later.run(`import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:3]), ('x',))
f = jax.shard_map(lambda v: jax.lax.psum(v, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())
result = f(jnp.arange(6.0).reshape(3, 2))
`);
    assert.equal(run.mode, 'parallel');
    assert.deepEqual(run.result, [[6, 9]]);
    assert.equal(await nextThreadId(), before + 4 + 3, 'the parallel run started 3 device workers');
  } finally {
    later.close();
  }
  await assert.rejects(lab.run('result = 1', { startDevices: false }), /unknown option "startDevices"/);
  await assert.rejects(createLab({ startDevices: 'no' }), TypeError);
});


test('lab.check passes the reference solution of an exercise on every case', async () => {
  const verdict = await lab.check(solution('global_sum'), exercise('global_sum'));
  assert.equal(verdict.passed, true);
  assert.deepEqual(verdict.cases.map((c) => c.devices), [1, 2, 4, 8]);
  for (const c of verdict.cases) {
    assert.equal(c.passed, true);
    assert.equal(c.report, null);
    assert.deepEqual(c.checks.map((k) => k.passed), [true]);
  }
});

test('lab.check fails a wrong solution with its value and the failed check', async () => {
  const verdict = await lab.check(solution('global_sum_wrong'), JSON.stringify(exercise('global_sum')));
  assert.equal(verdict.passed, false);
  const [one, two] = verdict.cases;
  // Device 0's partial sum is the total on 1 device, but no psum ran.
  assert.deepEqual(one.mismatches, []);
  assert.equal(one.checks[0].passed, false);
  assert.match(one.checks[0].detail, /no psum over data ran/);
  assert.match(two.mismatches[0], /expected 36, got 10/);
  assert.equal(two.report.maps[0].kind, 'shard_map');
});

test('lab.check reports a learner exception as a failed case with line and col', async () => {
  const source = 'import jax\n\ndef global_sum(mesh, x):\n    return undefined_name + x\n';
  const verdict = await lab.check(source, exercise('global_sum'));
  const c = verdict.cases[0];
  assert.equal(c.passed, false);
  assert.deepEqual(
    { type: c.error.type, line: c.error.line, col: c.error.col },
    { type: 'NameError', line: 4, col: 12 },
  );
});

test('lab.check stops an endless loop at the case\'s time limit and runs the next case', async () => {
  // On 1 device the loop never ends; on more it is never entered.
  const source = 'import jax\n\ndef global_sum(mesh, x):\n    while len(jax.devices()) == 1:\n        pass\n' +
    '    return x.sum()\n';
  const problem = { ...exercise('global_sum'), time_limit_s: 0.5 };
  const started = Date.now();
  const verdict = await lab.check(source, problem);
  assert.ok(Date.now() - started < 20000);
  const [one, two] = verdict.cases;
  assert.equal(one.passed, false);
  assert.deepEqual(
    { type: one.error.type, message: one.error.message },
    { type: 'TimeoutError', message: 'the solution ran past the case\'s time limit of 0.5 s' },
  );
  // Stopped inside the loop: at its test or its body.
  assert.ok([4, 5].includes(one.error.line), String(one.error.line));
  assert.equal(two.error, null);
});

test('lab.check rejects a problem it cannot read', async () => {
  await assert.rejects(lab.check('x = 1\n', { format: 'shardlab-exercise/1' }), (e) => {
    assert.ok(e instanceof ShardlabError);
    assert.equal(e.type, 'ProblemError');
    return true;
  });
});

// The package's coordinator worker on its own, spoken to in its messages
// (coordinator.js): the lab restarts it before a stopped device's grace
// period ends, so only here does a device outlast the engine's.
async function coordinator() {
  const url = new URL('./coordinator.js', import.meta.resolve('shardlab'));
  const w = new Worker(url);
  const answers = new Map();
  let ready;
  w.on('message', (m) => {
    if (m.kind === 'ready') ready(m);
    else if (m.kind !== 'progress' && answers.has(m.id)) answers.get(m.id)(m);
  });
  const init = new Promise((resolve) => {
    ready = resolve;
  });
  const glue = new URL('./wasm/node-glue.js', url).href;
  w.postMessage({ kind: 'init', glue, wasm: null, devices: 2, parallel: true });
  const { cancel } = await init;
  let nextId = 1;
  const run = (source) => new Promise((resolve) => {
    const id = nextId++;
    answers.set(id, resolve);
    w.postMessage({ kind: 'run', id, source, devices: 2, lockstep: false });
  });
  return { word: new Int32Array(cancel), run, close: () => w.terminate() };
}

test('after a device outlasts a stopped run, the next parallel run gets new device workers', async () => {
  const c = await coordinator();
  try {
    // One equation the devices cannot be stopped in: it outlasts the
    // engine's 2 s grace after the cancel.
    const slow = MESH2 + 'big = lambda v: jnp.ones((4096, 4096)) @ jnp.ones((4096, 4096)) + v[0]\n' +
      "y = jax.shard_map(big, mesh=mesh, in_specs=P('i'), out_specs=P('i'))(jnp.ones(2))\n";
    const stopped = c.run(slow);
    setTimeout(() => {
      Atomics.store(c.word, 0, 1);
      Atomics.notify(c.word, 0);
    }, 1000);
    const lost = (await stopped).out.error;
    assert.equal(lost.type, 'RuntimeError', lost.message);
    assert.match(lost.message, /did not stop within 2\.0 s .*the pool cannot be used again/);
    Atomics.store(c.word, 0, 0);
    const sum = MESH2 + "result = jax.shard_map(lambda v: jax.lax.psum(v, 'i'), mesh=mesh, " +
      "in_specs=P('i'), out_specs=P())(jnp.arange(2.0) + 1)\n";
    for (let i = 0; i < 2; i++) {
      const { out } = await c.run(sum);
      assert.equal(out.error, null, JSON.stringify(out.error));
      assert.equal(out.mode, 'parallel');
      assert.deepEqual(Array.from(out.result), [3]);
    }
  } finally {
    await c.close();
  }
});
