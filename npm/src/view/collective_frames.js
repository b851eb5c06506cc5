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

// Arrows from every member of each group to every other.
function everyToEvery(groups) {
  return groups.flatMap((g) => g.flatMap((p) => g.filter((q) => q !== p).map((q) => [p, q])));
}

function groupOf(c) {
  const m = new Map();
  c.groups.forEach((g) => g.forEach((p) => m.set(p, g)));
  return (p) => m.get(p) || [p];
}

// A group of up to this many devices exchanges in one frame, every arrow
// drawn; a bigger one would be a tangle of n(n - 1) arrows, so it is shown
// in n - 1 rounds, each moving one piece per device.
const ONE_FRAME = 4;

// The frames in which every device of every group gets the pieces of the
// others, `pieceOf(q, p)` being what device q sends device p. Small groups
// swap at once. In a big group's round k the device of rank r sends to the
// device of rank r + k (mod n), so after round k each holds its own piece
// and those of the k ranks before it (in rank order), and after the last
// round the whole group's.
function exchange(c, pieceOf, caption) {
  const group = groupOf(c);
  const received = (p, k) => {
    const g = group(p);
    const r = g.indexOf(p);
    const from = new Set(Array.from({ length: Math.min(k, g.length - 1) + 1 }, (_, i) => g[(r - i + g.length) % g.length]));
    return g.filter((q) => from.has(q)).map((q) => ({ from: q, value: pieceOf(q, p) }));
  };
  const n = Math.max(1, ...c.groups.map((g) => g.length));
  if (n <= ONE_FRAME) return [{ caption, pieces: c.before.map((_, p) => received(p, n)), arrows: everyToEvery(c.groups) }];
  return Array.from({ length: n - 1 }, (_, i) => {
    const k = i + 1;
    return {
      caption: `${caption}: round ${k} of ${n - 1}, every device sends to the device ${k} place${k > 1 ? 's' : ''} after it in its group`,
      pieces: c.before.map((_, p) => received(p, k)),
      arrows: c.groups.flatMap((g) => (k < g.length ? g.map((q, r) => [q, g[(r + k) % g.length]]) : [])),
    };
  });
}

// Block `j` of `m` of `a` along `axis`; untiled, the axis has size m and
// the block drops it.
function block(a, axis, j, m, tiled) {
  const size = a.shape[axis] / m;
  const piece = sliceAxis(a, axis, j * size, (j + 1) * size);
  return tiled ? piece : dropAxis(piece, axis);
}

const OPS = { psum: ['sum', ' + '], pmean: ['sum', ' + '], pmax: ['maximum', ', '], pmin: ['minimum', ', '] };

const joined = (frames, join) => frames.map((f) => ({ ...f, join }));

function reduction(c, name) {
  const [op, join] = OPS[name];
  const n = c.groups[0] ? c.groups[0].length : 1;
  const frames = [before(c),
    ...joined(exchange(c, (q) => c.before[q],
      `every device sends its value to the others of its group (${c.groups.length} group${c.groups.length > 1 ? 's' : ''} of ${n})`), join),
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
    ...joined(exchange(c, (q) => c.before[q], 'every device sends its piece to the others of its group and keeps them all, in group order'), ' | '),
    { caption: `${how} along axis ${axis}: every device ends with all pieces`, pieces: own(c, c.after), arrows: [] }];
}

// Device p's operand cut into its group's blocks along `axis`.
function cut(c, axis, tiled) {
  const group = groupOf(c);
  return c.before.map((a, p) => group(p).map((_, j) => ({ from: p, value: block(a, axis, j, group(p).length, tiled) })));
}

// What device q sends device p when each gets its own block along `axis`.
function blockFor(c, axis, tiled) {
  const group = groupOf(c);
  return (q, p) => block(c.before[q], axis, group(p).indexOf(p), group(p).length, tiled);
}

function reduceScatter(c) {
  const dim = Number(param(c, 'scatter_dimension') || 0);
  const tiled = param(c, 'tiled') === 'True';
  return [{ caption: `before: every device's value cut into one block per device of its group along axis ${dim}`,
    pieces: cut(c, dim, tiled), arrows: [], join: ' | ' },
  ...joined(exchange(c, blockFor(c, dim, tiled), 'block j of every device goes to device j of the group'), ' + '),
  { caption: 'each device sums the blocks it got: it ends with its reduced piece', pieces: own(c, c.after), arrows: [] }];
}

function allToAll(c) {
  const split = Number(param(c, 'split_axis') || 0);
  const concat = Number(param(c, 'concat_axis') || 0);
  const tiled = param(c, 'tiled') === 'True';
  return [{ caption: `before: every device's value cut into one chunk per device of its group along axis ${split}`,
    pieces: cut(c, split, tiled), arrows: [], join: ' | ' },
  ...joined(exchange(c, blockFor(c, split, tiled), 'chunk i of device j goes to device i of the group, in order of j'), ' | '),
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
