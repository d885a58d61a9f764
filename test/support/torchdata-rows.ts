/**
 * Rows in the exact format of TorchDataEval's release (`real_torchdata_eval_v3.jsonl.gz` in
 * microsoft/PyCodeGPT, apicoder/private-eval/data): key order, `entry_point: "none"`, the canonical
 * solution a list of equivalent answers each starting with a space, the test a METADATA block and
 * `def check():`. Written here (the release is not downloadable from CI); the tasks are our own.
 */
export interface TorchDataTestRow {
  task_id: string;
  prompt: string;
  entry_point: string;
  canonical_solution: string[];
  test: string;
}

const test = (type: string, assertion: string) =>
  `\n\nMETADATA = {\n    'author': 'explora-tests',\n    'dataset': 'test',\n    'type': '${type}'\n}\n\n\ndef check():\n    ${assertion}\n\n`;

export const TORCHDATA_ROWS: TorchDataTestRow[] = [
  {
    task_id: 'TorchDataEval/0',
    prompt:
      'from torchdata.datapipes.iter import IterableWrapper\ndp = IterableWrapper(range(10))\n# Keep only the first four items of the datapipe.\nnew_dp =',
    entry_point: 'none',
    canonical_solution: [' Header(dp, 4)', ' dp.header(4)'],
    test: test('Header', 'assert list(new_dp) == [0, 1, 2, 3]'),
  },
  {
    task_id: 'TorchDataEval/1',
    prompt:
      "from torchdata.datapipes.iter import IterableWrapper\ndp = IterableWrapper(['x', 'y'])\n# Pair every item with its position.\nnew_dp =",
    entry_point: 'none',
    canonical_solution: [' dp.enumerate()'],
    test: test('Enumerator', "assert list(new_dp) == [(0, 'x'), (1, 'y')]"),
  },
];

/** The rows as the release's JSON lines (Python's json.dumps spacing: ", " and ": "). */
export function torchDataJsonl(rows: readonly TorchDataTestRow[]): string {
  const pyJson = (row: TorchDataTestRow) =>
    '{' +
    (['task_id', 'prompt', 'entry_point', 'canonical_solution', 'test'] as const)
      .map(
        (k) =>
          `${JSON.stringify(k)}: ${Array.isArray(row[k]) ? `[${(row[k] as string[]).map((s) => JSON.stringify(s)).join(', ')}]` : JSON.stringify(row[k])}`,
      )
      .join(', ') +
    '}';
  return rows.map((r) => pyJson(r) + '\n').join('');
}
