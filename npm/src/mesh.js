// A program's mesh: find it, read the shape and axis names from it, check
// new values and write them back. The playground's mesh controls and a
// lab's `mesh` option both rewrite programs through it.
//
// Understood forms:
//   Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))
//     (with `.reshape(...)` optional for a 1-D mesh)
//   jax.make_mesh((2, 4), ('x', 'y'))
//     (with keyword arguments after the names kept as written, such as
//     axis_types=(AxisType.Explicit,) * 2, but not devices=, which fixes
//     the devices the shape must fit)
//   Mesh(mesh_utils.create_device_mesh((2, 4)), ('x', 'y'))

const NAMES = String.raw`\(([^()]*)\)`;
// `, key=value, ...` up to the call's closing bracket, the values holding
// at most one level of brackets.
const KEYWORDS = String.raw`(\s*,[^()]*(?:\([^()]*\)[^()]*)*?)?`;
const FORMS = [
  {
    form: 'devices',
    re: new RegExp(String.raw`Mesh\(\s*np\.array\(\s*jax\.devices\(\)\s*(?:\[\s*:\s*(\d+)\s*\])?\s*\)\s*(?:\.reshape\(([\d\s,]*)\))?\s*,\s*` + NAMES + String.raw`\s*\)`),
    shape: (m) => (m[2] ? numbers(m[2]) : [m[1] ? Number(m[1]) : null]),
    names: (m) => m[3],
  },
  {
    form: 'make_mesh',
    re: new RegExp(String.raw`(?:jax\.)?make_mesh\(\s*\(([\d\s,]*)\)\s*,\s*` + NAMES + KEYWORDS + String.raw`\s*\)`),
    shape: (m) => numbers(m[1]),
    names: (m) => m[2],
    keywords: (m) => (m[3] && m[3].trim() !== ',' ? m[3] : ''),
  },
  {
    form: 'create_device_mesh',
    re: new RegExp(String.raw`Mesh\(\s*(?:mesh_utils\.)?create_device_mesh\(\s*\(([\d\s,]*)\)\s*\)\s*,\s*` + NAMES + String.raw`\s*\)`),
    shape: (m) => numbers(m[1]),
    names: (m) => m[2],
  },
];

function numbers(text) {
  return text.split(',').map((s) => s.trim()).filter((s) => s).map(Number);
}

// The keyword arguments written after the names (`, axis_types=...`), or
// null when they pass devices (the shape is then the code's to change).
function keywordsOf(f, m) {
  const text = f.keywords ? f.keywords(m) : '';
  return /\bdevices\s*=/.test(text) ? null : text;
}

// The first understood mesh construction: { shape, names, start, end, form,
// keywords } or null; `keywords` is the text of the keyword arguments after
// the names ('' when there are none), which a rewrite keeps.
export function findMesh(source) {
  let best = null;
  for (const f of FORMS) {
    const m = f.re.exec(source);
    if (!m || (best && best.start <= m.index)) continue;
    const keywords = keywordsOf(f, m);
    if (keywords === null) continue;
    const names = [...f.names(m).matchAll(/['"]([^'"]*)['"]/g)].map((n) => n[1]);
    best = { shape: f.shape(m), names, start: m.index, end: m.index + m[0].length, form: f.form, keywords };
  }
  return best;
}

// Every understood mesh construction assigned to a variable
// (`mesh = jax.make_mesh(...)`): { variable: { shape, names } }; for other
// `Mesh(...)` assignments, shape is null and only the names are read.
export function meshesByName(source) {
  const out = {};
  for (const f of FORMS) {
    const re = new RegExp(f.re.source, 'g');
    for (let m; (m = re.exec(source));) {
      const line = source.slice(source.lastIndexOf('\n', m.index) + 1, m.index);
      const v = /([A-Za-z_]\w*)\s*=\s*$/.exec(line);
      if (!v) continue;
      const names = [...f.names(m).matchAll(/['"]([^'"]*)['"]/g)].map((n) => n[1]);
      out[v[1]] = { shape: f.shape(m), names };
    }
  }
  // Other `name = Mesh(devices, ('a', 'b'))` lines: the axis names only.
  const other = /^[ \t]*([A-Za-z_]\w*)\s*=\s*(?:jax\.sharding\.)?Mesh\(.*,\s*(?:axis_names\s*=\s*)?\(([^()]*)\)\s*\)\s*$/gm;
  for (let m; (m = other.exec(source));) {
    if (out[m[1]]) continue;
    out[m[1]] = { shape: null, names: [...m[2].matchAll(/['"]([^'"]*)['"]/g)].map((n) => n[1]) };
  }
  return out;
}

// The text of a mesh construction for `shape` and `names`, in `form` (one
// of findMesh's forms; the `Mesh(np.array(jax.devices()...))` one by default).
// `keywords`: make_mesh's keyword arguments after the names, as written.
export function meshCall(shape, names, form = 'devices', keywords = '') {
  const n = shape.reduce((a, b) => a * b, 1);
  const axes = names.map((a) => `'${a}'`).join(', ') + (names.length === 1 ? ',' : '');
  const tuple = shape.join(', ') + (shape.length === 1 ? ',' : '');
  if (form === 'make_mesh') return `jax.make_mesh((${tuple}), (${axes})${keywords})`;
  if (form === 'create_device_mesh') return `Mesh(mesh_utils.create_device_mesh((${tuple})), (${axes}))`;
  const reshape = shape.length > 1 ? `.reshape(${shape.join(', ')})` : '';
  return `Mesh(np.array(jax.devices()[:${n}])${reshape}, (${axes}))`;
}

// `source` with its first understood Mesh(...) call replaced.
export function rewriteMesh(source, shape, names) {
  const found = findMesh(source);
  if (!found) return source;
  const text = meshCall(shape, names, found.form, found.keywords);
  // Keep the module prefix (`jax.`, `mesh_utils.`), or its absence, as written.
  const written = source.slice(found.start, found.end);
  let call = text;
  if (found.form === 'make_mesh' && !written.startsWith('jax.')) call = text.slice(4);
  if (found.form === 'create_device_mesh' && !written.includes('mesh_utils.')) {
    call = text.replace('mesh_utils.', '');
  }
  return source.slice(0, found.start) + call + source.slice(found.end);
}

// Parses "2x4" (or "2,4", "2 4"): a list of positive integers or an error.
export function parseShape(text) {
  const parts = text.trim().split(/\s*[x×*,\s]\s*/i).filter((p) => p !== '');
  if (parts.length === 0) return { error: 'give the mesh shape, e.g. 2x4' };
  if (parts.length > 3) return { error: 'a mesh has at most 3 axes here' };
  const shape = [];
  for (const p of parts) {
    if (!/^\d+$/.test(p) || Number(p) < 1) {
      return { error: `"${p}" is not a positive whole number` };
    }
    shape.push(Number(p));
  }
  return { shape };
}

// Parses "x,y": axis names, or an error (empty, not an identifier, repeated).
export function parseNames(text) {
  const names = text.split(',').map((s) => s.trim());
  const seen = new Set();
  for (const n of names) {
    if (n === '') return { error: 'an axis name is empty' };
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(n)) return { error: `"${n}" is not a valid axis name` };
    if (seen.has(n)) return { error: `axis name "${n}" is used twice` };
    seen.add(n);
  }
  return { names };
}

// Checks a whole mesh setting; returns null when it is fine, else the reason.
export function checkMesh(devices, shape, names) {
  if (!Number.isInteger(devices) || devices < 1 || devices > 16) {
    return 'devices must be a whole number from 1 to 16';
  }
  if (shape.length !== names.length) {
    return `the mesh has ${shape.length} axes but ${names.length} axis name${names.length === 1 ? '' : 's'}`;
  }
  const size = shape.reduce((a, b) => a * b, 1);
  if (size > devices) {
    return `a ${shape.join('x')} mesh needs ${size} devices, there are ${devices}`;
  }
  if (devices % size !== 0) {
    return `${devices} devices do not divide into meshes of ${size}`;
  }
  return null;
}
