// Bundles the playground page's JavaScript and style sheet into www/dist/
// (scripts/build-page.sh puts the engine in www/dist/wasm/ first):
//
//   www/dist/main.js        js/main.js with what it imports: the page's
//                           modules, CodeMirror, and the npm package's
//                           client, mesh helpers and report view (npm/src)
//   www/dist/isolation.js   js/isolation.js, a small script of its own so
//                           that it runs before the large bundle is loaded
//   www/dist/style.css      style.css with the report view's rules
//   www/dist/coordinator.js the package's coordinator worker, as it is
//
// The client finds its coordinator and engine next to its bundle
// (npm/src/host.js): ./coordinator.js and ./wasm/, the npm package's layout.
//
//   node scripts/build-page.mjs
import { build } from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}www/dist`;
await mkdir(dist, { recursive: true });

await build({
  entryPoints: {
    main: `${root}www/js/main.js`,
    isolation: `${root}www/js/isolation.js`,
    style: `${root}www/style.css`,
  },
  outdir: dist,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: 'linked',
  logLevel: 'warning',
});

// No imports: a worker script of its own (see its module doc).
await copyFile(`${root}npm/src/coordinator.js`, `${dist}/coordinator.js`);
