// Type-checked (not run) against the package's declarations.
import { createLab, ShardlabError, type Run, type Lab, type Progress, type Problem, type Verdict } from 'shardlab';
import 'shardlab/element';

export async function main(): Promise<void> {
  const lab: Lab = await createLab({ devices: 4, mesh: [2, 2], mode: 'auto', timeoutMs: 1000, maxMemory: '512M' });
  const run: Run = await lab.run('result = 1', {
    signal: new AbortController().signal,
    mesh: '2x2',
    onProgress: (p: Progress) => console.log(p.maps + p.elapsedMs),
  });
  const data: Float32Array | Int32Array | Uint8Array = run.report.maps[0].inputs[0].shards[0].value.data;
  const collectives: string[] = run.report.maps[0].collectives.map((c) => c.name);
  console.log(run.elapsedMs + data.length, collectives, run.mode === 'parallel', run.resultText);
  try {
    await lab.run('x');
  } catch (e) {
    if (e instanceof ShardlabError) console.log(e.type, e.line, e.col, e.stdout);
  }
  const problem: Problem = {
    format: 'shardlab-exercise/1',
    title: 'Sum',
    statement: 'Write `f(mesh, x)`.',
    starter: 'def f(mesh, x):\n    pass\n',
    entry: 'f',
    checks: [{ uses: 'psum', axes: ['data'], message: 'use psum' }, { output_spec: "P('data')" }],
    cases: [
      {
        mesh: { shape: [2], axes: ['data'] },
        args: [{ mesh: true }, { array: [1, 2], dtype: 'float32' }, { expr: 'jnp.arange(4.0)' }],
        expected: { tuple: [{ array: 3, dtype: 'float32', shape: [] }, [1, null, true]] },
        rtol: 1e-5,
      },
    ],
  };
  const verdict: Verdict = await lab.check('def f(mesh, x):\n    return x\n', problem, { timeoutMs: 5000, maxMemory: 2 ** 30 });
  const first = verdict.cases[0];
  console.log(verdict.passed, first.mismatches.join(), first.error?.line, first.checks.map((c) => c.detail));
  await lab.check('x', JSON.stringify(problem));
  const ex = document.querySelector('shardlab-exercise');
  if (ex) {
    ex.problem = problem;
    console.log((await ex.check()).passed);
  }
  await lab.cancel();
  lab.close();
  const later: Lab = await createLab({ devices: 2, startDevices: false });
  later.close();
  const el = document.querySelector('shardlab-example');
  if (el) {
    el.source = 'result = 2';
    console.log((await el.run()).stdout);
  }
}

// @ts-expect-error: mode is one of 'auto', 'parallel', 'lockstep'
createLab({ mode: 'fast' });
// @ts-expect-error: an array's dtype is float32, int32 or bool
const badDtype: Problem['cases'][0]['expected'] = { array: [1], dtype: 'float64' };
console.log(badDtype);
// @ts-expect-error: startDevices is createLab's, not a run's
createLab().then((lab) => lab.run('result = 1', { startDevices: false }));
