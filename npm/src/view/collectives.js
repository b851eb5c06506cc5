// Every collective of a map in execution order, each a card that can be
// played step by step (collective_play.js), with its parameters, groups,
// bytes moved and the program line it came from (for a jit, the operation
// whose operands' shardings made the partitioner insert it). Internal steps
// (collective_names.js) are folded behind a toggle so the collectives the
// program asked for stay near the top.
import { el } from './dom.js';
import { describe } from './collective_names.js';
import { renderPlayer } from './collective_play.js';
import { us } from './timeline.js';

// How long the collective took on its slowest device (each device's time
// includes waiting for the others), or null when the report has no times.
function took(c) {
  const times = Array.from(c.elapsed_us || [], Number).filter((t) => t >= 0);
  if (!times.length) return null;
  return el('span', { class: 'collective-time' }, ` · ${us(Math.max(...times))} on the slowest device`);
}

// Where a collective came from: in a jit's program, the operation the
// partitioner inserted it for; elsewhere the program's own call. With
// `onLine` (the page's editor) it is a button that shows that line.
function origin(c, map, onLine) {
  if (c.line == null) return null;
  const text = map.kind === 'jit' ? `inserted by jit at line ${c.line}` : `line ${c.line}`;
  if (!onLine) return el('span', { class: 'collective-line', 'data-line': c.line }, text);
  return el('button', { type: 'button', class: 'collective-line', 'data-line': c.line,
    title: `show line ${c.line} in the code`, onclick: () => onLine(c.line) }, text);
}

function card(c, i, map, onLine) {
  const d = describe(c);
  const params = c.params.map(([k, v]) => `${k}=${v}`).join(' ');
  const groups = c.groups.map((g) => '{' + g.map((p) => map.device_ids[p]).join(', ') + '}').join(' ');
  // The jaxpr's own name, when the card shows another.
  const jaxprName = d.name !== c.name ? el('span', { class: 'dim' }, ` (jaxpr: ${c.name}${c.called_as === 'pmean' ? ', then a division' : ''})`) : null;
  return el('li', { class: 'collective', 'data-collective': c.name, 'data-name': d.name, 'data-internal': d.internal ? 'true' : 'false' },
    el('div', { class: 'collective-head' },
      el('strong', {}, `${i + 1}. ${d.name}`), jaxprName, ' ', el('code', {}, params), ' ', origin(c, map, onLine)),
    d.words ? el('div', { class: 'collective-words' }, d.words) : null,
    el('div', { class: 'dim' }, `groups ${groups} · ${c.bytes_moved} bytes moved`, took(c)),
    renderPlayer(c, d.name, map));
}

// The internal steps in one folded list, numbered as they ran.
function internalBox(cards) {
  const toggle = el('details', { class: 'internal-steps' },
    el('summary', {}, `show internal steps (${cards.length})`),
    el('ol', { class: 'collectives' }, cards));
  return toggle;
}

export function renderCollectives(map, onLine = null) {
  if (map.collectives.length === 0) {
    return el('p', { class: 'dim' }, 'No collectives in this map.');
  }
  const cards = map.collectives.map((c, i) => ({ node: card(c, i, map, onLine), internal: describe(c).internal }));
  const shown = cards.filter((c) => !c.internal).map((c) => c.node);
  const folded = cards.filter((c) => c.internal).map((c) => c.node);
  return el('div', { class: 'collectives-box' },
    shown.length ? el('ol', { class: 'collectives' }, shown) : el('p', { class: 'dim' }, 'Every collective of this map is an internal step.'),
    folded.length ? internalBox(folded) : null);
}
