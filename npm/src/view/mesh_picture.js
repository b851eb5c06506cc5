// A small SVG of a map's mesh for one frame of a collective: every device a
// cell at its mesh coordinates (first axis down the left side, the others
// across the top), cells coloured by the group they belong to, each
// rectangular group outlined, a short text of what the device holds, and
// arrows for the data moving in this frame.
import { svg } from './dom.js';
import { coordsOf } from './devices.js';

const W = 96;
const H = 46;
// Wide enough gaps for an arrow between neighbouring cells.
const GX = 26;
const GY = 26;
const LEFT = 40;
const TOP = 34;

// Rows are the first axis; columns every other axis, row-major, so a 1-D
// mesh is one row and a 2-D mesh is drawn as it is indexed.
function cellAt(position, shape) {
  const c = coordsOf(position, shape);
  if (shape.length <= 1) return [0, c[0] || 0];
  const rest = shape.slice(1);
  const col = c.slice(1).reduce((acc, v, i) => acc * rest[i] + v, 0);
  return [c[0], col];
}

function centre(position, shape) {
  const [r, c] = cellAt(position, shape);
  return [LEFT + c * (W + GX) + W / 2, TOP + r * (H + GY) + H / 2];
}

export function groupColour(g, count) {
  const hue = Math.round((360 * g) / Math.max(count, 1) + 20) % 360;
  return `hsl(${hue} 65% 50%)`;
}

function axisLabels(map, rows, cols) {
  const { axis_names: names, mesh_shape: shape } = map;
  const out = [];
  const across = shape.length <= 1 ? names.join('') : names.slice(1).join('×');
  out.push(svg('text', { class: 'axis-name', x: LEFT, y: 12 }, `${across} →`));
  for (let c = 0; c < cols; c++) {
    out.push(svg('text', { class: 'axis-index', x: LEFT + c * (W + GX) + W / 2, y: TOP - 6, 'text-anchor': 'middle' }, String(c)));
  }
  if (shape.length > 1) {
    out.push(svg('text', { class: 'axis-name', x: 4, y: TOP - 6 }, `${names[0]} ↓`));
    for (let r = 0; r < rows; r++) {
      out.push(svg('text', { class: 'axis-index', x: 14, y: TOP + r * (H + GY) + H / 2 + 4 }, String(r)));
    }
  }
  return out;
}

// The outline of a group whose cells fill their bounding box (a row, a
// column, a block); scattered groups are shown by colour alone.
function outline(group, shape, colour) {
  const cells = group.map((p) => cellAt(p, shape));
  const rs = cells.map(([r]) => r);
  const cs = cells.map(([, c]) => c);
  const [r0, r1, c0, c1] = [Math.min(...rs), Math.max(...rs), Math.min(...cs), Math.max(...cs)];
  if ((r1 - r0 + 1) * (c1 - c0 + 1) !== group.length) return null;
  return svg('rect', {
    class: 'group-outline', x: LEFT + c0 * (W + GX) - 4, y: TOP + r0 * (H + GY) - 4,
    width: (c1 - c0 + 1) * (W + GX) - GX + 8, height: (r1 - r0 + 1) * (H + GY) - GY + 8,
    rx: 7, stroke: colour,
  });
}

function cell(map, position, colour, text) {
  const [x, y] = centre(position, map.mesh_shape);
  const id = map.device_ids[position];
  return svg('g', { class: 'device-cell', 'data-position': position, 'data-device-id': id },
    svg('rect', { x: x - W / 2, y: y - H / 2, width: W, height: H, rx: 4, fill: '#fff', stroke: colour }),
    svg('text', { class: 'cell-id', x: x - W / 2 + 4, y: y - H / 2 + 12 }, `device ${id}`),
    svg('text', { class: 'cell-value', x, y: y + 12, 'text-anchor': 'middle' }, text));
}

// A slightly curved arrow, so that a→b and b→a do not draw over each other.
function arrow(shape, [from, to]) {
  const [x1, y1] = centre(from, shape);
  const [x2, y2] = centre(to, shape);
  const len = Math.hypot(x2 - x1, y2 - y1) || 1;
  const [ux, uy] = [(x2 - x1) / len, (y2 - y1) / len];
  const bend = Math.min(24, len * 0.15);
  const [mx, my] = [(x1 + x2) / 2 - uy * bend, (y1 + y2) / 2 + ux * bend];
  // From the sender's border to the receiver's, not over their text.
  const t = Math.min(ux ? W / 2 / Math.abs(ux) : Infinity, uy ? H / 2 / Math.abs(uy) : Infinity) + 3;
  const [sx, sy, ex, ey] = [x1 + ux * t, y1 + uy * t, x2 - ux * t, y2 - uy * t];
  return svg('path', {
    class: 'arrow', d: `M${sx},${sy} Q${mx},${my} ${ex},${ey}`,
    'data-from': from, 'data-to': to, 'marker-end': 'url(#play-arrowhead)',
  });
}

// `texts[p]`: what device p holds in this frame; `arrows`: [from, to]
// positions of the data moving in it.
export function meshPicture(map, groups, texts, arrows = [], label = '') {
  const shape = map.mesh_shape.length ? map.mesh_shape : [1];
  const rows = shape.length <= 1 ? 1 : shape[0];
  const cols = map.device_ids.length / rows;
  const width = LEFT + cols * (W + GX);
  const height = TOP + rows * (H + GY);
  const groupOf = new Map();
  groups.forEach((g, i) => g.forEach((p) => groupOf.set(p, i)));
  const colourOf = (p) => (groupOf.has(p) ? groupColour(groupOf.get(p), groups.length) : '#bbb');
  const groupNodes = groups.map((g, i) => svg('g', { class: 'group', 'data-group': i, 'data-positions': g.join(',') },
    outline(g, shape, groupColour(i, groups.length))));
  const cells = map.device_ids.map((_, p) => cell(map, p, colourOf(p), texts[p] || ''));
  return svg('svg', { class: 'mesh-play', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label },
    svg('defs', {}, svg('marker', { id: 'play-arrowhead', viewBox: '0 0 10 10', refX: 8, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' },
      svg('path', { d: 'M0,0 L10,5 L0,10 z' }))),
    axisLabels(map, rows, cols), groupNodes, cells, arrows.map((a) => arrow(shape, a)));
}
