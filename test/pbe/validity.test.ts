import { describe, expect, it } from 'vitest';
import { generateTask, generateTaskWithPool } from '../../domain/pbe/generate.js';
import { applyPipeline, applyStep, OPERATION_NAMES, OPERATIONS } from '../../domain/pbe/operations.js';
import { resolvePbeParams, type PbeParams } from '../../domain/pbe/params.js';
import { formatTaskId, type PbeTask } from '../../domain/pbe/render.js';
import { compileTaskSchema, PARAM_SETS, readSchema } from './support.js';

const TASKS_PER_SET = 300;
const validate = compileTaskSchema();

/**
 * Every guarantee of generate.ts that can be checked from a task and its pool; returns the violations
 * (plain checks collected into one list: thousands of expect() calls would dominate the test's time).
 */
function taskProblems(params: PbeParams, index: number, task: PbeTask, pool: string[]): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) problems.push(`${task.task_id}: ${what}`);
  };
  check(validate(task) === true, `schema: ${JSON.stringify(validate.errors)}`);
  check(task.task_id === formatTaskId(index), 'task_id');

  // Counts and metadata agree with the parameters.
  check(task.examples.length === params.num_examples, 'examples count');
  check(task.tests.length === params.num_tests, 'tests count');
  check(task.num_tests === params.num_examples + params.num_tests, 'num_tests');
  check(JSON.stringify(task.metadata.alphabet) === JSON.stringify(params.alphabet), 'metadata.alphabet');
  check(task.metadata.alphabet_size === params.alphabet.length, 'metadata.alphabet_size');
  check(task.metadata.num_examples === params.num_examples, 'metadata.num_examples');
  check(task.metadata.num_tests === params.num_tests, 'metadata.num_tests');
  check(task.metadata.split === params.split, 'metadata.split');
  const { n_inputs_for_examples, l_min, l_max, pipeline_L_min, pipeline_L_max } = params;
  check(
    JSON.stringify(task.metadata.generation_params) ===
      JSON.stringify({ n_inputs_for_examples, l_min, l_max, pipeline_L_min, pipeline_L_max }),
    'metadata.generation_params',
  );

  // The pool: right size, distinct, strings over the alphabet with lengths in range.
  check(pool.length === params.n_inputs_for_examples, 'pool size');
  check(new Set(pool).size === pool.length, 'pool strings distinct');
  for (const s of pool) {
    check(s.length >= params.l_min && s.length <= params.l_max, `pool string ${JSON.stringify(s)} length`);
    check(
      [...s].every((ch) => params.alphabet.includes(ch)),
      `pool string ${JSON.stringify(s)} outside the alphabet`,
    );
  }

  // Examples and tests: distinct inputs, all from the pool.
  const inputs = [...task.examples, ...task.tests].map((p) => p.input);
  check(new Set(inputs).size === inputs.length, 'inputs distinct');
  check(
    inputs.every((input) => pool.includes(input)),
    'inputs from the pool',
  );

  // Pipeline length in range; every step changes at least one pool string as it stands then.
  const pipeline = task.canonical_pipeline;
  check(pipeline.length >= params.pipeline_L_min && pipeline.length <= params.pipeline_L_max, 'pipeline length');
  let current = pool;
  pipeline.forEach((step, i) => {
    const next = current.map((s) => applyStep(s, step));
    check(
      next.some((s, j) => s !== current[j]),
      `step ${i} ${JSON.stringify(step)} changes no pool string`,
    );
    current = next;
  });

  // Outputs are the pipeline re-applied; the shown examples are not all fixed points.
  for (const pair of [...task.examples, ...task.tests]) {
    check(applyPipeline(pair.input, pipeline) === pair.output, `output of ${JSON.stringify(pair.input)}`);
  }
  check(
    task.examples.some((e) => e.output !== e.input),
    'identity on its examples',
  );
  return problems;
}

describe('generated tasks', () => {
  it.each(PARAM_SETS)('%s: every guarantee holds', (_name, params) => {
    const problems: string[] = [];
    for (let index = 0; index < TASKS_PER_SET; index++) {
      const { task, pool } = generateTaskWithPool(params, index);
      problems.push(...taskProblems(params, index, task, pool));
    }
    expect(problems).toEqual([]);
  });

  it('generateTask is generateTaskWithPool(...).task', () => {
    const params = PARAM_SETS[1]![1];
    expect(JSON.stringify(generateTask(params, 3))).toBe(JSON.stringify(generateTaskWithPool(params, 3).task));
  });

  it('long pipelines use every operation of the registry', () => {
    const params = Object.fromEntries(PARAM_SETS)['long_pipelines']!;
    const used = new Set<string>();
    for (let index = 0; index < 50; index++) for (const step of generateTask(params, index).canonical_pipeline) used.add(step.method);
    expect([...used].sort()).toEqual([...OPERATION_NAMES].sort());
  });

  it('strip-heavy parameters needed restarts and still produced valid tasks', () => {
    const params = Object.fromEntries(PARAM_SETS)['strip_heavy']!;
    const attempts = Array.from({ length: TASKS_PER_SET }, (_, i) => generateTaskWithPool(params, i).attempts);
    expect(Math.max(...attempts)).toBeGreaterThan(1);
  });

  it('task ids get more digits past 999999', () => {
    const params = resolvePbeParams({ count: 2_000_000 });
    expect(generateTask(params, 1_234_567).task_id).toBe('pbe-world/1234567');
    expect(formatTaskId(42)).toBe('pbe-world/000042');
  });

  it('degenerate parameters throw, naming the task index and the parameters', () => {
    // One code point without case, strings of length 1, and 40 steps that must each change the pool:
    // strip or a shrinking replace empties the only string long before 40 steps.
    const params = resolvePbeParams({
      alphabet: '1',
      l_min: 1,
      l_max: 1,
      n_inputs_for_examples: 1,
      num_examples: 1,
      num_tests: 0,
      pipeline_L_min: 40,
      pipeline_L_max: 40,
    });
    expect(() => generateTask(params, 7)).toThrow(/task 7\b.*pipeline_L_min.*"pipeline_L_min":40/s);
  });
});

describe('JSON Schema', () => {
  const schema = readSchema() as {
    definitions: {
      pipelineStep: {
        properties: { method: { enum: string[] } };
        oneOf: { properties: { method: { const?: string; enum?: string[] }; args: { minItems?: number; maxItems: number } } }[];
      };
    };
  };

  it('method enum and arities match the operation registry', () => {
    const step = schema.definitions.pipelineStep;
    expect([...step.properties.method.enum].sort()).toEqual([...OPERATION_NAMES].sort());
    for (const op of OPERATIONS) {
      const branch = step.oneOf.find((b) => b.properties.method.const === op.name || b.properties.method.enum?.includes(op.name));
      expect(branch, op.name).toBeDefined();
      expect(branch!.properties.args.minItems ?? 0).toBe(op.arity);
      expect(branch!.properties.args.maxItems).toBe(op.arity);
    }
  });

  it('rejects malformed rows', () => {
    const good = generateTask(PARAM_SETS[0]![1], 0);
    const mutants: [string, (t: Record<string, any>) => void][] = [
      ['extra key', (t) => (t.extra = 1)],
      ['missing key', (t) => delete t.prompt],
      ['bad task_id', (t) => (t.task_id = 'pbe-world/12')],
      ['unknown method', (t) => (t.canonical_pipeline[0] = { method: 'title', args: [] })],
      ['wrong arity', (t) => (t.canonical_pipeline[0] = { method: 'replace', args: ['a'] })],
      ['upper with args', (t) => (t.canonical_pipeline[0] = { method: 'upper', args: ['a'] })],
      ['non-string output', (t) => (t.examples[0].output = 3)],
      ['metadata extra key', (t) => (t.metadata.seed = 0)],
      ['alphabet with a double quote', (t) => (t.metadata.alphabet = ['"'])],
      ['num_programs', (t) => (t.metadata.num_programs = 2)],
    ];
    expect(validate(good)).toBe(true);
    for (const [name, mutate] of mutants) {
      const bad = JSON.parse(JSON.stringify(good));
      mutate(bad);
      expect(validate(bad), name).toBe(false);
    }
  });
});
