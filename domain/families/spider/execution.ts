/**
 * Spider's execution accuracy as its official evaluator computes it (test-suite-sql-eval,
 * exec_eval.py eval_exec_match), with the queries run in the sandbox: both queries prepared as the
 * evaluator prepares them (spiderQuery.ts), the gold query run first on the task's SQLite file,
 * then the predicted one on the same file; the sample is right when the predicted query ran and its
 * result is the gold's denotation (spiderExec.ts: order counts only when the gold query says ORDER
 * BY). The program opens the database where it is, read-only (the sandbox mounts the databases'
 * folder read-only at its own path), and reports both results on one marker line of its standard
 * output; the comparison is the family's score, here, not the program's: a wrong result makes the
 * record read `failed`, the result sets differing its reason (TaskScore `failure`). A predicted query that
 * raises fails the run (status `error`, the exception named); one that runs past the time limit is
 * killed (`timeout`); either way the sample is wrong, as in the evaluator. A gold query that raises
 * (the evaluator asserts it does not) fails the run too, its exception saying it was the gold one.
 */
import { orderMatters, sameDenotation, type SqlRow, type SqlValue } from '../../metrics/spiderExec.js';
import { replaceCurYear, spiderPrepareQuery } from '../../metrics/spiderQuery.js';

export const SPIDER_RESULT_MARKER = '__explora_spider_results__ ';

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
    def run(query):
        uri = "file:" + urllib.parse.quote(database) + "?mode=ro&immutable=1"
        connection = sqlite3.connect(uri, uri=True)
        try:
            connection.text_factory = lambda b: b.decode(errors="ignore")
            return [[value(v) for v in row] for row in connection.execute(query).fetchall()]
        finally:
            connection.close()
    try:
        gold_rows = run(gold)
    except Exception as e:
        raise RuntimeError("the gold query failed on %s: %s: %s" % (database, type(e).__name__, e)) from None
    predicted_rows = run(predicted)
    report.write("${SPIDER_RESULT_MARKER}" + json.dumps({"gold": gold_rows, "predicted": predicted_rows}) + "\n")
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

/**
 * Both results a run reported, or null when it reported none (a query raised or ran out of time)
 * or its report was cut short (results beyond the sandbox's output limit: counted wrong).
 */
export function reportedResults(stdout: string): { gold: SqlRow[]; predicted: SqlRow[] } | null {
  const at = stdout.lastIndexOf(SPIDER_RESULT_MARKER);
  if (at < 0) return null;
  const line = stdout.slice(at + SPIDER_RESULT_MARKER.length).split('\n', 1)[0]!;
  try {
    const parsed = JSON.parse(line) as { gold: unknown[][]; predicted: unknown[][] };
    return { gold: parsed.gold.map((row) => row.map(sqlValue)), predicted: parsed.predicted.map((row) => row.map(sqlValue)) };
  } catch {
    return null;
  }
}

/**
 * Whether the run's predicted result is the gold query's denotation (eval_exec_match's 1), and,
 * when it is not though both queries ran, why (the record's reason: the result sets differ).
 */
export function sameExecution(gold: string, stdout: string): { ran: boolean; right: boolean; why?: string } {
  const results = reportedResults(stdout);
  if (!results) return { ran: false, right: false, why: 'no results reported (both results past the output limit count wrong)' };
  const ordered = orderMatters(spiderPrepareQuery(gold));
  if (sameDenotation(results.gold, results.predicted, ordered)) return { ran: true, right: true };
  const rows = (n: number) => `${n} row${n === 1 ? '' : 's'}`;
  return {
    ran: true,
    right: false,
    why:
      `the result sets differ: the predicted query returned ${rows(results.predicted.length)}, the gold query ${rows(results.gold.length)}` +
      (ordered ? ', compared in order (the gold query has ORDER BY)' : ''),
  };
}
