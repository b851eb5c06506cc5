// The spec controls' view of a program: every shard_map call in the text,
// the in_specs and out_specs it is given, and each P(...) in them, with
// where it sits so a control can rewrite it.
//
// Understood call forms (keyword in_specs= / out_specs=):
//   shard_map(f, mesh=mesh, in_specs=..., out_specs=...)
//   jax.shard_map(f, mesh=mesh, in_specs=..., out_specs=...)
//   @partial(shard_map, mesh=mesh, in_specs=..., out_specs=...)
//   @partial(jax.shard_map, mesh=mesh, in_specs=..., out_specs=...)

// `source` with every string literal's inside and every comment replaced by
// spaces (same length, same line breaks), so brackets and names found in it
// are code.
export function codeOnly(source) {
  const out = source.split('');
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === '#') {
      while (i < source.length && source[i] !== '\n') out[i++] = ' ';
    } else if (c === '"' || c === "'") {
      const triple = source.startsWith(c.repeat(3), i);
      const quote = triple ? c.repeat(3) : c;
      i += quote.length;
      while (i < source.length && !source.startsWith(quote, i)) {
        if (!triple && source[i] === '\n') break;
        if (source[i] === '\\') {
          out[i++] = ' ';
          if (i >= source.length) break;
        }
        if (source[i] !== '\n') out[i] = ' ';
        i++;
      }
      i += quote.length;
    } else {
      i++;
    }
  }
  return out.join('');
}

// The index of the bracket closing the one at `open` in `code`, or -1.
function closing(code, open) {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const c = code[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

// The index of the unclosed '(' before `at` in `code`, or -1.
function opening(code, at) {
  let depth = 0;
  for (let i = at - 1; i >= 0; i--) {
    const c = code[i];
    if (c === ')' || c === ']' || c === '}') depth++;
    else if (c === '(' || c === '[' || c === '{') {
      if (depth === 0) return c === '(' ? i : -1;
      depth--;
    }
  }
  return -1;
}

// Top-level comma-separated pieces of code[start, end): [{ start, end }].
function pieces(code, start, end) {
  const out = [];
  let depth = 0;
  let from = start;
  for (let i = start; i < end; i++) {
    const c = code[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      out.push({ start: from, end: i });
      from = i + 1;
    }
  }
  out.push({ start: from, end });
  return out.filter((p) => code.slice(p.start, p.end).trim() !== '');
}

function lineOf(source, at) {
  let line = 1;
  for (let i = 0; i < at; i++) if (source[i] === '\n') line++;
  return line;
}

const CALL = /(?<![\w.])(?:jax\.(?:experimental\.shard_map\.)?)?shard_map\b/g;
const SPEC = /(?<![\w.])(?:jax\.sharding\.)?(?:P|PartitionSpec)\s*\(/g;

// The P(...) calls within code[start, end): [{ start, end, text }].
function specsIn(source, code, start, end) {
  const out = [];
  SPEC.lastIndex = start;
  for (let m; (m = SPEC.exec(code)) && m.index < end;) {
    const close = closing(code, m.index + m[0].length - 1);
    if (close < 0 || close >= end) break;
    out.push({ start: m.index, end: close + 1, text: source.slice(m.index, close + 1) });
    SPEC.lastIndex = close + 1;
  }
  return out;
}

// Every shard_map call of the program, in text order:
// [{ line, mesh, in_specs, out_specs }] (mesh: the variable passed as
// mesh=, if any), the specs null when not given by keyword, else { start, end, text, specs: [{ start, end, text }] }.
export function findShardMaps(source) {
  const code = codeOnly(source);
  const found = [];
  CALL.lastIndex = 0;
  for (let m; (m = CALL.exec(code));) {
    const lineStart = code.lastIndexOf('\n', m.index) + 1;
    const before = code.slice(lineStart, m.index);
    if (/^\s*(?:from|import)\b/.test(before) || /\bdef\s+$/.test(before)) continue;
    let j = m.index + m[0].length;
    while (code[j] === ' ' || code[j] === '\t') j++;
    let open;
    if (code[j] === '(') open = j;
    else if (code[j] === ',' || code[j] === ')') open = opening(code, m.index);
    else continue;
    if (open < 0) continue;
    const close = closing(code, open);
    if (close < 0) continue;
    const entry = { line: lineOf(source, m.index), mesh: null, in_specs: null, out_specs: null };
    for (const arg of pieces(code, open + 1, close)) {
      const mesh = /^\s*mesh\s*=\s*([A-Za-z_]\w*)\s*$/.exec(code.slice(arg.start, arg.end));
      if (mesh) entry.mesh = mesh[1];
      const kw = /^\s*(in_specs|out_specs)\s*=\s*/.exec(code.slice(arg.start, arg.end));
      if (!kw) continue;
      const start = arg.start + kw[0].length;
      let end = arg.end;
      while (end > start && /\s/.test(code[end - 1])) end--;
      entry[kw[1]] = { start, end, text: source.slice(start, end), specs: specsIn(source, code, start, end) };
    }
    if (entry.in_specs || entry.out_specs) found.push(entry);
  }
  return found;
}

// Parses one spec as written in a control, `P('x', None)` or
// `PartitionSpec(('x', 'y'))` (a bare `'x', None` is taken as P('x', None)):
// { entries } with each entry null (None) or a list of axis names, or
// { error }.
export function parseSpec(text) {
  let t = text.trim();
  const call = /^(?:jax\.sharding\.)?(?:P|PartitionSpec)\s*\(([\s\S]*)\)$/.exec(t);
  if (call) t = call[1];
  else if (/^(?:P|PartitionSpec)\b/.test(t)) return { error: 'write a spec as P(...)' };
  const code = codeOnly(t);
  if (closing('(' + code + ')', 0) !== code.length + 1) return { error: 'its brackets do not match' };
  const entries = [];
  for (const p of pieces(code, 0, t.length)) {
    const e = t.slice(p.start, p.end).trim();
    if (e === 'None') {
      entries.push(null);
      continue;
    }
    const name = /^(['"])([^'"]*)\1$/.exec(e);
    if (name) {
      entries.push([name[2]]);
      continue;
    }
    const tuple = /^\(([\s\S]*)\)$/.exec(e);
    if (tuple) {
      const names = [];
      for (const q of pieces(tuple[1], 0, tuple[1].length)) {
        const n = /^(['"])([^'"]*)\1$/.exec(tuple[1].slice(q.start, q.end).trim());
        if (!n) return { error: `${e} is not a tuple of axis names` };
        names.push(n[2]);
      }
      entries.push(names);
      continue;
    }
    return { error: `${e} is not None, an axis name in quotes or a tuple of them` };
  }
  return { entries };
}

// Checks parsed entries against the mesh's axis names (null: not known, so
// only repeats are checked); returns null or the reason.
export function checkSpec(entries, meshNames) {
  const seen = new Set();
  for (const entry of entries) {
    for (const a of entry || []) {
      if (a === '') return 'an axis name is empty';
      if (meshNames && !meshNames.includes(a)) {
        return `axis '${a}' is not in the mesh (its axes: ${meshNames.map((n) => `'${n}'`).join(', ')})`;
      }
      if (seen.has(a)) return `axis '${a}' is used twice in one spec`;
      seen.add(a);
    }
  }
  return null;
}

// The text of a spec: P('x', None), P(('x', 'y')); `head` is the name the
// program uses (P or PartitionSpec).
export function specText(entries, head = 'P') {
  const one = (e) => (e === null ? 'None' : e.length === 1 ? `'${e[0]}'` : `(${e.map((a) => `'${a}'`).join(', ')})`);
  return `${head}(${entries.map(one).join(', ')})`;
}

// `source` with text[start, end) replaced by `text`.
export function replaceRange(source, start, end, text) {
  return source.slice(0, start) + text + source.slice(end);
}
