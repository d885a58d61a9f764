/**
 * What scripts/evaluate.ts scores, read and checked before anything runs: the problems (through
 * their family, evaluate-problems.ts), the samples (evaluate-samples.ts), each sample as an answer
 * to score (its task's index, its place among the task's samples in the file, its generation), and
 * the checks that make a bad input a usage error naming the file, the line or the flag: unknown
 * task ids, problems without samples, a set mixing ways of scoring, libraries the sandbox lacks.
 */
import { isStatementTask, type SweepProblem } from '../../domain/datasets/problems.js';
import { languageOf } from '../../domain/families/registry.js';
import { SANITIZER_LANGUAGE, type AnswerSanitizer, type Sanitizer } from '../../domain/llm/sanitizer.js';
import type { EvaluateOptionValues, SampleForm } from '../../domain/families/types.js';
import type { FamilyId } from '../../domain/families/ids.js';
import type { Generation } from '../../domain/scoring/sampleRecord.js';
import type { SavedAnswer } from '../../infra/scoring/scoreAnswers.js';
import { JsonlFileError } from '../../infra/sandbox/jsonlFile.js';
import { corpusMetricOf } from '../../domain/sweep/textScores.js';
import { familyOf, loadEvaluateProblems } from './evaluate-problems.js';
import { readSamples, type Sample } from './evaluate-samples.js';
import { requirementsProblem } from './requirements.js';
import { resolveSandboxPython } from '../../infra/sandbox/python.js';
import { UsageError } from './evaluate-usage.js';

export interface EvaluateInput {
  family: FamilyId;
  /** Every problem of the file, in its order (an answer's taskIndex is its place here). */
  problems: SweepProblem[];
  form: SampleForm;
  /** The samples, in the file's order. */
  samples: Sample[];
  /** Each sample as an answer to score, in the same order. */
  answers: SavedAnswer[];
  /** The problems with a sample. */
  attempted: SweepProblem[];
  /** What evaluate.ts says on stderr before scoring (samples skipped, as the family leaves their problems out). */
  notes: string[];
  /** Settings saying which part of the file is scored (LiveCodeBench's window), for results.json's `cell`. */
  cell: Readonly<Record<string, unknown>>;
}

/**
 * How a sample row's text becomes a generation: a `solution` is the whole program (evalplus's), a
 * `completion` as `form` says. With a sanitizer, the code is what it keeps of the solution, or of
 * the prompt, a newline and the completion (evalplus's sanitize command: `--form full`, of the
 * completion alone), as a whole program.
 */
function generationOf(row: Sample['row'], form: SampleForm, problem: SweepProblem, sanitize?: AnswerSanitizer): Generation {
  if (sanitize) {
    const raw = row.solution ?? row.completion!;
    const program = row.solution !== undefined || form === 'full' ? raw : `${problem.prompt}\n${raw}`;
    return { raw, code: sanitize(program, isStatementTask(problem) ? null : problem.entry_point), api: 'saved' };
  }
  if (row.solution !== undefined) return { raw: row.solution, code: row.solution, api: 'saved' };
  if (form !== 'completion') return { raw: row.completion!, code: row.completion!, api: 'saved' };
  // The endpoint's finish_reason, when the line gives it: how the completion ended (QuixBugs reads it).
  const ending = row.finish_reason === undefined ? {} : { ending: { raw: row.completion!, finishReason: row.finish_reason } };
  return { raw: row.completion!, code: row.completion!, api: 'completions', ...ending };
}

export function readEvaluateInput(input: {
  problemsText: string;
  problemsFile: string;
  samplesFile: string;
  family?: FamilyId;
  form?: SampleForm;
  options: EvaluateOptionValues;
  ignoreIncomplete: boolean;
  python?: string;
  /** bigcode's --limit: only the file's first `limit` tasks (and their samples). */
  limit?: number;
  /** bigcode's --n_samples: only each task's first `nSamples` samples. */
  nSamples?: number;
  /** --sanitize: the sanitizer, and its reading of a sample's code. */
  sanitize?: { name: Sanitizer; answers: AnswerSanitizer };
}): EvaluateInput {
  const source = input.problemsFile;
  let loaded: ReturnType<typeof loadEvaluateProblems>;
  try {
    loaded = loadEvaluateProblems({
      text: input.problemsText,
      source,
      ...(input.family ? { family: input.family } : {}),
      ...(input.form ? { form: input.form } : {}),
      options: input.options,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const indexOf = new Map(loaded.problems.map((p, i) => [p.task_id, i]));
  const problems = input.limit === undefined ? loaded.problems : loaded.problems.slice(0, input.limit);
  let samples: Sample[];
  try {
    samples = readSamples(
      input.samplesFile,
      loaded.problems.map((p) => p.task_id),
    ).samples;
  } catch (error) {
    if (error instanceof JsonlFileError) throw new UsageError(`--samples ${error.message}`);
    throw error;
  }
  if (samples.length === 0) throw new UsageError(`--samples ${input.samplesFile}: no samples in it; nothing to score`);
  const perTask = new Map<number, number>();
  const kept: Sample[] = [];
  const answers: SavedAnswer[] = [];
  // Samples of rows the family leaves out (LiveCodeBench's window): skipped, as the peer scores only the rest.
  const leftOut = new Set(loaded.leftOut?.taskIds ?? []);
  const skipped = new Set<string>();
  let skippedSamples = 0;
  for (const sample of samples) {
    const { where, row } = sample;
    const taskIndex = indexOf.get(String(row.task_id));
    if (taskIndex === undefined && leftOut.has(String(row.task_id))) {
      skipped.add(String(row.task_id));
      skippedSamples++;
      continue;
    }
    if (taskIndex === undefined) throw new UsageError(`${where}: task_id ${JSON.stringify(row.task_id)} is not in ${source}`);
    const sampleIndex = perTask.get(taskIndex) ?? 0;
    // bigcode's --limit and --n_samples: its first tasks, each task's first samples.
    if (taskIndex >= problems.length || (input.nSamples !== undefined && sampleIndex >= input.nSamples)) continue;
    perTask.set(taskIndex, sampleIndex + 1);
    kept.push(sample);
    answers.push({ taskIndex, sampleIndex, generation: generationOf(row, loaded.form, problems[taskIndex]!, input.sanitize?.answers) });
  }
  const notes = skippedSamples
    ? [
        `${skippedSamples} samples of ${skipped.size} problems skipped: ${loaded.leftOut!.why} (e.g. ${[...skipped].slice(0, 5).join(', ')})`,
      ]
    : [];
  if (kept.length === 0 && skippedSamples > 0)
    throw new UsageError(
      `--samples ${input.samplesFile}: every sample is of a problem left out: ${loaded.leftOut?.why ?? 'none scored'}; nothing to score`,
    );
  const attempted = [...perTask.keys()].sort((a, b) => a - b).map((t) => problems[t]!);
  if (input.sanitize) {
    const reads = SANITIZER_LANGUAGE[input.sanitize.name];
    const other = attempted.find((p) => languageOf(p).id !== reads);
    if (other)
      throw new UsageError(
        `--sanitize ${input.sanitize.name} reads ${reads}, but ${other.task_id} of ${source} is ${languageOf(other).id}`,
      );
  }
  // Tasks whose libraries the sandbox's Python lacks (DS-1000's) are refused before anything runs.
  const missingLibraries = requirementsProblem(
    [{ name: source, family: loaded.family, problems: attempted }],
    (p) => familyOf(p).requirements(p),
    input.python ?? resolveSandboxPython(),
  );
  if (missingLibraries) throw new UsageError(missingLibraries.replace(`datasets[${source}] (family ${loaded.family}): `, `${source}: `));
  const missing = problems.filter((_, t) => !perTask.has(t)).map((p) => p.task_id);
  if (missing.length > 0 && !input.ignoreIncomplete) {
    throw new UsageError(
      `${missing.length} of ${problems.length} problems have no sample (e.g. ${missing.slice(0, 5).join(', ')}); pass --ignore-incomplete to score the others`,
    );
  }
  // One way of scoring per set: problems scored from their text by one metric, or all run.
  try {
    corpusMetricOf(attempted, source);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return { family: loaded.family, problems, form: loaded.form, samples: kept, answers, attempted, notes, cell: loaded.cell ?? {} };
}
