// Type-checked (not run) against the package's declarations.
import { createLab, ShardlabError, type Run, type Lab, type Progress } from 'shardlab';
import 'shardlab/element';

export async function main(): Promise<void> {
  const lab: Lab = await createLab({ devices: 4, mesh: [2, 2], mode: 'auto', timeoutMs: 1000 });
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
// @ts-expect-error: startDevices is createLab's, not a run's
createLab().then((lab) => lab.run('result = 1', { startDevices: false }));
