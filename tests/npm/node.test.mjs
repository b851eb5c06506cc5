// The installed package in Node: worker_threads devices over a
// SharedArrayBuffer, numbers checked against JAX's.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createLab, ShardlabError } from 'shardlab';
import { program, fixture, assertClose } from './fixtures.mjs';

const lab = await createLab({ devices: 4 });
after(() => lab.close());

test('a lab in Node runs on 4 worker_threads devices', () => {
  assert.equal(lab.mode, 'parallel');
  assert.deepEqual(lab.options, { devices: 4, mesh: null, mode: 'auto', timeoutMs: null });
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
  // Doubling a 10-million-element list overflows a Vec's capacity on wasm32:
  // a Rust panic, which traps the coordinator's instance.
  const err = await lab.run('x = [0] * 10000000\nfor i in range(5):\n    x = x + x\n').catch((e) => e);
  assert.ok(err instanceof ShardlabError, String(err));
  assert.equal(err.type, 'InternalError');
  assert.match(err.reason, /trapped.*restarted/);
  assertClose((await lab.run(program('tensor_parallel_mlp'))).result, fixture('tensor_parallel_mlp').result);
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

test('cancel stops a long run and the lab runs again', async () => {
  const started = Date.now();
  const long = lab.run(LONG);
  setTimeout(() => lab.cancel(), 300);
  const err = await long.catch((e) => e);
  assert.ok(err instanceof ShardlabError, String(err));
  assert.equal(err.type, 'Cancelled');
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
