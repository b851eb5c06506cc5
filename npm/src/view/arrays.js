// Arrays from the report ({ shape, dtype, data }) as text and as heatmaps.
import { el } from './dom.js';

export function fmtNumber(x, dtype) {
  if (x === null || x === undefined || Number.isNaN(x)) return 'nan';
  if (dtype === 'bool') return x ? 'True' : 'False';
  if (dtype === 'int32' || Number.isInteger(x)) return String(x) + (dtype === 'float32' ? '.' : '');
  const s = x.toPrecision(4);
  return s.includes('e') ? s : String(Number(s));
}

export function fmtShape(shape) {
  return shape.length === 0 ? 'scalar' : shape.join('×');
}

// NumPy-like text of an array, cut after `limit` elements.
export function arrayText(a, limit = 64) {
  const { shape, data, dtype } = a;
  if (shape.length === 0) return fmtNumber(data[0], dtype);
  let shown = 0;
  const rec = (dim, offset) => {
    if (dim === shape.length - 1) {
      const row = [];
      for (let i = 0; i < shape[dim]; i++) {
        if (shown++ >= limit) {
          row.push('…');
          break;
        }
        row.push(fmtNumber(data[offset + i], dtype));
      }
      return '[' + row.join(' ') + ']';
    }
    const inner = shape.slice(dim + 1).reduce((p, q) => p * q, 1);
    const parts = [];
    for (let i = 0; i < shape[dim] && shown < limit; i++) parts.push(rec(dim + 1, offset + i * inner));
    if (shown >= limit && parts.length < shape[dim]) parts.push('…');
    return '[' + parts.join('\n' + ' '.repeat(dim + 1)) + ']';
  };
  return rec(0, 0);
}

// A grid of cells coloured by value (blue low, red high) over [lo, hi];
// 0-D and 1-D arrays are one row, higher ones are flattened to 2-D.
export function heatmap(a, lo, hi, maxCells = 256) {
  const { shape, data } = a;
  const cols = shape.length === 0 ? 1 : shape[shape.length - 1];
  const n = Math.min(data.length, maxCells);
  const span = hi > lo ? hi - lo : 1;
  const grid = el('div', {
    class: 'heatmap',
    'aria-hidden': 'true',
    style: { gridTemplateColumns: `repeat(${Math.min(cols, 32)}, 10px)` },
  });
  for (let i = 0; i < n; i++) {
    const v = data[i];
    const t = v === null ? 0.5 : (v - lo) / span;
    const hue = 240 - 240 * Math.min(1, Math.max(0, t));
    grid.append(el('span', { style: { background: `hsl(${hue} 75% 55%)` } }));
  }
  return grid;
}

export function range(arrays) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const a of arrays) {
    for (const v of a.data) {
      if (v === null) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return lo <= hi ? [lo, hi] : [0, 1];
}

// Rows [start, stop) of axis `axis` of `a`, copied (no arithmetic), as an
// array of the same rank: a collective's pieces are slices of its operand.
export function sliceAxis(a, axis, start, stop) {
  const { shape, data } = a;
  const outer = shape.slice(0, axis).reduce((p, q) => p * q, 1);
  const inner = shape.slice(axis + 1).reduce((p, q) => p * q, 1);
  const out = [];
  for (let o = 0; o < outer; o++) {
    const base = o * shape[axis] * inner;
    for (let i = start * inner; i < stop * inner; i++) out.push(data[base + i]);
  }
  const sliced = shape.slice();
  sliced[axis] = stop - start;
  return { shape: sliced, dtype: a.dtype, data: out };
}

// `a` without its axis `axis` of size 1 (same elements).
export function dropAxis(a, axis) {
  return { shape: a.shape.filter((_, k) => k !== axis), dtype: a.dtype, data: a.data };
}
