/**
 * Spider's execution accuracy as its official evaluator computes it (test-suite-sql-eval,
 * exec_eval.py eval_exec_match), with the queries run in the sandbox: both queries prepared as the
 * evaluator prepares them (spiderQuery.ts), then run on every file of the task's database folder
 * whose name contains ".sqlite" (the evaluator's test suite: the release's one
 * `<db_id>/<db_id>.sqlite`, or the test-suite databases beside it), the gold query on each file
 * first; the sample is right when the predicted query ran on every file and its result is the
 * gold's denotation on each (spiderExec.ts: order counts only when the gold query says ORDER BY).
 * The program opens the files where they are, read-only (the sandbox mounts the databases' folder
 * read-only at its own path), and reports the results on one marker line of its standard output;
 * the comparison is the family's score, here, not the program's: a wrong result makes the record
 * read `failed`, the result sets differing its reason (TaskScore `failure`). A predicted query that
 * raises fails the run (status `error`, the exception named); one that runs past the time limit is
 * killed (`timeout`); either way the sample is wrong, as in the evaluator. A gold query that raises
 * (the evaluator asserts it does not) is a problem with the dataset, not a wrong sample: the program
 * reports it on a marker line of its own, and the score refuses the task (DatasetProblemError).
 */
import { orderMatters, sameDenotation, type SqlRow, type SqlValue } from '../../metrics/spiderExec.js';
import { replaceCurYear, spiderPrepareQuery } from '../../metrics/spiderQuery.js';
import { DatasetProblemError } from '../datasetProblem.js';

export const SPIDER_RESULT_MARKER = '__explora_spider_results__ ';
export const SPIDER_GOLD_FAILED_MARKER = '__explora_spider_gold_failed__ ';

// Values are tagged so that the score sees what Python's sqlite3 returned: integers as decimal
// text (beyond 2^53), floats as repr() (inf and nan included), text as decoded with errors
// ignored (the evaluator's text_factory), blobs as hex.
const RUN = String.raw`
def __explora_spider_run(database, gold, predicted):
    import json, os, sqlite3, urllib.parse
    report = os.fdopen(os.dup(1), "w", encoding="utf-8")
    def value(v):
        if v is None:
            return ["z"]
        if isinstance(v, bool) or isinstance(v, int):
            return ["i", str(int(v))]
        if isinstance(v, float):
            return ["r", repr(v)]
        if isinstance(v, bytes):
            return ["b", v.hex()]
        return ["t", str(v)]
    def run(path, query):
        uri = "file:" + urllib.parse.quote(path) + "?mode=ro&immutable=1"
        connection = sqlite3.connect(uri, uri=True)
        try:
            connection.text_factory = lambda b: b.decode(errors="ignore")
            return [[value(v) for v in row] for row in connection.execute(query).fetchall()]
        finally:
            connection.close()
    folder = os.path.dirname(database)
    files = sorted(os.path.join(folder, name) for name in os.listdir(folder) if ".sqlite" in name)
    golds = []
    for path in files:
        try:
            golds.append(run(path, gold))
        except Exception as e:
            problem = "%s: %s" % (type(e).__name__, e)
            report.write("${SPIDER_GOLD_FAILED_MARKER}" + json.dumps({"database": path, "error": problem}) + "\n")
            report.flush()
            raise RuntimeError("the gold query failed on %s: %s" % (path, problem)) from None
    results = []
    for path, gold_rows in zip(files, golds):
        results.append({"database": os.path.basename(path), "gold": gold_rows, "predicted": run(path, predicted)})
    report.write("${SPIDER_RESULT_MARKER}" + json.dumps(results) + "\n")
    report.flush()
`;

/** A query as the evaluator executes it: prepared, then MySQL's YEAR(CURDATE()) as 2020. */
function executed(query: string): string {
  return replaceCurYear(spiderPrepareQuery(query));
}

/** The predicted query (the sample's solution), prepared, as the program carries it. */
export function spiderEmbed(predicted: string): string {
  return `${RUN}\n__explora_spider_predicted = ${JSON.stringify(executed(predicted))}\n`;
}

/** What runs after it: both queries on the task's database (JSON strings are Python literals). */
export function spiderRunCall(database: string, gold: string): string {
  return `__explora_spider_run(${JSON.stringify(database)}, ${JSON.stringify(executed(gold))}, __explora_spider_predicted)`;
}

function sqlValue(tagged: unknown): SqlValue {
  if (!Array.isArray(tagged)) throw new Error('not a tagged value');
  const [tag, text] = tagged as [unknown, unknown];
  if (tag === 'z') return { kind: 'null' };
  if (typeof text !== 'string') throw new Error('not a tagged value');
  switch (tag) {
    case 'i':
      return { kind: 'integer', value: BigInt(text) };
    case 'r':
      return { kind: 'real', value: text === 'nan' ? NaN : text === 'inf' ? Infinity : text === '-inf' ? -Infinity : Number(text) };
    case 'b':
      return { kind: 'blob', hex: text };
    case 't':
      return { kind: 'text', value: text };
    default:
      throw new Error(`unknown tag ${JSON.stringify(tag)}`);
  }
}

/** One database file's results, as a run reported them. */
export interface DatabaseResults {
  database: string;
  gold: SqlRow[];
  predicted: SqlRow[];
}

/**
 * The results a run reported for every database file, or null when it reported none (a query
 * raised or ran out of time) or its report was cut short (results beyond the sandbox's output
 * limit: counted wrong).
 */
export function reportedResults(stdout: string): DatabaseResults[] | null {
  const at = stdout.lastIndexOf(SPIDER_RESULT_MARKER);
  if (at < 0) return null;
  const line = stdout.slice(at + SPIDER_RESULT_MARKER.length).split('\n', 1)[0]!;
  try {
    const parsed = JSON.parse(line) as Array<{ database: string; gold: unknown[][]; predicted: unknown[][] }>;
    return parsed.map((r) => ({
      database: r.database,
      gold: r.gold.map((row) => row.map(sqlValue)),
      predicted: r.predicted.map((row) => row.map(sqlValue)),
    }));
  } catch {
    return null;
  }
}

/** The database file the gold query failed on and why, when the run reported that. */
export function goldFailure(stdout: string): { database: string; error: string } | null {
  const at = stdout.lastIndexOf(SPIDER_GOLD_FAILED_MARKER);
  if (at < 0) return null;
  const line = stdout.slice(at + SPIDER_GOLD_FAILED_MARKER.length).split('\n', 1)[0]!;
  try {
    const parsed = JSON.parse(line) as { database: unknown; error: unknown };
    return { database: String(parsed.database), error: String(parsed.error) };
  } catch {
    return { database: '(unreadable report)', error: line };
  }
}

/**
 * Whether the run's predicted result is the gold query's denotation on every database file
 * (eval_exec_match's 1), and, when it is not though both queries ran, why (the record's reason:
 * the result sets differ, on the first file where they do). Throws DatasetProblemError when the
 * gold query failed: no sample of the task can be scored.
 */
export function sameExecution(taskId: string, gold: string, stdout: string): { ran: boolean; right: boolean; why?: string } {
  const failed = goldFailure(stdout);
  if (failed)
    throw new DatasetProblemError(
      `task ${taskId}: the gold query fails on ${failed.database} (${failed.error}); ` +
        'a problem with the dataset or its databases, not with the sample: fix the row or the file',
    );
  const results = reportedResults(stdout);
  if (!results) return { ran: false, right: false, why: 'no results reported (both results past the output limit count wrong)' };
  const ordered = orderMatters(spiderPrepareQuery(gold));
  const differing = results.find((r) => !sameDenotation(r.gold, r.predicted, ordered));
  if (!differing) return { ran: true, right: true };
  const rows = (n: number) => `${n} row${n === 1 ? '' : 's'}`;
  return {
    ran: true,
    right: false,
    why:
      `the result sets differ: the predicted query returned ${rows(differing.predicted.length)}, the gold query ${rows(differing.gold.length)}` +
      (results.length > 1 ? ` on ${differing.database}` : '') +
      (ordered ? ', compared in order (the gold query has ORDER BY)' : ''),
  };
}
