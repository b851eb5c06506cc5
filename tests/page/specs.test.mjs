// www/js/specs.js and the other mesh forms of npm/src/mesh.js on their own
// (no browser): finding every shard_map's specs, checking and rewriting them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findShardMaps, parseSpec, checkSpec, specText, replaceRange, codeOnly } from '../../www/js/specs.js';
import { findMesh, rewriteMesh, meshesByName } from '../../npm/src/mesh.js';

const PROGRAM = `import jax
from functools import partial
from jax.experimental.shard_map import shard_map
mesh = jax.make_mesh((2, 4), ('x', 'y'))
# shard_map(f, in_specs=P('ignored'))
@partial(jax.shard_map, mesh=mesh, in_specs=(P('x', None), P()),
         out_specs=P('x'))
def f(a, b):
    return a
g = shard_map(h, mesh=mesh, in_specs=P(('x', 'y')), out_specs=PartitionSpec())
s = "shard_map(q, in_specs=P('no'))"
k = jax.shard_map(lambda v: v, mesh=mesh, in_specs=specs, out_specs=P(None, 'y'))
`;

test('finds every shard_map call and its specs, not in comments or strings', () => {
  const calls = findShardMaps(PROGRAM);
  assert.deepEqual(calls.map((c) => c.line), [6, 10, 12]);
  assert.deepEqual(calls.map((c) => c.mesh), ['mesh', 'mesh', 'mesh']);
  assert.deepEqual(calls[0].in_specs.specs.map((s) => s.text), ["P('x', None)", 'P()']);
  assert.deepEqual(calls[0].out_specs.specs.map((s) => s.text), ["P('x')"]);
  assert.deepEqual(calls[1].in_specs.specs.map((s) => s.text), ["P(('x', 'y'))"]);
  assert.deepEqual(calls[1].out_specs.specs.map((s) => s.text), ['PartitionSpec()']);
  // A variable is not a literal spec: no fields for it.
  assert.equal(calls[2].in_specs.text, 'specs');
  assert.deepEqual(calls[2].in_specs.specs, []);
  const s = calls[0].in_specs.specs[0];
  assert.equal(PROGRAM.slice(s.start, s.end), "P('x', None)");
});

test('codeOnly blanks strings and comments but keeps positions', () => {
  const src = "a = 'x(' # )\nb = \"\"\"(\n\"\"\" + c(1)";
  const code = codeOnly(src);
  assert.equal(code.length, src.length);
  assert.equal(code.split('\n').length, src.split('\n').length);
  assert.equal((code.match(/\(/g) || []).length, 1);
});

test('parses specs and refuses bad ones with the reason', () => {
  assert.deepEqual(parseSpec("P('x', None)"), { entries: [['x'], null] });
  assert.deepEqual(parseSpec('P(("x", "y"))'), { entries: [['x', 'y']] });
  assert.deepEqual(parseSpec('P()'), { entries: [] });
  assert.deepEqual(parseSpec("'x'"), { entries: [['x']] });
  assert.match(parseSpec('P(x)').error, /not None, an axis name in quotes/);
  assert.match(parseSpec("P(('x', 1))").error, /not a tuple of axis names/);
  assert.equal(checkSpec([['x'], null], ['x', 'y']), null);
  assert.equal(checkSpec([['z']], ['x', 'y']), "axis 'z' is not in the mesh (its axes: 'x', 'y')");
  assert.equal(checkSpec([['x'], ['y', 'x']], ['x', 'y']), "axis 'x' is used twice in one spec");
  assert.equal(checkSpec([['z']], null), null);
  assert.equal(specText([['x'], null, ['x', 'y']]), "P('x', None, ('x', 'y'))");
  assert.equal(specText([], 'PartitionSpec'), 'PartitionSpec()');
});

test('rewrites one spec in place', () => {
  const s = findShardMaps(PROGRAM)[0].in_specs.specs[0];
  const out = replaceRange(PROGRAM, s.start, s.end, specText([null, ['y']]));
  assert.ok(out.includes("in_specs=(P(None, 'y'), P()),"));
  assert.equal(findShardMaps(out)[0].in_specs.specs[0].text, "P(None, 'y')");
});

test('reads and rewrites jax.make_mesh and create_device_mesh meshes', () => {
  const m = findMesh(PROGRAM);
  assert.deepEqual([m.shape, m.names, m.form], [[2, 4], ['x', 'y'], 'make_mesh']);
  assert.ok(rewriteMesh(PROGRAM, [4, 2], ['x', 'y']).includes("mesh = jax.make_mesh((4, 2), ('x', 'y'))"));
  assert.ok(rewriteMesh("m = jax.make_mesh((8,), ('d',))", [4], ['d']).endsWith("jax.make_mesh((4,), ('d',))"));
  const cdm = "mesh = Mesh(mesh_utils.create_device_mesh((2, 4)), ('x', 'y'))";
  assert.deepEqual(findMesh(cdm).shape, [2, 4]);
  assert.equal(rewriteMesh(cdm, [8], ['d']), "mesh = Mesh(mesh_utils.create_device_mesh((8,)), ('d',))");
  assert.deepEqual(meshesByName(PROGRAM + '\nm2 = Mesh(devs, axis_names=("a",))\n'), {
    mesh: { shape: [2, 4], names: ['x', 'y'] },
    m2: { shape: null, names: ['a'] },
  });
});

test('timeline rows: each device its own times in parallel, the evaluator\'s in lockstep', async () => {
  const { deviceTimes } = await import('../../npm/src/view/timeline.js');
  const collectives = [
    { name: 'pvary', elapsed_us: [1, 2] },
    { name: 'psum_invariant', elapsed_us: new Float64Array([30, 10]) },
  ];
  const parallel = {
    mode: 'parallel', device_ids: [0, 1], elapsed_us: 100, collectives,
    timings: [{ position: 0, total_us: 100, collective_us: 31 }, { position: 1, total_us: 90, collective_us: 12 }],
  };
  assert.deepEqual(deviceTimes(parallel), [
    { position: 0, total: 100, colls: [{ k: 0, name: 'pvary', t: 1 }, { k: 1, name: 'psum_invariant', t: 30 }] },
    { position: 1, total: 90, colls: [{ k: 0, name: 'pvary', t: 2 }, { k: 1, name: 'psum_invariant', t: 10 }] },
  ]);
  const lockstep = { ...parallel, mode: 'lockstep', timings: [], elapsed_us: 50,
    collectives: [{ name: 'psum', elapsed_us: [7, 7] }] };
  assert.deepEqual(deviceTimes(lockstep).map((r) => [r.position, r.total, r.colls[0].t]), [[0, 50, 7], [1, 50, 7]]);
  assert.equal(deviceTimes({ ...lockstep, elapsed_us: undefined }), null);
});
