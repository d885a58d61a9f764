/**
 * HumanEvalExplain (OctoPack), as bigcode-evaluation-harness's humanevalpack.py runs it: a model
 * describes each HumanEvalPack row's canonical solution (humanevalexplaindescribe-<language>), then
 * writes the function again from its own description alone (humanevalexplainsynthesize-<language>),
 * which is run against the row's tests: pass@k. The prompts and the description's cut are
 * prompts.ts; the synthesized function is post-processed, run and scored as HumanEvalSynthesize's
 * (the problems carry humanevalpack's payload and those steps are humanevalpack's own), so every
 * language humanevalpack runs, this family runs.
 *
 * Two ways to run it:
 * - a sweep: each sample asks both steps (nextStep): sample i describes (its own seed), and its
 *   description is the one sample i's synthesis is written from, as bigcode's recipe pairs them
 *   (describe with --n_samples n, synthesize from each of the n descriptions with --n_samples 1);
 *   both requests are cached, so a retried or resumed sample pays for neither again;
 * - evaluate.ts with bigcode's task names: describe's generations are not scored (bigcode raises),
 *   synthesize's are, read with the describe step's generations (`--load_data_path`): one task per
 *   (row, description), in bigcode's order (its get_dataset), so its generations file lines up.
 */
import { z } from 'zod';
import { isJsonArray, jsonArrayAsJsonl, parseJsonl } from '../../datasets/jsonl.js';
import type { SweepProblem } from '../../datasets/problems.js';
import { defineFamily } from '../define.js';
import { DatasetEntryNameSchema, RowsFileSchema } from '../entry.js';
import { flag, readsProblemsFiles } from '../evaluateOptions.js';
import {
  humanEvalPackFamily,
  humanEvalPackProblems,
  packStopWords,
  PACK_PROMPTS,
  rowsLanguage,
  RUN_LANGUAGES,
} from '../humanevalpack/index.js';
import { packPromptOption } from '../humanevalpack/promptOption.js';
import { PACK_LANGUAGES, TASK_ID_PREFIX, type PackLanguage, type PackPrompt, type RunLanguage } from '../humanevalpack/prompts.js';
import type { DefinedFamily, ProblemOf } from '../types.js';
import { readDescriptions } from './descriptions.js';
import { describePostprocess, describePrompt, refusedExplainPrompt, synthesizePrompt } from './prompts.js';

export { describePostprocess, describePrompt, readDescriptions, refusedExplainPrompt, synthesizePrompt };

/** bigcode's `--prompt`: its formats that take a context; the others refused by name. */
const EXPLAIN_OPTIONS = packPromptOption(refusedExplainPrompt);

/** evaluate.ts's `--load_data_path` (bigcode's): the describe step's generations, read by evaluate.ts ({path, text}). */
const LoadDataSchema = z
  .object({ path: z.string(), text: z.string() })
  .optional()
  .meta(
    flag({
      description:
        "humanevalexplain: bigcode's --load_data_path, the describe step's generations (its generations.json: one list of descriptions per task; or JSON Lines of {task_id, description})",
      value: 'file',
      flag: 'load_data_path',
      file: true,
    }),
  );

/** evaluate.ts's `--subset` for this family: bigcode's task name after `humaneval`. */
const SubsetFlagSchema = z
  .string()
  .min(1)
  .optional()
  .meta(
    flag({
      description: "bigcode's task suffix explain<describe|synthesize>-<python|js> (default explainsynthesize in the rows' language)",
      value: 'subset',
    }),
  );

export const HumanEvalExplainEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('humanevalexplain'),
  /** One language's humanevalpack.jsonl (or its Parquet), local or s3://. */
  path: RowsFileSchema,
  /** The rows' language: every row's task_id must start with its prefix (Python/, JavaScript/). */
  language: z.enum(RUN_LANGUAGES, {
    error: `must be one of the HumanEvalPack languages explora runs: ${RUN_LANGUAGES.join(', ')}`,
  }),
  ...EXPLAIN_OPTIONS.entry,
});
export type HumanEvalExplainEntry = z.output<typeof HumanEvalExplainEntrySchema>;

const ExplainRowSchema = z.object({
  prompt: z.string(),
  declaration: z.string(),
  canonical_solution: z.string(),
  buggy_solution: z.string(),
  entry_point: z.string().min(1),
  test: z.string(),
  instruction: z.string(),
  docstring: z.string(),
});

const PackPayloadSchema = z.object({
  humanevalpack: z.object({ language: z.enum(RUN_LANGUAGES), prompt: z.enum(PACK_PROMPTS) }).loose(),
});

const HumanEvalExplainPayloadSchema = PackPayloadSchema.extend({
  humanevalexplain: z.object({
    /** The row's fields both steps read (the describe prompt, the description's cut, the synthesize prompt). */
    row: ExplainRowSchema,
    /** null: the describe step (the problem as stored); the description: the synthesize step asked from it. */
    description: z.string().nullable(),
  }),
});
type ExplainProblem = ProblemOf<z.output<typeof HumanEvalExplainPayloadSchema>>;

function parseRows(text: string, source: string) {
  return parseJsonl(isJsonArray(text) ? jsonArrayAsJsonl(text, source) : text, ExplainRowSchema.loose(), source);
}

/**
 * The rows as the describe step's problems (the describe prompt; humanevalpack's HumanEvalSynthesize
 * payload, which post-processes, runs and scores the synthesized function).
 */
export function humanEvalExplainProblems(
  text: string,
  source: string,
  options: { language: RunLanguage; prompt: PackPrompt },
): ExplainProblem[] {
  const refused = refusedExplainPrompt(options.prompt);
  if (refused) throw new Error(`prompt ${JSON.stringify(options.prompt)}: ${refused}`);
  const packs = humanEvalPackProblems(text, source, { ...options, variant: 'synthesize' });
  const rows = parseRows(text, source);
  return packs.map((pack, t) => {
    const row = ExplainRowSchema.parse(rows[t]!.row);
    return {
      ...(pack as SweepProblem & z.output<typeof PackPayloadSchema>),
      family: 'humanevalexplain' as const,
      prompt: describePrompt(options.prompt, row, options.language),
      humanevalexplain: { row, description: null },
    };
  });
}

/** The synthesize step's problem: the description (post-processed) as its context. */
export function synthesizeProblem(problem: ExplainProblem, description: string, taskId = problem.task_id): ExplainProblem {
  const { language, prompt } = problem.humanevalpack;
  const row = problem.humanevalexplain.row;
  return {
    ...problem,
    task_id: taskId,
    prompt: synthesizePrompt(prompt, row, language, description),
    humanevalexplain: { row, description },
  };
}

/** The stop words of both steps: bigcode's HumanEvalPack constructor sets them for describe and synthesize alike. */
const stopWordsOf = (problem: ExplainProblem) => packStopWords(problem.humanevalpack.language, problem.humanevalpack.prompt);

const describing = (problem: ExplainProblem) => problem.humanevalexplain.description === null;

export const humanEvalExplainFamily: DefinedFamily<
  'humanevalexplain',
  typeof HumanEvalExplainEntrySchema,
  z.output<typeof HumanEvalExplainPayloadSchema>
> = defineFamily({
  id: 'humanevalexplain',
  description:
    "HumanEvalExplain (bigcode's humanevalexplaindescribe-/humanevalexplainsynthesize-<python|js>): describe the solution, write it again from the description, pass@k",
  entrySchema: HumanEvalExplainEntrySchema,
  payloadSchema: HumanEvalExplainPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => ({ problems: humanEvalExplainProblems(texts.rows!, sources.rows!, entry), notes: [] }),
  stopWords: (entry) => packStopWords(entry.language, entry.prompt),
  asksInTwoSteps: () => true,
  nextStep: (problem, answer) =>
    describing(problem)
      ? synthesizeProblem(problem, describePostprocess(answer, problem.humanevalexplain.row, stopWordsOf(problem)))
      : undefined,
  language: (problem) => humanEvalPackFamily.language(problem),
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: (problem) =>
    describing(problem)
      ? 'Answer the request below with the description alone, in plain words, without code.'
      : humanEvalPackFamily.chatInstruction(problem),
  solution: (problem, api, code) => humanEvalPackFamily.solution(problem, api, code),
  referenceSolution: (problem) => problem.canonical_solution ?? null,
  embedSolution: (problem, solution) => humanEvalPackFamily.embedSolution(problem, solution),
  checking: (problem) => humanEvalPackFamily.checking(problem),
  tests: (problem, reference) => humanEvalPackFamily.tests(problem, reference),
  limits: (problem, reference, timeoutMs) => humanEvalPackFamily.limits(problem, reference, timeoutMs),
  score: (problem, outcome) => humanEvalPackFamily.score(problem, outcome),
  requirements: (problem) => humanEvalPackFamily.requirements(problem),
  evaluate: readsProblemsFiles({
    bigcodeTasks: {
      names: 'humanevalexplaindescribe-<python|js>, humanevalexplainsynthesize-<python|js> (with --load_data_path)',
      read: (task) => {
        const subset = /^humaneval(explain(?:describe|synthesize)-[a-z]+)$/.exec(task)?.[1];
        return subset === undefined ? null : { options: { subset } };
      },
    },
    options: EXPLAIN_OPTIONS.evaluate.extend({ subset: SubsetFlagSchema, load_data_path: LoadDataSchema }),
    form: 'completion',
    problems: ({ text, source, options }) => {
      const fileLanguage = rowsLanguage(text, source);
      const [step, language] = parseExplainSubset(options.subset, fileLanguage);
      if (language !== fileLanguage)
        throw new Error(`--subset ${options.subset}: ${source} holds ${fileLanguage} rows (task_id ${TASK_ID_PREFIX[fileLanguage]}/...)`);
      if (!(RUN_LANGUAGES as readonly string[]).includes(language))
        throw new Error(`${source}: HumanEvalPack's ${language} rows are not run by explora yet (${RUN_LANGUAGES.join(', ')})`);
      if (step === 'describe')
        throw new Error(
          `humanevalexplaindescribe-${language} has no score (bigcode's process_results raises: run it with --generation_only): ` +
            `its generations are the descriptions that --tasks humanevalexplainsynthesize-${language} reads with --load_data_path FILE, ` +
            'then scores the functions written from them (--load_generations_path)',
        );
      const prompt = (options.prompt ?? 'instruct') as PackPrompt;
      const why = refusedExplainPrompt(prompt);
      if (why) throw new Error(`--prompt ${JSON.stringify(prompt)}: ${why}`);
      const data = options.load_data_path;
      if (data === undefined)
        throw new Error(
          `humanevalexplainsynthesize-${language}: give the describe step's generations with --load_data_path FILE (bigcode's flag; its generations.json of humanevalexplaindescribe-${language})`,
        );
      const described = humanEvalExplainProblems(text, source, { language: language as RunLanguage, prompt });
      const descriptions = readDescriptions(
        data.text,
        `--load_data_path ${data.path}`,
        described.map((p) => p.task_id),
      );
      return explainSynthesizeProblems(described, descriptions);
    },
  }),
});

/**
 * bigcode's HumanEvalExplainSynthesize dataset: each row once per description (its get_dataset:
 * rows in order, each row's descriptions in theirs). One description a row: the row's task_id;
 * several: `<task_id>#<j>`, a task each, as bigcode scores each (row, description) on its own.
 */
export function explainSynthesizeProblems(described: readonly ExplainProblem[], descriptions: readonly string[][]): ExplainProblem[] {
  const several = descriptions.some((list) => list.length > 1);
  return described.flatMap((problem, t) =>
    descriptions[t]!.map((description, j) =>
      synthesizeProblem(problem, description, several ? `${problem.task_id}#${j}` : problem.task_id),
    ),
  );
}

/** `--subset` (bigcode's task name after `humaneval`): explain<describe|synthesize>-<language>; absent: synthesize in the rows' language. */
function parseExplainSubset(subset: string | undefined, fileLanguage: PackLanguage): ['describe' | 'synthesize', PackLanguage] {
  if (subset === undefined) return ['synthesize', fileLanguage];
  const match = /^explain(describe|synthesize)-(.+)$/.exec(subset);
  if (!match || !(PACK_LANGUAGES as readonly string[]).includes(match[2]!))
    throw new Error(
      `--subset ${JSON.stringify(subset)}: HumanEvalExplain's are explain<describe|synthesize>-<${PACK_LANGUAGES.join('|')}>`,
    );
  return [match[1] as 'describe' | 'synthesize', match[2] as PackLanguage];
}
