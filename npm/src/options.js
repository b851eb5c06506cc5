// The options of createLab and lab.run, checked before any worker starts:
// a wrong type throws a TypeError, a wrong value a RangeError, each naming
// the reason. A run's options default to its lab's.
import { findMesh, rewriteMesh, parseShape } from './mesh.js';

export const MODES = ['auto', 'parallel', 'lockstep'];
export const MAX_DEVICES = 16;

const LAB_OPTIONS = ['devices', 'mesh', 'mode', 'timeoutMs', 'maxMemory'];

// A wasm memory that outgrows a tab's share ends the tab: runs stop with
// MemoryError past this many bytes unless told otherwise.
export const DEFAULT_MAX_MEMORY = 2 ** 30;
// A wasm32 memory cannot grow past 4 GiB.
const MAX_MAX_MEMORY = 2 ** 32;
const CREATE_OPTIONS = [...LAB_OPTIONS, 'startDevices'];
const RUN_OPTIONS = [...LAB_OPTIONS, 'signal', 'onProgress'];

function checkDevices(devices, what) {
  if (typeof devices !== 'number') {
    throw new TypeError(`${what} must be a number, not ${typeof devices}`);
  }
  if (!Number.isInteger(devices)) throw new RangeError(`${what} must be a whole number, not ${devices}`);
  if (devices < 1 || devices > MAX_DEVICES) {
    throw new RangeError(`${what} must be from 1 to ${MAX_DEVICES}, not ${devices}`);
  }
  return devices;
}

// A maxMemory option in bytes: a number, or a string like '512M' or '1G'.
function checkMaxMemory(value) {
  let bytes = value;
  if (typeof value === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(value);
    if (!m) throw new RangeError(`maxMemory must be a size such as '512M' or '1G', not "${value}"`);
    const shift = { '': 0, k: 10, m: 20, g: 30, t: 40 }[m[2].toLowerCase()];
    bytes = Math.floor(Number(m[1]) * 2 ** shift);
  } else if (typeof value !== 'number') {
    throw new TypeError(`maxMemory must be a number of bytes or a string like '512M', not ${typeof value}`);
  }
  if (!(bytes > 0) || !Number.isFinite(bytes)) throw new RangeError(`maxMemory must be positive, not ${value}`);
  if (bytes > MAX_MAX_MEMORY) throw new RangeError(`maxMemory must be at most 4G (a wasm memory's size), not ${value}`);
  return bytes;
}

// A mesh option ([2, 2] or '2x2') as a list of axis sizes whose product is
// `devices`.
function checkMesh(mesh, devices, what) {
  let shape;
  if (typeof mesh === 'string') {
    const parsed = parseShape(mesh);
    if (parsed.error) throw new RangeError(`${what}: ${parsed.error}`);
    shape = parsed.shape;
  } else if (Array.isArray(mesh)) {
    if (mesh.length < 1 || mesh.length > 3) throw new RangeError(`${what} must have 1 to 3 axes`);
    for (const s of mesh) {
      if (typeof s !== 'number') throw new TypeError(`${what} must hold numbers, not ${typeof s}`);
      if (!Number.isInteger(s) || s < 1) {
        throw new RangeError(`${what} sizes must be positive whole numbers, not ${s}`);
      }
    }
    shape = [...mesh];
  } else {
    throw new TypeError(`${what} must be an array of sizes or a string like "2x2"`);
  }
  const size = shape.reduce((a, b) => a * b, 1);
  if (size !== devices) {
    throw new RangeError(`a ${shape.join('x')} mesh has ${size} devices, but devices is ${devices}`);
  }
  return shape;
}

// createLab's options (`defaults` null) or a run's (`defaults`: its lab's),
// with every default filled in.
export function checkOptions(options, defaults) {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object') throw new TypeError('options must be an object');
  const known = defaults ? RUN_OPTIONS : CREATE_OPTIONS;
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new TypeError(`unknown option "${key}" (known: ${known.join(', ')})`);
  }
  const base = defaults || { devices: 8, mesh: null, mode: 'auto', timeoutMs: null, maxMemory: DEFAULT_MAX_MEMORY };
  const devices =
    options.devices === undefined ? base.devices : checkDevices(options.devices, 'devices');
  let mesh = options.mesh === undefined ? base.mesh : options.mesh;
  if (mesh !== null) {
    const inherited = options.mesh === undefined;
    // A run that changes only the device count drops the lab's mesh.
    if (inherited && mesh.reduce((a, b) => a * b, 1) !== devices) mesh = null;
    else mesh = checkMesh(mesh, devices, 'mesh');
  }
  const mode = options.mode === undefined ? base.mode : options.mode;
  if (typeof mode !== 'string') throw new TypeError(`mode must be a string, not ${typeof mode}`);
  if (!MODES.includes(mode)) throw new RangeError(`mode must be one of ${MODES.join(', ')}, not "${mode}"`);
  let timeoutMs = options.timeoutMs === undefined ? base.timeoutMs : options.timeoutMs;
  if (timeoutMs !== null) {
    if (typeof timeoutMs !== 'number') throw new TypeError(`timeoutMs must be a number, not ${typeof timeoutMs}`);
    if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, not ${timeoutMs}`);
  }
  const maxMemory = options.maxMemory === undefined ? base.maxMemory : checkMaxMemory(options.maxMemory);
  const signal = options.signal;
  if (signal !== undefined && (signal === null || typeof signal.aborted !== 'boolean')) {
    throw new TypeError('signal must be an AbortSignal');
  }
  const onProgress = options.onProgress;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new TypeError(`onProgress must be a function, not ${typeof onProgress}`);
  }
  // Only createLab's: whether the device workers start with the lab or at
  // its first parallel run.
  const startDevices = options.startDevices === undefined ? true : options.startDevices;
  if (typeof startDevices !== 'boolean') {
    throw new TypeError(`startDevices must be true or false, not ${typeof startDevices}`);
  }
  return { devices, mesh, mode, timeoutMs, maxMemory, signal, onProgress, startDevices };
}

// `source` with its Mesh(...) line set to `shape` (axis names kept): what
// the mesh option does.
export function withMesh(source, shape) {
  const found = findMesh(source);
  if (!found) return source;
  if (found.names.length !== shape.length) {
    throw new RangeError(
      `the program's mesh has ${found.names.length} axes (${found.names.join(', ')}), ` +
        `the mesh option ${shape.length}`,
    );
  }
  return rewriteMesh(source, shape, found.names);
}
