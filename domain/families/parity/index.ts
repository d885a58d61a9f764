/**
 * Parity, as bigcode-evaluation-harness's `parity` task runs it (from CarperAI's OpenELM): a
 * four-bit parity function with 1 to 5 bugs planted by bigcode's mutate_code, to be fixed in one of
 * its prompt formats (`--prompt`: prompt, prompt_carper, edit, diff); the answer's first block (cut
 * at the first stop word, rstripped) is run before the assertion over all 16 inputs. bigcode's
 * dataset is the list of bug counts [1, 2, 3, 4, 5], which a rows file here holds (one count a
 * line, or a JSON array); its score is pass@1 per bug count (each generation scored alone), which
 * is each task's pass@1 here.
 */
import { z } from 'zod';
import { isJsonArray, jsonArrayAsJsonl, parseJsonl } from '../../datasets/jsonl.js';
import type { ExecutionLimits } from '../../execution/types.js';
import type { LlmApi } from '../../llm/request.js';
import { defineFamily } from '../define.js';
import { PARITY_SCORES } from './bugCountScores.js';
import { DatasetEntryNameSchema, JsonlFileSchema } from '../entry.js';
import { readsProblemsFiles } from '../evaluateOptions.js';
import { statusScore } from '../humanevalStyle.js';
import { firstBlock } from '../repairText.js';
import { familyOptions, option } from '../familyOptions.js';
import type { DefinedFamily, ProblemOf, Requirement, TaskChecking, TaskScore } from '../types.js';

export const PARITY_PROMPTS = ['prompt', 'prompt_carper', 'edit', 'diff'] as const;
export type ParityPrompt = (typeof PARITY_PROMPTS)[number];

/** bigcode's stop words for Parity, whatever the prompt. */
export const PARITY_STOP_WORDS = [
  '\nclass',
  '\ndef',
  '\n#',
  '\n@',
  '\nprint',
  '\nif',
  '<commit_before>',
  '<commit_msg>',
  '<commit_after>',
  '<|endoftext|>',
] as const;

/** bigcode's mutation_templates: the text before and after the buggy function. */
const TEMPLATES: Record<ParityPrompt, readonly [string, string]> = {
  diff: ['<NME> parity.py\n<BEF> ', '\n<MSG> Fixed bugs'],
  prompt_carper: ['# A buggy implementation\n#!/usr/bin/python3\n', '\n# Fixed bugs\ndef'],
  prompt: ['#!/usr/bin/python3\n# A buggy implementation\n', '\n# Fixed bugs\ndef'],
  edit: ['<commit_before>', '<commit_msg>Fix bugs<commit_after>'],
};

/**
 * bigcode's buggy parity function with n bugs: the first min(n, 4) of the summed bits b1..b4 read
 * c1..c4, and with 5 the modulus 2 reads 3.
 */
export function parityFunction(bugs: number): string {
  const v: Array<string | number> = ['b', 'b', 'b', 'b', 2];
  for (let i = 0; i < bugs; i++) v[i] = i < 4 ? 'c' : 3;
  return (
    'def parity(b1,b2,b3,b4):\n    """Return binary parity of a sequence of input bits. Return 0 for even parity, 1 for odd parity."""\n' +
    `    bit_sum = sum([${v[0]}1,${v[1]}2,${v[2]}3,${v[3]}4])\n    return bit_sum % ${v[4]}`
  );
}

/** bigcode's mutate_code(n_bugs, "parity", prompt). */
export function parityPrompt(bugs: number, prompt: ParityPrompt): string {
  const [before, after] = TEMPLATES[prompt];
  return before + parityFunction(bugs) + after;
}

/** bigcode's parity_tests: one assertion over the 16 inputs, in itertools.product order, Python's tuple repr. */
export const PARITY_TESTS =
  'assert ' +
  Array.from({ length: 16 }, (_, i) => {
    const bits = [(i >> 3) & 1, (i >> 2) & 1, (i >> 1) & 1, i & 1];
    const parity = bits.reduce((a, b) => a + b, 0) % 2;
    return `(${parity} == parity(${bits.join(', ')}))`;
  }).join(' and ');

/** bigcode's `--prompt` for the task: the entry's `prompt` and evaluate.ts's `--prompt`. */
const PARITY_OPTIONS = familyOptions({
  prompt: option(
    z.enum(PARITY_PROMPTS, { error: `must be one of bigcode's Parity prompts: ${PARITY_PROMPTS.join(', ')}` }).default('prompt'),
    {
      help: "bigcode's --prompt: prompt, prompt_carper, edit or diff (default prompt)",
      value: 'format',
    },
  ),
});

export const ParityEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('parity'),
  /** bigcode's dataset, the bug counts: JSON Lines of 1..5 (`1`, `2`, ... one a line); local or s3://. */
  path: JsonlFileSchema,
  ...PARITY_OPTIONS.entry,
});

const ParityPayloadSchema = z.object({ parity: z.object({ prompt: z.enum(PARITY_PROMPTS), bugs: z.int().min(1).max(5) }) });
type ParityProblem = ProblemOf<z.output<typeof ParityPayloadSchema>>;

const BugsSchema = z.int().min(1, 'must be a bug count, 1 to 5').max(5, 'must be a bug count, 1 to 5');

/** The bug counts of a rows file as problems: task id `parity/<n>-bugs` (bigcode's "<n> bugs"), bigcode's prompt and tests. */
export function parityProblems(text: string, prompt: ParityPrompt, source: string): ParityProblem[] {
  const rows = parseJsonl(isJsonArray(text) ? jsonArrayAsJsonl(text, source) : text, BugsSchema, source);
  if (rows.length === 0) throw new Error(`${source} has no tasks`);
  const seen = new Map<number, number>();
  return rows.map(({ line, row: bugs }) => {
    const first = seen.get(bugs);
    if (first !== undefined) throw new Error(`${source}:${line}: ${bugs} bugs is given twice (first on line ${first})`);
    seen.set(bugs, line);
    return {
      family: 'parity' as const,
      task_id: `parity/${bugs}-bugs`,
      prompt: parityPrompt(bugs, prompt),
      entry_point: 'parity',
      test: PARITY_TESTS,
      // Not bigcode's (it has none): the function with no bug, what --check-references runs.
      canonical_solution: parityFunction(0),
      form: 'completion' as const,
      parity: { prompt, bugs },
    };
  });
}

/**
 * The fixed function a generation stands for. A completion: bigcode's postprocess_generation (the
 * text after the prompt, `def` put back for the prompt* formats, its first block); the request
 * carries the stop words, and a completion holding some (a model's own `stop`) is cut at the first
 * as bigcode does. A chat answer is the fixed function as written; a saved generation (bigcode's
 * generations.json) is already post-processed.
 */
export function paritySolution(problem: ParityProblem, api: LlmApi | 'saved', code: string): string {
  if (api !== 'completions') return code;
  return firstBlock((problem.parity.prompt.startsWith('prompt') ? 'def' : '') + code, PARITY_STOP_WORDS);
}

export const parityFamily: DefinedFamily<'parity', typeof ParityEntrySchema, z.output<typeof ParityPayloadSchema>> = defineFamily({
  id: 'parity',
  description: "Parity (bigcode's parity): fix a parity function with 1 to 5 planted bugs; an assertion over its 16 inputs (pass@k)",
  entrySchema: ParityEntrySchema,
  payloadSchema: ParityPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => ({ problems: parityProblems(texts.rows!, entry.prompt, sources.rows!), notes: [] }),
  stopWords: () => PARITY_STOP_WORDS,
  language: () => 'python',
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: () => 'The Python function `parity` below has bugs. Reply with the whole fixed function in one ```python code block.',
  solution: paritySolution,
  referenceSolution: (problem) => problem.canonical_solution ?? null,
  embedSolution: (_problem, solution) => solution,
  checking: (): TaskChecking => ({ kind: 'tests' }),
  tests: (problem) => problem.test,
  limits: (_problem, _reference, timeoutMs): Partial<ExecutionLimits> => ({ timeoutMs }),
  scoreKinds: [PARITY_SCORES],
  // A run's pass or fail, of the kind whose cell figures are bigcode's process_results (bugCountScores.ts).
  score: (problem, outcome): TaskScore => ({ ...statusScore(problem, outcome), kind: 'parity' }),
  requirements: (): readonly Requirement[] => [],
  evaluate: readsProblemsFiles({
    bigcodeTasks: { names: 'parity', read: (task) => (task === 'parity' ? {} : null) },
    options: PARITY_OPTIONS.evaluate,
    form: 'completion',
    problems: ({ text, source, options }) => parityProblems(text, options.prompt ?? 'prompt', source),
  }),
});
