// Bundles the playground page's JavaScript and style sheet into www/dist/
// (scripts/build-page.sh puts the engines in www/dist/wasm/ and
// www/dist/wasm-core/ first):
//
//   www/dist/main.js        js/main.js with what it imports: the page's
//                           modules, the Python grammar, and the npm
//                           package's client, mesh helpers and report view
//                           (npm/src)
//   www/dist/editor-*.js    js/editor.js, CodeMirror, which main.js imports
//                           once the first result is shown
//   www/dist/chunk-*.js     what both of them use (CodeMirror's core)
//   www/dist/isolation.js   js/isolation.js, a small script of its own so
//                           that it runs before the large bundle is loaded
//   www/dist/style.css      style.css with the report view's rules
//   www/dist/coordinator.js the package's coordinator worker, as it is
//
// Then every script, style sheet and wasm file in www/dist/ gets a brotli
// (FILE.br, quality 11) and a gzip (FILE.gz, level 9) copy next to it, which
// scripts/serve.mjs sends to browsers that accept them (docs/page.md says
// what a static host needs to do the same).
//
// The Exercises menu's problems are a chunk of their own, which the page
// imports after the first result: the module
// 'shardlab:exercises' is made here from examples/exercises/*.json, sorted
// by the order in examples/exercises/order.txt (the rest after it, by name).
//
// The client finds its coordinator and engine next to its bundle
// (npm/src/host.js): ./coordinator.js, ./wasm/ and ./wasm-core/, the npm
// package's layout.
//
//   node scripts/build-page.mjs
import { build } from 'esbuild';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}www/dist`;
await mkdir(dist, { recursive: true });
// The chunks' names change with their content: the last build's go first
// (the engines' folders stay).
for (const entry of await readdir(dist, { withFileTypes: true })) {
  if (entry.isFile()) await rm(`${dist}/${entry.name}`);
}

// The problems as [{ name, problem }] in the menu's order.
async function exercises() {
  const dir = `${root}examples/exercises`;
  const names = (await readdir(dir)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
  let order = [];
  try {
    order = (await readFile(`${dir}/order.txt`, 'utf8')).split('\n').map((l) => l.trim()).filter(Boolean);
  } catch {
    // No order file: by name.
  }
  const rank = (n) => (order.includes(n) ? order.indexOf(n) : order.length);
  names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const list = [];
  for (const name of names) {
    list.push({ name, problem: JSON.parse(await readFile(`${dir}/${name}.json`, 'utf8')) });
  }
  return list;
}

const exercisesModule = {
  name: 'shardlab-exercises',
  setup(b) {
    b.onResolve({ filter: /^shardlab:exercises$/ }, (args) => ({ path: args.path, namespace: 'exercises' }));
    b.onLoad({ filter: /.*/, namespace: 'exercises' }, async () => ({
      contents: JSON.stringify(await exercises()),
      loader: 'json',
    }));
  },
};

await build({
  entryPoints: {
    main: `${root}www/js/main.js`,
    isolation: `${root}www/js/isolation.js`,
    style: `${root}www/style.css`,
  },
  outdir: dist,
  bundle: true,
  // js/editor.js (CodeMirror) is imported after the first result: a chunk
  // of its own.
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [exercisesModule],
});

// No imports: a worker script of its own (see its module doc).
await copyFile(`${root}npm/src/coordinator.js`, `${dist}/coordinator.js`);

// Files under `dir` (recursively) whose names end in one of `exts`.
async function filesUnder(dir, exts) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) found.push(...(await filesUnder(path, exts)));
    else if (exts.some((e) => entry.name.endsWith(e))) found.push(path);
  }
  return found;
}

// Brotli and gzip copies, made at the highest levels: they are made once
// here and downloaded by every visitor.
const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);
await Promise.all(
  (await filesUnder(dist, ['.js', '.css', '.wasm'])).map(async (file) => {
    const body = await readFile(file);
    const br = await brotli(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_LGWIN]: 24,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
    await writeFile(`${file}.br`, br);
    await writeFile(`${file}.gz`, await gzipped(body, { level: 9 }));
  }),
);
