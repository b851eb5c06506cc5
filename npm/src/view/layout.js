// Where a sharded array lives: the mesh beside the array, which mesh axis
// splits which dimension, and the array drawn as its tiles, each labelled
// with the device(s) holding it and the index ranges it covers. A tile held
// by several devices (replicated) lists them all and is striped with their
// colours. Arrays of any rank are drawn whole: 0-D as one tile, 1-D as a
// row, 2-D as a grid, 3-D and up as a row of 2-D slices, one slice per
// distinct block of the leading dimensions, so every device appears.
import { el, deviceColour } from './dom.js';
import { fmtShape } from './arrays.js';
import { coordsOf } from './devices.js';

const rangeText = ([a, b]) => `${a}:${b}`;

// The distinct [start, stop) ranges of dimension `d` over `tiles`, in order.
function rangesOf(tiles, d) {
  const seen = new Map();
  for (const t of tiles) seen.set(rangeText(t.index[d]), t.index[d]);
  return [...seen.values()].sort((p, q) => p[0] - q[0]);
}

// One tile: the devices holding block `index` (positions `holders`).
function tile(index, holders, deviceIds, n) {
  const ids = holders.map((p) => deviceIds[p]);
  const colours = holders.map((p) => deviceColour(p, n));
  const stripes = colours.map((c, i) => `${c} ${(100 * i) / colours.length}% ${(100 * (i + 1)) / colours.length}%`);
  const where = '[' + index.map(rangeText).join(', ') + ']';
  return el('div', {
    class: 'tile' + (holders.length > 1 ? ' replicated' : ''),
    'data-devices': ids.join(','),
    'data-index': index.map(rangeText).join(','),
    title: `${where} on device${ids.length > 1 ? 's' : ''} ${ids.join(', ')}` +
      (holders.length > 1 ? ` (replicated ${holders.length} times)` : ''),
    style: { background: holders.length > 1 ? `linear-gradient(135deg, ${stripes.join(', ')})` : colours[0] },
  },
  el('span', { class: 'tile-devices' }, ids.map((i) => 'd' + i).join(' ')),
  el('span', { class: 'tile-index' }, where),
  holders.length > 1 ? el('span', { class: 'tile-rep' }, `×${holders.length}`) : null);
}

// The tiles of one 2-D slice (dims `rowDim`, `colDim`; either may be null
// for arrays of rank below 2), sized by the ranges they cover.
function sliceGrid(blocks, shape, rowDim, colDim, deviceIds, n) {
  const tilesIn = blocks.map((b) => b.tile);
  const rows = rowDim === null ? [[0, 1]] : rangesOf(tilesIn, rowDim);
  const cols = colDim === null ? [[0, 1]] : rangesOf(tilesIn, colDim);
  const size = (r) => Math.max(1, r[1] - r[0]);
  const grid = el('div', {
    class: 'tile-grid',
    style: {
      gridTemplateColumns: cols.map((c) => `minmax(64px, ${size(c)}fr)`).join(' '),
      gridTemplateRows: rows.map((r) => `minmax(40px, ${size(r)}fr)`).join(' '),
    },
  });
  for (const b of blocks) {
    const r = rowDim === null ? 0 : rows.findIndex((x) => x[0] === b.tile.index[rowDim][0]);
    const c = colDim === null ? 0 : cols.findIndex((x) => x[0] === b.tile.index[colDim][0]);
    const node = tile(b.tile.index, b.holders, deviceIds, n);
    node.style.gridRow = String(r + 1);
    node.style.gridColumn = String(c + 1);
    grid.append(node);
  }
  return grid;
}

// Every distinct block once ({ tile, holders }), from per-position tiles
// and the holder groups.
function distinctBlocks(tiles, holders) {
  return holders.map((group) => ({ tile: tiles[group[0]], holders: group }));
}

/**
 * The array drawn as its tiles: `shape`, `tiles` (by position, each with
 * `index`: [start, stop) per dimension), `holders` (positions per distinct
 * block), `deviceIds` (by position).
 */
export function renderTiles(shape, tiles, holders, deviceIds) {
  const n = deviceIds.length;
  const blocks = distinctBlocks(tiles, holders);
  const rank = shape.length;
  if (rank <= 2) {
    const rowDim = rank === 2 ? 0 : null;
    const colDim = rank === 2 ? 1 : rank === 1 ? 0 : null;
    return el('div', { class: 'tile-slices' }, sliceGrid(blocks, shape, rowDim, colDim, deviceIds, n));
  }
  // Rank 3 and up: one slice per distinct range of the leading dimensions.
  const lead = rank - 2;
  const groups = new Map();
  for (const b of blocks) {
    const key = b.tile.index.slice(0, lead).map(rangeText).join(',');
    if (!groups.has(key)) groups.set(key, { index: b.tile.index.slice(0, lead), blocks: [] });
    groups.get(key).blocks.push(b);
  }
  const ordered = [...groups.values()].sort((p, q) => {
    for (let d = 0; d < lead; d++) if (p.index[d][0] !== q.index[d][0]) return p.index[d][0] - q.index[d][0];
    return 0;
  });
  return el('div', { class: 'tile-slices' }, ordered.map((g) => el('figure', {
    class: 'tile-slice', 'data-slice': g.index.map(rangeText).join(','),
  },
  el('figcaption', {}, '[' + [...g.index.map(rangeText), ':', ':'].join(', ') + ']'),
  sliceGrid(g.blocks, shape, lead, lead + 1, deviceIds, n))));
}

// The mesh as a grid of its devices (3-D and up: one grid per index of the
// leading axes), each coloured as its tiles are.
function meshPicture(axisNames, meshShape, deviceIds) {
  const n = deviceIds.length;
  const rank = meshShape.length;
  const cols = rank >= 1 ? meshShape[rank - 1] : 1;
  const rows = rank >= 2 ? meshShape[rank - 2] : 1;
  const per = rows * cols;
  const grids = [];
  for (let first = 0; first < n; first += per) {
    const g = el('div', { class: 'mesh-cells', style: { gridTemplateColumns: `repeat(${cols}, auto)` } });
    for (let p = first; p < first + per; p++) {
      g.append(el('span', {
        class: 'mesh-cell', 'data-device': deviceIds[p], 'data-mesh-coords': coordsOf(p, meshShape).join(','),
        style: { background: deviceColour(p, n) },
      },
        'd' + deviceIds[p]));
    }
    const lead = [];
    let rest = first / per;
    for (let a = rank - 3; a >= 0; a--) {
      lead.unshift(`${axisNames[a]}=${rest % meshShape[a]}`);
      rest = Math.floor(rest / meshShape[a]);
    }
    grids.push(el('div', { class: 'mesh-slice', 'data-slice': lead.join(' ') }, lead.length ? el('div', { class: 'dim' }, lead.join(' ')) : null, g));
  }
  const axes = axisNames.map((a, i) => `${a}=${meshShape[i]}`).join(', ');
  const how = rank >= 2 ? `rows: ${axisNames[rank - 2]} · columns: ${axisNames[rank - 1]}` : `row: ${axisNames[0]}`;
  return el('figure', { class: 'mesh-picture' },
    el('figcaption', {}, `Mesh(${axes})`, el('div', { class: 'dim' }, how)),
    el('div', { class: 'mesh-slices' }, grids));
}

// One line per dimension: which mesh axes split it, into how many blocks.
function splitLines(a) {
  const lines = a.shape.map((size, d) => {
    const axes = a.dim_axes[d] || [];
    if (!axes.length) return el('li', { 'data-dim': d }, `dim ${d} (${size}): not split`);
    const ways = axes.reduce((p, ax) => p * a.mesh_shape[a.axis_names.indexOf(ax)], 1);
    return el('li', { 'data-dim': d },
      `dim ${d} (${size}): split by ${axes.map((x) => `'${x}'`).join(' and ')} into ${ways} blocks of ${Math.ceil(size / ways)}`);
  });
  const used = new Set(a.dim_axes.flat());
  const free = a.axis_names.filter((x) => !used.has(x));
  if (free.length) {
    const copies = free.reduce((p, ax) => p * a.mesh_shape[a.axis_names.indexOf(ax)], 1);
    lines.push(el('li', { class: 'replication' },
      `replicated over ${free.map((x) => `'${x}'`).join(' and ')}: each block is on ${copies} devices`));
  }
  return el('ul', { class: 'splits' }, lines);
}

/** One placed array of the report (`report.arrays[i]`) with its layout. */
export function renderLayout(a) {
  return el('section', { class: 'layout', 'data-array': a.name, 'aria-label': `layout of ${a.name}` },
    el('h4', {}, el('code', {}, a.name), ' ',
      el('code', { class: 'typeof', title: 'jax.typeof' }, a.type_text), ' ',
      el('span', { class: 'dim' }, `${fmtShape(a.shape)} ${a.dtype} · NamedSharding(${a.spec})`)),
    splitLines(a),
    el('div', { class: 'layout-body' },
      meshPicture(a.axis_names, a.mesh_shape, a.device_ids),
      renderTiles(a.shape, a.tiles, a.holders, a.device_ids)));
}

/** Every placed array of a report, or null when it has none. */
export function renderLayouts(report) {
  const arrays = (report && report.arrays) || [];
  if (!arrays.length) return null;
  return el('div', { class: 'layouts' }, arrays.map(renderLayout));
}
