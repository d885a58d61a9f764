/**
 * BigCodeBench's score kind, `bigcodebench`: a sample passes or fails as any run one (pass@k), and
 * its record keeps BigCodeBench's verdict (`pass`, `fail`, `timeout`), its `details` (each failed
 * test's trace, as the harness printed them) and the text the calibration put before the solution.
 * A cell's figures count the verdicts; its peer files are those BigCodeBench's evaluate.py writes
 * (bigcode-project/bigcodebench 47eff25, bigcodebench 0.2.5): `eval_results.json` (per task, each
 * sample's calibrated solution, status and details) and `pass_at_k.json` (pass@k as it computes it,
 * the model, split, subset, calibration, and the ground truth's figures: gt_pass_rate and
 * failed_tasks, from whether each task's ground truth passed, as its samples' records keep it; every task failed, as
 * `--no_gt` writes them, when it did not run), each as its json.dump(indent=2) writes it.
 * results.json's `scores.ground_truth` says the same.
 */
import { z } from 'zod';
import { pythonFloatRepr } from '../../metrics/spiderExec.js';
import { samplesWithSolutions } from '../../scoring/sampleSolutions.js';
import { declareScoreKind, plainMetricsLine, type CellFiles } from '../../scoring/scoreKind.js';

export const BigCodeBenchStatusSchema = z.enum(['pass', 'fail', 'timeout']);

const BigCodeBenchSampleSchema = z.object({
  kind: z.literal('bigcodebench'),
  status: BigCodeBenchStatusSchema,
  details: z.record(z.string(), z.string()),
  /** What calibration put before the solution (its code_prompt and a `pass` body), '' when not calibrated. */
  calibration: z.string(),
  /**
   * Whether the task's ground truth passed (its expected_time is not None); absent when it was not
   * run (no_gt, and records made before it was). Not the time itself: that is measured once and
   * cached, and a record must read the same whichever path scored it (a sweep's bucket cache,
   * evaluate.ts's disk cache, each timed on its own).
   */
  gt_passed: z.boolean().optional(),
});
type BigCodeBenchSample = z.output<typeof BigCodeBenchSampleSchema>;

const CountsSchema = z.object({ pass: z.number().int(), fail: z.number().int(), timeout: z.number().int() });

const BigCodeBenchFiguresSchema = z.object({
  kind: z.literal('bigcodebench'),
  split: z.string(),
  subset: z.string(),
  calibrated: z.boolean(),
  /** The cell's k, in its order (pass_at_k.json's). */
  k: z.array(z.number()),
  /** The samples' verdicts, counted. */
  statuses: CountsSchema,
  /**
   * The tasks' ground truth, as pass_at_k.json says it: whether it ran (not no_gt), the share of
   * tasks whose ground truth passed (gt_pass_rate) and the others (failed_tasks), in task order.
   * Absent in summaries stored before it was.
   */
  ground_truth: z.object({ checked: z.boolean(), pass_rate: z.number(), failed_tasks: z.array(z.string()) }).optional(),
});
type BigCodeBenchFigures = z.output<typeof BigCodeBenchFiguresSchema>;

type Cell = { split: string; subset: string; calibrated: boolean; statuses: z.output<typeof CountsSchema> };
/** A task's ground truth, from its first scored sample: checked (not no_gt) and passed (a time, not None). */
type Task = { taskId: string; checked: boolean; passed: boolean };

/** The cell's ground truth over its scored tasks (evaluate()'s gt_pass_rate and failed_tasks). */
function groundTruthOf(tasks: ReadonlyArray<{ state: Task | undefined }>): NonNullable<BigCodeBenchFigures['ground_truth']> {
  const scored = tasks.flatMap((t) => (t.state ? [t.state] : []));
  return {
    checked: scored.some((t) => t.checked),
    pass_rate: scored.length ? scored.filter((t) => t.passed).length / scored.length : 0,
    failed_tasks: scored.filter((t) => !t.passed).map((t) => t.taskId),
  };
}

/** The split, subset and calibration of a BigCodeBench problem's payload. */
function settingsOf(problem: unknown): { split: string; subset: string; calibrated: boolean } {
  const payload = (problem as { bigcodebench?: { split?: string; subset?: string; calibrated?: boolean } }).bigcodebench;
  return { split: payload?.split ?? 'complete', subset: payload?.subset ?? 'full', calibrated: payload?.calibrated ?? true };
}

export const BIGCODEBENCH_SCORES = declareScoreKind<BigCodeBenchSample, Task, Cell, BigCodeBenchFigures>({
  sampleKind: 'bigcodebench',
  sampleSchema: BigCodeBenchSampleSchema,
  recordScore: (score) => ({
    kind: 'bigcodebench',
    status: BigCodeBenchStatusSchema.parse(score.status),
    details: score.details as Record<string, string>,
    calibration: String(score.calibration),
    ...(score.gt_passed !== undefined ? { gt_passed: Boolean(score.gt_passed) } : {}),
  }),
  rowFields: () => ({}),
  runs: true,
  newCell: () => ({ split: 'complete', subset: 'full', calibrated: true, statuses: { pass: 0, fail: 0, timeout: 0 } }),
  add: (cell, task, sample, context) => {
    Object.assign(cell, settingsOf(context.problem));
    cell.statuses[sample.status] += 1;
    return task ?? { taskId: context.taskId, checked: sample.gt_passed !== undefined, passed: sample.gt_passed === true };
  },
  figures: (cell, tasks, k) =>
    tasks.some((t) => t.state)
      ? { kind: 'bigcodebench', ...cell, k: [...k], statuses: { ...cell.statuses }, ground_truth: groundTruthOf(tasks) }
      : null,
  cellKind: 'bigcodebench',
  cellSchema: BigCodeBenchFiguresSchema,
  perTaskJson: () => ({}),
  perTaskShape: {},
  resultsJson: (figures) => ({ statuses: figures.statuses, ...(figures.ground_truth ? { ground_truth: figures.ground_truth } : {}) }),
  metricsLine: (_figures, parts) => plainMetricsLine(parts, {}),
  peerFiles: (figures, cell) => bigCodeBenchPeerFiles(figures, cell),
  peerName: 'BigCodeBench',
  besideSamples: (samples, directory) => {
    // evaluate.py: <dir>/eval_results.json for a folder, <samples>.jsonl -> <samples>_eval_results.json; pass_at_k.json beside it.
    const evalResults = directory
      ? `${samples.replace(/\/+$/, '')}/eval_results.json`
      : samples.replace(/(\.jsonl)?$/, '_eval_results.json');
    return { 'eval_results.json': evalResults, 'pass_at_k.json': evalResults.replace(/eval_results\.json$/, 'pass_at_k.json') };
  },
  progressLine: (figures) =>
    `pass ${figures.statuses.pass}, fail ${figures.statuses.fail}, timeout ${figures.statuses.timeout}` +
    (figures.ground_truth?.checked && figures.ground_truth.failed_tasks.length
      ? `; ground truth failed on ${figures.ground_truth.failed_tasks.length} task(s)`
      : ''),
  report: {
    order: 46,
    intro: "BigCodeBench's verdicts of the samples: <b>pass</b>, <b>fail</b> (a test failed or the module did not run) and <b>timeout</b>.",
    tableId: 'bigcodebench-statuses-table',
    headers: () => ['pass', 'fail', 'timeout'],
    rows: (figures, _ks, f) => [
      [
        { num: true, html: f.int(figures.statuses.pass) },
        { num: true, html: f.int(figures.statuses.fail) },
        { num: true, html: f.int(figures.statuses.timeout) },
      ],
    ],
  },
});

/** A value written as Python's json.dump writes it; numbers of `floats` as Python floats. */
class PythonFloat {
  constructor(readonly value: number) {}
}

/** json.dump(value, f, indent=2) with ensure_ascii: every character outside printable ASCII escaped. */
export function pythonJsonDump(value: unknown, indent = 2, depth = 0): string {
  const pad = (d: number) => '\n' + ' '.repeat(indent * d);
  if (value instanceof PythonFloat) return pythonFloatRepr(value.value);
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pythonFloatRepr(value);
  if (typeof value === 'string')
    return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${value.map((v) => pad(depth + 1) + pythonJsonDump(v, indent, depth + 1)).join(',')}${pad(depth)}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return `{${entries.map(([k, v]) => `${pad(depth + 1)}${pythonJsonDump(k)}: ${pythonJsonDump(v, indent, depth + 1)}`).join(',')}${pad(depth)}}`;
}

/**
 * numpy's sum of float64s (pairwise: 8 accumulators over blocks of up to 128), so that a mean is
 * np.mean's to the last bit.
 */
function numpySum(a: readonly number[], from = 0, n = a.length): number {
  if (n < 8) {
    let sum = -0;
    for (let i = from; i < from + n; i++) sum += a[i]!;
    return sum;
  }
  if (n <= 128) {
    const r = a.slice(from, from + 8);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j]! += a[from + i + j]!;
    let sum = r[0]! + r[1]! + (r[2]! + r[3]!) + (r[4]! + r[5]! + (r[6]! + r[7]!));
    for (; i < n; i++) sum += a[from + i]!;
    return sum;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return numpySum(a, from, half) + numpySum(a, from + half, n - half);
}

/** bigcodebench.eval.estimate_pass_at_k of one task: 1 - prod(1 - k / arange(n - c + 1, n + 1)). */
function estimatePassAtK(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  let product = 1;
  for (let i = n - c + 1; i <= n; i++) product *= 1 - k / i;
  return 1 - product;
}

/**
 * BigCodeBench's files for a cell: `eval_results.json` and `pass_at_k.json` as its evaluate.py
 * writes them with --no_gt and --save_pass_rate (the default), the tasks in the cell's order. The
 * model is what it takes from the samples' name (the part before `--bigcodebench-`): evaluate.ts's
 * --samples, a sweep cell's model id. Its pass@k are over the k of the cell that every task has
 * samples enough for (`total.min() >= k`).
 */
export function bigCodeBenchPeerFiles(figures: BigCodeBenchFigures, cell: CellFiles): Record<string, string> {
  const evaluated: Record<string, Array<Record<string, unknown>>> = {};
  const gtPassed: Record<string, boolean> = {};
  for (const { sample, solution } of samplesWithSolutions(cell.samples, cell.generations)) {
    const score = BigCodeBenchSampleSchema.safeParse(sample.score);
    // A sample without BigCodeBench's verdict (not run: a generation that failed) is its timeout, as a check that set none.
    const { status, details, calibration } = score.success ? score.data : { status: 'timeout', details: {}, calibration: '' };
    (evaluated[sample.task_id] ??= []).push({ task_id: sample.task_id, solution: calibration + solution, status, details });
    // Whether the task's expected_time is not None: its first sample's that says (absent: failed, or not run with no_gt).
    if (score.success && score.data.gt_passed !== undefined && !(sample.task_id in gtPassed))
      gtPassed[sample.task_id] = score.data.gt_passed;
  }
  const tasks = Object.values(evaluated);
  const total = tasks.map((samples) => samples.length);
  const correct = tasks.map((samples) => samples.filter((s) => s.status === 'pass').length);
  const passAtK: Record<string, unknown> = {};
  for (const k of figures.k) {
    if (tasks.length === 0 || Math.min(...total) < k) continue;
    const perTask = total.map((n, t) => estimatePassAtK(n, correct[t]!, k));
    passAtK[`pass@${k}`] = new PythonFloat(numpySum(perTask) / perTask.length);
  }
  const passedGt = Object.keys(evaluated).filter((id) => gtPassed[id] === true);
  const date = cell.date;
  const model = (cell.samplesName ?? '').split('--bigcodebench-')[0]!;
  return {
    'eval_results.json': pythonJsonDump({ date, eval: evaluated }),
    'pass_at_k.json': pythonJsonDump({
      ...passAtK,
      model,
      split: figures.split,
      subset: figures.subset,
      calibrated: figures.calibrated,
      // np.mean of 1 per task whose expected_time is not None (0 for each, with --no_gt), and the others.
      gt_pass_rate: new PythonFloat(tasks.length ? passedGt.length / tasks.length : 0),
      failed_tasks: Object.keys(evaluated).filter((id) => gtPassed[id] !== true),
    }),
  };
}
