// A page built by Vite that imports the package like an application would.
import './count-workers.js';
import { createLab, ShardlabError } from 'shardlab';

const lab = await createLab({ devices: 4 });

// Runs `source` with `options`; gives back what the test checks (plain data).
window.runProgram = async (source, options) => {
  try {
    const run = await lab.run(source, options);
    const shard = run.report.maps[0].inputs[0].shards[0].value.data;
    return {
      result: run.result,
      mode: run.mode,
      devices: run.devices,
      typed: shard.constructor.name,
    };
  } catch (e) {
    if (!(e instanceof ShardlabError)) return { error: String(e) };
    return { error: { type: e.type, line: e.line }, reason: e.reason, stdout: e.stdout };
  }
};
// Runs `source` and stops it at its first progress report, by lab.cancel()
// ('cancel') or by a time-out of `timeoutMs` ('timeout'); then runs `next`.
// Gives back the error, how long after the cancel (or the start) it came,
// the progress reports, the next run's result and the workers started
// meanwhile.
window.stopRun = async (source, how, next, timeoutMs = 1000) => {
  const before = window.workersStarted;
  const progress = [];
  let asked = performance.now();
  let cancelled = false;
  const options = {
    onProgress: (p) => {
      progress.push(p);
      // Cancel once the body has been traced and the devices compute
      // (tracing takes a few hundred ms; a cancel during it stops the
      // interpreter instead).
      if (how === 'cancel' && !cancelled && p.elapsedMs >= 800) {
        cancelled = true;
        asked = performance.now();
        lab.cancel();
      }
    },
  };
  if (how === 'timeout') options.timeoutMs = timeoutMs;
  const error = await lab.run(source, options).then(
    () => null,
    (e) => ({ type: e.type, reason: e.reason }),
  );
  const ms = performance.now() - asked;
  const after = await lab.run(next);
  return { error, ms, progress, next: after.result, workersStarted: window.workersStarted - before };
};
document.getElementById('status').textContent = `ready: ${lab.mode}`;
