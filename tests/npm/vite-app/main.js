// A page built by Vite that imports the package like an application would.
import { createLab, ShardlabError } from 'shardlab';

const lab = await createLab({ devices: 4 });

// Runs `source`; gives back what the test checks (plain data).
window.runProgram = async (source) => {
  try {
    const run = await lab.run(source);
    const shard = run.report.maps[0].inputs[0].shards[0].value.data;
    return {
      result: run.result,
      mode: run.mode,
      devices: run.devices,
      typed: shard.constructor.name,
    };
  } catch (e) {
    return { error: e instanceof ShardlabError ? { type: e.type, line: e.line } : String(e) };
  }
};
document.getElementById('status').textContent = `ready: ${lab.mode}`;
