/**
 * PAL (Gao et al. 2022, "PAL: Program-aided Language Models") on GSM8K (Cobbe et al. 2021) and
 * GSM-HARD, as bigcode-evaluation-harness runs it (tasks/gsm.py, custom_metrics/pal_metric/; its
 * tasks pal-gsm8k-* and pal-gsmhard-*): the model writes a Python `solution()` after eight worked
 * examples (prompt.ts); the program is bigcode's postprocessed generation (what follows the last
 * "# solution in Python:", cut before any "Q:", then `print(solution())`: domain/metrics/pal.ts);
 * it runs in the sandbox as bigcode's executor runs it (harness.ts), and its answer, the last line
 * it printed, is right when it is within 1e-3 of the reference.
 *
 * One family reads both datasets' rows as their owners publish them, told apart by their fields:
 * GSM8K's `question` and `answer` (the reference is the number after "#### ") and GSM-HARD's
 * `input`, `target` (a number) and `code` (its PAL program: the reference solution). A task's id
 * is its row's index in the file, 0-based: bigcode's doc index. Greedy and majority voting are two
 * ways a cell scores the same samples (`answer` scores, CellExtraScores `voting`): greedy is
 * bigcode's pal-*-greedy with one greedy sample per task, majority voting its
 * pal-*-majority_voting with k sampled ones (k = 40 in the paper).
 */
import { z } from 'zod';
import { firstRow, parseJsonl } from '../../datasets/jsonl.js';
import { datasetRowsProblem, type SweepProblem } from '../../datasets/problems.js';
import { gsm8kReference, isFailedAnswer, palProgram, palScore } from '../../metrics/pal.js';
import { pyStrip } from '../../metrics/pythonText.js';
import { DatasetEntryNameSchema, RowsFileSchema } from '../entry.js';
import { defineFamily } from '../define.js';
import type { DefinedFamily, ProblemOf, TaskScore } from '../types.js';
import { palHarness, palRunCall, reportedAnswer } from './harness.js';
import { PAL_STOP_WORDS, palPrompt } from './prompt.js';
import { VOTING_SCORES } from './votingScores.js';

export { PAL_STOP_WORDS, palPrompt } from './prompt.js';

export const PalEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('pal'),
  /** GSM8K's test.jsonl or GSM-HARD's gsmhardv2.jsonl (or .jsonl.gz), local or s3://. */
  path: RowsFileSchema,
});
export type PalEntry = z.output<typeof PalEntrySchema>;

/** What a PAL problem carries beyond the core: its dataset and the reference answer. */
export const PalPayloadSchema = z.object({
  dataset: z.enum(['gsm8k', 'gsm-hard']),
  target: z.union([z.number(), z.string()]),
});
type PalProblem = ProblemOf<z.output<typeof PalPayloadSchema>>;

/** A row of GSM8K (openai/grade-school-math; Hugging Face's gsm8k, config main). */
const Gsm8kRowSchema = z.looseObject({
  question: z.string().min(1),
  answer: z.string().includes('#### ', { message: 'must end with "#### <the answer>", as GSM8K\'s answers do' }),
});
/** A row of GSM-HARD (Hugging Face's reasoning-machines/gsm-hard). */
const GsmHardRowSchema = z.looseObject({
  input: z.string().min(1),
  target: z.number(),
  code: z.string().optional(),
});

/** Answers longer than this are kept cut short: no number is, and a cell's tallies stay small. */
const MAX_KEPT_ANSWER = 200;

/** The file's problems, in file order; its first row says which dataset it is. Errors name the file, the line and the field. */
export function readPalProblems(text: string, source: string): PalProblem[] {
  const first = firstRow(text, source)?.row;
  const hard = typeof first === 'object' && first !== null && 'input' in first && !('question' in first);
  const problems: Array<{ line: number; problem: PalProblem }> = hard
    ? parseJsonl(text, GsmHardRowSchema, source).map(({ line, row }, i) => ({
        line,
        problem: {
          ...core(i, row.input),
          ...(row.code !== undefined ? { canonical_solution: row.code } : {}),
          dataset: 'gsm-hard' as const,
          target: row.target,
        },
      }))
    : parseJsonl(text, Gsm8kRowSchema, source).map(({ line, row }, i) => ({
        line,
        problem: { ...core(i, row.question), dataset: 'gsm8k' as const, target: gsm8kReference(row.answer) },
      }));
  const problem = datasetRowsProblem(
    problems.map(({ line, problem: p }) => ({ line, row: p })),
    source,
  );
  if (problem) throw new Error(problem);
  return problems.map(({ problem: p }) => p);
}

function core(index: number, question: string): SweepProblem {
  return { family: 'pal', task_id: String(index), prompt: palPrompt(question), entry_point: 'solution', test: '', form: 'completion' };
}

/** bigcode's saved generations are postprocessed programs already: those ending in the print are run as they are. */
function savedProgram(code: string): string {
  return /(^|\n)print\(solution\(\)\)\s*$/.test(code) ? code : palProgram(code);
}

// Typed here: its evaluate step loads through it.
export const palFamily: DefinedFamily<'pal', typeof PalEntrySchema, z.output<typeof PalPayloadSchema>> = defineFamily({
  id: 'pal',
  description: "PAL on GSM8K or GSM-HARD (bigcode's pal-gsm8k-*, pal-gsmhard-*): the model's program computes the answer",
  entrySchema: PalEntrySchema,
  payloadSchema: PalPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ texts, sources }) => ({ problems: readPalProblems(texts.rows!, sources.rows!), notes: [] }),
  stopWords: () => PAL_STOP_WORDS,
  language: () => 'python',
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: () =>
    'Answer the last question below the way the examples do: write a Python function `solution()` that computes ' +
    'the answer and returns it. Reply with the function in one ```python code block.',
  // bigcode's generation is the prompt and the completion; a chat answer's code stands alone.
  solution: (problem, api, code) =>
    api === 'saved' ? savedProgram(code) : palProgram(api === 'completions' ? problem.prompt + code : code),
  referenceSolution: (problem) => (problem.canonical_solution === undefined ? null : palProgram(problem.canonical_solution)),
  embedSolution: (_problem, solution) => palHarness(solution),
  checking: () => ({ kind: 'tests' }),
  tests: (problem) => palRunCall(problem.target),
  limits: (_problem, _reference, timeoutMs) => ({ timeoutMs }),
  scoreKinds: [VOTING_SCORES],
  score: (problem, outcome): TaskScore => {
    // The harness fails a run whose answer is wrong (`failed`) after reporting it.
    const reported = outcome.status === 'passed' || outcome.status === 'failed' ? reportedAnswer(outcome.stdout) : null;
    // A last line that reads "failed: ..." is a failed run to bigcode (left out of the vote), whoever printed it.
    const answer = reported === null || isFailedAnswer(reported) ? null : reported;
    // bigcode scores a task whose answer or reference float() refuses as 0, counted as a failed execution.
    const score = answer === null ? undefined : palScore(answer, problem.target);
    const kept = answer === null || answer.length <= MAX_KEPT_ANSWER ? answer : `${pyStrip(answer.slice(0, MAX_KEPT_ANSWER))}…`;
    return { kind: 'answer', passed: score === 1, success: answer !== null, answer: kept, comparable: score !== undefined };
  },
  requirements: () => [],
  evaluate: {
    kind: 'reads',
    // bigcode's pal-<gsm8k|gsmhard>-<greedy|majority_voting>: which evaluation type's figures lead.
    bigcodeTasks: {
      names: 'pal-gsm8k-greedy, pal-gsm8k-majority_voting, pal-gsmhard-greedy, pal-gsmhard-majority_voting',
      read: (task) => {
        const type = /^pal-(?:gsm8k|gsmhard)-(greedy|majority_voting)$/.exec(task)?.[1];
        return type === undefined ? null : type === 'greedy' ? { cell: { n_samples: 1 } } : {};
      },
    },
    recognize: {
      // After APPS, whose rows have a question too.
      rank: 25,
      test: (row) => ('question' in row && 'answer' in row) || ('input' in row && 'target' in row),
      fields: "GSM8K's question, answer or GSM-HARD's input, target",
    },
    // bigcode's saved generations are whole programs (a sample without the final print is postprocessed first).
    form: 'full',
    problems: ({ text, source }) => readPalProblems(text, source),
  },
});
