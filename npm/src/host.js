// What differs between browsers and Node: how the coordinator worker
// starts, where the engine's files are, and whether devices can run in
// parallel. Everything above this module is the same on both.
//
// The coordinator and the engines are found next to this module's bundle
// (`import.meta.url`): ./coordinator.js, ./wasm/ and ./wasm-core/. The npm
// package and the playground page (scripts/build-page.mjs) lay their files
// out that way.

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
// reads the file itself). `engine` is 'core' (./wasm-core/: built without
// Flax and Optax, a third smaller, what browsers load first) or 'full'
// (./wasm/). Node always runs the full engine: nothing is downloaded there.
// Every URL is written out whole: bundlers (Vite's build) find the files
// to copy by reading `new URL('literal', import.meta.url)`.
export function engineUrls(engine) {
  if (isNode) return { glue: new URL('./wasm/node-glue.js', import.meta.url).href, wasm: null };
  if (engine === 'core') {
    return {
      glue: new URL('./wasm-core/shardlab.js', import.meta.url).href,
      wasm: new URL('./wasm-core/shardlab_bg.wasm', import.meta.url).href,
    };
  }
  return {
    glue: new URL('./wasm/shardlab.js', import.meta.url).href,
    wasm: new URL('./wasm/shardlab_bg.wasm', import.meta.url).href,
  };
}

// The engine a lab starts with: the core engine in browsers, the full one
// in Node.
export function firstEngine() {
  return isNode ? 'full' : 'core';
}

// The modules the core engine leaves out (Cargo.toml's features; the
// module lists of src/modules/mod.rs), as they are named on an import line.
const LEFT_OUT_MODULES = [
  'flax', 'optax', 'scipy', 'sparse', 'checkify', 'linalg', 'nn',
  'test_util', 'rich', 'collections', 'dataclasses', 'hashlib', 'array', 'string', 'pprint', 'copy', 'warnings', 'itertools', 'operator', 'enum', 'contextlib',
  're', 'logging', 'pdb',
].join('|');
const IMPORTS_LEFT_OUT = new RegExp(`^[ \\t]*(?:from|import)[ \\t][^\\n#]*\\b(?:${LEFT_OUT_MODULES})\\b`, 'm');

// Whether `source` imports a module the core engine leaves out (Flax,
// Optax, SciPy, ...) in a way that shows in its text. What this misses
// (an import inside `exec`, a function of a module that is in the core
// engine but whose part is not, like `jnp.fft`) reaches the core engine's
// refusal, which `leftOut` recognises, and the program then runs again on
// the full engine.
export function importsLeftOut(source) {
  return IMPORTS_LEFT_OUT.test(source);
}

// Whether a run's error is the core engine's refusal of something it was
// built without (src/modules/mod.rs, `left_out`).
export function leftOut(error) {
  return Boolean(
    error && error.type === 'NotImplementedError' && /built without its `[\w-]+` feature/.test(error.message),
  );
}
