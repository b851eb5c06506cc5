// The report of a run: a training loop's loss per step (when there is one),
// then pick one of its maps and see its devices, its global arrays, its
// gradients, its collectives, its jaxpr and its timings.
import { el } from './dom.js';
import { renderDevices } from './devices.js';
import { renderBlocks } from './blocks.js';
import { renderCollectives } from './collectives.js';
import { renderTimeline } from './timeline.js';
import { renderGradients } from './gradients.js';
import { findSteps, renderTraining } from './training.js';
import { renderLayouts } from './layout.js';
import { describe } from './collective_names.js';

function mapTitle(m, i) {
  const mesh = m.mesh_shape.map((s, j) => `${m.axis_names[j]}=${s}`).join(', ');
  // The names a learner knows; internal steps (no data moved) left out.
  const colls = m.collectives.map(describe).filter((d) => !d.internal).map((d) => d.name);
  const role = m.role === 'backward' ? ' (backward: gradients)' : '';
  // A jitted call or a top-level reshard is known by its line; a map by
  // its body.
  const at = (m.kind === 'jit' || m.kind === 'reshard') && m.line != null ? ` at line ${m.line}` : '';
  return `${i + 1}. ${m.kind}${at}${role} on mesh (${mesh})` + (colls.length ? ` · ${[...new Set(colls)].join(', ')}` : '');
}

// A jitted call over sharded arrays: what the partitioner inserted, and
// the per-device program (local shapes) behind a button.
function jitCall(m) {
  if (m.kind !== 'jit') return null;
  const inserted = m.collectives.filter((c) => !describe(c).internal)
    .map((c) => `${describe(c).name}` + (c.line != null ? ` (line ${c.line})` : ''));
  const program = el('pre', { class: 'per-device-program', 'data-testid': 'per-device-program', hidden: true }, m.jaxpr);
  const button = el('button', {
    type: 'button', class: 'per-device-button', 'aria-expanded': 'false',
    onclick: () => {
      program.hidden = !program.hidden;
      button.setAttribute('aria-expanded', String(!program.hidden));
      button.textContent = program.hidden ? 'Show the per-device program' : 'Hide the per-device program';
    },
  }, 'Show the per-device program');
  const where = m.line != null ? ` at line ${m.line}` : '';
  return el('div', { class: 'jit-call' },
    el('p', {}, `The jitted call${where} ran on arrays laid out over the mesh, so shardlab split it into one program per device, `
      + 'as XLA does: each device computes on its own blocks, and the collectives below were inserted where an operation needs data '
      + 'other devices hold. '
      + (inserted.length ? `Inserted: ${inserted.join(', ')}.` : 'No data moved between devices.')),
    button, program);
}

function renderMap(m, i, grads, onLine) {
  const timeline = renderTimeline(m);
  const gradients = renderGradients(m, i, grads);
  const n = m.device_ids.length;
  const how = m.mode === 'parallel'
    ? `This map ran on ${n} Web Workers, one per device, sharing a SharedArrayBuffer.`
    : `This map ran in lockstep: its ${n} devices simulated one equation at a time in one worker.`;
  return [
    el('p', { class: 'map-mode dim', 'data-mode': m.mode }, how),
    jitCall(m),
    el('h3', {}, 'Devices'),
    renderDevices(m),
    el('h3', {}, 'Global arrays'),
    el('div', { class: 'global-arrays' },
      m.inputs.map((a, i) => renderBlocks(`in ${i}`, a, m)),
      m.outputs.map((a, i) => renderBlocks(`out ${i}`, a, m))),
    gradients ? [el('h3', {}, 'Gradients'), gradients] : null,
    el('h3', {}, 'Collectives'),
    renderCollectives(m, onLine),
    timeline ? [el('h3', {}, 'Timeline'), timeline] : null,
    el('details', { class: 'jaxpr' }, el('summary', {}, 'jaxpr (per-device program)'),
      el('pre', {}, m.jaxpr)),
  ];
}

// Fills `root` with the report; `selected` picks the map shown first.
// `options.grads`: the program takes gradients (shows the reductions of
// gradients inside maps with what pmean/psum of them gives).
// `options.onLine(n)`: shows line n of the program (a collective's line
// label becomes a button that calls it).
export function renderReport(root, report, selected = 0, options = {}) {
  root.replaceChildren();
  const maps = report.maps;
  const layouts = renderLayouts(report);
  if (layouts) {
    // Up to six arrays are shown open; more are folded, so the maps stay near.
    const arrays = report.arrays;
    const names = arrays.map((a) => a.name).join(', ');
    root.append(el('details', { class: 'layouts-box', open: arrays.length <= 6 },
      el('summary', {}, el('h3', {}, `Sharded arrays (${arrays.length}): `, el('span', { class: 'dim' }, names))),
      el('p', { class: 'dim' }, 'The arrays the program names that are laid out over a mesh, tile by tile.'),
      layouts));
  }
  if (maps.length === 0) {
    if (!layouts) root.append(el('p', { class: 'dim' }, 'This program ran no shard_map or pmap and names no sharded array.'));
    return;
  }
  const body = el('div', { class: 'map-body' });
  const show = (i) => body.replaceChildren(...renderMap(maps[i], i, Boolean(options.grads), options.onLine).flat(2).filter(Boolean));
  const pick = Math.min(selected, maps.length - 1);
  const select = el('select', { 'aria-label': 'Map', id: 'map-select',
    onchange: (e) => show(Number(e.target.value)) },
  maps.map((m, i) => el('option', { value: i, selected: i === pick }, mapTitle(m, i))));
  const steps = findSteps(report);
  const training = steps && renderTraining(report, steps, (i) => {
    select.value = String(i);
    show(i);
  });
  if (training) root.append(training);
  root.append(el('label', { class: 'map-pick' }, `${maps.length} map${maps.length > 1 ? 's' : ''} ran: `, select), body);
  show(pick);
  if (training) training.start(pick);
}
