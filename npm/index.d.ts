// Types of the shardlab package.

/** How the devices run: one worker per device, or all in one worker. */
export type Mode = 'auto' | 'parallel' | 'lockstep';

export interface LabOptions {
  /** Number of simulated devices, a whole number from 1 to 16 (default 8). */
  devices?: number;
  /**
   * Mesh shape, e.g. [2, 2] or "2x2"; its product must equal `devices`. When
   * set, a program's `Mesh(np.array(jax.devices()[:n]).reshape(...), names)`
   * line is rewritten to this shape (its axis names are kept).
   */
  mesh?: number[] | string | null;
  /**
   * 'auto' (default): parallel when SharedArrayBuffer exists and, in
   * browsers, the page is cross-origin isolated; lockstep otherwise.
   * 'parallel' fails where it cannot be had. 'lockstep' runs every device
   * in the coordinator, equation by equation.
   */
  mode?: Mode;
  /** Stop a run after this many milliseconds (a ShardlabError 'TimeoutError'). */
  timeoutMs?: number | null;
  /**
   * The most memory each worker (the coordinator and every device) may
   * hold: bytes, or a string like '512M' or '1G' (default 1 GiB, at most
   * 4G). A run past it stops with a ShardlabError 'MemoryError' at its
   * line, keeping what it printed. A wasm memory never shrinks, so a worker
   * that grew large is replaced before the next run.
   */
  maxMemory?: number | string;
}

export interface CreateLabOptions extends LabOptions {
  /**
   * Whether a parallel lab starts its device workers before createLab
   * resolves (default true). false starts them at the first parallel run,
   * which saves their start-up where most runs are lockstep.
   */
  startDevices?: boolean;
}

/** How far a run has come: see RunOptions.onProgress. */
export interface Progress {
  /** The shard_maps and pmaps finished so far. */
  maps: number;
  /** Milliseconds since the run started. */
  elapsedMs: number;
}

export interface RunOptions extends LabOptions {
  /** Aborting it stops this run, running or queued ('Cancelled'). */
  signal?: AbortSignal;
  /** Called at most every 100 ms while the run computes. */
  onProgress?: (progress: Progress) => void;
}

export type DType = 'float32' | 'int32' | 'bool';

/** An array: shape, dtype and its elements in row-major order. */
export interface ArrayData {
  shape: number[];
  dtype: DType;
  /** Float32Array for float32, Int32Array for int32, Uint8Array (0/1) for bool. */
  data: Float32Array | Int32Array | Uint8Array;
}

/** One device's block of a global array. */
export interface Shard {
  /** The device's position in the mesh (row-major). */
  position: number;
  /** Its coordinates along the mesh axes. */
  coords: number[];
  /** [start, stop) along each dimension of the global array. */
  index: Array<[number, number]>;
  value: ArrayData;
}

/** An input or output of a map: the global array, its spec and its shards. */
export interface ShardedArray {
  /** The PartitionSpec, e.g. "P('x', None)". */
  spec: string;
  global: ArrayData;
  shards: Shard[];
  /** For each block of the global array, the devices holding it. */
  holders: number[][];
}

/** One collective as every device ran it. */
export interface CollectiveRun {
  /** JAX's primitive name, as the jaxpr prints it. */
  name: string;
  /** The function the program called when the jaxpr does not name it:
   * `"pmean"`, whose jaxpr is this sum and then a division (`after` holds
   * the sum). */
  called_as: string | null;
  params: Array<[string, string]>;
  /** The groups of mesh positions that exchanged. */
  groups: number[][];
  /** Each device's operand and result. */
  before: ArrayData[];
  after: ArrayData[];
  bytes_moved: number;
  /** The program line of the operation that made it: its own call in a
   * shard_map or pmap; in a map of kind `"jit"`, the operation the
   * partitioner inserted it for. */
  line: number | null;
}

/** How long one device took, and how much of that in collectives. */
export interface Timing {
  position: number;
  total_us: number;
  collective_us: number;
}

/** One shard_map or pmap the program ran, or a jitted call (or a top-level
 * reshard) on arrays laid out over a mesh, split into one program per
 * device. */
export interface MapRun {
  kind: 'shard_map' | 'pmap' | 'jit' | 'reshard' | string;
  /** The program line that ran it. */
  line: number | null;
  axis_names: string[];
  mesh_shape: number[];
  device_ids: number[];
  mode: 'parallel' | 'lockstep';
  /** The traced per-device program (local shapes). */
  jaxpr: string;
  inputs: ShardedArray[];
  outputs: ShardedArray[];
  collectives: CollectiveRun[];
  timings: Timing[];
}

/** Where one device's block of a named sharded array lies. */
export interface Tile {
  position: number;
  coords: number[];
  /** [start, stop) along each dimension of the array. */
  index: Array<[number, number]>;
}

/**
 * An array the program names at top level, laid out over a mesh by a
 * NamedSharding (placed with device_put, resharded, or made by jit or an
 * operation whose sharding is known).
 */
export interface NamedArray {
  name: string;
  shape: number[];
  dtype: string;
  /** jax.typeof(x) as JAX prints it, e.g. "float32[8@x,4]". */
  type_text: string;
  /** The PartitionSpec, e.g. "P('x', None)". */
  spec: string;
  /** The mesh axes splitting each dimension (empty: not split). */
  dim_axes: string[][];
  axis_names: string[];
  mesh_shape: number[];
  /** 'Explicit', 'Auto' or 'Manual' per mesh axis. */
  axis_types: string[];
  device_ids: number[];
  tiles: Tile[];
  /** For each distinct block, the positions holding it. */
  holders: number[][];
}

export interface Report {
  maps: MapRun[];
  /** The named sharded arrays when the program ended, in program order. */
  arrays?: NamedArray[];
}

/** The JSON form of the program's global `result`: arrays as nested lists. */
export type ResultValue = null | boolean | number | string | ResultValue[] | { [key: string]: ResultValue };

export interface Run {
  /** The program's global `result` (null when it set none). */
  result: ResultValue;
  /** `result` as text, lists of numbers on one line. */
  resultText: string;
  /** What the program printed. */
  stdout: string;
  report: Report;
  /** How the maps ran: 'parallel' on device workers or 'lockstep'. */
  mode: 'parallel' | 'lockstep';
  devices: number;
  /** Time in the engine, in milliseconds. */
  elapsedMs: number;
}

/**
 * A failed run. `type` is the Python exception's name (e.g. 'SyntaxError',
 * 'ValueError'), or 'Cancelled', 'TimeoutError', 'InternalError'.
 */
export class ShardlabError extends Error {
  readonly name: 'ShardlabError';
  readonly type: string;
  /** The message without the type and position. */
  readonly reason: string;
  /** 1-based line and column in the program, when known. */
  readonly line: number | null;
  readonly col: number | null;
  /** What the program printed before it failed. */
  readonly stdout: string;
  readonly report: Report | null;
}

export class Lab {
  private constructor();
  readonly options: Required<LabOptions>;
  /**
   * 'parallel' when the lab runs devices on workers (started with the lab,
   * or at its first parallel run with startDevices: false), else 'lockstep'.
   */
  readonly mode: 'parallel' | 'lockstep';
  readonly closed: boolean;
  /**
   * The engine runs go to. In browsers a lab starts on 'core' (built without
   * Flax and Optax, a third less to download) and moves to 'full' for good
   * at the first program that imports either, which then runs on it; in
   * Node it is always 'full'.
   */
  readonly engine: 'core' | 'full';
  /**
   * Runs a program. Runs are queued: one runs at a time, in call order.
   * Options override the lab's for this run. Rejects with a ShardlabError
   * when the program fails, with TypeError/RangeError for bad options, and
   * with an Error once the lab is closed.
   */
  run(source: string, options?: RunOptions): Promise<Run>;
  /**
   * Grades a solution of an exercise (docs/exercises.md): runs `source` on
   * every case of `problem` (an object or its JSON text), each on its own
   * devices. A learner's error is a failed case; a problem that cannot be
   * read rejects with a ShardlabError of type 'ProblemError'. Queued like
   * runs; timeoutMs and signal cover all the cases together.
   */
  check(source: string, problem: Problem | string, options?: CheckOptions): Promise<Verdict>;
  /**
   * Stops the run in progress (it rejects with 'Cancelled'); resolves once
   * the lab can run again. Does nothing when no run is going.
   */
  cancel(): Promise<void>;
  /** Ends every worker; running and queued runs reject. */
  close(): void;
}

/** Options of Lab.check. */
export interface CheckOptions {
  mode?: Mode;
  timeoutMs?: number | null;
  maxMemory?: number | string;
  signal?: AbortSignal;
}

/**
 * A Python value in an exercise: numbers, booleans and null as scalars and
 * None, lists as lists, tagged objects for arrays, tuples and dicts.
 */
export type ExerciseValue =
  | number
  | boolean
  | null
  | ExerciseValue[]
  | ExerciseArray
  | { tuple: ExerciseValue[] }
  | { dict: { [key: string]: ExerciseValue } };

/** A jnp array: nested lists of elements (or one, for 0-d), a dtype, and an optional reshape. */
export interface ExerciseArray {
  array: unknown;
  dtype: DType;
  shape?: number[];
}

/** An argument: a value, the case's mesh, a one-line Python expression or a str. */
export type ExerciseArgument =
  | ExerciseValue
  | string
  | ExerciseArgument[]
  | { tuple: ExerciseArgument[] }
  | { dict: { [key: string]: ExerciseArgument } }
  | { mesh: true }
  | { expr: string };

/**
 * A check on a case's run report: exactly one of `uses`, `avoids` (a
 * collective such as 'psum', 'pmean', 'all_gather', 'psum_scatter', or a map
 * kind 'shard_map' / 'pmap', with optional `axes`) or `output_spec` (with
 * optional `output`, default 0) of the last forward map.
 */
export interface ExerciseCheck {
  uses?: string;
  avoids?: string;
  axes?: string[];
  output_spec?: string;
  output?: number;
  /** Shown to the learner when the check fails. */
  message?: string;
}

export interface ExerciseCase {
  name?: string;
  devices?: number;
  mesh?: { shape: number[]; axes: string[] };
  args?: ExerciseArgument[];
  kwargs?: { [name: string]: ExerciseArgument };
  expected: ExerciseValue;
  rtol?: number;
  atol?: number;
  checks?: ExerciseCheck[];
  /** Graded, but its arguments and expected value are not shown to the learner. */
  hidden?: boolean;
}

/** A graded exercise (docs/exercises.md, docs/exercise.schema.json). */
export interface Problem {
  format: 'shardlab-exercise/1';
  title: string;
  /** Markdown. */
  statement: string;
  starter: string;
  /** The function each case calls. */
  entry: string;
  cases: ExerciseCase[];
  checks?: ExerciseCheck[];
  expected_from?: string;
  /** Seconds each case may run before it fails with TimeoutError (default 10, at most 600). */
  time_limit_s?: number;
}

export interface CheckResult {
  /** The check in words: 'uses psum over data'. */
  check: string;
  passed: boolean;
  /** What the run did instead, and the check's message (when it failed). */
  detail?: string;
}

export interface CaseVerdict {
  name: string;
  devices: number;
  /** A hidden case: `expected` and `got` are null, and mismatches say where, not what. */
  hidden: boolean;
  mesh: { shape: number[]; axes: string[] } | null;
  passed: boolean;
  /** The exception that stopped the run; line 0 when raised outside the learner's code. */
  error: { type: string; message: string; line: number; col: number } | null;
  /** What differs and where: 'result[0]: expected 36, got 10'. */
  mismatches: string[];
  max_abs_error: number;
  max_rel_error: number;
  /** What the function returned, in the problem's value format. */
  got: ExerciseValue | { other: string } | null;
  expected: ExerciseValue | null;
  checks: CheckResult[];
  stdout: string;
  /** The run report of a failing case (null for a passing one). */
  report: Report | null;
}

export interface Verdict {
  title: string;
  /** True when every case passed. */
  passed: boolean;
  cases: CaseVerdict[];
}

/**
 * Starts a lab. Bad options throw (TypeError, RangeError) before any worker
 * starts.
 */
export function createLab(options?: CreateLabOptions): Promise<Lab>;
