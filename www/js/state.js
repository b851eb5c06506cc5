// The page's state in the URL hash, so a link reproduces the view:
// #devices=8&mode=lockstep&code=<base64url of the UTF-8 program>.

function toBase64Url(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(s) {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

export function encodeState({ code, devices, mode, example }) {
  const p = new URLSearchParams();
  p.set('devices', String(devices));
  p.set('mode', mode);
  if (example) p.set('example', example);
  p.set('code', toBase64Url(code));
  return '#' + p.toString();
}

// The state in `hash`, or null when it holds none (or a broken one).
export function decodeState(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  if (!p.has('code')) return null;
  try {
    return {
      code: fromBase64Url(p.get('code')),
      devices: Number(p.get('devices')) || 8,
      mode: p.get('mode') === 'lockstep' ? 'lockstep' : 'parallel',
      example: p.get('example') || '',
    };
  } catch {
    return null;
  }
}
