// Assembles the npm package in OUT from the sources in npm/ and the
// wasm-bindgen output in WASM (the whole engine) and CORE (the engine
// without Flax and Optax that browsers load first; see scripts/build-npm.sh):
//   node npm/build.mjs OUT WASM CORE VERSION
import { build } from 'esbuild';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [out, wasmDir, coreDir, version] = process.argv.slice(2);
if (!out || !wasmDir || !coreDir || !version) throw new Error('usage: node npm/build.mjs OUT WASM CORE VERSION');
const here = fileURLToPath(new URL('.', import.meta.url));
const src = join(here, 'src');

await rm(out, { recursive: true, force: true });
await mkdir(join(out, 'wasm'), { recursive: true });
await mkdir(join(out, 'wasm-core'), { recursive: true });

// The device workers run `deviceMain` as source text. Vite's dev server
// rewrites every `import(x)` in a module it serves into
// `__vite__injectQuery(x, 'import')`, that text included, and a device
// worker has no such helper: the source gets one that changes nothing.
function devServerSafe(code) {
  const line = "const DEVICE_SOURCE = '(' + deviceMain.toString() + ')();';";
  if (!code.includes('deviceMain')) return code;
  if (!code.includes(line)) throw new Error(`the device script no longer has: ${line}`);
  return code.replace(
    line,
    "const DEVICE_SOURCE = 'var __vite__injectQuery = (url) => url;\\n(' + deviceMain.toString() + ')();';",
  );
}

// `file` (wasm-bindgen's glue) with each `import ... from './snippets/...'`
// replaced by the snippet's code, evaluated once into an object of its
// exports.
async function inlineSnippets(file) {
  const text = await readFile(file, 'utf8');
  const IMPORT = /^import (.+?) from ['"](\.\/snippets\/[^'"]+)['"];?$/gm;
  const objects = new Map();
  let defs = '';
  for (const [, , path] of text.matchAll(IMPORT)) {
    if (objects.has(path)) continue;
    const name = `__snippet${objects.size}`;
    objects.set(path, name);
    const code = devServerSafe(await readFile(join(dirname(file), path), 'utf8'));
    const names = [...code.matchAll(/^export (?:async )?(?:function|const|let|class) (\w+)/gm)].map((m) => m[1]);
    defs += `// ${path}\nconst ${name} = (() => {\n${code.replace(/^export /gm, '')}\nreturn { ${names.join(', ')} };\n})();\n`;
  }
  const body = text.replace(IMPORT, (_, clause, path) => {
    const obj = objects.get(path);
    const star = /^\* as (\w+)$/.exec(clause.trim());
    if (star) return `const ${star[1]} = ${obj};`;
    return `const ${clause.replace(/ as /g, ': ')} = ${obj};`;
  });
  if (/from ['"]\.\/snippets/.test(body)) throw new Error(`${file}: a snippet import was not inlined`);
  return defs + body;
}

const common = {
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  external: ['node:*'],
  logLevel: 'warning',
  legalComments: 'none',
};

// The API: the lab and its helpers in one module.
await build({ ...common, entryPoints: [join(src, 'index.js')], outfile: join(out, 'index.js') });

// The element, with the report view and its style sheet built in; it
// imports the API from ./index.js, so a page has one lab whichever entry it
// loaded first.
await build({
  ...common,
  entryPoints: [join(src, 'element.js')],
  outfile: join(out, 'element.js'),
  loader: { '.css': 'text' },
  plugins: [
    {
      name: 'api-stays-external',
      setup(b) {
        b.onResolve({ filter: /^\.\/index\.js$/ }, () => ({ path: './index.js', external: true }));
      },
    },
  ],
});

// The coordinator worker has no imports: it goes as it is.
await copyFile(join(src, 'coordinator.js'), join(out, 'coordinator.js'));

// The glue with its snippet (the device workers' script) written into it,
// so that device workers can import it by URL wherever a bundler put it.
// Not through esbuild: the device workers run the snippet's function as
// source text, which must stay as written (bundling rewrites `require`).
await writeFile(join(out, 'wasm', 'shardlab.js'), await inlineSnippets(join(wasmDir, 'shardlab.js')));
await copyFile(join(wasmDir, 'shardlab_bg.wasm'), join(out, 'wasm', 'shardlab_bg.wasm'));
await writeFile(join(out, 'wasm-core', 'shardlab.js'), await inlineSnippets(join(coreDir, 'shardlab.js')));
await copyFile(join(coreDir, 'shardlab_bg.wasm'), join(out, 'wasm-core', 'shardlab_bg.wasm'));
await copyFile(join(src, 'node-glue.js'), join(out, 'wasm', 'node-glue.js'));

for (const f of ['index.d.ts', 'element.d.ts', 'README.md']) {
  await copyFile(join(here, f), join(out, f));
}
const pkg = JSON.parse(await readFile(join(here, 'package.json'), 'utf8'));
pkg.version = version;
await writeFile(join(out, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
