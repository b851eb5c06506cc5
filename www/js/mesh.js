// The mesh controls' view of a program: find its `Mesh(...)` line, read the
// mesh from it, check new values and write them back.
//
// Understood form (the one the examples use):
//   Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))
// with `.reshape(...)` optional for a 1-D mesh.

const MESH_RE =
  /Mesh\(\s*np\.array\(\s*jax\.devices\(\)\s*(?:\[\s*:\s*(\d+)\s*\])?\s*\)\s*(?:\.reshape\(([\d\s,]*)\))?\s*,\s*\(([^()]*)\)\s*\)/;

// The first understood Mesh(...) call: { shape, names, start, end } or null.
export function findMesh(source) {
  const m = MESH_RE.exec(source);
  if (!m) return null;
  const names = [...m[3].matchAll(/['"]([^'"]*)['"]/g)].map((n) => n[1]);
  const shape = m[2]
    ? m[2].split(',').map((s) => s.trim()).filter((s) => s).map(Number)
    : [m[1] ? Number(m[1]) : null];
  return { shape, names, start: m.index, end: m.index + m[0].length };
}

// The text of a Mesh(...) call for `shape` and `names`.
export function meshCall(shape, names) {
  const n = shape.reduce((a, b) => a * b, 1);
  const reshape = shape.length > 1 ? `.reshape(${shape.join(', ')})` : '';
  const axes = names.map((a) => `'${a}'`).join(', ') + (names.length === 1 ? ',' : '');
  return `Mesh(np.array(jax.devices()[:${n}])${reshape}, (${axes}))`;
}

// `source` with its first understood Mesh(...) call replaced.
export function rewriteMesh(source, shape, names) {
  const found = findMesh(source);
  if (!found) return source;
  return source.slice(0, found.start) + meshCall(shape, names) + source.slice(found.end);
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
