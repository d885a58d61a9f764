/**
 * StudentEval, as bigcode-evaluation-harness's `studenteval` task runs it: the rows of Hugging
 * Face's wellesley-easel/StudentEval (test split; problem, entrypoint, assertions, prompt, username
 * and the four subset flags is_first_success, is_last_success, is_first_failure, is_last_failure),
 * several students' prompts per problem. bigcode keeps the rows in one of the four subsets (1,027
 * of the 1,749) in file order, asks for a continuation of each prompt (rstripped), cuts it at the
 * first of its stop words, runs the function and the row's assertions with python3 for at most
 * 15 s, and reports per subset the mean over prompts of each prompt's pass@1 (groupScores.ts).
 */
import { z } from 'zod';
import { isJsonArray, jsonArrayAsJsonl, parseJsonl } from '../../datasets/jsonl.js';
import type { ExecutionLimits } from '../../execution/types.js';
import type { LlmApi } from '../../llm/request.js';
import { defineFamily } from '../define.js';
import { DatasetEntryNameSchema, RowsFileSchema } from '../entry.js';
import { readsProblemsFiles } from '../evaluateOptions.js';
import { chatTaskInstruction, solutionFromGeneration, statusScore } from '../humanevalStyle.js';
import { pyRstrip } from '../repairText.js';
import type { DefinedFamily, ProblemOf, Requirement, TaskChecking, TaskScore } from '../types.js';
import { STUDENTEVAL_GROUPS, STUDENTEVAL_SCORES, type StudentEvalGroup } from './groupScores.js';

/** bigcode's stop words for StudentEval. */
export const STUDENTEVAL_STOP_WORDS = ['\ndef', '\nclass', '\nif', '\nprint'] as const;

/** bigcode's EXECUTION_TIMEOUT: each program runs at most 15 s. */
export const STUDENTEVAL_TIMEOUT_MS = 15_000;

export const StudentEvalEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('studenteval'),
  /** The test split: its Parquet (data/test-*.parquet) or the same rows as JSON Lines; local or s3://. */
  path: RowsFileSchema,
});
export type StudentEvalEntry = z.output<typeof StudentEvalEntrySchema>;

/** What a published row must have; its other columns (submitted_text, completion, prints, ...) are ignored. */
const RowSchema = z.looseObject({
  problem: z.string().min(1),
  entrypoint: z.string().min(1),
  assertions: z.string(),
  prompt: z.string(),
  username: z.string().min(1),
  is_first_success: z.boolean(),
  is_last_success: z.boolean(),
  is_first_failure: z.boolean(),
  is_last_failure: z.boolean(),
});
type StudentEvalRow = z.output<typeof RowSchema>;

/** bigcode's _get_group: the row's subset, its flags read in this order; null when it is in none. */
export function studentEvalGroup(
  row: Pick<StudentEvalRow, 'is_first_success' | 'is_last_success' | 'is_first_failure' | 'is_last_failure'>,
) {
  if (row.is_first_success) return 'First Success';
  if (row.is_last_success) return 'Last Success';
  if (row.is_first_failure) return 'First Failure';
  if (row.is_last_failure) return 'Last Failure';
  return null;
}

/**
 * What a problem carries beyond the core: what bigcode's aggregation groups by, its problem's name,
 * its subset and the prompt as written, which is the problem's `prompt` (bigcode's get_prompt, the
 * row's prompt rstripped) followed by `prompt_end` (the whitespace rstrip took off).
 */
const StudentEvalPayloadSchema = z.object({
  studenteval: z.object({ problem: z.string(), group: z.enum(STUDENTEVAL_GROUPS), prompt_end: z.string() }),
});
type StudentEvalProblem = ProblemOf<z.output<typeof StudentEvalPayloadSchema>>;

const slug = (group: StudentEvalGroup) => group.toLowerCase().replace(' ', '-');

/**
 * The rows in a subset as problems, in file order (bigcode's dataset, whose indices its
 * generations.json follows): task id `studenteval/<problem>/<username>/<subset>`, the prompt
 * rstripped (what a completion model continues), the assertions as the test.
 * A student has one first and one last attempt per problem, so a task id given twice is a file
 * that is not StudentEval's (the same rows twice): refused, naming both lines.
 */
export function studentEvalProblems(text: string, source: string): { problems: StudentEvalProblem[]; leftOut: number } {
  const rows = parseJsonl(isJsonArray(text) ? jsonArrayAsJsonl(text, source) : text, RowSchema, source);
  if (rows.length === 0) throw new Error(`${source} has no tasks`);
  const seen = new Map<string, number>();
  const problems: StudentEvalProblem[] = [];
  for (const { line, row } of rows) {
    const group = studentEvalGroup(row);
    if (group === null) continue;
    const taskId = `studenteval/${row.problem}/${row.username}/${slug(group)}`;
    const first = seen.get(taskId);
    if (first !== undefined)
      throw new Error(
        `${source}:${line}: ${row.username}'s ${group} prompt for ${row.problem} is given twice (first on line ${first}): ` +
          'StudentEval has one per student, problem and subset',
      );
    seen.set(taskId, line);
    const prompt = pyRstrip(row.prompt);
    problems.push({
      family: 'studenteval',
      task_id: taskId,
      prompt,
      entry_point: row.entrypoint,
      test: row.assertions,
      form: 'completion',
      studenteval: { problem: row.problem, group, prompt_end: row.prompt.slice(prompt.length) },
    });
  }
  if (problems.length === 0)
    throw new Error(`${source} has no tasks: none of its ${rows.length} rows is in a subset (is_first_success, is_last_success, ...)`);
  return { problems, leftOut: rows.length - problems.length };
}

/** bigcode's _stop_at_stop_token: the text before the first stop word to appear. */
function stopAtStopToken(text: string): string {
  let end = text.length;
  for (const stop of STUDENTEVAL_STOP_WORDS) {
    const at = text.indexOf(stop);
    if (at >= 0) end = Math.min(end, at);
  }
  return text.slice(0, end);
}

/**
 * The function a generation stands for. A completion: bigcode's postprocess_generation, the prompt
 * it continued, then the continuation cut at the first stop word (whatever stop words the request
 * carried: a model's own `stop` replaces the family's there, not here). A chat answer that defines
 * the function runs as it is, a bare body under the prompt; a saved generation (bigcode's
 * generations.json) is already post-processed.
 */
export function studentEvalSolution(problem: StudentEvalProblem, api: LlmApi | 'saved', code: string): string {
  if (api === 'completions') return problem.prompt + stopAtStopToken(code);
  return solutionFromGeneration({ ...problem, prompt: `${problem.prompt}\n` }, api, code);
}

export const studentEvalFamily: DefinedFamily<
  'studenteval',
  typeof StudentEvalEntrySchema,
  z.output<typeof StudentEvalPayloadSchema>
> = defineFamily({
  id: 'studenteval',
  description: "StudentEval (bigcode's studenteval): students' prompts for 48 Python problems; pass@1 per prompt, averaged per subset",
  entrySchema: StudentEvalEntrySchema,
  payloadSchema: StudentEvalPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ texts, sources }) => {
    const { problems, leftOut } = studentEvalProblems(texts.rows!, sources.rows!);
    return {
      problems,
      notes:
        leftOut > 0
          ? [`${sources.rows!}: ${leftOut} rows in none of the four subsets left out (as bigcode does), ${problems.length} prompts kept`]
          : [],
    };
  },
  stopWords: () => STUDENTEVAL_STOP_WORDS,
  language: () => 'python',
  // bigcode's get_prompt: the row's prompt rstripped, as the problem holds it.
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: chatTaskInstruction,
  solution: studentEvalSolution,
  // The dataset holds the students' prompts and the code generated for them then, no reference solution.
  referenceSolution: () => null,
  embedSolution: (_problem, solution) => solution,
  checking: (): TaskChecking => ({ kind: 'tests' }),
  // bigcode's program is the generation, two newlines, the assertions; Python's assemble puts one newline before the tests.
  tests: (problem) => `\n${problem.test}`,
  limits: (_problem, _reference, timeoutMs): Partial<ExecutionLimits> => ({ timeoutMs: Math.max(timeoutMs, STUDENTEVAL_TIMEOUT_MS) }),
  scoreKinds: [STUDENTEVAL_SCORES],
  // A run passes when the program exits 0 (bigcode: python3's exit code, a timeout a failure); the cell's figures are groupScores.ts's.
  score: (problem, outcome): TaskScore => ({ ...statusScore(problem, outcome), kind: 'studenteval' }),
  requirements: (): readonly Requirement[] => [],
  evaluate: readsProblemsFiles({
    bigcodeTasks: { names: 'studenteval', read: (task) => (task === 'studenteval' ? {} : null) },
    recognize: {
      rank: 25,
      test: (row) => 'assertions' in row && 'is_first_success' in row && 'username' in row,
      fields: "StudentEval's problem, entrypoint, assertions, prompt, username, is_first_success, ...",
    },
    form: 'completion',
    problems: ({ text, source }) => studentEvalProblems(text, source).problems,
  }),
});
