// Counts the Web Workers this page constructs (a lab's coordinator is one),
// so that a test can tell whether a lab restarted its workers. Imported
// before shardlab.
const NativeWorker = globalThis.Worker;
window.workersStarted = 0;
globalThis.Worker = class extends NativeWorker {
  constructor(...args) {
    super(...args);
    window.workersStarted += 1;
  }
};
