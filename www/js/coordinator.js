// The coordinator worker: loads the engine (wasm) and runs programs, so the
// page's main thread never blocks. In parallel mode it also owns the device
// workers (one Web Worker per device, sharing a SharedArrayBuffer); ending
// this worker ends them too.
//
// While a run computes, this worker posts { id, progress: { maps,
// elapsed_ms } } at most every 100 ms. Where shared memory exists, the
// ready message carries `cancel`, a SharedArrayBuffer through which the page
// stops the run in progress without ending this worker.
import init, {
  run_program,
  start_device_workers,
  install_device_pool,
  device_pool_size,
  cancel_handle,
  set_progress_listener,
} from '../pkg/shardlab.js';

const glueUrl = new URL('../pkg/shardlab.js', import.meta.url).href;
const ready = init();
let current = 0;

// Makes sure `devices` device workers are running; false when they cannot be.
async function ensurePool(devices) {
  if (!self.crossOriginIsolated) return false;
  if (device_pool_size() >= devices) return true;
  const workers = await start_device_workers(devices, glueUrl);
  install_device_pool(workers);
  return true;
}

self.onmessage = async (e) => {
  const { id, source, devices, parallel } = e.data;
  try {
    await ready;
    let poolMs = 0;
    if (parallel) {
      const t = performance.now();
      await ensurePool(devices);
      poolMs = performance.now() - t;
    }
    current = id;
    const out = run_program(source, devices, !parallel);
    out.pool_ms = poolMs;
    self.postMessage({ id, out });
  } catch (err) {
    self.postMessage({ id, failure: String((err && err.message) || err) });
  }
};

ready.then(
  () => {
    set_progress_listener((progress) => self.postMessage({ id: current, progress }));
    const cancel = self.crossOriginIsolated ? cancel_handle() : null;
    self.postMessage({ ready: true, isolated: self.crossOriginIsolated, cancel });
  },
  (err) => self.postMessage({ ready: false, failure: String(err) }),
);
