/**
 * Spider (Yu et al. 2018), text-to-SQL, scored by BLEU as bigcode-evaluation-harness documents it:
 * bigcode's docs list Spider beside CoNaLa and Concode (two-shot, "Answer the following
 * instructions in a one line SQL query:", stop at a newline, BLEU) but its harness has no Spider
 * task file, only the two examples (few_shot_examples/spider_few_shot_prompts.json, in its
 * history); explora runs it exactly as bigcode runs CoNaLa with those: the validation split (1,034
 * rows: db_id, query, question, ...; Hugging Face's xlangai/spider Parquet, or Spider's dev.json),
 * the question stripped, bigcode's corpus BLEU (max order 4, smoothed, 13a tokens) of each task's
 * first sample against the row's `query`. Each problem keeps its `db_id` (the database its query
 * runs on).
 *
 * Beyond bigcode: given Spider's databases (evaluate.ts --spider-databases), the official metric,
 * execution accuracy (execution.ts): every sample's query and the gold one run in the sandbox on
 * the task's SQLite file, and a sample passes when their results agree, so the task is checked by
 * running (`tests`) and pass@k applies (pass@1 with one sample per task is execution accuracy);
 * a query that ran with a wrong result fails (its record reads `failed`, the result sets differing),
 * and BLEU is scored beside it from the same samples' text (`alsoText`: evaluate.ts reports both,
 * and so does a sweep's cell: results.json's `also_text`, evaluation_results.json, the report and
 * sweep-status).
 */
import { z } from 'zod';
import { readsProblemsFiles } from '../evaluateOptions.js';
import { familyOptions, option } from '../familyOptions.js';
import { defineFamily } from '../define.js';
import { oneLineChecking, oneLineEntrySchema, oneLineFamily, oneLineProblems, oneLineRows, twoShotPrompt } from '../oneLine.js';
import { pyStrip } from '../../metrics/pythonText.js';
import type { DefinedFamily, ProblemOf, RunOutcome, TaskChecking, TaskScore } from '../types.js';
import { sameExecution, spiderEmbed, spiderRunCall } from './execution.js';

/** bigcode's few_shot_examples/spider_few_shot_prompts.json (removed from its tree in Dec 2022 with the other unused prompts). */
export const SPIDER_EXAMPLES = {
  instruction1: 'How many heads of the departments are older than 56 ?',
  instruction2: 'List the name, born state and age of the heads of departments ordered by age.',
  solution1: 'SELECT count(*) FROM head WHERE age  >  56',
  solution2: 'SELECT name ,  born_state ,  age FROM head ORDER BY age',
} as const;

/** The instruction bigcode's docs give for its one-line SQL task. */
export const SPIDER_INSTRUCTION = 'Answer the following instructions in a one line SQL query:\n';

/** The entry's `databases` and evaluate.ts's --spider-databases (its flag's name from before the family declared its options). */
const SPIDER_OPTIONS = familyOptions({
  /**
   * Spider's `database/` folder (`<db_id>/<db_id>.sqlite`), an absolute path on the sandbox
   * workers' machines (evaluate.ts resolves the flag's from the working directory): given, the
   * tasks are scored by execution accuracy (pass@k) instead of BLEU.
   */
  databases: option(
    z
      .string()
      .refine((dir) => dir.startsWith('/'), 'an absolute path (the sandbox workers open the databases there)')
      .optional(),
    {
      help: 'its database/ folder (<db_id>/<db_id>.sqlite): queries run there and are scored by execution accuracy (pass@k)',
      value: 'dir',
      folder: true,
      flag: 'spider-databases',
    },
  ),
});

/** The validation split (Hugging Face's Parquet, JSON Lines, or Spider's dev.json; local or s3://), and the databases. */
export const SpiderEntrySchema = oneLineEntrySchema('spider').extend({
  ...SPIDER_OPTIONS.entry,
});

const RowSchema = z.looseObject({ db_id: z.string().min(1), query: z.string(), question: z.string() });

/**
 * What a Spider problem carries beyond the core: the database its query runs on, and, when the
 * databases were given, that database's file (absolute): its samples are then run, not read.
 */
export const SpiderPayloadSchema = z.object({ db_id: z.string(), database: z.string().optional() });
type SpiderProblem = ProblemOf<z.output<typeof SpiderPayloadSchema>>;

export function spiderPrompt(question: string): string {
  return twoShotPrompt(SPIDER_INSTRUCTION, pyStrip(question), SPIDER_EXAMPLES);
}

/** Spider's database/ layout: `<dir>/<db_id>/<db_id>.sqlite`. */
export function spiderDatabaseFile(databases: string, dbId: string): string {
  return `${databases.replace(/\/+$/, '')}/${dbId}/${dbId}.sqlite`;
}

/** The databases folder a database file is in (spiderDatabaseFile's `databases`). */
function databasesDirOf(file: string): string {
  return file.split('/').slice(0, -2).join('/');
}

// The output a run may write: both results on one line (beyond it the sample counts wrong).
const RESULTS_OUTPUT_BYTES = 4 * 1024 * 1024;

function databaseOf(problem: SpiderProblem): string {
  if (problem.database === undefined) throw new Error(`task ${problem.task_id}: Spider without databases runs nothing`);
  return problem.database;
}

function goldOf(problem: SpiderProblem): string {
  if (problem.canonical_solution === undefined) throw new Error(`task ${problem.task_id}: no gold query (canonical_solution)`);
  return problem.canonical_solution;
}

/** BLEU from the text without the databases; with them, execution accuracy by running, and BLEU beside it. */
function checking(problem: SpiderProblem): TaskChecking {
  const bleu = oneLineChecking(problem);
  return problem.database === undefined ? bleu : { kind: 'tests', alsoText: bleu };
}

/** The run's score; a run that ended well with a wrong result fails, saying why (the record reads `failed`, not `passed`). */
function score(problem: SpiderProblem, outcome: RunOutcome): TaskScore {
  const { ran, right, why } = sameExecution(problem.task_id, goldOf(problem), outcome.stdout);
  const wrongThoughRan = outcome.status === 'passed' && !right;
  return { kind: 'status', passed: right, success: ran, ...(wrongThoughRan ? { failure: { type: 'WrongResult', message: why! } } : {}) };
}

function load(text: string, source: string, databases?: string): SpiderProblem[] {
  const rows = oneLineRows(text, RowSchema, source);
  const problems = oneLineProblems(
    'spider',
    'Spider',
    rows.map(({ line, row }) => ({ line, row: { prompt: spiderPrompt(row.question), reference: row.query } })),
    source,
  );
  return problems.map((p, i) => {
    const dbId = rows[i]!.row.db_id;
    return { ...p, db_id: dbId, ...(databases === undefined ? {} : { database: spiderDatabaseFile(databases, dbId) }) };
  });
}

const oneLine = oneLineFamily({
  id: 'spider',
  description: 'Spider: one SQL query per question, two-shot as bigcode documents it, scored by corpus BLEU against the gold query',
  entrySchema: SpiderEntrySchema,
  // Prompts and answer extraction are Python's (chat answers' fenced block, whatever its tag); SQL runs only with the databases.
  language: 'python',
  chatInstruction: 'Answer the last instruction below with one line of SQL, as the examples do. Reply with that query only.',
  recognize: { rank: 47, test: (row) => 'db_id' in row && 'query' in row && 'question' in row, fields: "Spider's db_id, query, question" },
  problems: (text, source) => load(text, source),
});

export const spiderFamily: DefinedFamily<'spider', typeof SpiderEntrySchema, z.output<typeof SpiderPayloadSchema>> = defineFamily({
  ...oneLine,
  payloadSchema: SpiderPayloadSchema,
  load: ({ entry, texts, sources }) => ({ problems: load(texts.rows!, sources.rows!, entry.databases), notes: [] }),
  checking,
  // With the databases (execution accuracy): the sample's query and the gold one, run on the task's database.
  embedSolution: (problem, solution) => (problem.database === undefined ? solution : spiderEmbed(solution)),
  tests: (problem) => spiderRunCall(databaseOf(problem), goldOf(problem)),
  limits: (_problem, _reference, timeoutMs) => ({ timeoutMs, maxOutputBytes: RESULTS_OUTPUT_BYTES }),
  score,
  requirements: (problem) =>
    problem.database === undefined
      ? []
      : [
          {
            kind: 'file',
            path: problem.database,
            why: `Spider's ${problem.db_id} tasks`,
            from: "--spider-databases or the dataset's databases",
            readableDir: databasesDirOf(problem.database),
          },
        ],
  evaluate: readsProblemsFiles({
    ...oneLine.evaluate,
    options: SPIDER_OPTIONS.evaluate,
    problems: ({ text, source, options }) => load(text, source, options.databases),
  }),
});
