// The devices of one map laid out as its mesh: a row for 1-D, a grid for
// 2-D, and for 3 axes and more one grid (the last two axes) per index of
// the leading axes, each titled with those indices. Each device shows its
// coordinates and its local shard of every input and output.
import { el, deviceColour } from './dom.js';
import { arrayText, fmtShape, heatmap, range } from './arrays.js';

// Mesh coordinates of row-major `position` in `shape`.
export function coordsOf(position, shape) {
  const coords = [];
  for (let d = shape.length - 1; d >= 0; d--) {
    coords.unshift(position % shape[d]);
    position = Math.floor(position / shape[d]);
  }
  return coords;
}

function shardBlock(label, arr, position, bounds) {
  const shard = arr.shards[position];
  if (!shard) return null;
  const v = shard.value;
  return el(
    'div',
    { class: 'shard', 'data-array': label },
    el('div', { class: 'shard-head' }, `${label} ${arr.spec} `, el('span', { class: 'dim' }, fmtShape(v.shape))),
    heatmap(v, bounds[0], bounds[1]),
    el('pre', { class: 'values' }, arrayText(v)),
  );
}

function deviceCard(map, position, bounds) {
  const id = map.device_ids[position];
  const coords = coordsOf(position, map.mesh_shape);
  const n = map.device_ids.length;
  const where = map.axis_names.map((a, i) => `${a}=${coords[i]}`).join(' ');
  return el(
    'section',
    {
      class: 'device',
      'data-device-id': id,
      'data-mesh-coords': coords.join(','),
      'aria-label': `device ${id} at ${where}`,
      style: { borderTopColor: deviceColour(position, n) },
    },
    el('h4', {}, `device ${id}`, el('span', { class: 'coords' }, where)),
    map.inputs.map((a, i) => shardBlock(`in ${i}`, a, position, bounds.inputs[i])),
    map.outputs.map((a, i) => shardBlock(`out ${i}`, a, position, bounds.outputs[i])),
  );
}

export function renderDevices(map) {
  const bounds = {
    inputs: map.inputs.map((a) => range([a.global])),
    outputs: map.outputs.map((a) => range([a.global])),
  };
  const shape = map.mesh_shape;
  const card = (p) => deviceCard(map, p, bounds);
  const grid = (first, rows, cols) => {
    const g = el('div', { class: 'mesh-grid', style: { gridTemplateColumns: `repeat(${cols}, minmax(150px, 1fr))` } });
    for (let p = first; p < first + rows * cols; p++) g.append(card(p));
    return g;
  };
  if (shape.length <= 1) {
    const g = grid(0, 1, shape[0] || 1);
    g.style.gridTemplateColumns = 'repeat(auto-fit, minmax(150px, 1fr))';
    return el('div', { class: 'mesh' }, g);
  }
  if (shape.length === 2) {
    return el(
      'div',
      { class: 'mesh' },
      el('div', { class: 'axis-label' }, `rows: ${map.axis_names[0]} · columns: ${map.axis_names[1]}`),
      grid(0, shape[0], shape[1]),
    );
  }
  // 3 axes and more: one grid per index of the leading axes, the last two
  // down and across, so every axis keeps its own direction.
  const rank = shape.length;
  const [rows, cols] = shape.slice(rank - 2);
  const lead = shape.slice(0, rank - 2);
  const facets = [];
  for (let i = 0; i < lead.reduce((a, b) => a * b, 1); i++) {
    const at = coordsOf(i, lead).map((v, a) => `${map.axis_names[a]}=${v}`).join(' ');
    facets.push(
      el(
        'div',
        { class: 'facet', 'data-facet': at },
        el('div', { class: 'axis-label' }, `${at} · rows: ${map.axis_names[rank - 2]} · columns: ${map.axis_names[rank - 1]}`),
        grid(i * rows * cols, rows, cols),
      ),
    );
  }
  return el('div', { class: 'mesh facets' }, facets);
}
