// Every collective of a map in execution order: its parameters, groups,
// bytes moved and each device's value before and after. ppermute also gets
// its pairs drawn as arrows around a ring of devices.
import { el, svg, deviceColour } from './dom.js';
import { arrayText } from './arrays.js';

// The ring's nodes are positions along the collective's axis: with one group
// they are that group's devices, otherwise every group repeats the pattern.
function ring(perm, coll, map) {
  const group = coll.groups[0] || map.device_ids.map((_, i) => i);
  const n = group.length;
  const single = coll.groups.length <= 1;
  const size = 180;
  const r = 66;
  const c = size / 2;
  const at = (i) => [c + r * Math.sin((2 * Math.PI * i) / n), c - r * Math.cos((2 * Math.PI * i) / n)];
  const arrows = perm.map(([a, b]) => {
    const [x1, y1] = at(a);
    const [x2, y2] = at(b);
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    const ux = (x2 - x1) / len;
    const uy = (y2 - y1) / len;
    return svg('line', {
      x1: x1 + ux * 13, y1: y1 + uy * 13, x2: x2 - ux * 15, y2: y2 - uy * 15,
      class: 'arrow', 'marker-end': 'url(#arrowhead)',
    });
  });
  const nodes = group.map((p, i) => {
    const [x, y] = at(i);
    const colour = single ? deviceColour(p, map.device_ids.length) : '#ddd';
    return svg('g', {}, svg('circle', { cx: x, cy: y, r: 11, fill: colour }),
      svg('text', { x, y: y + 4, 'text-anchor': 'middle' }, String(single ? map.device_ids[p] : i)));
  });
  return svg('svg', { class: 'ring', viewBox: `0 0 ${size} ${size}`, width: size, height: size, role: 'img',
    'aria-label': 'ppermute pairs: ' + perm.map(([a, b]) => `${a}→${b}`).join(', ') },
    svg('defs', {}, svg('marker', { id: 'arrowhead', viewBox: '0 0 10 10', refX: 8, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' },
      svg('path', { d: 'M0,0 L10,5 L0,10 z' }))),
    arrows, nodes);
}

// ppermute's pairs from its `perm` parameter, e.g. "((0, 1), (1, 2))".
function parsePerm(params) {
  const p = params.find(([k]) => k === 'perm');
  if (!p) return null;
  return [...p[1].matchAll(/\(\s*(\d+)\s*,\s*(\d+)\s*\)/g)].map((m) => [Number(m[1]), Number(m[2])]);
}

function collective(c, i, map) {
  const n = map.device_ids.length;
  const params = c.params.map(([k, v]) => `${k}=${v}`).join(' ');
  const groups = c.groups.map((g) => '{' + g.map((p) => map.device_ids[p]).join(', ') + '}').join(' ');
  const rows = c.before.map((b, p) =>
    el('tr', { 'data-device-id': map.device_ids[p] },
      el('th', { scope: 'row', style: { color: deviceColour(p, n, 35) } }, `device ${map.device_ids[p]}`),
      el('td', {}, el('pre', { class: 'values' }, arrayText(b, 24))),
      el('td', {}, el('pre', { class: 'values' }, c.after[p] ? arrayText(c.after[p], 24) : '')),
    ));
  const perm = c.name === 'ppermute' ? parsePerm(c.params) : null;
  const ringLabel = perm && c.groups.length > 1 ? 'axis positions, in every group' : null;
  return el('li', { class: 'collective', 'data-collective': c.name },
    el('div', { class: 'collective-head' },
      el('strong', {}, `${i + 1}. ${c.name}`), ' ', el('code', {}, params)),
    el('div', { class: 'dim' }, `groups ${groups} · ${c.bytes_moved} bytes moved`),
    el('div', { class: 'collective-body' },
      perm ? el('figure', { class: 'ring-box' }, ring(perm, c, map), ringLabel ? el('figcaption', { class: 'dim' }, ringLabel) : null) : null,
      el('table', { class: 'before-after' },
        el('thead', {}, el('tr', {}, el('th', {}, ''), el('th', {}, 'before'), el('th', {}, 'after'))),
        el('tbody', {}, rows))));
}

export function renderCollectives(map) {
  if (map.collectives.length === 0) {
    return el('p', { class: 'dim' }, 'No collectives in this map.');
  }
  return el('ol', { class: 'collectives' }, map.collectives.map((c, i) => collective(c, i, map)));
}
