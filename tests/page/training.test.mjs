// npm/src/view/training.js's choice of steps, on hand-made reports (no browser).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findSteps } from '../../npm/src/view/training.js';

const arr = (v) => ({ shape: [], dtype: 'float32', data: new Float32Array([v]) });
const map = (jaxpr, loss, role = 'forward') => ({
  kind: 'shard_map', role, jaxpr, outputs: [{ global: { shape: [2], data: [0, 0] } }, { global: arr(loss) }],
});

test('repeated maps with a scalar output are the steps, the last scalar output the loss', () => {
  const report = { maps: [map('a', 9), map('b', 3), map('b', 2), map('b', 1, 'backward'), map('b', 1)], grads: [] };
  assert.deepEqual(findSteps(report), { grads: false, maps: [1, 2, 4], loss: [3, 2, 1], output: 1 });
  assert.equal(findSteps({ maps: [map('b', 3), map('b', 2)], grads: [] }), null);
});

test('three or more top-level grad calls are the steps', () => {
  const report = {
    maps: [map('f', 0), map('t', 0, 'backward'), map('f', 0), map('t', 0, 'backward')],
    grads: [
      { loss: 8, grads: [arr(-7)], maps: [0, 2] },
      { loss: 4.5, grads: [arr(-3)], maps: [2, 4] },
      { loss: 4, grads: [arr(-1)], maps: [4, 4] },
    ],
  };
  assert.deepEqual(findSteps(report), { grads: true, maps: [1, 3, -1], loss: [8, 4.5, 4] });
});
