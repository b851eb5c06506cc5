// Per-device time: compute vs. inside collectives, as bars on one scale.
import { el, deviceColour } from './dom.js';

export function renderTimeline(map) {
  const t = map.timings.filter((x) => x.total_us > 0);
  if (t.length === 0) return null;
  const max = Math.max(...t.map((x) => x.total_us));
  const n = map.device_ids.length;
  return el('div', { class: 'timeline' },
    t.map((x) => {
      const compute = x.total_us - x.collective_us;
      return el('div', { class: 'tl-row' },
        el('span', { class: 'tl-label' }, `device ${map.device_ids[x.position]}`),
        el('span', { class: 'tl-bar' },
          el('span', { class: 'tl-compute', style: { width: `${(100 * compute) / max}%`, background: deviceColour(x.position, n) } }),
          el('span', { class: 'tl-coll', style: { width: `${(100 * x.collective_us) / max}%` } })),
        el('span', { class: 'dim' }, `${compute.toFixed(0)} µs compute, ${x.collective_us.toFixed(0)} µs collectives`));
    }));
}
