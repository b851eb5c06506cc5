// Gradients in a run report: the per-device and reduced gradients of a
// backward map (the transpose shard_map/pmap of a grad), the reductions of
// gradients taken inside a map, each value tagged varying or invariant, and
// what pmean(grad) means in the mode the map ran in.
import { el } from './dom.js';
import { arrayText } from './arrays.js';

// Whether the map tracked varying axes (shard_map with check_vma=True).
export function tracksVma(map) {
  if (map.kind !== 'shard_map') return false;
  return map.jaxpr.includes('{V:') || map.collectives.some((c) => c.name === 'psum_invariant' || c.name === 'pvary');
}

// The status of output `i`: { tag, text }.
export function outputStatus(map, i) {
  if (!tracksVma(map)) {
    return map.kind === 'pmap'
      ? { tag: 'varying', text: 'per device (pmap does not track replication)' }
      : { tag: 'untracked', text: 'not tracked (check_vma=False)' };
  }
  const axes = (map.out_vma && map.out_vma[i]) || [];
  return axes.length
    ? { tag: 'varying', text: `varying over ${axes.map((a) => `'${a}'`).join(', ')}` }
    : { tag: 'invariant', text: 'invariant: the same on every device (replicated)' };
}

function tag(status) {
  return el('span', { class: `vma vma-${status.tag}`, 'data-vma': status.tag }, status.text);
}

// The collectives that reduce values over devices.
export const REDUCTIONS = new Set(['psum', 'psum_invariant', 'pmax', 'pmin']);

function axesOf(c) {
  const p = c.params.find(([k]) => k === 'axes');
  return p ? p[1] : '';
}

// What pmean/psum of a gradient gives in this map's mode.
export function explanation(map) {
  if (tracksVma(map)) {
    return 'Where these reductions act on gradients, shard_map with check_vma=True: a replicated (invariant) input that meets varying values goes through an ' +
      'implicit pvary, and pvary transposes to psum. So the gradient of a replicated parameter comes out already ' +
      'summed over the devices, and invariant. pmean of that invariant value sums N equal copies and divides by N: ' +
      'it returns the sum unchanged (N times the mean over devices), not the mean. JAX does the same.';
  }
  if (map.kind === 'pmap') {
    return 'Where these reductions act on gradients, pmap: every device keeps its own local gradient (nothing is summed on the way back), so ' +
      'pmean(grad) averages the devices\' gradients: the mean. psum(grad) gives the sum.';
  }
  return 'Where these reductions act on gradients, shard_map with check_vma=False: replication is not tracked, every device keeps its own local gradient, ' +
    'so pmean(grad) averages them: the mean over devices (psum(grad) gives the sum). Compare check_vma=True, where ' +
    'the same pmean gives the sum.';
}

function perDevice(map, values, cls, extra = {}) {
  return el('table', { class: 'grad-table' },
    el('tbody', {},
      values.map((v, p) => el('tr', { class: cls, 'data-device-id': map.device_ids[p], ...extra },
        el('th', {}, `device ${map.device_ids[p]}`),
        el('td', {}, el('pre', { class: 'values' }, arrayText(v)))))));
}

// The gradient section of one map, or null when it has none: `grads` says
// whether the program takes gradients at all.
export function renderGradients(map, index, grads) {
  const parts = [];
  if (map.role === 'backward') {
    parts.push(el('p', { class: 'dim' },
      `Map ${index + 1} is the transpose of a forward map: its outputs are the gradients of that map's inputs, ` +
      'one block per device, assembled by the input\'s spec.'));
    map.outputs.forEach((a, i) => {
      const status = outputStatus(map, i);
      parts.push(el('div', { class: 'grad', 'data-grad': i },
        el('h4', {}, `gradient of in ${i} ${a.spec} `, tag(status)),
        el('div', { class: 'grad-body' },
          el('div', {}, el('div', { class: 'dim' }, 'per device'),
            perDevice(map, Array.from(a.shards, (s) => s.value), 'grad-device', { 'data-grad': i })),
          el('div', {}, el('div', { class: 'dim' }, 'reduced (the global gradient)'),
            el('pre', { class: 'values grad-reduced', 'data-grad': i }, arrayText(a.global, 256))))));
    });
  }
  const reductions = grads ? map.collectives.filter((c) => REDUCTIONS.has(c.name)) : [];
  if (reductions.length) {
    parts.push(el('p', { class: 'grad-explain' }, explanation(map)));
    reductions.forEach((c, k) => {
      const tracked = tracksVma(map);
      const before = tracked ? { tag: 'varying', text: 'varying' } : { tag: 'untracked', text: 'per device' };
      const after = tracked
        ? { tag: 'invariant', text: `invariant over ${axesOf(c)}` }
        : { tag: 'untracked', text: 'the same on every device of a group' };
      parts.push(el('div', { class: 'grad reduction', 'data-reduction': k },
        el('h4', {}, `${c.name} over ${axesOf(c)}`),
        el('div', { class: 'grad-body' },
          el('div', {}, el('div', {}, 'before ', tag(before)), perDevice(map, c.before, 'grad-before')),
          el('div', {}, el('div', {}, 'after ', tag(after)), el('pre', { class: 'values' }, arrayText(c.after[0] || { shape: [0], data: [] }))))));
    });
  }
  return parts.length ? el('div', { class: 'gradients' }, parts) : null;
}
