// npm/src/mesh.js on its own (no browser): reading, checking and rewriting the
// Mesh(...) line the controls drive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findMesh, meshCall, rewriteMesh, parseShape, parseNames, checkMesh } from '../../npm/src/mesh.js';

const PROGRAM = "import jax\nmesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))\nprint(mesh)\n";

test('reads the mesh of a 2-D and a 1-D Mesh line', () => {
  const m = findMesh(PROGRAM);
  assert.deepEqual([m.shape, m.names], [[2, 4], ['x', 'y']]);
  const one = findMesh("mesh = Mesh(np.array(jax.devices()[:4]), ('batch',))");
  assert.deepEqual([one.shape, one.names], [[4], ['batch']]);
  assert.equal(findMesh('mesh = Mesh(devices, ("data",))'), null);
});

test('rewrites only the Mesh call', () => {
  assert.equal(
    rewriteMesh(PROGRAM, [4, 2], ['a', 'b']),
    "import jax\nmesh = Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ('a', 'b'))\nprint(mesh)\n",
  );
  assert.equal(meshCall([3], ['x']), "Mesh(np.array(jax.devices()[:3]), ('x',))");
  assert.equal(meshCall([2, 2, 2], ['a', 'b', 'c']), "Mesh(np.array(jax.devices()[:8]).reshape(2, 2, 2), ('a', 'b', 'c'))");
  assert.equal(rewriteMesh('print(1)', [2], ['x']), 'print(1)');
});

test('parses shapes and names, refusing bad ones with a reason', () => {
  assert.deepEqual(parseShape('2x4'), { shape: [2, 4] });
  assert.deepEqual(parseShape(' 2 , 2 ,2 '), { shape: [2, 2, 2] });
  assert.match(parseShape('2x0').error, /positive whole number/);
  assert.match(parseShape('').error, /give the mesh shape/);
  assert.match(parseShape('2x2x2x2').error, /at most 3 axes/);
  assert.deepEqual(parseNames('x, y'), { names: ['x', 'y'] });
  assert.match(parseNames('x,x').error, /used twice/);
  assert.match(parseNames('x,,y').error, /empty/);
  assert.match(parseNames('1x').error, /not a valid axis name/);
});

test('checks a mesh against the device count', () => {
  assert.equal(checkMesh(8, [2, 4], ['x', 'y']), null);
  assert.equal(checkMesh(8, [4], ['x']), null);
  assert.match(checkMesh(8, [3, 3], ['x', 'y']), /needs 9 devices, there are 8/);
  assert.match(checkMesh(8, [3], ['x']), /do not divide/);
  assert.match(checkMesh(0, [1], ['x']), /1 to 16/);
  assert.match(checkMesh(8, [2, 4], ['x']), /2 axes but 1 axis name$/);
});

test('make_mesh keeps its keyword arguments, and one passing devices= is left to the code', () => {
  const src = "mesh = jax.make_mesh((2, 4), ('x', 'y'), axis_types=(AxisType.Explicit,) * 2)\n";
  const m = findMesh(src);
  assert.deepEqual([m.shape, m.names, m.keywords], [[2, 4], ['x', 'y'], ', axis_types=(AxisType.Explicit,) * 2']);
  assert.equal(rewriteMesh(src, [4, 2], ['a', 'b']),
    "mesh = jax.make_mesh((4, 2), ('a', 'b'), axis_types=(AxisType.Explicit,) * 2)\n");
  const split = "m = jax.make_mesh((4,), ('x',),\n                  axis_types=(jax.sharding.AxisType.Auto,))\n";
  assert.equal(rewriteMesh(split, [8], ['x']),
    "m = jax.make_mesh((8,), ('x',),\n                  axis_types=(jax.sharding.AxisType.Auto,))\n");
  assert.equal(findMesh("m = jax.make_mesh((4,), ('x',))").keywords, '');
  assert.equal(findMesh("m = jax.make_mesh((4,), ('x',), devices=jax.devices()[:4])"), null);
});
