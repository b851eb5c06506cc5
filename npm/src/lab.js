// A lab: one coordinator worker that runs the engine and, for parallel
// runs, owns one device worker per device (see coordinator.js for the
// messages between them). Runs go through a queue: one at a time, in the
// order they were asked for.
//
// Stopping a run (cancel, an aborted signal, a time-out): where the
// coordinator has a cancel word (shared memory), the lab stores 1 into it;
// the engine stops before its next equation and answers the run with a
// 'Cancelled' error, and the same workers run the next program. Where there
// is no word, or no answer comes within CANCEL_GRACE_MS, or the engine has
// trapped, the lab ends the coordinator (and with it the device workers)
// and starts a fresh one.
//
// Memory: a run's maxMemory bounds every worker's wasm memory (the engine
// stops the run with MemoryError past it). A wasm memory never shrinks, so
// a coordinator whose memory grew past half the limit is replaced before
// the next run, which then starts with at least half of it free; the
// coordinator replaces device workers that ran past it the same way.
import { ShardlabError } from './errors.js';
import { checkOptions, withMesh } from './options.js';
import { canRunParallel, engineUrls, firstEngine, importsLeftOut, leftOut, startCoordinator } from './host.js';
import { resultText } from './result-text.js';

// How long a cancelled run has to answer before its workers are replaced.
const CANCEL_GRACE_MS = 1500;

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
  // Set when the coordinator's memory grew past half a run's limit.
  #grown = false;
  // The coordinator's wasm memory after its last run (bytes).
  #memory = 0;
  // Which engine the coordinator runs: 'core' or 'full' (host.js).
  #engine = firstEngine();

  constructor(options, parallel) {
    this.#options = options;
    this.#parallel = parallel;
  }

  /** The lab's options: devices, mesh, mode, timeoutMs, maxMemory. */
  get options() {
    const { devices, mesh, mode, timeoutMs, maxMemory } = this.#options;
    return { devices, mesh: mesh && [...mesh], mode, timeoutMs, maxMemory };
  }

  /** 'parallel' (one worker per device) or 'lockstep' (all in one worker). */
  get mode() {
    return this.#parallel ? 'parallel' : 'lockstep';
  }

  get closed() {
    return this.#closed;
  }

  /** The engine runs go to: 'core' (without Flax and Optax) or 'full'. */
  get engine() {
    return this.#engine;
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
      const { glue, wasm } = engineUrls(this.#engine);
      // With startDevices false the device workers start at the first
      // parallel run (a page that opens in lockstep never pays for them).
      const devices = this.#parallel && this.#options.startDevices ? this.#options.devices : 0;
      c.post({ kind: 'init', glue, wasm, devices, parallel: this.#parallel });
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
    if (m.kind === 'done') {
      this.#memory = m.memory;
      if (m.memory > cur.maxMemory / 2) this.#grown = true;
    }
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
      cur.fail(failure(m));
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
    return this.#enqueue(opts, state, () => this.#runNow(source, opts));
  }

  // Queues `start` after the runs before it; a queued job whose signal
  // aborts rejects at once (and never starts).
  #enqueue(opts, state, start) {
    const job = this.#queue.then(() => {
      state.started = true;
      return start();
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

  // Answers `ask()` from the engine `source` needs: the full engine when
  // `needsFull`, when its text imports a module the core engine leaves out
  // (Flax, Optax, SciPy, ...), or when the core engine's answer `refused`
  // something it was built without; the program then runs again from the
  // start, on the full engine.
  async #withEngine(source, ask, refused, needsFull = false) {
    if (this.#engine === 'core' && (needsFull || importsLeftOut(source))) await this.#useFullEngine();
    const out = await ask();
    if (this.#engine !== 'core' || !refused(out)) return out;
    await this.#useFullEngine();
    return ask();
  }

  #useFullEngine() {
    this.#engine = 'full';
    return this._restart();
  }

  async #runNow(source, opts) {
    const lockstep = opts.mode === 'lockstep' || !this.#parallel;
    const ask = () =>
      this.#ask(opts, (id) => ({
        kind: 'run',
        id,
        source,
        devices: opts.devices,
        lockstep,
        maxMemory: opts.maxMemory,
      }));
    // `left_out`: the program reached something the core engine leaves out,
    // even if it caught the refusal.
    const out = await this.#withEngine(source, ask, (o) => leftOut(o.error) || Boolean(o.left_out));
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

  // Posts the message `make(id)` to the coordinator and resolves with its
  // answer, under the options' time-out and signal.
  async #ask(opts, make) {
    await this.#starting;
    // A wasm memory never shrinks: a fresh coordinator gives it back, when
    // the last run left it large for this run's limit too.
    if ((this.#grown || this.#memory > opts.maxMemory / 2) && !this.#closed) {
      this.#grown = false;
      this.#memory = 0;
      await this._restart();
    }
    if (this.#closed) throw new Error('this lab was closed before the run started');
    if (opts.signal && opts.signal.aborted) throw new ShardlabError('Cancelled', 'the run was cancelled');
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
      this.#current = { id, finish: resolve, fail: reject, progress, stopping: null, maxMemory: opts.maxMemory };
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
      c.post(make(id));
    }).finally(() => {
      this.#current = null;
      if (timer !== null) clearTimeout(timer);
      if (onAbort) opts.signal.removeEventListener('abort', onAbort);
      if (c === this.#coordinator) c.hold(false);
    });
    return out;
  }

  /**
   * Grades a solution of an exercise: runs `source` on every case of
   * `problem` (an object or its JSON text, see docs/exercises.md), each on
   * its own devices, and resolves to the verdict `{ title, passed, cases }`.
   * A learner's error (a syntax error, an exception) is a failed case with
   * its type, line and col; a problem that cannot be read rejects with a
   * ShardlabError of type 'ProblemError'. Queued like runs; `options` take
   * `timeoutMs` and `signal` (for all the cases together) and `mode`.
   */
  check(source, problem, options) {
    if (this.#closed) return Promise.reject(new Error('this lab is closed: create a new one with createLab'));
    let opts;
    let text;
    try {
      if (typeof source !== 'string') throw new TypeError(`source must be a string, not ${typeof source}`);
      text = typeof problem === 'string' ? problem : JSON.stringify(problem);
      if (typeof text !== 'string') throw new TypeError('problem must be an object or its JSON text');
      opts = checkOptions(options, this.#options);
    } catch (e) {
      return Promise.reject(e);
    }
    const devices = problemDevices(text, opts.devices);
    const lockstep = opts.mode === 'lockstep' || !this.#parallel;
    return this.#enqueue(opts, { started: false }, async () => {
      const ask = () =>
        this.#ask(opts, (id) => ({
          kind: 'check',
          id,
          source,
          problem: text,
          devices,
          lockstep,
          maxMemory: opts.maxMemory,
        }));
      const refused = (o) => ((o.verdict && o.verdict.cases) || []).some((c) => leftOut(c.error));
      // The core engine has no grader (Cargo feature `check`).
      const out = await this.#withEngine(source, ask, refused, true);
      if (out.problem_error) throw new ShardlabError('ProblemError', out.problem_error);
      return out.verdict;
    });
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
        // Where the engine stopped, when it stopped itself.
        const at = engine && engine.type === 'Cancelled' ? engine : {};
        return new ShardlabError(type, detail ? `${why}; ${detail}` : why, {
          line: at.line ?? null,
          col: at.col ?? null,
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

// The most devices a case of the problem asks for (the device pool the
// check needs), or `fallback` when the text is not a problem (the engine
// then says what is wrong with it).
function problemDevices(text, fallback) {
  try {
    const cases = JSON.parse(text).cases;
    const sizes = cases.map((c) => c.devices || (c.mesh ? c.mesh.shape.reduce((a, b) => a * b, 1) : 1));
    return Math.max(1, ...sizes.filter((n) => Number.isInteger(n) && n > 0 && n <= 64));
  } catch {
    return fallback;
  }
}

/**
 * Starts a lab: checks the options (TypeError or RangeError before any
 * worker starts), starts the coordinator and, in parallel mode, one device
 * worker per device (unless `startDevices` is false: then at the first
 * parallel run); resolves once they are ready.
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

// The error of a run whose coordinator failed. The browser's own stack
// (about 1 MB in Chromium's workers) holds the engine's frames; nesting
// the engine's bounds did not catch (dropping a million nested lists, say)
// overflows it, which is Python's RecursionError, not an engine fault.
function failure(m) {
  if (!m.trapped) return new ShardlabError('InternalError', m.message);
  if (/Maximum call stack size exceeded|too much recursion/.test(m.message)) {
    return new ShardlabError(
      'RecursionError',
      "maximum recursion depth exceeded: the program nests deeper than the browser's stack holds; its workers were restarted",
    );
  }
  return new ShardlabError('InternalError', `the engine trapped (${m.message}); its workers were restarted`);
}
