// A sharded global array drawn as its blocks, each coloured by the device
// that holds it; a block held by several devices (replicated) lists them
// all and is striped with their colours.
import { el, deviceColour } from './dom.js';
import { fmtShape } from './arrays.js';
import { renderTiles } from './layout.js';

export function renderBlocks(label, arr, map) {
  const n = map.device_ids.length;
  const shape = arr.global.shape;
  if (shape.length > 2) {
    // Drawn as a row of 2-D slices, so every block (and device) shows.
    return el('figure', { class: 'global-array' },
      el('figcaption', {}, `${label} ${arr.spec} `, el('span', { class: 'dim' }, `${fmtShape(shape)} ${arr.global.dtype}`)),
      renderTiles(shape, arr.shards, arr.holders, map.device_ids));
  }
  const rows = shape.length >= 2 ? shape[0] : 1;
  // Rows are up to 28px tall and share about 180px, so a tall array stays on screen.
  const cols = shape.length >= 2 ? shape[1] : shape.length === 1 ? shape[0] : 1;
  const box = el('div', {
    class: 'blocks',
    style: { gridTemplateColumns: `repeat(${cols}, 1fr)`, gridTemplateRows: `repeat(${rows}, minmax(${Math.max(4, Math.min(28, Math.round(176 / rows)))}px, auto))` },
  });
  for (const holders of arr.holders) {
    const idx = arr.shards[holders[0]].index;
    const [r0, r1] = shape.length >= 2 ? idx[0] : [0, 1];
    const [c0, c1] = shape.length >= 2 ? idx[1] : shape.length === 1 ? idx[0] : [0, 1];
    const colours = holders.map((p) => deviceColour(p, n));
    const stripes = colours.map((c, i) => `${c} ${(100 * i) / colours.length}% ${(100 * (i + 1)) / colours.length}%`);
    const ids = holders.map((p) => map.device_ids[p]);
    box.append(
      el(
        'div',
        {
          class: 'block' + (holders.length > 1 ? ' replicated' : ''),
          'data-holders': ids.join(','),
          title: `rows ${r0}:${r1}, cols ${c0}:${c1} on device${ids.length > 1 ? 's' : ''} ${ids.join(', ')}`,
          style: {
            gridRow: `${r0 + 1} / ${r1 + 1}`,
            gridColumn: `${c0 + 1} / ${c1 + 1}`,
            background: holders.length > 1 ? `linear-gradient(135deg, ${stripes.join(', ')})` : colours[0],
          },
        },
        'd' + ids.join(','),
      ),
    );
  }
  return el(
    'figure',
    { class: 'global-array' },
    el('figcaption', {}, `${label} ${arr.spec} `, el('span', { class: 'dim' }, `${fmtShape(shape)} ${arr.global.dtype}`)),
    box,
  );
}
