/**
 * PBE World task generation: pure and deterministic.
 *
 * Guarantees (for parameters accepted by resolvePbeParams / validatePbeParams):
 * - Determinism: row `i` depends only on the parameters (not `count`, which only bounds the indices)
 *   and `i`: its randomness is a stream derived from (seed, i) alone, and only integer arithmetic is
 *   used (no Math.random, no floating point, no locale). So any slice [start, end) can be generated on
 *   its own, sharded or retried, and gives the same bytes as one sequential run.
 * - Inputs: each task draws a pool of n_inputs_for_examples distinct strings over the alphabet with
 *   lengths in [l_min, l_max]; the num_examples shown examples and num_tests hidden tests are distinct
 *   members of that pool (no input is both shown and hidden, none repeats).
 * - Pipeline: L steps with L in [pipeline_L_min, pipeline_L_max]; each step changes at least one pool
 *   string as it stands before that step (no step is a no-op on the whole pool).
 * - Not trivial: at least one shown example's output differs from its input.
 * - Correctness: outputs are the canonical pipeline applied with Python's str semantics (exact for the
 *   printable-ASCII alphabets allowed), so `canonical_solution` passes `test`, and the prompt, solution
 *   and test texts follow the published card's templates byte for byte.
 * - Library: with `library: 'private'` the task is the same as with `python_str` (same pool, pipeline,
 *   examples and tests, drawn from the same stream); only the prompt (which names the module instead of
 *   the str methods), the canonical solution (which imports the module and calls its functions, never
 *   the str methods) and `metadata.library` (module, version, source hash) differ. The module is the
 *   one of privateLibrary(seed), the same for every row of the dataset.
 * - Failure is loud: a task that cannot be made well-posed (degenerate parameters, e.g. a 1-letter
 *   alphabet with 1-character strings and a 2-step pipeline) throws an Error naming the task index and
 *   the parameters; rows are never silently dropped or weakened.
 *
 * Non-guarantees:
 * - The shown examples do NOT necessarily determine the pipeline: other programs (shorter ones, or
 *   different ones) may fit the examples and even the hidden tests. The canonical pipeline is one
 *   consistent answer, not necessarily the unique or the simplest one.
 * - The pipeline is not minimal: a step may change only strings that end up in neither examples nor
 *   tests, may be a no-op on all shown examples, or may be undone by a later step (e.g. upper then lower).
 * - Hidden tests may be left unchanged by the pipeline (only the shown examples must not all be).
 * - Outputs may be empty and may contain characters outside the alphabet (e.g. after upper()).
 * - Different rows are not guaranteed to differ: small parameter spaces can repeat a task.
 * - Input lengths are uniform in [l_min, l_max] only while the pool is a small part of the string space;
 *   when it exceeds a quarter of it, the pool is a uniform subset of all strings (see pool.ts).
 * - Bytes are stable only for this version of the generator: changing rng.ts, the operation registry
 *   or this algorithm changes the datasets.
 */
import { applyStep, OPERATIONS, type PipelineStep } from './operations.js';
import { canonicalParamsJson, validatePbeParams, type PbeParams } from './params.js';
import { drawDistinctStrings } from './pool.js';
import { privateLibrary } from './privateLibrary.js';
import { buildTaskRecord, type IoPair, type PbeTask } from './render.js';
import { taskRng, type Rng } from './rng.js';

/** Fresh starts (new pool, new pipeline) before a task is declared impossible. */
const MAX_TASK_ATTEMPTS = 64;
/** Argument draws per pipeline step before the step is declared stuck. */
const MAX_STEP_ATTEMPTS = 16;
/** Reshuffles of the pool looking for a selection whose examples are not all fixed points. */
const MAX_SELECTION_ATTEMPTS = 64;

/**
 * Builds `length` steps over the pool, each changing at least one current string. Returns the steps
 * and the pool after them (same order as `pool`), or null if some step could not be made to change
 * anything.
 */
function buildPipeline(
  rng: Rng,
  pool: readonly string[],
  length: number,
  alphabet: readonly string[],
): { pipeline: PipelineStep[]; outputs: string[] } | null {
  const pipeline: PipelineStep[] = [];
  let current = pool.slice();
  for (let stepIndex = 0; stepIndex < length; stepIndex++) {
    let accepted = false;
    for (let attempt = 0; attempt < MAX_STEP_ATTEMPTS && !accepted; attempt++) {
      // First op with arguments in a random order = uniform choice among the ops meaningful now.
      let step: PipelineStep | null = null;
      for (const op of rng.shuffle(OPERATIONS.slice())) {
        const args = op.drawArgs(rng, current, alphabet);
        if (args) {
          step = { method: op.name, args };
          break;
        }
      }
      if (!step) return null; // nothing can change this pool: retrying cannot help
      const next = current.map((s) => applyStep(s, step));
      if (next.some((s, i) => s !== current[i])) {
        pipeline.push(step);
        current = next;
        accepted = true;
      }
    }
    if (!accepted) return null;
  }
  return { pipeline, outputs: current };
}

/** Examples then hidden tests from a shuffled pool, with some example not a fixed point; or null. */
function selectExamplesAndTests(
  rng: Rng,
  inputs: readonly string[],
  outputs: readonly string[],
  numExamples: number,
  numTests: number,
): { examples: IoPair[]; tests: IoPair[] } | null {
  if (inputs.every((s, i) => outputs[i] === s)) return null;
  const order = inputs.map((_, i) => i);
  for (let attempt = 0; attempt < MAX_SELECTION_ATTEMPTS; attempt++) {
    rng.shuffle(order);
    const exampleIdx = order.slice(0, numExamples);
    if (exampleIdx.some((i) => outputs[i] !== inputs[i])) {
      const pair = (i: number): IoPair => ({ input: inputs[i]!, output: outputs[i]! });
      return { examples: exampleIdx.map(pair), tests: order.slice(numExamples, numExamples + numTests).map(pair) };
    }
  }
  return null;
}

/**
 * A task together with the pool its pipeline was built over (which the record does not keep) and the
 * number of attempts it took, so that tests and audits can re-check the per-step guarantee.
 */
export interface GeneratedTask {
  task: PbeTask;
  /** The n_inputs_for_examples distinct inputs the pipeline steps were checked against. */
  pool: string[];
  /** 1 + the number of restarts. */
  attempts: number;
}

/** generateTask without re-validating the parameters (callers validate once per batch). */
function generateValidatedTask(params: PbeParams, index: number): GeneratedTask {
  const rng = taskRng(params.seed, index);
  const failures = { stuckPipeline: 0, identityOnExamples: 0 };
  for (let attempt = 0; attempt < MAX_TASK_ATTEMPTS; attempt++) {
    // A restart continues the same stream, so the result is still a function of (params, index).
    const pool = drawDistinctStrings(rng, params.alphabet, params.l_min, params.l_max, params.n_inputs_for_examples);
    const length = rng.int(params.pipeline_L_min, params.pipeline_L_max);
    const built = buildPipeline(rng, pool, length, params.alphabet);
    if (!built) {
      failures.stuckPipeline++;
      continue;
    }
    const selection = selectExamplesAndTests(rng, pool, built.outputs, params.num_examples, params.num_tests);
    if (!selection) {
      failures.identityOnExamples++;
      continue;
    }
    const library = params.library === 'private' ? privateLibrary(params.seed) : undefined;
    const task = buildTaskRecord({ index, params, pipeline: built.pipeline, ...selection, ...(library ? { library } : {}) });
    return { task, pool, attempts: attempt + 1 };
  }
  throw new Error(
    `pbe-world task ${index}: could not build a well-posed task in ${MAX_TASK_ATTEMPTS} attempts ` +
      `(${failures.stuckPipeline} got stuck before completing a pipeline of at least pipeline_L_min = ${params.pipeline_L_min} steps that each change a pool string; ` +
      `${failures.identityOnExamples} left the shown examples unchanged in every selection tried). ` +
      `The parameters alphabet, l_min, l_max, pipeline_L_min, n_inputs_for_examples and num_examples are too ` +
      `degenerate for this: ${canonicalParamsJson(params)}`,
  );
}

/** Task `index` of the dataset described by `params` (validated here; see the guarantees above). */
export function generateTask(params: PbeParams, index: number): PbeTask {
  return generateValidatedTask(validatePbeParams(params), index).task;
}

/** generateTask plus the pool and attempt count behind it (same task, same bytes). */
export function generateTaskWithPool(params: PbeParams, index: number): GeneratedTask {
  return generateValidatedTask(validatePbeParams(params), index);
}

/** One JSONL line's content: the record as compact JSON, no trailing newline. */
export function serializeTask(task: PbeTask): string {
  return JSON.stringify(task);
}

/**
 * The JSONL lines (each ending in "\n") of tasks [start, end), 0 <= start <= end <= params.count.
 * Parameters and range are checked when called; tasks are generated lazily as lines are consumed.
 */
export function generateLines(params: PbeParams, start: number, end: number): Generator<string> {
  const valid = validatePbeParams(params);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || start > end || end > valid.count) {
    throw new RangeError(`generateLines: need integers 0 <= start <= end <= count (${valid.count}), got [${start}, ${end})`);
  }
  return linesOf(valid, start, end);
}

function* linesOf(params: PbeParams, start: number, end: number): Generator<string> {
  for (let index = start; index < end; index++) yield serializeTask(generateValidatedTask(params, index).task) + '\n';
}
