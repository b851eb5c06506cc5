// For static hosts that cannot send headers: this service worker adds the
// two that make the page cross-origin isolated (COOP same-origin, COEP
// require-corp) to every response it passes on, so SharedArrayBuffer, and
// with it parallel mode, becomes available after one reload. Registered by
// js/isolation.js only when the page is not isolated already.

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const request = event.request;
  // Chromium's devtools issue such requests; fetch() would refuse them.
  if (request.cache === 'only-if-cached' && request.mode !== 'same-origin') return;
  event.respondWith(
    fetch(request).then((response) => {
      if (response.status === 0) return response; // opaque: cannot be changed
      const headers = new Headers(response.headers);
      headers.set('Cross-Origin-Opener-Policy', 'same-origin');
      headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
      headers.set('Cross-Origin-Resource-Policy', 'same-origin');
      // The body handed on is already decoded.
      headers.delete('Content-Encoding');
      headers.delete('Content-Length');
      return new Response(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    }),
  );
});
