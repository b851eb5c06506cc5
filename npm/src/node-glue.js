// The engine for Node: the web glue, initialised from the .wasm file next to
// it. The coordinator and every device worker import this module; a URL
// with a query (what a device uses after its instance trapped) imports the
// glue under the same query, so it gets a fresh wasm instance too.
import { readFile } from 'node:fs/promises';

const query = new URL(import.meta.url).search;
const glue = await import('./shardlab.js' + query);
await glue.default({ module_or_path: await readFile(new URL('./shardlab_bg.wasm', import.meta.url)) });

export default glue;
