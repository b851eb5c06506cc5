// The coordinator worker: loads the engine (wasm) and runs programs, so the
// page's main thread never blocks. In parallel mode it also owns the device
// workers (one Web Worker per device, sharing a SharedArrayBuffer); ending
// this worker ends them too.
import init, {
  run_program,
  start_device_workers,
  install_device_pool,
  device_pool_size,
} from '../pkg/shardlab.js';

const glueUrl = new URL('../pkg/shardlab.js', import.meta.url).href;
const ready = init();

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
    const out = run_program(source, devices, !parallel);
    out.pool_ms = poolMs;
    self.postMessage({ id, out });
  } catch (err) {
    self.postMessage({ id, failure: String((err && err.message) || err) });
  }
};

ready.then(
  () => self.postMessage({ ready: true, isolated: self.crossOriginIsolated }),
  (err) => self.postMessage({ ready: false, failure: String(err) }),
);
