// Programs of tests/programs and JAX's answers for them from
// tests/fixtures/programs, and a comparison within float32 tolerance.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';

const repo = process.env.SHARDLAB_REPO;
if (!repo) throw new Error('SHARDLAB_REPO must name the shardlab checkout');

export function program(name) {
  return readFileSync(join(repo, 'tests', 'programs', `${name}.py`), 'utf8');
}

// Where real JAX lays out each named sharded array of a page example
// (tests/fixtures/layouts, written by tests/jax/gen_layouts.py).
export function layouts(name) {
  return JSON.parse(readFileSync(join(repo, 'tests', 'fixtures', 'layouts', `${name}.json`), 'utf8')).arrays;
}

// An exercise of examples/exercises: its problem and a solution's source
// (`NAME.py` the reference, `NAME_wrong.py` the wrong one).
export function exercise(name) {
  return JSON.parse(readFileSync(join(repo, 'examples', 'exercises', `${name}.json`), 'utf8'));
}

export function solution(name) {
  return readFileSync(join(repo, 'examples', 'exercises', `${name}.py`), 'utf8');
}

export function fixture(name) {
  return JSON.parse(readFileSync(join(repo, 'tests', 'fixtures', 'programs', `${name}.json`), 'utf8'));
}

// `actual` equals JAX's `expected` (nested lists, objects, numbers) with
// numbers within 1e-6 absolute + 1e-5 relative.
export function assertClose(actual, expected, path = 'result') {
  if (typeof expected === 'number') {
    assert.equal(typeof actual, 'number', `${path}: ${JSON.stringify(actual)} is not a number`);
    assert.ok(
      Math.abs(actual - expected) <= 1e-6 + 1e-5 * Math.abs(expected),
      `${path}: ${actual}, JAX says ${expected}`,
    );
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: not a list`);
    assert.equal(actual.length, expected.length, `${path}: length`);
    expected.forEach((e, i) => assertClose(actual[i], e, `${path}[${i}]`));
  } else if (expected !== null && typeof expected === 'object') {
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${path}: keys`);
    for (const k of Object.keys(expected)) assertClose(actual[k], expected[k], `${path}.${k}`);
  } else {
    assert.equal(actual, expected, path);
  }
}

// A program on 4 devices: `maps` shard_maps in a row, each of `steps`
// steps x = tanh(x @ w) on 256x256 blocks with w = `scale` * I, and no
// collective. x starts as ones and w keeps every element equal, so the
// result is t = tanh(scale * t) applied steps * maps times to 1.
function tanhSteps(steps, maps, scale) {
  return `import jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
def body(x, w):
    for k in range(${steps}):
        x = jnp.tanh(x @ w)
    return x

f = jax.shard_map(body, mesh=mesh, in_specs=(P('x'), P()), out_specs=P('x'))
x = jnp.ones((4 * 256, 256))
for i in range(${maps}):
    x = f(x, jnp.eye(256) * ${scale})
result = x[0, 0]
`;
}

// A thousand matmuls on each device in one shard_map: seconds of work that
// only the check before each operation can interrupt.
export const COMPUTE = tanhSteps(1000, 1, 0.5);

// `maps` shard_maps of ten steps each, with w = I.
export function manyMaps(maps) {
  return tanhSteps(10, maps, 1.0);
}

// tanh applied `n` times to 1, in float32 as the devices compute it.
export function tanhTimes(n) {
  let t = 1;
  for (let i = 0; i < n; i++) t = Math.fround(Math.tanh(t));
  return t;
}
