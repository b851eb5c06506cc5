// What differs between browsers and Node: how the coordinator worker
// starts, where the engine's files are, and whether devices can run in
// parallel. Everything above this module is the same on both.
//
// The coordinator and the engine are found next to this module's bundle
// (`import.meta.url`): ./coordinator.js and ./wasm/. The npm package and the
// playground page (scripts/build-page.mjs) lay their files out that way.

export const isNode =
  typeof process === 'object' &&
  process !== null &&
  typeof process.versions === 'object' &&
  typeof process.versions.node === 'string';

// Whether devices can run in parallel here: SharedArrayBuffer and, in
// browsers, cross-origin isolation.
export function canRunParallel() {
  if (typeof SharedArrayBuffer !== 'function') return false;
  return isNode || globalThis.crossOriginIsolated === true;
}

// The coordinator as a worker, behind one small interface for browsers and
// Node: post, onMessage, onError, terminate, and hold (whether a Node
// worker keeps the process alive; browsers have no such thing). `word` is
// the coordinator's cancel word, set when it says it is ready.
export async function startCoordinator() {
  let w;
  if (isNode) {
    // A computed name, so that bundlers for browsers leave it alone.
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

// The URLs of the engine's wasm-bindgen glue (which the coordinator and
// every device worker import) and of its wasm (null in Node, whose glue
// reads the file itself).
export function engineUrls() {
  return {
    glue: isNode
      ? new URL('./wasm/node-glue.js', import.meta.url).href
      : new URL('./wasm/shardlab.js', import.meta.url).href,
    wasm: isNode ? null : new URL('./wasm/shardlab_bg.wasm', import.meta.url).href,
  };
}
