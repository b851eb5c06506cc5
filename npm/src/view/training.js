// Training programs: grad / value_and_grad called again and again at top
// level (the report's `grads`), or the same map run again and again with a
// scalar output, taken as the loss (a grad inside the map). A chart of the loss per step,
// play/pause/step buttons and a progress bar move through the steps; each
// step shows its parameters, its gradient reductions and its map.
import { el, svg } from './dom.js';
import { arrayText, fmtNumber } from './arrays.js';
import { REDUCTIONS } from './gradients.js';

// Whether `loss` is a loss over steps: at least two different finite
// values. The same value again and again is one computation repeated (a
// program printing a result and then returning it), not training.
function changes(loss) {
  return new Set(loss.filter((v) => Number.isFinite(v))).size >= 2;
}

// The steps of a training loop in `report`, or null. With 3 or more
// top-level grad calls, one step each: { grads: true, maps, loss }, where
// maps[k] is the last map step k ran (its backward map), or -1. Otherwise
// the largest group (at least 3) of forward maps with the same kind, mesh and
// input and output shapes, and a scalar output: { grads: false, maps, loss, output }, where
// `output` is the index of the scalar output taken as the loss (the last).
export function findSteps(report) {
  const calls = report.grads || [];
  if (calls.length >= 3 && changes(calls.map((g) => Number(g.loss)))) {
    return {
      grads: true,
      maps: calls.map((g) => (g.maps[1] > g.maps[0] ? g.maps[1] - 1 : -1)),
      loss: calls.map((g) => Number(g.loss)),
    };
  }
  const groups = new Map();
  report.maps.forEach((m, i) => {
    if (m.role === 'backward') return;
    // Steps of one loop share their inputs' and outputs' shapes; their
    // programs may differ in type details (a Python number's weak type in
    // the first step is converted there and not after), as in JAX.
    const shapes = (xs) => xs.map((a) => a.global.shape.join('x')).join(',');
    const key = [m.kind, (m.mesh_shape || []).join('x'), shapes(m.inputs || []), shapes(m.outputs)].join('\n');
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(i);
  });
  let best = null;
  for (const idx of groups.values()) {
    if (idx.length < 3 || (best && best.length >= idx.length)) continue;
    best = idx;
  }
  if (!best) return null;
  const first = report.maps[best[0]];
  let output = -1;
  first.outputs.forEach((a, j) => {
    if (a.global.shape.length === 0) output = j;
  });
  if (output < 0) return null;
  const loss = best.map((i) => Number(report.maps[i].outputs[output].global.data[0]));
  return changes(loss) ? { grads: false, maps: best, loss, output } : null;
}

const W = 520;
const H = 180;
const PAD = { l: 60, r: 12, t: 10, b: 28 };

// A tick label short enough to read: at most 3 significant digits, and
// powers of ten for very small or large values (2.81e-6, not 0.000002808).
export function tickLabel(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a < 1e-3 || a >= 1e5) {
    const [m, e] = v.toExponential(2).split('e');
    return `${String(Number(m))}e${Number(e)}`;
  }
  return String(Number(v.toPrecision(3)));
}

// The loss axis: logarithmic when every loss is positive and they span two
// decades or more (a loss falling from 1 to 1e-6 is a straight line rather
// than a cliff), linear otherwise. { log, lo, hi, ticks, at(v) -> 0..1 }.
export function lossScale(values) {
  const finite = values.filter((v) => Number.isFinite(v));
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (lo > 0 && hi / lo >= 100) {
    // A float32 loss a hair under a power of ten (9.9999e-9) keeps that
    // power (1e-8) as its end.
    const l0 = Math.floor(Math.log10(lo) + 1e-5);
    const l1 = Math.ceil(Math.log10(hi) - 1e-5);
    const step = Math.max(1, Math.ceil((l1 - l0) / 6));
    const ticks = [];
    for (let e = l0; e <= l1; e += step) ticks.push(Number(`1e${e}`));
    return { log: true, lo: 10 ** l0, hi: 10 ** l1, ticks,
      at: (v) => (Math.log10(Math.max(v, 10 ** l0)) - l0) / (l1 - l0 || 1) };
  }
  if (!(hi > lo)) {
    const pad = Math.abs(lo) / 10 || 1;
    lo -= pad;
    hi += pad;
  }
  // Round steps (1, 2 or 5 times a power of ten), about four of them.
  const raw = (hi - lo) / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const first = Math.floor(lo / step) * step;
  const last = Math.ceil(hi / step) * step;
  const ticks = [];
  for (let t = first; t <= last + step / 2; t += step) ticks.push(Number(t.toPrecision(12)));
  return { log: false, lo: first, hi: last, ticks, at: (v) => (v - first) / (last - first) };
}

// A loss as text: four significant digits, in powers of ten below 0.001
// (4.406e-6 rather than 0.000004406).
export function lossText(v) {
  if (!Number.isFinite(v) || v === 0 || Math.abs(v) >= 1e-3) return fmtNumber(v);
  const [m, e] = v.toExponential(3).split('e');
  return `${String(Number(m))}e${Number(e)}`;
}

function chart(steps, onPick) {
  const n = steps.loss.length;
  const scale = lossScale(steps.loss);
  const x = (k) => PAD.l + (n === 1 ? 0 : ((W - PAD.l - PAD.r) * k) / (n - 1));
  const y = (v) => PAD.t + (H - PAD.t - PAD.b) * (1 - scale.at(v));
  const pts = steps.loss.map((v, k) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const ticks = scale.ticks.map((t) => svg('g', { class: 'tick' },
    svg('line', { x1: PAD.l - 3, y1: y(t).toFixed(1), x2: W - PAD.r, y2: y(t).toFixed(1), class: 'grid' }),
    svg('text', { x: PAD.l - 5, y: (y(t) + 3).toFixed(1), 'text-anchor': 'end' }, tickLabel(t))));
  return svg('svg', { class: 'loss-chart', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img',
    'data-scale': scale.log ? 'log' : 'linear',
    'aria-label': `loss per step, ${n} steps, from ${lossText(steps.loss[0])} to ${lossText(steps.loss[n - 1])}` +
      (scale.log ? ', on a log scale' : '') },
  ticks,
  svg('line', { x1: PAD.l, y1: H - PAD.b, x2: W - PAD.r, y2: H - PAD.b, class: 'axis' }),
  svg('line', { x1: PAD.l, y1: PAD.t, x2: PAD.l, y2: H - PAD.b, class: 'axis' }),
  svg('text', { x: 4, y: PAD.t + 8 }, scale.log ? 'loss (log)' : 'loss'),
  svg('text', { x: PAD.l, y: H - 8 }, 'step 1'),
  svg('text', { x: W - PAD.r, y: H - 8, 'text-anchor': 'end' }, `step ${n}`),
  svg('polyline', { points: pts, class: 'loss-line' }),
  steps.loss.map((v, k) => {
    const c = svg('circle', { cx: x(k).toFixed(1), cy: y(v).toFixed(1), r: 4, class: 'step-point', 'data-step': k },
      svg('title', {}, `step ${k + 1}: loss ${lossText(v)}`));
    c.addEventListener('click', () => onPick(k));
    return c;
  }));
}

const row = (label, a) => el('tr', {}, el('th', {}, label), el('td', {}, el('pre', { class: 'values' }, arrayText(a, 32))));

// Step k's values: for a grad call its loss and gradients; for a map its
// parameters (replicated inputs), reductions (gradients reduced over
// devices) and outputs.
function stepDetails(report, steps, k) {
  if (steps.grads) {
    const g = report.grads[k];
    return el('table', { class: 'step-table' }, el('tbody', {},
      row('loss', { shape: [], dtype: 'float32', data: [g.loss] }),
      g.grads.map((a, i) => row(`gradient ${i}`, a))));
  }
  const map = report.maps[steps.maps[k]];
  const params = map.inputs.map((a, i) => [a, i]).filter(([a]) => a.holders.length === 1);
  const reductions = map.collectives.filter((c) => REDUCTIONS.has(c.name));
  return el('table', { class: 'step-table' }, el('tbody', {},
    params.map(([a, i]) => row(`parameter in ${i} ${a.spec}`, a.global)),
    reductions.map((c, j) => row(`reduced ${c.name} ${j + 1} (device 0)`, c.after[0])),
    map.outputs.map((a, j) => row(j === steps.output ? `out ${j}: loss` : `out ${j} ${a.spec}`, a.global))));
}

// The training panel; `select(mapIndex)` shows that map below.
export function renderTraining(report, steps, select) {
  const n = steps.maps.length;
  let k = 0;
  let timer = null;
  const info = el('span', { id: 'step-info', 'aria-live': 'polite' });
  const progress = el('progress', { id: 'step-progress', max: n, value: 1, 'aria-label': 'Step progress' });
  const details = el('div', { class: 'step-details' });
  const play = el('button', { type: 'button', id: 'step-play' }, 'Play');
  const back = el('button', { type: 'button', id: 'step-back' }, 'Back');
  const next = el('button', { type: 'button', id: 'step-next' }, 'Step');
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = null;
    play.textContent = 'Play';
  };
  const go = (to, selectMap = true) => {
    k = Math.max(0, Math.min(n - 1, to));
    progress.value = k + 1;
    info.textContent = `step ${k + 1} of ${n} · loss ${lossText(steps.loss[k])}`;
    for (const c of plot.querySelectorAll('.step-point')) c.classList.toggle('current', Number(c.dataset.step) === k);
    const m = steps.maps[k];
    details.replaceChildren(stepDetails(report, steps, k));
    if (selectMap && m >= 0) select(m);
  };
  const plot = chart(steps, (s) => {
    stop();
    go(s);
  });
  play.addEventListener('click', () => {
    if (timer) return stop();
    if (k === n - 1) go(0);
    play.textContent = 'Pause';
    timer = setInterval(() => {
      if (!play.isConnected) return stop();
      go(k + 1);
      if (k >= n - 1) stop();
    }, 350);
  });
  next.addEventListener('click', () => {
    stop();
    go(k + 1);
  });
  back.addEventListener('click', () => {
    stop();
    go(k - 1);
  });
  const panel = el('div', { class: 'training' },
    el('h3', {}, steps.grads
      ? `Training: ${n} steps (${n} grad calls; loss = the differentiated function's value)`
      : `Training: ${n} steps (map ${steps.maps[0] + 1} run ${n} times; loss = its scalar out ${steps.output})`),
    plot,
    el('div', { class: 'step-controls' }, play, back, next, progress, info),
    details);
  // Shows the step of map `m` if it is one, else the first step without
  // selecting its map.
  panel.start = (m) => {
    const at = steps.maps.indexOf(m);
    go(at >= 0 ? at : 0, false);
  };
  return panel;
}
