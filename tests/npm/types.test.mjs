// The package's TypeScript declarations: a program using the whole API
// type-checks under strict mode, and a wrong option does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

test('the declarations type-check a program that uses the API', () => {
  const tsc = spawnSync('node_modules/.bin/tsc', ['-p', 'types'], { encoding: 'utf8' });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});
