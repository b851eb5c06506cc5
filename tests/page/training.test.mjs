// npm/src/view/training.js's choice of steps, on hand-made reports (no browser).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findSteps, lossScale, tickLabel, lossText } from '../../npm/src/view/training.js';

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

test('the same loss again and again is not training', () => {
  // A program that calls one map three times on the same values.
  assert.equal(findSteps({ maps: [map(2, 5), map(2, 5), map(2, 5)], grads: [] }), null);
  const same = { loss: 2, grads: [arr(0)], maps: [0, 0] };
  assert.equal(findSteps({ maps: [], grads: [same, same, same] }), null);
});

test('losses spanning decades are charted on a log scale, with short tick labels', () => {
  const log = lossScale([1, 1e-2, 1e-4, 2.808e-6]);
  assert.equal(log.log, true);
  assert.deepEqual(log.ticks.map(tickLabel), ['1e-6', '1e-5', '1e-4', '0.001', '0.01', '0.1', '1']);
  // Each decade takes the same height: 1e-4 is two thirds of the way up.
  assert.ok(Math.abs(log.at(1e-4) - 2 / 6) < 1e-12);
  const linear = lossScale([0.5, 0.3, 0.19]);
  assert.equal(linear.log, false);
  assert.deepEqual(linear.ticks, [0.1, 0.2, 0.3, 0.4, 0.5]);
  assert.equal(lossScale([-1, 1e-6, 1]).log, false, 'a loss at or below zero stays linear');
  assert.deepEqual([2.808e-6, 0.00123, 12.345, 1234567, -0.5].map(tickLabel), ['2.81e-6', '0.00123', '12.3', '1.23e6', '-0.5']);
});

test('a small loss reads in powers of ten', () => {
  assert.deepEqual([4.406e-6, 0.25, 1.5, 0.00123].map(lossText), ['4.406e-6', '0.25', '1.5', '0.00123']);
});
