/**
 * Spider's execution accuracy, the comparison of two query results as the official evaluator does
 * it (taoyds/test-suite-sql-eval, exec_eval.py: result_eq): two results are the same denotation
 * when some permutation of the predicted result's columns makes its rows equal the gold rows, in
 * order when the gold query says "order by" (in any case, as prepared: spiderQuery.ts), as
 * bags of rows otherwise. Values compare as Python compares what sqlite3 returns: an INTEGER equals
 * a REAL of the same value; text, blobs and NULL equal only their own kind.
 *
 * The evaluator narrows the column permutations by sampling 20 random rows when there are more than
 * 3 columns; that only removes impossible permutations, so checking all the possible ones (as here,
 * with every row) decides the same, deterministically.
 */

/** One value as Python's sqlite3 returns it. */
export type SqlValue =
  | { kind: 'integer'; value: bigint }
  | { kind: 'real'; value: number }
  | { kind: 'text'; value: string }
  | { kind: 'blob'; hex: string }
  | { kind: 'null' };

export type SqlRow = readonly SqlValue[];

// Python's hash/equality classes: numbers by value (1 == 1.0), the rest by kind and content.
function valueKey(v: SqlValue): string {
  switch (v.kind) {
    case 'integer':
      return `n${v.value}`;
    case 'real':
      if (Number.isInteger(v.value)) return `n${BigInt(v.value)}`;
      return Number.isNaN(v.value) ? 'nan' : `n${v.value}`;
    case 'text':
      return `s${v.value}`;
    case 'blob':
      return `b${v.hex}`;
    case 'null':
      return 'z';
  }
}

/** Python's str(x) + str(type(x)), the evaluator's sort key inside a row (quick_rej). */
function pythonSortKey(v: SqlValue): string {
  switch (v.kind) {
    case 'integer':
      return `${v.value}<class 'int'>`;
    case 'real':
      return `${pythonFloatRepr(v.value)}<class 'float'>`;
    case 'text':
      return `${v.value}<class 'str'>`;
    case 'blob':
      return `b'${v.hex}'<class 'bytes'>`;
    case 'null':
      return "None<class 'NoneType'>";
  }
}

/** Python's repr(float): shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const plain = x.toFixed(Math.max(0, -exp + (mantissa.replace(/^-/, '').replace('.', '').length - 1)));
  return plain.includes('.') ? plain : `${plain}.0`;
}

function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function rowKey(row: SqlRow): string {
  return JSON.stringify(row.map(valueKey));
}

function unorderedRowKey(row: SqlRow): string {
  return JSON.stringify([...row].sort((a, b) => compareCodePoints(pythonSortKey(a), pythonSortKey(b))).map(valueKey));
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((k) => y.has(k));
}

function sameBag(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const counts = new Map<string, number>();
  for (const k of a) counts.set(k, (counts.get(k) ?? 0) + 1);
  for (const k of b) {
    const left = (counts.get(k) ?? 0) - 1;
    if (left < 0) return false;
    counts.set(k, left);
  }
  return true;
}

/**
 * Whether row order counts: the gold query as the evaluator runs it (spiderPrepareQuery) contains
 * "order by" (one space, any case).
 */
export function orderMatters(preparedGoldQuery: string): boolean {
  return preparedGoldQuery.toLowerCase().includes('order by');
}

/** result_eq(gold, predicted, order_matters). */
export function sameDenotation(gold: readonly SqlRow[], predicted: readonly SqlRow[], ordered: boolean): boolean {
  if (gold.length === 0 && predicted.length === 0) return true;
  if (gold.length !== predicted.length) return false;
  const columns = gold[0]!.length;
  if (predicted[0]!.length !== columns) return false;
  // quick_rej: each row's values as a sorted bag must match (as sequences or as sets of rows).
  const g = gold.map(unorderedRowKey);
  const p = predicted.map(unorderedRowKey);
  if (ordered ? g.join('\n') !== p.join('\n') : !sameSet(g, p)) return false;

  const goldColumnValues = Array.from({ length: columns }, (_, c) => new Set(gold.map((row) => valueKey(row[c]!))));
  // Which predicted columns can stand for each gold column: every one of its values occurs there.
  const candidates = goldColumnValues.map((values) =>
    Array.from({ length: columns }, (_, c) => c).filter((c) => predicted.every((row) => values.has(valueKey(row[c]!)))),
  );
  const goldKeys = gold.map(rowKey);
  const perm: number[] = [];
  const used = new Set<number>();
  const matches = (): boolean => {
    const permuted = predicted.map((row) => rowKey(perm.map((c) => row[c]!)));
    if (ordered) return permuted.every((k, i) => k === goldKeys[i]);
    return sameSet(goldKeys, permuted) && sameBag(goldKeys, permuted);
  };
  const search = (column: number): boolean => {
    if (column === columns) return matches();
    for (const c of candidates[column]!) {
      if (used.has(c)) continue;
      used.add(c);
      perm.push(c);
      if (search(column + 1)) return true;
      perm.pop();
      used.delete(c);
    }
    return false;
  };
  return search(0);
}
