// Serves www/ on 127.0.0.1:$PORT (default 8000) with the headers that make
// the page cross-origin isolated (so SharedArrayBuffer exists), gzipping
// text and wasm when the browser accepts it. With NO_ISOLATION=1 it sends
// neither header, like a plain static host.
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
async function gzipOf(file, body) {
  const { mtimeMs } = await stat(file);
  const hit = gzipped.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.body;
  const gz = gzipSync(body);
  gzipped.set(file, { mtimeMs, body: gz });
  return gz;
}

const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  let file = normalize(join(root, path));
  if (!file.startsWith(root) && file + sep !== root) {
    res.writeHead(403).end('forbidden');
    return;
  }
  if (path.endsWith('/')) file = join(file, 'index.html');
  let body;
  try {
    body = await readFile(file);
  } catch {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    return;
  }
  const headers = {
    'Content-Type': types[extname(file)] || 'application/octet-stream',
    'Cache-Control': 'no-cache',
  };
  if (isolate) {
    headers['Cross-Origin-Opener-Policy'] = 'same-origin';
    headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
    headers['Cross-Origin-Resource-Policy'] = 'same-origin';
  }
  if (/\bgzip\b/.test(req.headers['accept-encoding'] || '') && body.length > 1024) {
    body = await gzipOf(file, body);
    headers['Content-Encoding'] = 'gzip';
  }
  headers['Content-Length'] = body.length;
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
});

server.listen(port, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${server.address().port}/`);
});
