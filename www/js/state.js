// The page's state in the URL hash, so a link reproduces the view:
// #devices=8&mode=lockstep&code=<base64url of the UTF-8 program>.
import { MAX_DEVICES } from '../../npm/src/options.js';

function toBase64Url(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function encodeState({ code, devices, mode, example }) {
  const p = new URLSearchParams();
  p.set('devices', String(devices));
  p.set('mode', mode);
  if (example) p.set('example', example);
  p.set('code', toBase64Url(code));
  return '#' + p.toString();
}

// The longest hash decodeState reads: a program of some 190 KB of UTF-8.
// A longer one is refused before it is decoded, so a link cannot make the
// page decode (and then run) megabytes.
export const MAX_HASH_CHARS = 256 * 1024;

// The modes a link may name (the page's Mode menu).
export const LINK_MODES = ['parallel', 'lockstep'];

// Why a hash's fields are refused, or null when they are all usable. Each
// field is checked before any is used, so a bad link runs nothing.
function refusal(p, examples) {
  const devices = p.get('devices');
  if (devices !== null) {
    const n = /^[0-9]{1,3}$/.test(devices) ? Number(devices) : NaN;
    if (!(n >= 1 && n <= MAX_DEVICES)) {
      return `devices must be a whole number from 1 to ${MAX_DEVICES}, not "${short(devices)}"`;
    }
  }
  const mode = p.get('mode');
  if (mode !== null && !LINK_MODES.includes(mode)) {
    return `mode must be ${LINK_MODES.join(' or ')}, not "${short(mode)}"`;
  }
  const example = p.get('example');
  if (example && !examples.includes(example)) return `there is no example "${short(example)}"`;
  return null;
}

function short(text) {
  return text.length > 40 ? text.slice(0, 40) + '…' : text;
}

// The program in a hash's `code` field, or null when it is not base64url
// of UTF-8 text.
function readCode(code) {
  if (!/^[A-Za-z0-9_-]*$/.test(code) || code.length % 4 === 1) return null;
  try {
    const bin = atob(code.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

// The state in `hash`: null when it holds none, { code, devices, mode,
// example } when every field is valid, and { refused, code } otherwise:
// the reason, and the program when it could be read (null when not).
// `examples` lists the example files a link may name.
export function decodeState(hash, examples = []) {
  if (hash.length > MAX_HASH_CHARS) {
    return { refused: `the link is ${hash.length} characters long, more than ${MAX_HASH_CHARS}`, code: null };
  }
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  if (!p.has('code')) return null;
  const code = readCode(p.get('code'));
  if (code === null) return { refused: 'the program in the link is not valid base64url UTF-8 text', code: null };
  const reason = refusal(p, examples);
  if (reason) return { refused: reason, code };
  return {
    code,
    devices: p.has('devices') ? Number(p.get('devices')) : 8,
    mode: p.get('mode') || 'parallel',
    example: p.get('example') || '',
  };
}
