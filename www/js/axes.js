// Mesh axis names in a program's text, and renaming them, for the Axis
// names control. An axis name is a string literal in one of the places JAX
// reads axis names:
//   - the arguments of P(...) / PartitionSpec(...) (alone or in tuples),
//   - the axis argument of a collective (psum(x, 'x'), axis_index('x')),
//   - the keywords axis_name=, axis_names= and spmd_axis_name=,
//   - the axis names of Mesh(...), make_mesh(...) and AbstractMesh(...),
//   - a subscript of a mesh's shape (mesh.shape['x']).
// A rename rewrites every one of them, or is refused with the reason when
// the text cannot tell: an axis given by a variable or an expression, or
// the same string used somewhere that is not an axis. Renaming consistently
// everywhere keeps the program's meaning, so the page may then run it.
import { parse, nodesNamed, calleeName, callArgs, stringValue, lineAt, children } from './syntax.js';

// The position of the axis argument of each collective (by its last name).
const AXIS_ARGUMENT = {
  psum: 1, pmean: 1, pmax: 1, pmin: 1, all_gather: 1, all_gather_invariant: 1, psum_scatter: 1,
  ppermute: 1, pshuffle: 1, pswapaxes: 1, all_to_all: 1, pbroadcast: 1, pvary: 1, pcast: 1,
  axis_index: 0, axis_size: 0,
};
const SPEC_CALLS = new Set(['P', 'PartitionSpec']);
const MESH_CALLS = new Set(['Mesh', 'make_mesh', 'AbstractMesh']);
const AXIS_KEYWORDS = new Set(['axis_name', 'axis_names', 'spmd_axis_name']);
const GROUPS = new Set(['TupleExpression', 'ListExpression', 'SetExpression', 'ParenthesizedExpression']);

// Reads one axis position: string literals into `uses.axes`; None is no
// axis; tuples, lists and sets are read item by item; anything else is an
// axis the text does not name (`uses.dynamic`).
function readAxes(node, source, where, uses) {
  if (node.name === 'None') return;
  const value = stringValue(node, source);
  if (value !== null) {
    uses.axes.push({ from: node.from, to: node.to, value, line: lineAt(source, node.from) });
    return;
  }
  if (GROUPS.has(node.name)) {
    for (const c of children(node)) {
      if (!['(', ')', '[', ']', '{', '}', ','].includes(c.name)) readAxes(c, source, where, uses);
    }
    return;
  }
  uses.dynamic.push({ where, text: source.slice(node.from, node.to), line: lineAt(source, node.from) });
}

// The axis positions of one call.
function readCall(call, source, uses) {
  const name = calleeName(call, source);
  const args = callArgs(call, source);
  const where = `${name || 'a call'}(...)`;
  if (name && SPEC_CALLS.has(name)) {
    for (const a of args.positional) readAxes(a, source, where, uses);
    if (args.spread) uses.dynamic.push({ where, text: '*…', line: lineAt(source, call.from) });
  }
  if (name && MESH_CALLS.has(name) && args.positional[1]) readAxes(args.positional[1], source, where, uses);
  if (name && name in AXIS_ARGUMENT) {
    const at = args.positional[AXIS_ARGUMENT[name]];
    if (at) readAxes(at, source, where, uses);
  }
  for (const [k, v] of Object.entries(args.keywords)) {
    if (AXIS_KEYWORDS.has(k)) readAxes(v, source, `${k}=`, uses);
  }
}

// `mesh.shape['x']`: a string subscript of a `.shape` attribute.
function readShapeSubscript(node, source, uses) {
  const [object, open, index] = children(node);
  if (!object || !open || open.name !== '[' || !index || object.name !== 'MemberExpression') return;
  const prop = object.lastChild;
  if (!prop || prop.name !== 'PropertyName' || source.slice(prop.from, prop.to) !== 'shape') return;
  const value = stringValue(index, source);
  if (value !== null) uses.axes.push({ from: index.from, to: index.to, value, line: lineAt(source, index.from) });
}

// Where `source` names axes: { axes: [{ from, to, value, line }] (string
// literals used as axis names), dynamic: [{ where, text, line }] (axis
// positions holding something else), strings: [{ value, line, from }]
// (every other plain string literal) }.
export function axisUses(source) {
  const tree = parse(source);
  const uses = { axes: [], dynamic: [], strings: [] };
  for (const node of nodesNamed(tree, new Set(['CallExpression', 'MemberExpression']))) {
    if (node.name === 'CallExpression') readCall(node, source, uses);
    else readShapeSubscript(node, source, uses);
  }
  const taken = new Set(uses.axes.map((a) => a.from));
  for (const node of nodesNamed(tree, new Set(['String']))) {
    const value = stringValue(node, source);
    if (value !== null && !taken.has(node.from)) uses.strings.push({ value, line: lineAt(source, node.from), from: node.from });
  }
  return uses;
}

// The axis names of the first Mesh(...) / make_mesh(...) / AbstractMesh(...)
// call whose names are all written as strings: { names, line }, or null.
// The Axis names control renames through it where the mesh's devices are
// built in a way the Mesh shape control does not rewrite.
export function firstMeshNames(source) {
  const tree = parse(source);
  for (const call of nodesNamed(tree, new Set(['CallExpression']))) {
    if (!MESH_CALLS.has(calleeName(call, source))) continue;
    const args = callArgs(call, source);
    const at = args.positional[1] || args.keywords.axis_names;
    if (!at) continue;
    const uses = { axes: [], dynamic: [], strings: [] };
    readAxes(at, source, 'Mesh', uses);
    if (uses.dynamic.length || uses.axes.length === 0) continue;
    return { names: uses.axes.map((a) => a.value), line: lineAt(source, call.from) };
  }
  return null;
}

// `source` with the axes renamed by `renames` (a Map old -> new, applied
// all at once, so x -> y with y -> x swaps them): { source } or { error }.
export function renameAxes(source, renames) {
  const changes = [...renames].filter(([a, b]) => a !== b);
  if (changes.length === 0) return { source };
  const uses = axisUses(source);
  if (uses.dynamic.length) {
    const d = uses.dynamic[0];
    return { error: `line ${d.line} gives an axis of ${d.where} as \`${d.text}\`, which is worked out when the program runs; rename the axis in the code` };
  }
  for (const [old] of changes) {
    const other = uses.strings.find((s) => s.value === old);
    if (other) {
      return { error: `line ${other.line} has the string '${old}' where it is not an axis name, so it cannot be told apart; rename the axis in the code` };
    }
  }
  const renamed = new Set(changes.map(([a]) => a));
  for (const [, to] of changes) {
    const clash = uses.axes.find((a) => a.value === to && !renamed.has(a.value));
    if (clash) return { error: `'${to}' already names an axis at line ${clash.line}` };
  }
  let out = source;
  for (const a of [...uses.axes].sort((p, q) => q.from - p.from)) {
    if (!renames.has(a.value) || renames.get(a.value) === a.value) continue;
    const text = source.slice(a.from, a.to);
    const quote = text[text.length - 1];
    const prefix = text.slice(0, text.indexOf(quote));
    out = out.slice(0, a.from) + prefix + quote + renames.get(a.value) + quote + out.slice(a.to);
  }
  return { source: out };
}
