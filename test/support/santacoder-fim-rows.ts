/**
 * Rows of bigcode/santacoder-fim-task (name, language, prompt, suffix, canonical_solution, tests),
 * made here as MultiPL-E's fill_in_the_middle/dataset_builder.ipynb makes them (build_fim_tasks):
 * from a task's MultiPL-E prompt and a working solution body without its comment lines, one row
 * per non-blank body line: prompt + the lines before it joined by "\n", the lines after it, the
 * line itself, named humaneval-<stem>-L<line + lines of the prompt>. The data cannot be downloaded.
 */

export interface FimFixtureRow {
  name: string;
  language: 'py' | 'js' | 'java';
  prompt: string;
  suffix: string;
  canonical_solution: string;
  tests: string;
}

function buildFimTasks(stem: string, language: FimFixtureRow['language'], prompt: string, body: string, tests: string): FimFixtureRow[] {
  const lines = body.split('\n');
  const offset = prompt.split('\n').length;
  return lines.flatMap((line, i) =>
    line.trim() === ''
      ? []
      : [
          {
            name: `humaneval-${stem}-L${i + offset}`,
            language,
            prompt: prompt + lines.slice(0, i).join('\n'),
            suffix: lines.slice(i + 1).join('\n'),
            canonical_solution: line,
            tests,
          },
        ],
  );
}

export const FIM_ROWS: FimFixtureRow[] = [
  ...buildFimTasks(
    'HumanEval_53_add',
    'py',
    'def add(x: int, y: int) -> int:\n    """Add two numbers x and y\n    >>> add(2, 3)\n    5\n    """\n',
    '    total = x + y\n\n    return total\n',
    '\ndef check(candidate):\n    assert candidate(2, 3) == 5\n\ncheck(add)\n',
  ),
  ...buildFimTasks(
    'HumanEval_23_strlen',
    'js',
    '//Return length of given string\n// >>> strlen("abc")\n// 3\nfunction strlen(string){\n',
    '    let n = 0;\n    for (const _ of string) n++;\n    return n;\n}\n',
    '\nconst assert = require("node:assert");\nassert.deepEqual(strlen("abc"), 3);\n',
  ),
  ...buildFimTasks(
    'HumanEval_13_greatest_common_divisor',
    'java',
    'import java.util.*;\nclass Problem {\n    public static long greatestCommonDivisor(long a, long b) {\n',
    '        while (b != 0) { long t = a % b; a = b; b = t; }\n        return a;\n    }\n}',
    '    public static void main(String[] args) {\n    assert(greatestCommonDivisor((3l), (7l)) == (1l));\n    }\n\n}\n',
  ),
];

export function fimJsonl(rows: readonly FimFixtureRow[]): string {
  return rows.map((r) => JSON.stringify(r) + '\n').join('');
}
