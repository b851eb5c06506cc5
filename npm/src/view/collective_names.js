// What a learner calls a collective of the report. The jaxpr's names are
// JAX's: a pmean is a psum (recorded with called_as 'pmean') and a division;
// a psum inside shard_map is `psum_invariant`. Steps JAX adds that move no
// data, or only re-add a value every device already has, are internal: they
// are named in words and folded away by default.

const same = (a, b) => a.data.length === b.data.length && a.data.every((v, i) => Object.is(v, b.data[i]));

// Every device of every group held the same value before.
function groupsHoldSame(c) {
  return c.groups.every((g) => g.every((p) => same(c.before[p], c.before[g[0]])));
}

// { name, internal, words }: the name shown, whether the step is folded away,
// and what it does in words when its name does not say it.
export function describe(c) {
  if (c.called_as) return { name: c.called_as, internal: false, words: null };
  if (c.name === 'pvary') {
    return { name: 'pvary', internal: true, words: 'marks the value as varying over the axis: no data moves' };
  }
  if (c.name === 'axis_index') {
    return { name: 'axis_index', internal: true, words: "each device reads its own index along the axis: no data moves" };
  }
  // lax.psum_scatter is the jaxpr's reduce_scatter.
  const name = { psum_invariant: 'psum', reduce_scatter: 'psum_scatter' }[c.name] || c.name;
  if (c.groups.length && c.groups.every((g) => g.length === 1)) {
    return { name, internal: true, words: 'every group is one device: no data moves' };
  }
  if (c.before.length && c.before.every((v) => v.data.length === 0)) {
    return { name, internal: true, words: 'the value has no elements: no data moves' };
  }
  if (c.name === 'psum_invariant' && groupsHoldSame(c)) {
    return { name: 'psum', internal: true, words: 'sum of a value every device already holds: each ends with it times the group size' };
  }
  // Moving nothing between devices of real groups still changes values
  // (a ppermute without pairs gives zeros), so it stays in view.
  if (c.bytes_moved === 0) {
    const words = c.name === 'ppermute' ? 'no pair sends anything: every device gets zeros' : 'no data moves';
    return { name, internal: false, words };
  }
  return { name, internal: false, words: null };
}
