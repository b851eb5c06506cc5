// A collective as frames a learner can step through: what every device
// holds before, the pieces in flight (with arrows from sender to receiver),
// and what it holds after. Every value shown is a recorded operand or
// result, or a slice of one; the only arithmetic is pmean's division, done
// as the engine does it (a float32 multiplication by the reciprocal).
import { sliceAxis, dropAxis } from './arrays.js';

// A frame: { caption, pieces, arrows, join }. pieces[p] lists what device
// p holds, each { from: sender position, value: {shape, dtype, data} }.

function param(c, key) {
  const p = c.params.find(([k]) => k === key);
  return p ? p[1] : null;
}

const own = (c, values) => values.map((v, p) => [{ from: p, value: v }]);
const before = (c) => ({ caption: 'before: every device holds its own value', pieces: own(c, c.before), arrows: [] });

// Arrows from every member of each group to every other; a big group is
// drawn as a ring (every device to the next), which moves the same data in
// group-size - 1 steps.
function everyToEvery(groups) {
  return groups.flatMap((g) => (g.length > 4
    ? g.map((p, i) => [p, g[(i + 1) % g.length]])
    : g.flatMap((p) => g.filter((q) => q !== p).map((q) => [p, q]))));
}

function groupOf(c) {
  const m = new Map();
  c.groups.forEach((g) => g.forEach((p) => m.set(p, g)));
  return (p) => m.get(p) || [p];
}

// The pieces each device has received from its whole group, in rank order.
function gathered(c, pieceOf) {
  const group = groupOf(c);
  return c.before.map((_, p) => group(p).map((q, rank) => ({ from: q, value: pieceOf(q, rank, p) })));
}

// Block `j` of `m` of `a` along `axis`; untiled, the axis has size m and
// the block drops it.
function block(a, axis, j, m, tiled) {
  const size = a.shape[axis] / m;
  const piece = sliceAxis(a, axis, j * size, (j + 1) * size);
  return tiled ? piece : dropAxis(piece, axis);
}

const OPS = { psum: ['sum', ' + '], pmean: ['sum', ' + '], pmax: ['maximum', ', '], pmin: ['minimum', ', '] };

function reduction(c, name) {
  const [op, join] = OPS[name];
  const n = c.groups[0] ? c.groups[0].length : 1;
  const frames = [before(c),
    { caption: `every device sends its value to the others of its group (${c.groups.length} group${c.groups.length > 1 ? 's' : ''} of ${n})`,
      pieces: gathered(c, (q) => c.before[q]), arrows: everyToEvery(c.groups), join },
    { caption: `each device takes the ${op}: every device of a group ends with the group's result`,
      pieces: own(c, c.after), arrows: [] }];
  if (name === 'pmean') {
    // The engine divides as XLA does: multiplies by the float32 reciprocal.
    const r = Math.fround(1 / n);
    const mean = c.after.map((a) => ({ shape: a.shape, dtype: 'float32', data: Array.from(a.data, (x) => Math.fround(x * r)) }));
    frames.push({ caption: `each device divides the sum by ${n}: the mean`, pieces: own(c, mean), arrows: [] });
  }
  return frames;
}

function allGather(c) {
  const axis = Number(param(c, 'all_gather_dimension') || 0);
  const how = param(c, 'tiled') === 'True' ? 'concatenated' : 'stacked';
  return [before(c),
    { caption: 'every device sends its piece to the others of its group and keeps them all, in group order',
      pieces: gathered(c, (q) => c.before[q]), arrows: everyToEvery(c.groups), join: ' | ' },
    { caption: `${how} along axis ${axis}: every device ends with all pieces`, pieces: own(c, c.after), arrows: [] }];
}

// Device p's operand cut into its group's blocks along `axis`.
function cut(c, axis, tiled) {
  const group = groupOf(c);
  return c.before.map((a, p) => group(p).map((_, j) => ({ from: p, value: block(a, axis, j, group(p).length, tiled) })));
}

function reduceScatter(c) {
  const dim = Number(param(c, 'scatter_dimension') || 0);
  const tiled = param(c, 'tiled') === 'True';
  const group = groupOf(c);
  return [{ caption: `before: every device's value cut into one block per device of its group along axis ${dim}`,
    pieces: cut(c, dim, tiled), arrows: [], join: ' | ' },
  { caption: 'block j of every device goes to device j of the group',
    pieces: gathered(c, (q, _rank, p) => block(c.before[q], dim, group(p).indexOf(p), group(p).length, tiled)),
    arrows: everyToEvery(c.groups), join: ' + ' },
  { caption: 'each device sums the blocks it got: it ends with its reduced piece', pieces: own(c, c.after), arrows: [] }];
}

function allToAll(c) {
  const split = Number(param(c, 'split_axis') || 0);
  const concat = Number(param(c, 'concat_axis') || 0);
  const tiled = param(c, 'tiled') === 'True';
  const group = groupOf(c);
  return [{ caption: `before: every device's value cut into one chunk per device of its group along axis ${split}`,
    pieces: cut(c, split, tiled), arrows: [], join: ' | ' },
  { caption: 'chunk i of device j goes to device i of the group, in order of j',
    pieces: gathered(c, (q, _rank, p) => block(c.before[q], split, group(p).indexOf(p), group(p).length, tiled)),
    arrows: everyToEvery(c.groups), join: ' | ' },
  { caption: `joined along axis ${concat}`, pieces: own(c, c.after), arrows: [] }];
}

// ppermute's pairs, as positions: (source rank, destination rank) in every group.
export function permPairs(c) {
  const perm = param(c, 'perm') || '';
  const ranks = [...perm.matchAll(/\(\s*(\d+)\s*,\s*(\d+)\s*\)/g)].map((m) => [Number(m[1]), Number(m[2])]);
  return c.groups.flatMap((g) => ranks.filter(([a, b]) => g[a] !== undefined && g[b] !== undefined).map(([a, b]) => [g[a], g[b]]));
}

function ppermute(c) {
  const pairs = permPairs(c);
  const sender = new Map(pairs.map(([a, b]) => [b, a]));
  // A device no pair sends to gets zeros, as in JAX.
  const pieces = c.after.map((v, p) => [{ from: sender.has(p) ? sender.get(p) : null, value: v }]);
  return [before(c), { caption: 'every device sends its value along the pairs; a device nobody sends to gets zeros', pieces, arrows: pairs }];
}

export function framesOf(c, name) {
  if (name in OPS) return reduction(c, name);
  if (name === 'all_gather' || name === 'all_gather_invariant') return allGather(c);
  if (name === 'psum_scatter' || name === 'reduce_scatter') return reduceScatter(c);
  if (name === 'all_to_all') return allToAll(c);
  if (name === 'ppermute') return ppermute(c);
  return [before(c), { caption: 'after', pieces: own(c, c.after), arrows: [] }];
}
