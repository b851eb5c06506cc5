// Training programs: grad / value_and_grad called again and again at top
// level (the report's `grads`), or the same map run again and again with a
// scalar output, taken as the loss (a grad inside the map). A chart of the loss per step,
// play/pause/step buttons and a progress bar move through the steps; each
// step shows its parameters, its gradient reductions and its map.
import { el, svg } from './dom.js';
import { arrayText, fmtNumber } from './arrays.js';
import { REDUCTIONS } from './gradients.js';

// The steps of a training loop in `report`, or null. With 3 or more
// top-level grad calls, one step each: { grads: true, maps, loss }, where
// maps[k] is the last map step k ran (its backward map), or -1. Otherwise
// the largest group (at least 3) of forward maps with the same kind, mesh and
// input and output shapes, and a scalar output: { grads: false, maps, loss, output }, where
// `output` is the index of the scalar output taken as the loss (the last).
export function findSteps(report) {
  const calls = report.grads || [];
  if (calls.length >= 3) {
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
  return { grads: false, maps: best, loss, output };
}

const W = 520;
const H = 180;
const PAD = { l: 74, r: 12, t: 10, b: 28 };

function chart(steps, onPick) {
  const n = steps.loss.length;
  const finite = steps.loss.filter((v) => Number.isFinite(v));
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (!(hi > lo)) {
    lo -= 1;
    hi += 1;
  }
  const x = (k) => PAD.l + (n === 1 ? 0 : ((W - PAD.l - PAD.r) * k) / (n - 1));
  const y = (v) => PAD.t + (H - PAD.t - PAD.b) * (1 - (v - lo) / (hi - lo));
  const pts = steps.loss.map((v, k) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  return svg('svg', { class: 'loss-chart', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img',
    'aria-label': `loss per step, ${n} steps, from ${fmtNumber(steps.loss[0])} to ${fmtNumber(steps.loss[n - 1])}` },
  svg('line', { x1: PAD.l, y1: H - PAD.b, x2: W - PAD.r, y2: H - PAD.b, class: 'axis' }),
  svg('line', { x1: PAD.l, y1: PAD.t, x2: PAD.l, y2: H - PAD.b, class: 'axis' }),
  svg('text', { x: PAD.l - 4, y: PAD.t + 8, 'text-anchor': 'end' }, fmtNumber(hi)),
  svg('text', { x: PAD.l - 4, y: H - PAD.b, 'text-anchor': 'end' }, fmtNumber(lo)),
  svg('text', { x: PAD.l, y: H - 8 }, 'step 1'),
  svg('text', { x: W - PAD.r, y: H - 8, 'text-anchor': 'end' }, `step ${n}`),
  svg('polyline', { points: pts, class: 'loss-line' }),
  steps.loss.map((v, k) => {
    const c = svg('circle', { cx: x(k).toFixed(1), cy: y(v).toFixed(1), r: 4, class: 'step-point', 'data-step': k },
      svg('title', {}, `step ${k + 1}: loss ${fmtNumber(v)}`));
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
    info.textContent = `step ${k + 1} of ${n} · loss ${fmtNumber(steps.loss[k])}`;
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
