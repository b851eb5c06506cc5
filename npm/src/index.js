// shardlab: JAX-style SPMD programs on simulated devices, from JavaScript.
//
// A lab owns one coordinator worker (a Web Worker, or a worker_thread in
// Node) that runs the engine; in parallel mode the coordinator starts one
// device worker per device, all sharing a SharedArrayBuffer. Runs go
// through a queue: one at a time, in the order they were asked for.
import { findMesh, rewriteMesh, parseShape } from '../../www/js/mesh.js';
import { resultText } from '../../www/js/arrays.js';

const isNode =
  typeof process === 'object' &&
  process !== null &&
  typeof process.versions === 'object' &&
  typeof process.versions.node === 'string';

const MODES = ['auto', 'parallel', 'lockstep'];
const MAX_DEVICES = 16;

/** A failed run: a Python exception, a cancel, a time-out or a crash. */
export class ShardlabError extends Error {
  constructor(type, message, { line = null, col = null, stdout = '', report = null } = {}) {
    super(line === null ? `${type}: ${message}` : `${type}: ${message} (line ${line}, col ${col})`);
    this.name = 'ShardlabError';
    this.type = type;
    this.reason = message;
    this.line = line;
    this.col = col;
    this.stdout = stdout;
    this.report = report;
  }
}

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

function checkOptions(options, defaults) {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object') throw new TypeError('options must be an object');
  const known = defaults
    ? ['devices', 'mesh', 'mode', 'timeoutMs', 'signal']
    : ['devices', 'mesh', 'mode', 'timeoutMs'];
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new TypeError(`unknown option "${key}" (known: ${known.join(', ')})`);
  }
  const base = defaults || { devices: 8, mesh: null, mode: 'auto', timeoutMs: null };
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
  const signal = options.signal;
  if (signal !== undefined && (signal === null || typeof signal.aborted !== 'boolean')) {
    throw new TypeError('signal must be an AbortSignal');
  }
  return { devices, mesh, mode, timeoutMs, signal };
}

// Whether devices can run in parallel here: SharedArrayBuffer and, in
// browsers, cross-origin isolation.
function canRunParallel() {
  if (typeof SharedArrayBuffer !== 'function') return false;
  return isNode || globalThis.crossOriginIsolated === true;
}

// `source` with its Mesh(...) line set to `shape` (axis names kept).
function withMesh(source, shape) {
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

// The coordinator as a worker, behind one small interface for browsers and
// Node.
async function startCoordinator() {
  let w;
  if (isNode) {
    const name = 'node:worker_threads';
    const { Worker: NodeWorker } = await import(/* @vite-ignore */ name);
    w = new NodeWorker(new URL('./coordinator.js', import.meta.url));
    return {
      post: (m) => w.postMessage(m),
      onMessage: (f) => w.on('message', f),
      onError: (f) => w.on('error', (e) => f(String((e && e.message) || e))),
      terminate: () => w.terminate(),
      hold: (on) => (on ? w.ref() : w.unref()),
    };
  }
  w = new Worker(new URL('./coordinator.js', import.meta.url), { type: 'module' });
  return {
    post: (m) => w.postMessage(m),
    onMessage: (f) => w.addEventListener('message', (e) => f(e.data)),
    onError: (f) => w.addEventListener('error', (e) => f(e.message || 'the coordinator worker failed')),
    terminate: () => w.terminate(),
    hold: () => {},
  };
}

function engineUrls() {
  return {
    glue: isNode
      ? new URL('./wasm/node-glue.js', import.meta.url).href
      : new URL('./wasm/shardlab.js', import.meta.url).href,
    wasm: isNode ? null : new URL('./wasm/shardlab_bg.wasm', import.meta.url).href,
  };
}

/** A set of simulated devices that runs programs; see createLab. */
export class Lab {
  #options;
  #parallel;
  #coordinator = null;
  #starting = null;
  #current = null;
  #queue = Promise.resolve();
  #nextId = 1;
  #closed = false;

  constructor(options, parallel) {
    this.#options = options;
    this.#parallel = parallel;
  }

  /** The lab's options: devices, mesh, mode, timeoutMs. */
  get options() {
    const { devices, mesh, mode, timeoutMs } = this.#options;
    return { devices, mesh: mesh && [...mesh], mode, timeoutMs };
  }

  /** 'parallel' (one worker per device) or 'lockstep' (all in one worker). */
  get mode() {
    return this.#parallel ? 'parallel' : 'lockstep';
  }

  get closed() {
    return this.#closed;
  }

  // Starts a coordinator (and its device workers); resolves when it is
  // ready to run.
  _start() {
    this.#starting = (async () => {
      const c = await startCoordinator();
      this.#coordinator = c;
      const ready = new Promise((resolve, reject) => {
        c.onMessage((m) => {
          if (m.kind === 'ready') resolve();
          else if (m.kind === 'failed' && m.id === undefined) reject(new Error(m.message));
          else this.#settle(c, m);
        });
        c.onError((message) => {
          reject(new Error(message));
          this.#crashed(c, message);
        });
      });
      const { glue, wasm } = engineUrls();
      c.post({ kind: 'init', glue, wasm, devices: this.#options.devices, parallel: this.#parallel });
      try {
        await ready;
      } finally {
        c.hold(false);
      }
    })();
    return this.#starting;
  }

  // Ends the coordinator and its device workers and starts fresh ones: the
  // one way to stop a run, since a running coordinator never reads messages.
  _restart() {
    if (this.#coordinator) this.#coordinator.terminate();
    this.#coordinator = null;
    if (this.#closed) return Promise.resolve();
    return this._start();
  }

  #settle(c, m) {
    const cur = this.#current;
    if (c !== this.#coordinator || !cur || cur.id !== m.id) return;
    if (m.kind === 'done') {
      cur.finish(m.out);
    } else {
      const why = m.trapped ? `the engine trapped (${m.message}); its workers were restarted` : m.message;
      cur.fail(new ShardlabError('InternalError', why));
      if (m.trapped) this._restart().catch(() => {});
    }
  }

  #crashed(c, message) {
    const cur = this.#current;
    if (c !== this.#coordinator) return;
    if (cur) cur.fail(new ShardlabError('InternalError', message));
    this._restart().catch(() => {});
  }

  /**
   * Runs a program; resolves to its Run, or rejects with a ShardlabError.
   * Runs are queued: each starts when the one before it has finished.
   */
  run(source, options) {
    if (this.#closed) return Promise.reject(new Error('this lab is closed: create a new one with createLab'));
    let opts;
    try {
      if (typeof source !== 'string') throw new TypeError(`source must be a string, not ${typeof source}`);
      opts = checkOptions(options, this.#options);
      if (opts.mesh) source = withMesh(source, opts.mesh);
    } catch (e) {
      return Promise.reject(e);
    }
    const state = { started: false };
    const job = this.#queue.then(() => {
      state.started = true;
      return this.#runNow(source, opts);
    });
    this.#queue = job.catch(() => {});
    const signal = opts.signal;
    if (!signal) return job;
    // A queued run whose signal aborts rejects at once (and never starts).
    return new Promise((resolve, reject) => {
      const early = () => {
        if (!state.started) reject(new ShardlabError('Cancelled', 'the run was cancelled before it started'));
      };
      signal.addEventListener('abort', early, { once: true });
      job.then(resolve, reject).finally(() => signal.removeEventListener('abort', early));
    });
  }

  async #runNow(source, opts) {
    await this.#starting;
    if (this.#closed) throw new Error('this lab was closed before the run started');
    if (opts.signal && opts.signal.aborted) throw new ShardlabError('Cancelled', 'the run was cancelled');
    const lockstep = opts.mode === 'lockstep' || !this.#parallel;
    const id = this.#nextId++;
    const c = this.#coordinator;
    const started = Date.now();
    let timer = null;
    let onAbort = null;
    const out = await new Promise((resolve, reject) => {
      this.#current = { id, finish: resolve, fail: reject };
      if (opts.timeoutMs !== null) {
        timer = setTimeout(() => {
          const ms = Date.now() - started;
          const error = new ShardlabError('TimeoutError', `the run took longer than ${opts.timeoutMs} ms (stopped after ${ms} ms)`);
          this.#stop(error).catch(() => {});
        }, opts.timeoutMs);
      }
      if (opts.signal) {
        onAbort = () => this.#stop(new ShardlabError('Cancelled', 'the run was cancelled')).catch(() => {});
        opts.signal.addEventListener('abort', onAbort);
      }
      c.hold(true);
      c.post({ kind: 'run', id, source, devices: opts.devices, lockstep });
    }).finally(() => {
      this.#current = null;
      if (timer !== null) clearTimeout(timer);
      if (onAbort) opts.signal.removeEventListener('abort', onAbort);
      if (c === this.#coordinator) c.hold(false);
    });
    const run = {
      result: out.result === undefined ? null : out.result,
      resultText: out.result === null || out.result === undefined ? 'None' : resultText(out.result),
      stdout: out.stdout || '',
      report: out.report || { maps: [] },
      mode: out.mode,
      devices: out.devices,
      elapsedMs: out.elapsed_ms,
    };
    if (out.error) {
      const { type, message, line, col } = out.error;
      throw new ShardlabError(type, message, { line, col, stdout: run.stdout, report: run.report });
    }
    return run;
  }

  // Fails the current run with `error` and restarts the workers under it.
  #stop(error) {
    const cur = this.#current;
    if (!cur) return Promise.resolve();
    this.#current = null;
    cur.fail(error);
    return this._restart();
  }

  /**
   * Stops the run in progress (it rejects with a ShardlabError of type
   * 'Cancelled'); queued runs go on. Resolves once fresh workers are ready.
   */
  cancel() {
    if (this.#closed) return Promise.resolve();
    return this.#stop(new ShardlabError('Cancelled', 'the run was cancelled'));
  }

  /** Ends every worker; the running and queued runs reject. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    const cur = this.#current;
    this.#current = null;
    if (cur) cur.fail(new Error('this lab was closed during the run'));
    if (this.#coordinator) this.#coordinator.terminate();
    this.#coordinator = null;
  }
}

/**
 * Starts a lab: checks the options (TypeError or RangeError before any
 * worker starts), starts the coordinator and, in parallel mode, one device
 * worker per device; resolves once they are ready.
 */
export async function createLab(options) {
  const opts = checkOptions(options, null);
  const parallel =
    opts.mode === 'parallel' || (opts.mode === 'auto' && canRunParallel());
  if (opts.mode === 'parallel' && !canRunParallel()) {
    throw new Error(
      'parallel mode needs SharedArrayBuffer and, in browsers, a cross-origin isolated page ' +
        '(COOP same-origin, COEP require-corp)',
    );
  }
  const lab = new Lab(opts, parallel);
  try {
    await lab._start();
  } catch (e) {
    lab.close();
    throw e;
  }
  return lab;
}
