// A small SVG of a map's mesh for one frame of a collective: every device a
// cell at its mesh coordinates, cells coloured by the group they belong to,
// each rectangular group outlined, a short text of what the device holds,
// and arrows for the data moving in this frame. A 1-D mesh is a row and a
// 2-D mesh a grid (first axis down the left side, second across the top); a
// mesh of 3 or more axes is a row of such grids, one per index of its
// leading axes (the last two axes down and across), each titled with those
// indices, so no device and no axis is folded into another.
import { svg } from './dom.js';
import { coordsOf } from './devices.js';

const W = 96;
const H = 46;
// Wide enough gaps for an arrow between neighbouring cells.
const GX = 26;
const GY = 26;
const LEFT = 40;
// Room above the cells for the axis names and indices, and for a panel's
// title on meshes of 3 or more axes.
const TOP = 34;
const TITLED_TOP = 52;
// Between two panels: room for the next panel's row labels.
const PANEL_GAP = 34;

// How the mesh is drawn: `panels` grids of `rows` x `cols` cells.
function layoutOf(shape) {
  const rank = shape.length;
  if (rank <= 1) return { panels: 1, rows: 1, cols: shape[0] || 1, top: TOP };
  const lead = shape.slice(0, rank - 2).reduce((a, b) => a * b, 1);
  return { panels: lead, rows: shape[rank - 2], cols: shape[rank - 1], top: rank >= 3 ? TITLED_TOP : TOP };
}

// [panel, row, column] of the device at row-major `position`.
function cellAt(position, shape) {
  const { rows, cols } = layoutOf(shape);
  const per = rows * cols;
  const inPanel = position % per;
  return [Math.floor(position / per), Math.floor(inPanel / cols), inPanel % cols];
}

const panelWidth = (cols) => cols * (W + GX) - GX + PANEL_GAP;

// The top-left corner of cell (panel, row, column).
function corner([panel, r, c], shape) {
  const { cols, top } = layoutOf(shape);
  return [LEFT + panel * (panelWidth(cols) + GX) + c * (W + GX), top + r * (H + GY)];
}

function centre(position, shape) {
  const [x, y] = corner(cellAt(position, shape), shape);
  return [x + W / 2, y + H / 2];
}

export function groupColour(g, count) {
  const hue = Math.round((360 * g) / Math.max(count, 1) + 20) % 360;
  return `hsl(${hue} 65% 50%)`;
}

// A panel's title: the indices of the leading axes it holds.
function panelTitle(names, shape, panel) {
  const lead = coordsOf(panel, shape.slice(0, shape.length - 2));
  return lead.map((v, a) => `${names[a]}=${v}`).join(' ');
}

function axisLabels(map, shape) {
  const { axis_names: names } = map;
  const { panels, rows, cols, top } = layoutOf(shape);
  const rank = shape.length;
  const out = [];
  for (let panel = 0; panel < panels; panel++) {
    const [x0] = corner([panel, 0, 0], shape);
    if (rank >= 3) {
      out.push(svg('text', { class: 'panel-title', x: x0 - 36, y: 12, 'data-panel': panelTitle(names, shape, panel) },
        panelTitle(names, shape, panel)));
    }
    const across = rank <= 1 ? names.join('') : names[rank - 1];
    out.push(svg('text', { class: 'axis-name', x: x0, y: top - 22 }, `${across} →`));
    for (let c = 0; c < cols; c++) {
      out.push(svg('text', { class: 'axis-index', x: x0 + c * (W + GX) + W / 2, y: top - 6, 'text-anchor': 'middle' }, String(c)));
    }
    if (rank > 1) {
      out.push(svg('text', { class: 'axis-name', x: x0 - 36, y: top - 6 }, `${names[rank - 2]} ↓`));
      for (let r = 0; r < rows; r++) {
        out.push(svg('text', { class: 'axis-index', x: x0 - 26, y: top + r * (H + GY) + H / 2 + 4 }, String(r)));
      }
    }
  }
  return out;
}

// The outline of a group's cells in one panel when they fill their
// bounding box (a row, a column, a block), or null.
function panelOutline(cells, shape, colour) {
  const rs = cells.map(([, r]) => r);
  const cs = cells.map(([, , c]) => c);
  const [r0, r1, c0, c1] = [Math.min(...rs), Math.max(...rs), Math.min(...cs), Math.max(...cs)];
  if ((r1 - r0 + 1) * (c1 - c0 + 1) !== cells.length) return null;
  const [x, y] = corner([cells[0][0], r0, c0], shape);
  return svg('rect', {
    class: 'group-outline', x: x - 4, y: y - 4,
    width: (c1 - c0 + 1) * (W + GX) - GX + 8, height: (r1 - r0 + 1) * (H + GY) - GY + 8,
    rx: 7, stroke: colour,
  });
}

// A group's outlines: one per panel it has cells in, when each of those
// parts is a rectangle of more than one cell (a group over a leading axis
// of a 3-D mesh, say the whole mesh, is then outlined in every panel).
// Scattered groups, and groups of one cell per panel, are shown by colour
// alone.
function outline(group, shape, colour) {
  const byPanel = new Map();
  for (const p of group) {
    const at = cellAt(p, shape);
    byPanel.set(at[0], [...(byPanel.get(at[0]) || []), at]);
  }
  const parts = [...byPanel.values()];
  if (parts.length > 1 && parts.some((cells) => cells.length < 2)) return null;
  const rects = parts.map((cells) => panelOutline(cells, shape, colour));
  return rects.every(Boolean) ? rects : null;
}

function cell(map, shape, position, colour, text) {
  const [x, y] = centre(position, shape);
  const id = map.device_ids[position];
  const [panel, row, col] = cellAt(position, shape);
  const where = { 'data-row': row, 'data-col': col };
  if (shape.length >= 3) where['data-panel'] = panelTitle(map.axis_names, shape, panel);
  return svg('g', { class: 'device-cell', 'data-position': position, 'data-device-id': id, ...where },
    svg('rect', { x: x - W / 2, y: y - H / 2, width: W, height: H, rx: 4, fill: '#fff', stroke: colour }),
    svg('text', { class: 'cell-id', x: x - W / 2 + 4, y: y - H / 2 + 12 }, `device ${id}`),
    svg('text', { class: 'cell-value', x, y: y + 12, 'text-anchor': 'middle' }, text));
}

// How far an arrow's control point sits off the straight line. Between
// neighbours a slight curve, so that a→b and b→a do not draw over each
// other; an arrow that passes other cells (across a row, or from one panel
// to the next) arcs clear of them: a quadratic curve's middle is half the
// control point's offset from the line, and it must pass the cells' half
// extent across the arrow's direction.
function bendOf(len, ux, uy) {
  const neighbours = Math.abs(ux) * (W + GX) + Math.abs(uy) * (H + GY);
  if (len <= neighbours + 1) return Math.min(24, len * 0.15);
  return 2 * (Math.abs(uy) * (W / 2) + Math.abs(ux) * (H / 2) + 6);
}

function arrow(shape, [from, to]) {
  const [x1, y1] = centre(from, shape);
  const [x2, y2] = centre(to, shape);
  const len = Math.hypot(x2 - x1, y2 - y1) || 1;
  const [ux, uy] = [(x2 - x1) / len, (y2 - y1) / len];
  const bend = bendOf(len, ux, uy);
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
  const { panels, rows, cols, top } = layoutOf(shape);
  const width = LEFT + panels * (panelWidth(cols) + GX) - PANEL_GAP;
  const height = top + rows * (H + GY);
  const groupOf = new Map();
  groups.forEach((g, i) => g.forEach((p) => groupOf.set(p, i)));
  const colourOf = (p) => (groupOf.has(p) ? groupColour(groupOf.get(p), groups.length) : '#bbb');
  const groupNodes = groups.map((g, i) => svg('g', { class: 'group', 'data-group': i, 'data-positions': g.join(',') },
    outline(g, shape, groupColour(i, groups.length))));
  const cells = map.device_ids.map((_, p) => cell(map, shape, p, colourOf(p), texts[p] || ''));
  return svg('svg', { class: 'mesh-play', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label },
    svg('defs', {}, svg('marker', { id: 'play-arrowhead', viewBox: '0 0 10 10', refX: 8, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' },
      svg('path', { d: 'M0,0 L10,5 L0,10 z' }))),
    axisLabels(map, shape), groupNodes, cells, arrows.map((a) => arrow(shape, a)));
}
