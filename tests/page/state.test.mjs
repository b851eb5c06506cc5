// decodeState on its own, in Node: what a shared link may hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeState, encodeState, MAX_HASH_CHARS } from '../../www/js/state.js';
import { MAX_DEVICES } from '../../npm/src/options.js';

const EXAMPLES = ['psum_2d.py'];
const code = 'print("é ✓")\n';

test('a link the page made reads back', () => {
  const hash = encodeState({ code, devices: 4, mode: 'lockstep', example: 'psum_2d.py' });
  assert.deepEqual(decodeState(hash, EXAMPLES), { code, devices: 4, mode: 'lockstep', example: 'psum_2d.py' });
  assert.equal(decodeState('#', EXAMPLES), null);
});

test('a 10 MB hash is refused before it is decoded', () => {
  const hash = '#code=' + 'A'.repeat(10 * 1024 * 1024);
  const out = decodeState(hash, EXAMPLES);
  assert.equal(out.code, null);
  assert.match(out.refused, new RegExp(`more than ${MAX_HASH_CHARS}`));
});

test('every field is checked', () => {
  const good = encodeState({ code, devices: 4, mode: 'parallel', example: '' });
  const withField = (k, v) => {
    const p = new URLSearchParams(good.slice(1));
    p.set(k, v);
    return decodeState('#' + p, EXAMPLES);
  };
  for (const d of ['0', '-5', '1e9', '100000', String(MAX_DEVICES + 1), '2.5', '', 'x']) {
    const out = withField('devices', d);
    assert.match(out.refused, /devices must be/, d);
    assert.equal(out.code, code);
  }
  assert.equal(withField('devices', String(MAX_DEVICES)).devices, MAX_DEVICES);
  assert.match(withField('mode', 'auto').refused, /mode must be/);
  assert.match(withField('example', 'nope.py').refused, /no example/);
  assert.match(withField('code', 'a+b/').refused, /base64url/);
  assert.match(withField('code', '_w').refused, /base64url/); // 0xff: not UTF-8
});
