// The one lab every shardlab element of a page uses, so their runs queue.
import { createLab } from './index.js';

let shared = null;

// Starts the lab at the first call; `devices` is the first element's count
// (later runs grow the pool as needed).
export function sharedLab(devices) {
  if (!shared) {
    shared = createLab({ devices });
    shared.catch(() => {
      shared = null;
    });
  }
  return shared;
}
