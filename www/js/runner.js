// Runs programs in the coordinator worker. Cancel stores into the
// coordinator's cancel word, so the run stops before its next equation and
// the worker stays; where there is no such word (no shared memory), or the
// run has not stopped after CANCEL_GRACE_MS, cancel ends that worker (and
// the device workers it started) and starts a fresh one.

const CANCEL_GRACE_MS = 1500;

export class Runner {
  constructor(onStatus, onProgress = () => {}) {
    this.onStatus = onStatus;
    this.onProgress = onProgress;
    this.pending = null;
    this.stopping = null;
    this.cancelWord = null;
    this.nextId = 1;
    this.starts = 0;
    this.start();
  }

  start() {
    this.starts += 1;
    this.worker = new Worker(new URL('./coordinator.js', import.meta.url), { type: 'module' });
    this.loaded = new Promise((resolve) => {
      this.worker.addEventListener('message', (e) => {
        const msg = e.data;
        if (!msg || typeof msg !== 'object') return;
        if ('ready' in msg) {
          this.cancelWord = msg.cancel ? new Int32Array(msg.cancel) : null;
          this.onStatus(msg);
          resolve();
        } else if (this.stopping && msg.id === this.stopping.id && ('out' in msg || 'failure' in msg)) {
          // The cancelled run has returned: the worker is free again.
          clearTimeout(this.stopping.timer);
          this.stopping = null;
          if (msg.failure) this.restart();
        } else if (this.pending && msg.id === this.pending.id && 'progress' in msg) {
          this.onProgress(msg.progress);
        } else if (this.pending && msg.id === this.pending.id && ('out' in msg || 'failure' in msg)) {
          const { resolve: done } = this.pending;
          this.pending = null;
          done(msg);
          // A trapped wasm instance (a panic) cannot be trusted again.
          if (msg.failure) this.restart();
        }
        // Any other message (progress reports, kinds added later) is ignored.
      });
      this.worker.addEventListener('error', (e) => {
        this.onStatus({ ready: false, failure: e.message || 'the engine could not start' });
        resolve();
      });
    });
  }

  get busy() {
    return this.pending !== null;
  }

  // Runs a program; resolves to { out } or { failure } or { cancelled }.
  run(source, devices, parallel) {
    if (this.pending) this.cancel();
    const id = this.nextId++;
    return new Promise((resolve) => {
      const msg = { id, source, devices, parallel };
      this.pending = { id, resolve, msg };
      this.worker.postMessage(msg);
    });
  }

  cancel() {
    if (!this.pending) return;
    const { id, resolve } = this.pending;
    this.pending = null;
    resolve({ cancelled: true });
    if (!this.cancelWord) {
      this.restart();
      return;
    }
    Atomics.store(this.cancelWord, 0, 1);
    Atomics.notify(this.cancelWord, 0);
    // A run that ignores the word (it had not started yet, or is inside one
    // long operation) costs a restart.
    this.stopping = { id, timer: setTimeout(() => this.restart(), CANCEL_GRACE_MS) };
  }

  restart() {
    if (this.stopping) clearTimeout(this.stopping.timer);
    this.stopping = null;
    this.worker.terminate();
    this.start();
    // A run queued behind the one that would not stop goes to the new worker.
    if (this.pending) this.worker.postMessage(this.pending.msg);
  }
}
