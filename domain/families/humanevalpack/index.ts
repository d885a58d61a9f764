/**
 * HumanEvalPack (OctoPack, Muennighoff et al. 2023), as bigcode-evaluation-harness's
 * humanevalpack.py runs it: the rows of Hugging Face's bigcode/humanevalpack
 * (data/<language>/data/humanevalpack.jsonl: task_id, prompt, declaration, canonical_solution,
 * buggy_solution, bug_type, failure_symptoms, entry_point, import, test_setup, test, example_test,
 * signature, docstring, instruction), asked as HumanEvalSynthesize (the instruction, the prompt to
 * continue), HumanEvalFixTests (the buggy function and its tests, the declaration to continue) or
 * HumanEvalFixDocs (the buggy function after its docstring) in one of bigcode's `--prompt` formats
 * (prompts.ts); the answer cut as postprocess_generation cuts it and put before the row's `test`
 * as process_results does (postprocess.ts), pass@k. All six of bigcode's languages: python, js,
 * java, go, cpp, rust.
 *
 * How a run counts is code_eval_octopack's (CodeGeeX's execution), each language in its sandbox
 * toolchain (infra/sandbox/process/toolchains/): Python passes when the program ends without an
 * exception; JavaScript passes only when node writes nothing at all (its tests are console.assert
 * calls, which print and go on): the program starts by making any write to stdout or stderr end it
 * with exit code 1 (and a run that printed counts as failed whatever its end). C++ (g++ with
 * boost's headers), Java (Main.java, `java Main`), Go (`go test` with testify) and Rust (checked as
 * a binary, then its #[test]s run, as `cargo check` and `cargo test` do, with the crates of
 * code_eval_octopack's Cargo project) pass when every step exits 0.
 */
import { z } from 'zod';
import { isJsonArray, jsonArrayAsJsonl, parseJsonl } from '../../datasets/jsonl.js';
import { datasetRowsProblem } from '../../datasets/problems.js';
import { isSuccess, type ExecutionLimits } from '../../execution/types.js';
import type { LanguageId } from '../../languages/registry.js';
import type { LlmApi } from '../../llm/request.js';
import { defineFamily } from '../define.js';
import { DatasetEntryNameSchema, RowsFileSchema } from '../entry.js';
import { flag, readsProblemsFiles } from '../evaluateOptions.js';
import type { DefinedFamily, ProblemOf, Requirement, TaskChecking, TaskScore, ToolchainPart } from '../types.js';
import { applyCarperDiff, carperDiffHunk } from './carperDiff.js';
import { applyDmpPatch } from './dmpPatch.js';
import { packPostprocess, packProgramCode, packRemoveLastBlock } from './postprocess.js';
import { packPromptOption } from './promptOption.js';
import {
  PACK_LANGUAGES,
  PACK_PROMPTS,
  PACK_VARIANTS,
  packPrompt,
  packStopWords,
  promptBase,
  refusedPrompt,
  RUN_LANGUAGES,
  TASK_ID_PREFIX,
  type PackLanguage,
  type PackPrompt,
  type PackVariant,
  type RunLanguage,
} from './prompts.js';

export { PACK_PROMPTS, PACK_VARIANTS, RUN_LANGUAGES, packPrompt, packStopWords };

/** bigcode's LANGUAGE_TO_TIMEOUT, in ms (Rust's 300 s is for cargo's first build: its run gets the others' 20 s). */
const TIMEOUT_MS: Record<RunLanguage, number> = { python: 10_000, js: 10_000, java: 10_000, go: 20_000, cpp: 60_000, rust: 20_000 };

const LANGUAGE_NAME: Record<RunLanguage, { name: string; fence: string }> = {
  python: { name: 'Python', fence: 'python' },
  js: { name: 'JavaScript', fence: 'javascript' },
  java: { name: 'Java', fence: 'java' },
  go: { name: 'Go', fence: 'go' },
  cpp: { name: 'C++', fence: 'cpp' },
  rust: { name: 'Rust', fence: 'rust' },
};

/** The explora language (domain/languages/) whose sandbox toolchain runs each HumanEvalPack language's programs. */
const RUNS_AS: Record<RunLanguage, LanguageId> = { python: 'python', js: 'js', java: 'java', go: 'go_test.go', cpp: 'cpp', rust: 'rs' };

const octopackPart = (part: ToolchainPart, language: string, why: string): Requirement[] => [
  { kind: 'toolchain-part', part, why: `HumanEvalPack's ${why}`, install: `bash scripts/install-toolchains.sh ${language}` },
];
const REQUIREMENTS: Record<RunLanguage, readonly Requirement[]> = {
  python: [
    {
      kind: 'python-module',
      module: 'numpy',
      why: "HumanEvalPack's Python programs (bigcode's import helper)",
      install: 'bash scripts/install-sandbox-python.sh',
    },
  ],
  js: [],
  java: [],
  cpp: octopackPart('boost-headers', 'cpp', "C++ programs (bigcode's import helper includes <boost/any.hpp>)"),
  go: octopackPart('go-testify', 'go_test.go', 'Go tests (they import testify)'),
  rust: octopackPart('rust-crates', 'rs', 'Rust programs (their declarations use rand, regex and md5)'),
};

/** bigcode's `--prompt` for HumanEvalPack: its formats; its other `--prompt` values refused by name (refusedPrompt). */
const PACK_OPTIONS = packPromptOption((prompt) =>
  (PACK_PROMPTS as readonly string[]).includes(prompt) ? null : refusedPrompt(prompt, 'synthesize'),
);

/**
 * evaluate.ts's `--subset`, bigcode's task name after `humaneval`: <variant>-<language>. The entry
 * says the two apart (`variant`, `language`), so this flag is the family's alone (parseSubset).
 */
const SubsetFlagSchema = z
  .string()
  .min(1)
  .optional()
  .meta(
    flag({
      description:
        "humanevalpack: bigcode's task suffix <synthesize|fixtests|fixdocs>-<python|js|java|go|cpp|rust> (default synthesize in the rows' language)",
      value: 'subset',
    }),
  );

export const HumanEvalPackEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('humanevalpack'),
  /** One language's humanevalpack.jsonl (or its Parquet), local or s3://. */
  path: RowsFileSchema,
  /** The rows' language, bigcode's: every row's task_id must start with its prefix (Python/, JavaScript/). */
  language: z.enum(RUN_LANGUAGES, { error: `must be one of the HumanEvalPack languages: ${RUN_LANGUAGES.join(', ')}` }),
  /** synthesize (HumanEvalSynthesize), fixtests or fixdocs (HumanEvalFix). */
  variant: z.enum(PACK_VARIANTS, { error: `must be one of ${PACK_VARIANTS.join(', ')}` }).default('synthesize'),
  /** bigcode's `--prompt` (a Fix-only format with synthesize, or continue with a Fix variant, is refused when the rows load). */
  ...PACK_OPTIONS.entry,
});
export type HumanEvalPackEntry = z.output<typeof HumanEvalPackEntrySchema>;

const RowSchema = z.looseObject({
  task_id: z.string().min(1),
  prompt: z.string(),
  declaration: z.string(),
  canonical_solution: z.string(),
  buggy_solution: z.string(),
  entry_point: z.string().min(1),
  test: z.string(),
  instruction: z.string(),
  test_setup: z.string().optional(),
});

const HumanEvalPackPayloadSchema = z.object({
  humanevalpack: z.object({
    language: z.enum(RUN_LANGUAGES),
    variant: z.enum(PACK_VARIANTS),
    prompt: z.enum(PACK_PROMPTS),
    /** What post-processing puts before the kept text: the row's prompt (Synthesize), the prompt base (Fix). */
    base: z.string(),
    /** Rust: the row's declaration, whose lines process_results adds where the generation lacks them. */
    declaration: z.string().optional(),
    /** Go: the row's test_setup (package main, testing, testify), which process_results puts first. */
    test_setup: z.string().optional(),
    /** diff and diff-carper: the buggy code (prompt base and buggy solution) the model's patch is applied to. */
    buggy: z.string().optional(),
  }),
});
type PackProblem = ProblemOf<z.output<typeof HumanEvalPackPayloadSchema>>;

/** The language of rows, from the first row's task_id prefix (Python/0, JavaScript/0, ...). */
export function rowsLanguage(text: string, source: string): PackLanguage {
  const rows = parseRows(text, source);
  const prefix = rows[0]!.row.task_id.split('/')[0]!;
  const language = PACK_LANGUAGES.find((l) => TASK_ID_PREFIX[l] === prefix);
  if (!language)
    throw new Error(
      `${source}:${rows[0]!.line}: task_id: ${JSON.stringify(rows[0]!.row.task_id)} names no HumanEvalPack language ` +
        `(${PACK_LANGUAGES.map((l) => `${TASK_ID_PREFIX[l]}/`).join(', ')})`,
    );
  return language;
}

function parseRows(text: string, source: string) {
  const rows = parseJsonl(isJsonArray(text) ? jsonArrayAsJsonl(text, source) : text, RowSchema, source);
  if (rows.length === 0) throw new Error(`${source} has no tasks`);
  return rows;
}

/** The rows as problems of one variant and prompt format: bigcode's prompt, the test as its reference. */
export function humanEvalPackProblems(
  text: string,
  source: string,
  options: { language: RunLanguage; variant: PackVariant; prompt: PackPrompt },
): PackProblem[] {
  const { language, variant, prompt } = options;
  const refused = refusedPrompt(prompt, variant);
  if (refused) throw new Error(`prompt ${JSON.stringify(prompt)}: ${refused}`);
  const rows = parseRows(text, source);
  const duplicate = datasetRowsProblem(rows, source);
  if (duplicate) throw new Error(duplicate);
  const prefix = `${TASK_ID_PREFIX[language]}/`;
  return rows.map(({ line, row }) => {
    if (!row.task_id.startsWith(prefix))
      throw new Error(
        `${source}:${line}: task_id: ${JSON.stringify(row.task_id)} is not a ${language} row (${prefix}<n>): one file per language`,
      );
    return {
      family: 'humanevalpack' as const,
      task_id: row.task_id,
      prompt: packPrompt(variant, prompt, row, language),
      entry_point: row.entry_point,
      // bigcode's get_reference: the row's test after a newline (check(...) is in it).
      test: '\n' + row.test,
      canonical_solution: row.prompt + row.canonical_solution,
      form: 'completion' as const,
      humanevalpack: {
        language,
        variant,
        prompt,
        base: variant === 'synthesize' ? row.prompt : promptBase(row, language, variant === 'fixdocs'),
        ...(language === 'rust' ? { declaration: row.declaration } : {}),
        ...(language === 'go' ? { test_setup: row.test_setup ?? '' } : {}),
        ...(prompt === 'diff' || prompt === 'diff-carper'
          ? { buggy: promptBase(row, language, variant === 'fixdocs') + row.buggy_solution }
          : {}),
      },
    };
  });
}

/**
 * The solution a generation stands for: a completion is bigcode's postprocess_generation of the
 * prompt and it (the request carried the stop words, so the text is what came back before the
 * first one); a chat answer is the function it writes (behind the prompt base when it does not
 * name the entry point); a saved generation (bigcode's generations.json) is already post-processed.
 * diff's and diff-carper's answer (a completion or chat answer continuing the prompt, or a saved
 * patch) is a patch, applied to the buggy code as bigcode's process_results does.
 */
export function humanEvalPackSolution(problem: PackProblem, api: LlmApi | 'saved', code: string): string {
  const { language, prompt, base, buggy } = problem.humanevalpack;
  if (prompt === 'diff-carper') {
    const hunk = api === 'saved' ? code : carperDiffHunk(problem.prompt, code, language, packStopWords(language, prompt));
    return applyCarperDiff(buggy ?? '', hunk);
  }
  if (prompt === 'diff') {
    // postprocess_generation keeps remove_last_block's cut (without the prompt base) as the patch.
    const patch = api === 'saved' ? code : packRemoveLastBlock(code, language, packStopWords(language, prompt));
    return applyDmpPatch(buggy ?? '', patch);
  }
  if (api === 'saved') return code;
  if (api === 'completions') return packPostprocess(code, base, language, packStopWords(language, prompt));
  return code.includes(problem.entry_point) ? code : `${base}${code}`;
}

/** Makes a JavaScript program fail (exit 1) on any write to stdout or stderr, as code_eval_octopack fails it. */
const JS_OUTPUT_FAILS =
  'for (const stream of [process.stdout, process.stderr]) stream.write = ((write) => (...args) => { process.exitCode = 1; return write(...args); })(stream.write.bind(stream));\n';

export const humanEvalPackFamily: DefinedFamily<
  'humanevalpack',
  typeof HumanEvalPackEntrySchema,
  z.output<typeof HumanEvalPackPayloadSchema>
> = defineFamily({
  id: 'humanevalpack',
  description:
    "HumanEvalPack (bigcode's humanevalsynthesize-/humanevalfixtests-/humanevalfixdocs-<python|js>): bigcode's prompt formats, pass@k",
  entrySchema: HumanEvalPackEntrySchema,
  payloadSchema: HumanEvalPackPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => ({ problems: humanEvalPackProblems(texts.rows!, sources.rows!, entry), notes: [] }),
  stopWords: (entry) => packStopWords(entry.language, entry.prompt),
  language: (problem) => RUNS_AS[problem.humanevalpack.language],
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: (problem) => {
    const { name, fence } = LANGUAGE_NAME[problem.humanevalpack.language];
    return `Answer the request below with the whole ${name} function \`${problem.entry_point}\` in one \`\`\`${fence} code block.`;
  },
  solution: humanEvalPackSolution,
  referenceSolution: (problem) => problem.canonical_solution ?? null,
  embedSolution: (problem, solution) => {
    const { language, declaration, test_setup } = problem.humanevalpack;
    const code = packProgramCode(language, solution, { declaration, test_setup, reference: problem.test });
    return language === 'js' ? JS_OUTPUT_FAILS + code : code;
  },
  checking: (): TaskChecking => ({ kind: 'tests' }),
  tests: (problem) => problem.test,
  limits: (problem, _reference, timeoutMs): Partial<ExecutionLimits> => ({
    timeoutMs: Math.max(timeoutMs, TIMEOUT_MS[problem.humanevalpack.language]),
  }),
  score: (problem, { status, stdout }): TaskScore => {
    const quiet = problem.humanevalpack.language !== 'js' || stdout === '';
    return { kind: 'status', passed: status === 'passed' && quiet, success: isSuccess({ status }) };
  },
  // bigcode's Python import helper imports numpy before every program; the compiled languages need
  // what code_eval_octopack's machine has beside their compilers.
  requirements: (problem): readonly Requirement[] => REQUIREMENTS[problem.humanevalpack.language],
  evaluate: readsProblemsFiles({
    bigcodeTasks: {
      names: 'humanevalsynthesize-<language>, humanevalfixtests-<language>, humanevalfixdocs-<language> (python, js, java, go, cpp, rust)',
      read: (task) => {
        const subset = /^humaneval((?:synthesize|fix)[a-z]*-[a-z]+)$/.exec(task)?.[1];
        return subset === undefined ? null : { options: { subset } };
      },
    },
    recognize: {
      rank: 25,
      test: (row) => 'buggy_solution' in row && 'declaration' in row && 'instruction' in row,
      fields: "HumanEvalPack's task_id, prompt, declaration, buggy_solution, test, instruction",
    },
    options: PACK_OPTIONS.evaluate.extend({ subset: SubsetFlagSchema }),
    form: 'completion',
    problems: ({ text, source, options }) => {
      const fileLanguage = rowsLanguage(text, source);
      const [variant, language] = parseSubset(options.subset, fileLanguage);
      if (language !== fileLanguage)
        throw new Error(`--subset ${options.subset}: ${source} holds ${fileLanguage} rows (task_id ${TASK_ID_PREFIX[fileLanguage]}/...)`);
      const prompt = options.prompt ?? 'instruct';
      const why = refusedPrompt(prompt, variant);
      if (why) throw new Error(`--prompt ${JSON.stringify(prompt)}: ${why}`);
      return humanEvalPackProblems(text, source, { language, variant, prompt: prompt as PackPrompt });
    },
  }),
});

/** `--subset` (bigcode's task name after `humaneval`): <variant>-<language>; absent: synthesize in the rows' language. */
function parseSubset(subset: string | undefined, fileLanguage: PackLanguage): [PackVariant, PackLanguage] {
  if (subset === undefined) return ['synthesize', fileLanguage];
  const match = /^(synthesize|fixtests|fixdocs)-(.+)$/.exec(subset);
  if (!match || !(PACK_LANGUAGES as readonly string[]).includes(match[2]!)) {
    const why = /^explain/.test(subset) ? ' (HumanEvalExplain is family humanevalexplain: --family humanevalexplain)' : '';
    throw new Error(
      `--subset ${JSON.stringify(subset)}: HumanEvalPack's are <synthesize|fixtests|fixdocs>-<${PACK_LANGUAGES.join('|')}>${why}`,
    );
  }
  return [match[1] as PackVariant, match[2] as PackLanguage];
}
