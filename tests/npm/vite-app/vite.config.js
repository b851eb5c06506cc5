// What the package's README asks of a Vite app: keep shardlab out of
// dependency pre-bundling (for the dev server), and serve the pages
// cross-origin isolated (dev server; the production build is served by
// serve.mjs).
const isolated = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};
export default {
  build: { target: 'es2022' },
  optimizeDeps: { exclude: ['shardlab'] },
  server: { headers: isolated },
};
