// A collective that can be played: the mesh with its groups, step buttons
// and a play button that move the data frame by frame, and every device's
// value before, in this step, and after.
import { el, deviceColour } from './dom.js';
import { arrayText } from './arrays.js';
import { framesOf } from './collective_frames.js';
import { meshPicture } from './mesh_picture.js';

// One line of at most `max` characters: what fits in a cell of the mesh
// picture (mesh_picture.js) at its font size.
function short(pieces, join, max = 13) {
  const text = pieces.map((q) => arrayText(q.value, 4).replace(/\s+/g, ' ')).join(join.trim() === '+' ? '+' : join.trim());
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

function pieceNodes(pieces, join, map) {
  const n = map.device_ids.length;
  return pieces.flatMap((q, i) => [
    i ? el('span', { class: 'join' }, join) : null,
    el('span', {
      class: 'piece',
      'data-from': q.from === null ? '' : map.device_ids[q.from],
      title: q.from === null ? 'no sender' : `from device ${map.device_ids[q.from]}`,
      style: q.from === null ? {} : { borderBottomColor: deviceColour(q.from, n) },
    }, arrayText(q.value, 24)),
  ]);
}

function table(c, map) {
  const n = map.device_ids.length;
  const rows = c.before.map((b, p) => el('tr', { 'data-device-id': map.device_ids[p], 'data-position': p },
    el('th', { scope: 'row', style: { color: deviceColour(p, n, 35) } }, `device ${map.device_ids[p]}`),
    el('td', { class: 'before' }, el('pre', { class: 'values' }, arrayText(b, 24))),
    el('td', { class: 'now' }, el('pre', { class: 'values' })),
    el('td', { class: 'after' }, el('pre', { class: 'values' }, c.after[p] ? arrayText(c.after[p], 24) : ''))));
  return el('table', { class: 'before-after' },
    el('thead', {}, el('tr', {}, el('th', {}, ''), el('th', {}, 'before'), el('th', {}, 'this step'), el('th', {}, 'after'))),
    el('tbody', {}, rows));
}

export function renderPlayer(c, name, map) {
  const frames = framesOf(c, name);
  const picture = el('div', { class: 'play-picture' });
  const caption = el('div', { class: 'play-caption' });
  const counter = el('span', { class: 'play-step dim' });
  const values = table(c, map);
  let at = 0;
  let timer = null;
  const show = (k) => {
    at = Math.max(0, Math.min(frames.length - 1, k));
    const f = frames[at];
    const join = f.join || ' ';
    picture.replaceChildren(meshPicture(map, c.groups, f.pieces.map((ps) => short(ps, join)), f.arrows, `${name}, step ${at + 1}: ${f.caption}`));
    caption.textContent = f.caption;
    counter.textContent = `step ${at + 1} of ${frames.length}`;
    values.querySelectorAll('tbody tr').forEach((tr, p) => tr.querySelector('td.now pre').replaceChildren(...pieceNodes(f.pieces[p] || [], join, map).filter(Boolean)));
    prev.disabled = at === 0;
    next.disabled = at === frames.length - 1;
  };
  const stop = () => {
    clearInterval(timer);
    timer = null;
    play.textContent = '▶ play';
  };
  // Playing starts over from the first frame when it is at the last one.
  const start = () => {
    if (at === frames.length - 1) show(0);
    play.textContent = '❚❚ pause';
    timer = setInterval(() => (at < frames.length - 1 ? show(at + 1) : stop()), 1100);
  };
  const prev = el('button', { class: 'play-prev', 'aria-label': 'previous step', onclick: () => { stop(); show(at - 1); } }, '◀');
  const next = el('button', { class: 'play-next', 'aria-label': 'next step', onclick: () => { stop(); show(at + 1); } }, '▶');
  const play = el('button', { class: 'play-play', onclick: () => (timer ? stop() : start()) }, '▶ play');
  const root = el('div', { class: 'collective-play', 'data-frames': frames.length },
    el('div', { class: 'play-controls' }, prev, play, next, counter),
    caption, el('div', { class: 'collective-body' }, picture, values));
  show(0);
  return root;
}
