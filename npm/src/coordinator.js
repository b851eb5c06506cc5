// The coordinator of a lab: a module Web Worker in browsers, a worker_thread
// in Node. It loads the engine (the wasm-bindgen glue and its wasm), owns
// the device workers of parallel runs and runs programs. A run blocks this
// thread (in parallel mode it sleeps in Atomics.wait until the devices are
// done), which is why it is never the caller's thread.
//
// Messages in:
//   { kind: 'init', glue, wasm, devices, parallel }  load the engine from
//       `glue` (and `wasm`); in parallel mode start `devices` device
//       workers now (0: at the first parallel run)
//   { kind: 'run', id, source, devices, lockstep, maxMemory }   run a program
//   { kind: 'check', id, source, problem, devices, lockstep, maxMemory }
//       grade a solution of an exercise (`problem` is its JSON text;
//       `devices` the most any case needs)
// Messages out:
//   { kind: 'ready', parallel, poolSize, cancel }    answer to 'init'
//   { kind: 'failed', message }                      'init' failed
//   { kind: 'progress', id, maps, elapsedMs }        while run `id` computes
//   { kind: 'done', id, out, memory }                what run_program (or
//       check_program) returned, and this worker's wasm memory in bytes
//   { kind: 'failed', id, message, trapped }         run_program threw
//
// `cancel` is the engine's cancel word (a SharedArrayBuffer), or null where
// shared memory is unavailable: storing 1 into its first Int32 (and
// notifying) stops the run in progress, which then answers 'done' with an
// error of type 'Cancelled', and this worker stays usable. While a run
// computes, 'progress' comes at most every 100 ms.
//
// `maxMemory` (bytes) bounds the sum of this worker's wasm memory and every
// device worker's (src/web/memory.rs): past it the run stops with
// MemoryError. A wasm memory never shrinks, so a device pool that ran past
// it, or holds more than half of it, is replaced before the next parallel
// run, and the lab replaces this worker when its `memory` grew large.
//
// No static imports: bundlers copy this file into a worker chunk of its own,
// and the glue's URL comes with the 'init' message.

const isNode =
  typeof process === 'object' &&
  process !== null &&
  typeof process.versions === 'object' &&
  typeof process.versions.node === 'string';

async function main() {
  let post;
  let listen;
  if (isNode) {
    const name = 'node:worker_threads';
    const { parentPort } = await import(/* @vite-ignore */ name);
    post = (m) => parentPort.postMessage(m);
    listen = (f) => parentPort.on('message', f);
  } else {
    post = (m) => self.postMessage(m);
    listen = (f) => self.addEventListener('message', (e) => f(e.data));
  }

  let glue = null;
  let glueUrl = null;
  let parallel = false;
  let current = null;
  // Set when a device worker did not stop after its run was stopped: the
  // engine then refuses the pool for every later run, so the next parallel
  // run starts a new one (installing it ends the old workers).
  let poolLost = false;

  // Makes sure at least `devices` device workers are running.
  const ensurePool = async (devices) => {
    const replace = poolLost || glue.device_pool_grown();
    if (!replace && glue.device_pool_size() >= devices) return;
    const size = Math.max(devices, replace ? glue.device_pool_size() : 0);
    const workers = await glue.start_device_workers(size, glueUrl);
    glue.install_device_pool(workers);
    poolLost = false;
  };

  // Whether the engine's answer says the pool lost a worker (the engine's
  // RuntimeError when a device did not stop within its grace period, or
  // when a pool that lost one is used again).
  const LOST = /the pool cannot be used again|stopped answering in an earlier run/;
  const lost = (error) => Boolean(error && error.type === 'RuntimeError' && LOST.test(error.message));

  const init = async (msg) => {
    glueUrl = msg.glue;
    const mod = await import(/* @vite-ignore */ glueUrl);
    // In Node the glue URL is a module that loads the wasm itself.
    glue = typeof mod.run_program === 'function' ? mod : mod.default;
    if (!isNode) await glue.default({ module_or_path: msg.wasm });
    parallel = msg.parallel;
    if (parallel && msg.devices > 0) await ensurePool(msg.devices);
    glue.set_progress_listener((p) => post({ kind: 'progress', id: current, maps: p.maps, elapsedMs: p.elapsed_ms }));
    let cancel = null;
    if (typeof SharedArrayBuffer === 'function') {
      try {
        cancel = glue.cancel_handle();
      } catch {
        cancel = null;
      }
    }
    return { kind: 'ready', parallel, poolSize: glue.device_pool_size(), cancel };
  };

  const run = async (msg) => {
    // The limit first: whether the pool holds too much is judged against it.
    glue.set_memory_limit(msg.maxMemory || 0);
    // The device workers' memory counts in a lockstep run too: a pool that
    // holds too much of the limit is replaced first.
    if (parallel && (!msg.lockstep || glue.device_pool_grown())) await ensurePool(msg.devices);
    current = msg.id;
    // An object whose array data are already typed arrays (src/report/js.rs).
    const out = glue.run_program(msg.source, msg.devices, msg.lockstep || !parallel);
    if (lost(out.error)) poolLost = true;
    return { kind: 'done', id: msg.id, out, memory: glue.memory_bytes() };
  };

  const check = async (msg) => {
    glue.set_memory_limit(msg.maxMemory || 0);
    if (parallel && !msg.lockstep) await ensurePool(msg.devices);
    current = msg.id;
    const out = glue.check_program(msg.source, msg.problem, msg.lockstep || !parallel);
    const cases = (out.verdict && out.verdict.cases) || [];
    if (cases.some((c) => lost(c.error))) poolLost = true;
    return { kind: 'done', id: msg.id, out, memory: glue.memory_bytes() };
  };

  listen(async (msg) => {
    try {
      const answer = { init, run, check }[msg.kind];
      post(await answer(msg));
    } catch (err) {
      // An exception out of run_program is a trap (a panic in this thread):
      // its instance cannot be trusted again, so the lab starts a new one.
      post({
        kind: 'failed',
        id: msg.id,
        message: String((err && err.message) || err),
        trapped: msg.kind !== 'init',
      });
    }
  });
}

main();
