// How many devices a program's text asks for, so the Devices control can
// follow the code and explain a value the code cannot run with:
//   - os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=N"
//     sets exactly N (the program then sees N devices whatever Devices says);
//   - jax.make_mesh((2, 4), ...) and create_device_mesh((2, 4)) without a
//     devices argument lay out all the devices, so exactly 2 * 4;
//   - jax.devices()[:N] takes the first N, so at least N.
import { parse, nodesNamed, calleeName, callArgs, lineAt, children } from './syntax.js';

const FLAG = /--xla_force_host_platform_device_count=(\d+)/;

// The product of a tuple of whole numbers such as (2, 4), or null.
function tupleProduct(node, source) {
  if (!node) return null;
  if (node.name === 'Number') return /^\d+$/.test(source.slice(node.from, node.to)) ? Number(source.slice(node.from, node.to)) : null;
  if (node.name !== 'TupleExpression' && node.name !== 'ListExpression') return null;
  let n = 1;
  for (const c of children(node)) {
    if (['(', ')', '[', ']', ','].includes(c.name)) continue;
    const text = source.slice(c.from, c.to);
    if (c.name !== 'Number' || !/^\d+$/.test(text)) return null;
    n *= Number(text);
  }
  return n;
}

function needFrom(call, source) {
  const name = calleeName(call, source);
  const args = callArgs(call, source);
  const text = source.slice(call.from, call.to).replace(/\s+/g, ' ');
  const line = lineAt(source, call.from);
  if (name === 'make_mesh' && args.positional.length < 3 && !args.keywords.devices && !args.spread) {
    const n = tupleProduct(args.positional[0] || args.keywords.axis_shapes, source);
    if (n) return { exact: n, line, text };
  }
  if (name === 'create_device_mesh' && args.positional.length < 2 && !args.keywords.devices && !args.spread) {
    const n = tupleProduct(args.positional[0] || args.keywords.mesh_shape, source);
    if (n) return { exact: n, line, text };
  }
  return null;
}

// `jax.devices()[:N]`: a subscript whose object is a devices() call and
// whose index is a slice from the start to a number.
function needFromSlice(node, source) {
  const [object, open] = children(node);
  if (!object || object.name !== 'CallExpression' || !open || open.name !== '[') return null;
  const name = calleeName(object, source);
  if (name !== 'devices' && name !== 'local_devices') return null;
  const index = source.slice(open.to, node.to - 1).replace(/\s+/g, '');
  const m = /^(?:0)?:(\d+)$/.exec(index);
  if (!m) return null;
  return { atLeast: Number(m[1]), line: lineAt(source, node.from), text: source.slice(node.from, node.to) };
}

// What `source` asks for: { exact, atLeast, because } where `because` lists
// the lines that ask ({ line, text, exact | atLeast }); null when the text
// sets nothing. A program asking for two different exact counts gives the
// first, and the run reports the other.
export function deviceNeeds(source) {
  const tree = parse(source);
  const because = [];
  for (const node of nodesNamed(tree, new Set(['CallExpression', 'MemberExpression', 'String']))) {
    if (node.name === 'CallExpression') {
      const need = needFrom(node, source);
      if (need) because.push(need);
    } else if (node.name === 'MemberExpression') {
      const need = needFromSlice(node, source);
      if (need) because.push(need);
    } else {
      const m = FLAG.exec(source.slice(node.from, node.to));
      if (m && Number(m[1]) > 0) {
        because.push({ exact: Number(m[1]), line: lineAt(source, node.from), text: m[0], flag: true });
      }
    }
  }
  if (because.length === 0) return null;
  // XLA_FLAGS decides what the program sees, whatever else it says.
  const flag = because.find((b) => b.flag);
  const exact = flag ? flag.exact : (because.find((b) => b.exact) || {}).exact || null;
  const atLeast = Math.max(0, ...because.filter((b) => b.atLeast).map((b) => b.atLeast));
  return { exact, atLeast: atLeast || null, because };
}

// The number the Devices control shows for `need`.
export function neededCount(need) {
  return need.exact || need.atLeast;
}

// Why `devices` cannot run a program needing `need`, with what to change;
// null when it can.
export function devicesRefusal(devices, need) {
  if (!need) return null;
  if (need.exact && devices !== need.exact) {
    const b = need.because.find((x) => x.flag) || need.because.find((x) => x.exact === need.exact);
    return b.flag
      ? `line ${b.line} sets ${b.text}, so the program runs on ${need.exact} devices: change that line to run on ${devices}`
      : `line ${b.line} (${b.text}) lays out exactly ${need.exact} devices: set Devices to ${need.exact}, or change that line first`;
  }
  if (need.atLeast && devices < need.atLeast) {
    const b = need.because.find((x) => x.atLeast === need.atLeast);
    return `line ${b.line} takes ${b.text}, the first ${need.atLeast} devices: set Devices to ${need.atLeast} or more, or change that line first`;
  }
  return null;
}
