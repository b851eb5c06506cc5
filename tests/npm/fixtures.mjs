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
