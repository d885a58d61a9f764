/**
 * The files the peer harnesses write for a run, made from a finished cell's own files, so that a
 * user's scripts that read them keep working:
 * - bigcode-evaluation-harness's metric file (`--metric_output_path`, `evaluation_results.json`):
 *   `{"<task>": {"pass@1": ...}, "config": {...}}`, the task named by the cell's dataset (PAL's
 *   cells add bigcode's `accuracy` and `num_failed_execution`, and both evaluation types'; Spider's
 *   with its databases, its BLEU figures beside pass@1, its execution accuracy; LiveCodeBench's
 *   with its release window in `config`, as evaluate.ts writes it);
 * - evalplus's `eval_results.json` for evalplus cells: per task, each sample's solution and its
 *   base and plus status, and `pass_at_k` for both.
 */
import { cellScopeFields } from '../families/registry.js';
import { kindOfCell } from '../scoring/scoreKinds.js';
import { plainMetricsLine, type SampleScore } from '../scoring/scoreKind.js';
import type { CellSummary } from './results.js';

/**
 * A cell's figures as a peer prints them: the one reading of every kind of score, shared by the
 * sweep's files and scripts/evaluate.ts (so that the same records give the same figures).
 * - `bigcode`: the task's metrics in bigcode's evaluation_results.json: pass@k, a run cell's text
 *   metric too (Spider's BLEU beside execution accuracy), and the figures of its score kind
 *   (ScoreKind.metricsLine: a text-scored cell's metric figures ({"bleu": ...}), APPS's
 *   strict_accuracy and avg_accuracy, PAL's accuracy, num_failed_execution and both evaluation types);
 * - `evaluate`: evaluate.ts's metrics line: the same, as each kind prints it there (evalplus's two
 *   figures each as its own pass@k, {"base": {...}, "plus": {...}}, evalplus's print).
 */
export function cellFigures(summary: CellSummary, style: 'bigcode' | 'evaluate'): Record<string, unknown> {
  const parts = {
    style,
    passAtK: summary.passAtK,
    alsoText: summary.alsoText ? summary.alsoText.figures : {},
    nSamples: Number(summary.cell.n_samples),
  };
  return summary.scores ? kindOfCell(summary.scores).metricsLine(summary.scores, parts) : plainMetricsLine(parts, {});
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
    // The part of the dataset the figures are over (LiveCodeBench's window), as evaluate.ts's --metric_output_path says it.
    ...cellScopeOf(cell),
  };
  return JSON.stringify({ [String(cell.dataset)]: metrics, config }, null, 2) + '\n';
}

/** The keys of a cell's record that say what part of its dataset the figures are over (a family's cellScopeFields). */
export function cellScopeOf(cell: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(cellScopeFields().flatMap((key) => (cell[key] === undefined ? [] : [[key, cell[key]]])));
}

/** A line of samples.jsonl as far as the peers' files need it. */
export interface SampleOutcome {
  task_id: string;
  score?: SampleScore;
}

/**
 * The peers' files of a cell, by name, beside its own (generations.json, samples.jsonl): bigcode's
 * evaluation_results.json always, and those of the cell's score kind (evalplus's eval_results.json,
 * BigCodeBench's eval_results.json and pass_at_k.json). Written by a sweep's --output-dir and by
 * scripts/evaluate.ts alike; `samplesName` is what a peer names the model from (a sweep's: the
 * cell's model id).
 */
export function peerFiles(
  summary: CellSummary,
  generations: readonly string[][],
  samples: readonly SampleOutcome[],
  date: string,
  samplesName: string | undefined = typeof summary.cell.model === 'string' ? summary.cell.model : undefined,
): Record<string, string> {
  const files = { generations, samples, date, ...(samplesName !== undefined ? { samplesName } : {}) };
  const own = summary.scores ? (kindOfCell(summary.scores).peerFiles?.(summary.scores, files) ?? {}) : {};
  return { 'evaluation_results.json': bigcodeMetricsJson(summary), ...own };
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
