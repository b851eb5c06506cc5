// Serves www/ on 127.0.0.1:$PORT (default 8000) with the headers that make
// the page cross-origin isolated (so SharedArrayBuffer exists). With
// NO_ISOLATION=1 it sends neither header, like a plain static host.
//
// Compression, as a static host with precompressed files does it: where
// FILE.br (or FILE.gz) lies next to FILE and is not older than it (build-page.mjs
// writes them for www/dist/), and the browser accepts br (or gzip), that file
// is sent with `Content-Encoding: br` (or gzip) and FILE's type; other files
// over 1 KiB are gzipped here. Every response carries an ETag (size and
// mtime of what is sent), so a browser revalidating a file it has (the
// device workers each import the engine's glue) gets 304 Not Modified.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('../www/', import.meta.url));
const port = Number(process.env.PORT || 8000);
const isolate = process.env.NO_ISOLATION !== '1';
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.py': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

// Gzipped bodies by file, kept while the file's mtime stays the same.
const gzipped = new Map();
async function gzipOf(file, body, mtimeMs) {
  const hit = gzipped.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.body;
  const gz = gzipSync(body);
  gzipped.set(file, { mtimeMs, body: gz });
  return gz;
}

// The precompressed sibling of `file` for `encoding` ('br' or 'gzip'), if
// there is one at least as new as the file.
async function precompressed(file, info, encoding) {
  const sibling = `${file}.${encoding === 'br' ? 'br' : 'gz'}`;
  const s = await stat(sibling).catch(() => null);
  return s && s.isFile() && s.mtimeMs >= info.mtimeMs ? { path: sibling, info: s } : null;
}

// What to send for `file`: { body, encoding, etag }.
async function representation(file, info, accepted) {
  const accepts = (e) => new RegExp(`\\b${e}\\b`).test(accepted);
  for (const encoding of ['br', 'gzip']) {
    if (!accepts(encoding)) continue;
    const pre = await precompressed(file, info, encoding);
    if (pre) {
      const etag = `"${encoding}-${pre.info.size.toString(36)}-${Math.floor(pre.info.mtimeMs).toString(36)}"`;
      return { body: await readFile(pre.path), encoding, etag };
    }
  }
  const tag = `${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}`;
  const body = await readFile(file);
  if (accepts('gzip') && body.length > 1024) {
    return { body: await gzipOf(file, body, info.mtimeMs), encoding: 'gzip', etag: `"gzip-${tag}"` };
  }
  return { body, encoding: null, etag: `"${tag}"` };
}

const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  let file = normalize(join(root, path));
  if (!file.startsWith(root) && file + sep !== root) {
    res.writeHead(403).end('forbidden');
    return;
  }
  if (path.endsWith('/')) file = join(file, 'index.html');
  let rep;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a file');
    rep = await representation(file, info, req.headers['accept-encoding'] || '');
  } catch {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    return;
  }
  const headers = {
    'Content-Type': types[extname(file)] || 'application/octet-stream',
    'Cache-Control': 'no-cache',
    ETag: rep.etag,
    Vary: 'Accept-Encoding',
  };
  if (isolate) {
    headers['Cross-Origin-Opener-Policy'] = 'same-origin';
    headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
    headers['Cross-Origin-Resource-Policy'] = 'same-origin';
  }
  if ((req.headers['if-none-match'] || '').split(/\s*,\s*/).includes(rep.etag)) {
    res.writeHead(304, headers).end();
    return;
  }
  if (rep.encoding) headers['Content-Encoding'] = rep.encoding;
  headers['Content-Length'] = rep.body.length;
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : rep.body);
});

server.listen(port, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${server.address().port}/`);
});
