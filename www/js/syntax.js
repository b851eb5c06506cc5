// The program's Python syntax tree, as the editor's language parses it
// (CodeMirror's Python mode is the Lezer grammar @lezer/python, imported
// here on its own so that the page has it before the editor, which loads
// after the first result), with the few questions the
// controls ask of it: what a call is called, its arguments, and what a
// string literal holds. Working on the tree means comments, the inside of
// other strings and identifiers are never taken for axis names or numbers.
import { parser } from '@lezer/python';

// The last text parsed and its tree. One edit asks several questions of
// the same text (the Devices it needs, its mesh, its specs, then again as
// it runs); Lezer's trees are immutable, so they share one parse.
let last = { source: null, tree: null };

export function parse(source) {
  if (source !== last.source) last = { source, tree: parser.parse(source) };
  return last.tree;
}

// Every node named `name` under `tree`'s top: [SyntaxNode].
export function nodesNamed(tree, names) {
  const out = [];
  const cursor = tree.cursor();
  do {
    if (names.has(cursor.name)) out.push(cursor.node);
  } while (cursor.next());
  return out;
}

// The children of `node` as a list.
export function children(node) {
  const out = [];
  for (let c = node.firstChild; c; c = c.nextSibling) out.push(c);
  return out;
}

// The last name of a call's callee: `psum` for `jax.lax.psum(...)`, `P`
// for `P(...)`; null for anything else (a call of a call, a subscript).
export function calleeName(call, source) {
  const callee = call.firstChild;
  if (!callee) return null;
  if (callee.name === 'VariableName') return source.slice(callee.from, callee.to);
  if (callee.name === 'MemberExpression') {
    const last = callee.lastChild;
    if (last && last.name === 'PropertyName') return source.slice(last.from, last.to);
  }
  return null;
}

// A call's arguments: { positional: [node], keywords: { name: node },
// spread } (spread: a `*args` or `**kwargs` makes positions unknowable).
export function callArgs(call, source) {
  const out = { positional: [], keywords: {}, spread: false };
  const list = call.getChild('ArgList');
  if (!list) return out;
  const items = children(list).filter((c) => !['(', ')', ','].includes(c.name));
  for (let i = 0; i < items.length; i++) {
    const c = items[i];
    if (c.name === 'VariableName' && items[i + 1] && items[i + 1].name === 'AssignOp' && items[i + 2]) {
      out.keywords[source.slice(c.from, c.to)] = items[i + 2];
      i += 2;
    } else if (c.name === '*' || c.name === '**' || c.name === 'ArithOp') {
      out.spread = true;
      i += 1;
    } else {
      out.positional.push(c);
    }
  }
  return out;
}

// The text a plain string literal holds ('x', "x", r'x'), or null for
// f-strings, bytes, triple quotes, implicit concatenations and escapes.
export function stringValue(node, source) {
  if (node.name !== 'String') return null;
  const m = /^[rRuU]?(['"])([\s\S]*)\1$/.exec(source.slice(node.from, node.to));
  if (!m || m[2].includes(m[1]) || /[\\\n]/.test(m[2])) return null;
  return m[2];
}

// 1-based line of `at` in `source`.
export function lineAt(source, at) {
  let line = 1;
  for (let i = source.indexOf('\n'); i >= 0 && i < at; i = source.indexOf('\n', i + 1)) line++;
  return line;
}
