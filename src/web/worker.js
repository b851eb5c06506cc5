// Device workers for shardlab's browser/Node fabric.
//
// Each device worker imports the same wasm-bindgen glue as the coordinator,
// so it gets its own wasm instance of the same module, and then runs the
// jobs it is sent by calling back into Rust. Results and failures travel
// through shared memory, never through messages, so the coordinator may
// block in Atomics.wait while the devices run.

const isNode =
  typeof process === 'object' &&
  process !== null &&
  typeof process.versions === 'object' &&
  typeof process.versions.node === 'string';

// The program of a device worker, shipped as source text.
async function deviceMain() {
  const node = typeof self === 'undefined';
  let post;
  let listen;
  if (node) {
    const { parentPort } = require('node:worker_threads');
    post = (m) => parentPort.postMessage(m);
    listen = (f) => parentPort.on('message', f);
  } else {
    post = (m) => self.postMessage(m);
    listen = (f) => self.addEventListener('message', (e) => f(e.data));
  }
  let glueUrl = null;
  let wasmModule = null;
  let instances = 0;
  let api = null;
  // Imports the glue and instantiates the module. A fresh import (a new URL)
  // gives a fresh instance: that is how a device recovers after its wasm
  // trapped, since a trapped instance's stack pointer is never restored.
  const load = async () => {
    const url = instances === 0 ? glueUrl : glueUrl + '?instance=' + instances;
    instances += 1;
    const glue = await import(url);
    if (!node && typeof glue.default === 'function') {
      await glue.default({ module_or_path: wasmModule });
    }
    return typeof glue.shardlabDeviceJob === 'function' ? glue : glue.default;
  };
  let ready = null;
  listen(async (msg) => {
    if (msg.kind === 'boot') {
      glueUrl = msg.glue;
      wasmModule = msg.module;
      ready = load();
      try {
        api = await ready;
        post({ kind: 'ready' });
      } catch (e) {
        post({ kind: 'failed', message: String((e && e.stack) || e) });
      }
      return;
    }
    api = await ready;
    try {
      api.shardlabDeviceJob(msg);
    } catch (e) {
      // A trap (a Rust panic, a stack overflow): tell the others through
      // shared memory, then start over with a fresh instance.
      try {
        api.shardlabDeviceLost(msg, String(e));
      } catch (_) {
        // Nothing more can be done from here; the coordinator notices.
      }
      ready = load().catch(() => api);
    }
  });
}

const DEVICE_SOURCE = '(' + deviceMain.toString() + ')();';

// Starts `n` device workers that import the glue at `glue` (a URL) and, in
// browsers, initialise it with `module` (a WebAssembly.Module or the URL of
// the .wasm file); resolves to them once every one has its wasm instance.
export function spawnDevices(n, glue, module) {
  return (async () => {
    const workers = [];
    let NodeWorker = null;
    if (isNode) {
      NodeWorker = (await import('node:worker_threads')).Worker;
    }
    for (let i = 0; i < n; i++) {
      if (isNode) {
        workers.push(new NodeWorker(DEVICE_SOURCE, { eval: true }));
      } else {
        const url = URL.createObjectURL(
          new Blob([DEVICE_SOURCE], { type: 'text/javascript' }),
        );
        workers.push(new Worker(url, { type: 'module' }));
      }
    }
    await Promise.all(
      workers.map(
        (w, i) =>
          new Promise((resolve, reject) => {
            const onMessage = (m) => {
              const d = isNode ? m : m.data;
              if (d && d.kind === 'ready') resolve();
              if (d && d.kind === 'failed') {
                reject(new Error('device worker ' + i + ' could not start: ' + d.message));
              }
            };
            const onError = (e) =>
              reject(new Error('device worker ' + i + ' failed: ' + (e.message || e)));
            if (isNode) {
              w.on('message', onMessage);
              w.on('error', onError);
            } else {
              w.addEventListener('message', onMessage);
              w.addEventListener('error', onError);
            }
            w.postMessage({ kind: 'boot', glue, module });
          }),
      ),
    );
    if (isNode) {
      // Idle devices must not keep a Node process alive.
      workers.forEach((w) => w.unref());
    }
    return workers;
  })();
}

// Sends a job to a device worker.
export function postJob(worker, job) {
  worker.postMessage(job);
}

// Stops a device worker.
export function terminateWorker(worker) {
  worker.terminate();
}
