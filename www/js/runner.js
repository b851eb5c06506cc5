// Runs programs in the coordinator worker. Cancel ends that worker (and the
// device workers it started) and starts a fresh one.

export class Runner {
  constructor(onStatus) {
    this.onStatus = onStatus;
    this.pending = null;
    this.nextId = 1;
    this.start();
  }

  start() {
    this.worker = new Worker(new URL('./coordinator.js', import.meta.url), { type: 'module' });
    this.loaded = new Promise((resolve) => {
      this.worker.addEventListener('message', (e) => {
        const msg = e.data;
        if (!msg || typeof msg !== 'object') return;
        if ('ready' in msg) {
          this.onStatus(msg);
          resolve();
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
      this.pending = { id, resolve };
      this.worker.postMessage({ id, source, devices, parallel });
    });
  }

  cancel() {
    if (this.pending) {
      const { resolve } = this.pending;
      this.pending = null;
      resolve({ cancelled: true });
    }
    this.restart();
  }

  restart() {
    this.worker.terminate();
    this.start();
  }
}
