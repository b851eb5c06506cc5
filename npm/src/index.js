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
// How long a cancelled run has to answer before its workers are replaced.
const CANCEL_GRACE_MS = 1500;

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
    ? ['devices', 'mesh', 'mode', 'timeoutMs', 'signal', 'onProgress']
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
  const onProgress = options.onProgress;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new TypeError(`onProgress must be a function, not ${typeof onProgress}`);
  }
  return { devices, mesh, mode, timeoutMs, signal, onProgress };
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
      word: null,
      post: (m) => w.postMessage(m),
      onMessage: (f) => w.on('message', f),
      onError: (f) => w.on('error', (e) => f(String((e && e.message) || e))),
      terminate: () => w.terminate(),
      hold: (on) => (on ? w.ref() : w.unref()),
    };
  }
  w = new Worker(new URL('./coordinator.js', import.meta.url), { type: 'module' });
  return {
    word: null,
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
          if (m.kind === 'ready') {
            c.word = m.cancel ? new Int32Array(m.cancel) : null;
            resolve();
          }
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

  // Ends the coordinator and its device workers and starts fresh ones: how
  // a run stops when its coordinator has no cancel word, or does not answer
  // a cancel in time, or has trapped.
  _restart() {
    if (this.#coordinator) this.#coordinator.terminate();
    this.#coordinator = null;
    if (this.#closed) return Promise.resolve();
    return this._start();
  }

  #settle(c, m) {
    const cur = this.#current;
    if (c !== this.#coordinator || !cur || cur.id !== m.id) return;
    if (m.kind === 'progress') {
      cur.progress({ maps: m.maps, elapsedMs: m.elapsedMs });
    } else if (cur.stopping) {
      // The stopped run has answered: it fails with the reason it was
      // stopped for, and the same workers run the next program.
      this.#current = null;
      clearTimeout(cur.stopping.timer);
      const out = m.kind === 'done' ? m.out : null;
      cur.fail(cur.stopping.error(out && out.error ? out.error : null, out));
      if (m.trapped) this._restart().catch(() => {});
      cur.stopping.done();
    } else if (m.kind === 'done') {
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
    const restarted = this._restart();
    restarted.catch(() => {});
    if (!cur) return;
    this.#current = null;
    if (cur.stopping) {
      clearTimeout(cur.stopping.timer);
      restarted.then(cur.stopping.done, cur.stopping.done);
    }
    cur.fail(new ShardlabError('InternalError', message));
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
      const progress = (p) => {
        if (!opts.onProgress) return;
        try {
          opts.onProgress(p);
        } catch (e) {
          queueMicrotask(() => {
            throw e;
          });
        }
      };
      this.#current = { id, finish: resolve, fail: reject, progress, stopping: null };
      if (opts.timeoutMs !== null) {
        timer = setTimeout(() => {
          const ms = Date.now() - started;
          const why = `the run took longer than ${opts.timeoutMs} ms (stopped after ${ms} ms)`;
          this.#stop('TimeoutError', why).catch(() => {});
        }, opts.timeoutMs);
      }
      if (opts.signal) {
        onAbort = () => this.#stop('Cancelled', 'the run was cancelled').catch(() => {});
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

  // Stops the current run, which then rejects with a ShardlabError of
  // `type`. Where the coordinator has a cancel word, stores into it and
  // waits for the run's own answer (its stdout and report so far, and where
  // each device stopped); without a word, or without an answer within
  // CANCEL_GRACE_MS, fails the run at once and restarts the workers.
  // Resolves once the lab can run again.
  #stop(type, why) {
    const cur = this.#current;
    if (!cur) return Promise.resolve();
    if (cur.stopping) return cur.stopping.finished;
    const c = this.#coordinator;
    const word = c && c.word;
    if (!word) {
      this.#current = null;
      const restarted = this._restart();
      cur.fail(new ShardlabError(type, why));
      return restarted;
    }
    let done;
    const finished = new Promise((resolve) => {
      done = resolve;
    });
    const timer = setTimeout(() => {
      if (this.#current !== cur) return;
      this.#current = null;
      const restarted = this._restart();
      cur.fail(new ShardlabError(type, `${why}; it did not stop within ${CANCEL_GRACE_MS} ms, so its workers were restarted`));
      restarted.then(done, done);
    }, CANCEL_GRACE_MS);
    cur.stopping = {
      timer,
      done,
      finished,
      // The error for the run's answer `out` (null after a trap) whose
      // error is `engine`.
      error: (engine, out) => {
        const detail = engine && engine.type === 'Cancelled' ? engine.message.replace(/^the run was cancelled;?\s*/, '') : '';
        return new ShardlabError(type, detail ? `${why}; ${detail}` : why, {
          stdout: (out && out.stdout) || '',
          report: (out && out.report) || null,
        });
      },
    };
    Atomics.store(word, 0, 1);
    Atomics.notify(word, 0);
    return finished;
  }

  /**
   * Stops the run in progress (it rejects with a ShardlabError of type
   * 'Cancelled'); queued runs go on. Resolves once the lab can run again.
   */
  cancel() {
    if (this.#closed) return Promise.resolve();
    return this.#stop('Cancelled', 'the run was cancelled');
  }

  /** Ends every worker; the running and queued runs reject. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    const cur = this.#current;
    this.#current = null;
    if (cur) {
      if (cur.stopping) {
        clearTimeout(cur.stopping.timer);
        cur.stopping.done();
      }
      cur.fail(new Error('this lab was closed during the run'));
    }
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
