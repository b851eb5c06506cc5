// www/js/axes.js and www/js/device-count.js on their own (no browser):
// which string literals are axis names, renaming them or refusing, and the
// device count a program's text asks for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { axisUses, renameAxes, firstMeshNames } from '../../www/js/axes.js';
import { deviceNeeds, devicesRefusal } from '../../www/js/device-count.js';

const PROGRAM = `import jax, numpy as np
from jax.sharding import Mesh, PartitionSpec as P
# psum over 'y', keep 'x'
mesh = jax.make_mesh((2, 4), ('x', 'y'))
note = "the 'x' axis"
n = mesh.shape["y"]
def body(b):
    i = jax.lax.axis_index('x')
    s = jax.lax.psum(b, axis_name=('x', 'y'))
    return jax.lax.ppermute(s, 'y', perm=[(0, 1), (1, 0)]) + i
f = jax.shard_map(body, mesh=mesh, in_specs=P('x', None), out_specs=P(('x', 'y')), axis_names={'x', 'y'})
x = y = 1
`;

test('every axis position holds a string literal; comments, prose and identifiers are not axes', () => {
  const uses = axisUses(PROGRAM);
  const named = uses.axes.map((a) => `${a.line}:${a.value}`);
  assert.deepEqual(named.sort(), [
    '4:x', '4:y', '6:y', '8:x', '9:x', '9:y', '10:y', '11:x', '11:x', '11:x', '11:y', '11:y',
  ].sort());
  assert.deepEqual(uses.dynamic, []);
  assert.deepEqual(uses.strings.map((s) => s.value), ["the 'x' axis"]);
});

test('a rename rewrites every axis and nothing else', () => {
  const out = renameAxes(PROGRAM, new Map([['x', 'rows'], ['y', 'cols']]));
  assert.equal(out.error, undefined);
  const expected = PROGRAM
    .replace("make_mesh((2, 4), ('x', 'y'))", "make_mesh((2, 4), ('rows', 'cols'))")
    .replace('shape["y"]', 'shape["cols"]')
    .replace("axis_index('x')", "axis_index('rows')")
    .replace("axis_name=('x', 'y')", "axis_name=('rows', 'cols')")
    .replace("ppermute(s, 'y',", "ppermute(s, 'cols',")
    .replace("in_specs=P('x', None), out_specs=P(('x', 'y')), axis_names={'x', 'y'}",
      "in_specs=P('rows', None), out_specs=P(('rows', 'cols')), axis_names={'rows', 'cols'}");
  assert.equal(out.source, expected);
  // The comment, the prose string and the variables x and y are as written.
  assert.ok(out.source.includes("# psum over 'y', keep 'x'"));
  assert.ok(out.source.includes(`note = "the 'x' axis"`));
  assert.ok(out.source.endsWith('x = y = 1\n'));
});

test('two axes swap names', () => {
  const out = renameAxes("m = jax.make_mesh((2, 2), ('a', 'b'))\ns = P('a', 'b')\n", new Map([['a', 'b'], ['b', 'a']]));
  assert.equal(out.source, "m = jax.make_mesh((2, 2), ('b', 'a'))\ns = P('b', 'a')\n");
});

test('a rename the text cannot decide is refused with the line and the reason', () => {
  const dynamic = "mesh = jax.make_mesh((4,), ('x',))\naxis = 'x'\ng = lambda v: jax.lax.psum(v, axis)\n";
  assert.match(renameAxes(dynamic, new Map([['x', 'i']])).error, /^line 3 gives an axis of psum\(\.\.\.\) as `axis`/);
  const key = "mesh = jax.make_mesh((4,), ('x',))\nd = {'x': 1}\n";
  assert.match(renameAxes(key, new Map([['x', 'i']])).error, /^line 2 has the string 'x' where it is not an axis name/);
  const computed = "mesh = jax.make_mesh((4,), ('x',))\ng = lambda v, a: jax.lax.psum(v, a)\n";
  assert.match(renameAxes(computed, new Map([['x', 'i']])).error, /^line 2 gives an axis of psum\(\.\.\.\) as `a`, which is worked out when the program runs/);
  const fstring = "mesh = jax.make_mesh((4,), ('x',))\ns = P(f'{name}')\n";
  assert.match(renameAxes(fstring, new Map([['x', 'i']])).error, /line 2 gives an axis of P\(\.\.\.\) as `f'\{name\}'`/);
  const clash = "m1 = jax.make_mesh((4,), ('x',))\nm2 = jax.make_mesh((2,), ('y',))\n";
  assert.equal(renameAxes(clash, new Map([['x', 'y']])).error, "'y' already names an axis at line 2");
});

test('the device count a program asks for, and why a Devices value cannot run it', () => {
  assert.equal(deviceNeeds('import jax\nprint(1)\n'), null);
  const sliced = deviceNeeds("import jax\n# jax.devices()[:16]\nd = np.array(jax.devices()[:8]).reshape(2, 4)\n");
  assert.deepEqual([sliced.exact, sliced.atLeast], [null, 8]);
  assert.equal(devicesRefusal(8, sliced), null);
  assert.equal(devicesRefusal(16, sliced), null);
  assert.equal(devicesRefusal(4, sliced),
    'line 3 takes jax.devices()[:8], the first 8 devices: set Devices to 8 or more, or change that line first');
  const made = deviceNeeds("mesh = jax.make_mesh((2, 2, 2), ('a', 'b', 'c'))\n");
  assert.equal(made.exact, 8);
  assert.match(devicesRefusal(16, made), /^line 1 \(jax\.make_mesh\(\(2, 2, 2\), \('a', 'b', 'c'\)\)\) lays out exactly 8 devices: set Devices to 8/);
  assert.equal(deviceNeeds("m = Mesh(mesh_utils.create_device_mesh((4,)), ('x',))\n").exact, 4);
  // An explicit devices argument lays out only those.
  assert.equal(deviceNeeds("m = jax.make_mesh((2,), ('x',), devices=jax.devices()[:2])\n").atLeast, 2);
  const flagged = deviceNeeds("import os\nos.environ['XLA_FLAGS'] = '--xla_force_host_platform_device_count=4'\nm = jax.make_mesh((4,), ('x',))\n");
  assert.equal(flagged.exact, 4);
  assert.equal(devicesRefusal(4, flagged), null);
  assert.match(devicesRefusal(8, flagged), /^line 2 sets --xla_force_host_platform_device_count=4, so the program runs on 4 devices/);
});

test('the first mesh whose axis names are written as strings', () => {
  assert.deepEqual(firstMeshNames("devices = np.array(jax.devices()[:8])\nm = Mesh(devices, ('data',))\nm2 = Mesh(devices.reshape(2, 4), ('x', 'y'))\n"),
    { names: ['data'], line: 2 });
  assert.deepEqual(firstMeshNames("m = Mesh(devices, names)\nm2 = Mesh(d, axis_names=('a', 'b'))\n"), { names: ['a', 'b'], line: 2 });
  assert.equal(firstMeshNames('x = 1\n'), null);
});
