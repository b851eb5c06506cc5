// npm/src/view/training.js's choice of steps, on hand-made reports (no browser).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findSteps } from '../../npm/src/view/training.js';

const arr = (v) => ({ shape: [], dtype: 'float32', data: new Float32Array([v]) });
// A map whose first output has `width` elements and whose second is the loss.
const map = (width, loss, role = 'forward', jaxpr = `program ${width}`) => ({
  kind: 'shard_map', role, jaxpr, mesh_shape: [2], inputs: [],
  outputs: [{ global: { shape: [width], data: new Array(width).fill(0) } }, { global: arr(loss) }],
});

test('repeated maps with a scalar output are the steps, the last scalar output the loss', () => {
  const report = { maps: [map(3, 9), map(2, 3), map(2, 2), map(2, 1, 'backward'), map(2, 1)], grads: [] };
  assert.deepEqual(findSteps(report), { grads: false, maps: [1, 2, 4], loss: [3, 2, 1], output: 1 });
  assert.equal(findSteps({ maps: [map(2, 3), map(2, 2)], grads: [] }), null);
});

test('steps whose programs differ only in types (a weak first step) are one loop', () => {
  const report = { maps: [map(2, 3, 'forward', 'converts a weak b'), map(2, 2), map(2, 1)], grads: [] };
  assert.deepEqual(findSteps(report), { grads: false, maps: [0, 1, 2], loss: [3, 2, 1], output: 1 });
});

test('three or more top-level grad calls are the steps', () => {
  const report = {
    maps: [map(2, 0), map(2, 0, 'backward'), map(2, 0), map(2, 0, 'backward')],
    grads: [
      { loss: 8, grads: [arr(-7)], maps: [0, 2] },
      { loss: 4.5, grads: [arr(-3)], maps: [2, 4] },
      { loss: 4, grads: [arr(-1)], maps: [4, 4] },
    ],
  };
  assert.deepEqual(findSteps(report), { grads: true, maps: [1, 3, -1], loss: [8, 4.5, 4] });
});
