// Per-device time: a bar per device on one scale, its compute time and then
// each collective it took part in, in program order, as numbered segments.
// Parallel reports carry every device's own times; in lockstep one evaluator
// runs all devices, so every bar shows that evaluator's times. Internal
// steps (a pvary, a sum of a value every device holds: collective_names.js)
// keep their place and time in the bar, drawn pale and named in words, and
// are counted apart from the collectives that move data.
import { el, deviceColour } from './dom.js';
import { describe } from './collective_names.js';

export function us(x) {
  return x >= 1000 ? `${(x / 1000).toFixed(1)} ms` : `${x.toFixed(0)} µs`;
}

// Each device's { position, total, colls: [{ k, name, t }] }, or null when
// the report has no times.
export function deviceTimes(map) {
  const n = map.device_ids.length;
  const colls = map.collectives || [];
  const of = (p) => colls.map((c, k) => ({ k, name: c.name, t: c.elapsed_us ? Number(c.elapsed_us[p]) || 0 : 0 }));
  if (map.timings && map.timings.some((x) => x.total_us > 0)) {
    return map.timings.map((x) => ({ position: x.position, total: x.total_us, colls: of(x.position) }));
  }
  if (map.elapsed_us !== undefined) {
    return Array.from({ length: n }, (_, p) => ({ position: p, total: map.elapsed_us, colls: of(p) }));
  }
  return null;
}

export function renderTimeline(map) {
  const rows = deviceTimes(map);
  if (!rows) return null;
  const max = Math.max(...rows.map((r) => Math.max(r.total, r.colls.reduce((s, c) => s + c.t, 0))));
  if (!(max > 0)) {
    return el('p', { class: 'dim timeline', 'data-mode': map.mode },
      'This map ran faster than the clock can measure.');
  }
  const n = map.device_ids.length;
  const pct = (t) => `${(100 * t) / max}%`;
  const lockstep = map.mode === 'lockstep';
  return el('div', { class: 'timeline', 'data-mode': map.mode },
    el('p', { class: 'dim' }, lockstep
      ? 'Lockstep: one evaluator runs every device equation by equation, so each bar shows the same times: compute, then each collective in order (pale: internal steps, which move no data).'
      : 'Each device\'s own time: compute, then each collective in order (waiting for the others and exchanging; pale: internal steps, which move no data).'),
    rows.map((r) => timelineRow(map, r, pct)));
}

const plural = (k, word) => `${k} ${word}${k === 1 ? '' : 's'}`;

function timelineRow(map, r, pct) {
  const n = map.device_ids.length;
  const steps = r.colls.map((c) => ({ ...c, d: describe(map.collectives[c.k]) }));
  const sum = (xs) => xs.reduce((s, c) => s + c.t, 0);
  const moving = steps.filter((c) => !c.d.internal);
  const internal = steps.filter((c) => c.d.internal);
  const compute = Math.max(0, r.total - sum(steps));
  return el('div', { class: 'tl-row', 'data-device-id': map.device_ids[r.position] },
    el('span', { class: 'tl-label' }, `device ${map.device_ids[r.position]}`),
    el('span', { class: 'tl-bar' },
      el('span', { class: 'tl-compute', title: `compute ${us(compute)}`, style: { width: pct(compute), background: deviceColour(r.position, n) } }),
      steps.map((c) => el('span', {
        class: c.d.internal ? 'tl-coll tl-internal' : 'tl-coll', 'data-collective': c.name, 'data-name': c.d.name, 'data-order': c.k + 1,
        title: `${c.k + 1}. ${c.d.name}${c.d.internal ? ` (internal step: ${c.d.words})` : ''}: ${us(c.t)}`, style: { width: pct(c.t) },
      }))),
    el('span', { class: 'dim tl-sum' }, `${us(compute)} compute, ${us(sum(moving))} in ${plural(moving.length, 'collective')}`
      + (internal.length ? `, ${us(sum(internal))} in ${plural(internal.length, 'internal step')}` : '')));
}
