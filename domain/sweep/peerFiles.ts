/**
 * The files the peer harnesses write for a run, made from a finished cell's own files, so that a
 * user's scripts that read them keep working:
 * - bigcode-evaluation-harness's metric file (`--metric_output_path`, `evaluation_results.json`):
 *   `{"<task>": {"pass@1": ...}, "config": {...}}`, the task named by the cell's dataset (PAL's
 *   cells add bigcode's `accuracy` and `num_failed_execution`, and both evaluation types'; Spider's
 *   with its databases, its BLEU figures beside pass@1, its execution accuracy);
 * - evalplus's `eval_results.json` for evalplus cells: per task, each sample's solution and its
 *   base and plus status, and `pass_at_k` for both.
 */
import { votingJson, type CellSummary } from './results.js';

/**
 * A cell's figures as a peer prints them: the one reading of every kind of score, shared by the
 * sweep's files and scripts/evaluate.ts (so that the same records give the same figures).
 * - `bigcode`: the task's metrics in bigcode's evaluation_results.json: pass@k, then a text-scored
 *   cell's metric figures ({"bleu": ...}), APPS's strict_accuracy and avg_accuracy, a run cell's
 *   text metric too (Spider's BLEU beside execution accuracy), PAL's accuracy and
 *   num_failed_execution (pal-*-majority_voting's with several samples per task, else greedy's) and
 *   both evaluation types;
 * - `evaluate`: evaluate.ts's metrics line: the same, except evalplus's two figures each as its own
 *   pass@k ({"base": {...}, "plus": {...}}, evalplus's print) and APPS's second figure under its
 *   long name (average_test_case_accuracy).
 */
export function cellFigures(summary: CellSummary, style: 'bigcode' | 'evaluate'): Record<string, unknown> {
  const scores = summary.scores;
  if (style === 'evaluate' && scores?.kind === 'named')
    return Object.fromEntries(Object.entries(scores.byName).map(([name, s]) => [name, s.passAtK]));
  const metrics: Record<string, unknown> = { ...summary.passAtK };
  if (scores?.kind === 'text') {
    // A task scored from its text: the metric's figures ({"conala": {"bleu": ...}}), no pass@k.
    Object.assign(metrics, scores.figures);
  } else if (scores?.kind === 'test_cases') {
    // APPS in bigcode reports these two beside pass@k.
    metrics.strict_accuracy = scores.strictAccuracy;
    metrics[style === 'bigcode' ? 'avg_accuracy' : 'average_test_case_accuracy'] = scores.averageTestCaseAccuracy;
  }
  // A run cell also scored from its text (Spider: BLEU beside execution accuracy): both on one line.
  if (summary.alsoText) Object.assign(metrics, summary.alsoText.figures);
  if (scores?.kind === 'voting') {
    // PAL: bigcode's pal-*-greedy runs one sample per task, pal-*-majority_voting several; both are kept.
    const headline = Number(summary.cell.n_samples) > 1 ? scores.majorityVoting : scores.greedy;
    Object.assign(metrics, { accuracy: headline.accuracy, num_failed_execution: headline.numFailedExecution }, votingJson(scores));
  }
  return metrics;
}

/** bigcode's metric JSON for one cell: its scores under the dataset's name, and the settings it ran with. */
export function bigcodeMetricsJson(summary: CellSummary): string {
  const cell = summary.cell;
  const metrics = cellFigures(summary, 'bigcode');
  // bigcode's own names for the settings it records, where explora has them.
  const config = {
    model: cell.model,
    tasks: cell.dataset,
    temperature: cell.temperature,
    n_samples: cell.n_samples,
    method: cell.method,
    ...(cell.prompt_template !== undefined ? { prompt_template: cell.prompt_template } : {}),
    cell: cell.cell,
  };
  return JSON.stringify({ [String(cell.dataset)]: metrics, config }, null, 2) + '\n';
}

/** A line of samples.jsonl as far as evalplus's file needs it. */
export interface SampleOutcome {
  task_id: string;
  score?: { kind: string; scores?: Record<string, boolean> };
}

/** evalplus's statuses. */
const status = (passed: boolean | undefined) => (passed ? 'pass' : 'fail');

/**
 * evalplus's eval_results.json for an evalplus cell, or null for any other: `generations` is the
 * cell's generations.json (a list of solutions per task, `[]` for a task without samples) and
 * `samples` its samples.jsonl rows, both in task then sample order. The failing inputs evalplus
 * lists (`*_fail_tests`) are not kept by explora's harness: they are empty lists here.
 */
export function evalplusEvalResults(
  summary: CellSummary,
  generations: readonly string[][],
  samples: readonly SampleOutcome[],
  date: string,
): string | null {
  if (summary.scores?.kind !== 'named' || !('base' in summary.scores.byName) || !('plus' in summary.scores.byName)) return null;
  const solutions = generations.filter((list) => list.length > 0);
  const eval_: Record<string, Array<Record<string, unknown>>> = {};
  let task = -1;
  let previous: string | undefined;
  let index = 0;
  for (const sample of samples) {
    if (sample.task_id !== previous) {
      task += 1;
      index = 0;
      previous = sample.task_id;
    }
    const solution = solutions[task]?.[index++];
    if (solution === undefined) throw new Error(`generations.json has no solution for sample ${index} of task ${sample.task_id}`);
    const scores = sample.score?.kind === 'named' ? sample.score.scores : undefined;
    (eval_[sample.task_id] ??= []).push({
      task_id: sample.task_id,
      solution,
      base_status: status(scores?.base),
      plus_status: status(scores?.plus),
      base_fail_tests: [],
      plus_fail_tests: [],
    });
  }
  const byName = summary.scores.byName;
  return JSON.stringify({ date, hash: null, eval: eval_, pass_at_k: { base: byName.base!.passAtK, plus: byName.plus!.passAtK } }) + '\n';
}

/**
 * The peers' files of a cell, by name, beside its own (generations.json, samples.jsonl): bigcode's
 * evaluation_results.json always, evalplus's eval_results.json for evalplus cells. Written by a
 * sweep's --output-dir and by scripts/evaluate.ts alike.
 */
export function peerFiles(
  summary: CellSummary,
  generations: readonly string[][],
  samples: readonly SampleOutcome[],
  date: string,
): Record<string, string> {
  const evalplus = evalplusEvalResults(summary, generations, samples, date);
  return { 'evaluation_results.json': bigcodeMetricsJson(summary), ...(evalplus !== null ? { 'eval_results.json': evalplus } : {}) };
}

/** evalplus's date format: "%Y-%m-%d %H:%M", local time. */
export function evalplusDate(d: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

/**
 * bigcode-evaluation-harness's metric file as its main.py writes it (`--metric_output_path`): the
 * task's figures under its name, then `config`, the settings of the run; indented by 2, no final newline.
 */
export function bigcodeEvaluationResults(task: string, summary: CellSummary, config: Readonly<Record<string, unknown>>): string {
  return JSON.stringify({ [task]: cellFigures(summary, 'bigcode'), config }, null, 2);
}

/** One sample of a MultiPL-E results file: its program and how its run ended. */
export interface MultiplEOutcome {
  program: string;
  status: string;
  run?: { stdout: string; stderr: string; exitCode: number | null };
}

/**
 * MultiPL-E's `<name>.results.json.gz` content for one problem: its completion file's fields but
 * the completions, and `results`, one per completion in order: the program, MultiPL-E's status
 * (OK, Exception, SyntaxError, Timeout), exit code, stdout and stderr.
 */
export function multiplEResultsJson(completionFile: Readonly<Record<string, unknown>>, outcomes: readonly MultiplEOutcome[]): string {
  const { completions: _completions, ...problem } = completionFile;
  const statusOf = (status: string) =>
    status === 'passed' ? 'OK' : status === 'timeout' ? 'Timeout' : status === 'compile_error' ? 'SyntaxError' : 'Exception';
  return JSON.stringify({
    ...problem,
    results: outcomes.map((o) => ({
      program: o.program,
      status: statusOf(o.status),
      exit_code: o.run?.exitCode ?? null,
      stdout: o.run?.stdout ?? '',
      stderr: o.run?.stderr ?? '',
    })),
  });
}
