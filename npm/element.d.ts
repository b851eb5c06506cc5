// `import 'shardlab/element'` registers <shardlab-example> and <shardlab-exercise>.
import type { Problem, Run, Verdict } from './index.js';

export class ShardlabExample extends HTMLElement {
  /** The program in the editor. */
  source: string;
  /** Runs the program in the editor (also what the Run button does). */
  run(): Promise<Run>;
  /** Stops this element's run. */
  cancel(): void;
}

/**
 * A graded exercise: statement, editor with the starter code, Check button
 * and per-case results. The problem comes from the `src` attribute (a URL),
 * a child <script type="application/json">, or the `problem` property.
 * Dispatches 'checked' with the verdict.
 */
export class ShardlabExercise extends HTMLElement {
  problem: Problem | null;
  /** The solution in the editor. */
  source: string;
  /** Grades the solution in the editor (also what the Check button does). */
  check(): Promise<Verdict>;
}

declare global {
  interface HTMLElementTagNameMap {
    'shardlab-example': ShardlabExample;
    'shardlab-exercise': ShardlabExercise;
  }
}
