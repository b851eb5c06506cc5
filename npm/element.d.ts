// `import 'shardlab/element'` registers <shardlab-example>.
import type { Run } from './index.js';

export class ShardlabExample extends HTMLElement {
  /** The program in the editor. */
  source: string;
  /** Runs the program in the editor (also what the Run button does). */
  run(): Promise<Run>;
  /** Stops this element's run. */
  cancel(): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'shardlab-example': ShardlabExample;
  }
}
