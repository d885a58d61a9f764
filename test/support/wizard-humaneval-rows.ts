/**
 * HumanEval's first rows (openai_humaneval, as ../shared/reference/humaneval/HumanEval.jsonl.gz holds
 * it) and what a WizardCoder-style completions model answers after bigcode's instruct_wizard_humaneval
 * prompt: fenced answers with prose around them (tabs for indents), an answer starting "Here's", a
 * script with a __main__ guard and an "# Example usage" tail, `</s>`, and the failures bigcode's
 * scoring sees (a wrong answer, a crash, a timeout, an empty answer, a function under another name).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { REFERENCE_DIR } from './reference-data.js';

export interface HumanEvalRow {
  task_id: string;
  prompt: string;
  canonical_solution: string;
  test: string;
  entry_point: string;
}

/** HumanEval's first three rows, as published. */
export const WIZARD_ROWS: HumanEvalRow[] = gunzipSync(readFileSync(path.join(REFERENCE_DIR, 'humaneval/HumanEval.jsonl.gz')))
  .toString('utf8')
  .split('\n')
  .slice(0, 3)
  .map((line) => JSON.parse(line) as HumanEvalRow);

const whole = (row: HumanEvalRow) => row.prompt + row.canonical_solution;
const tabs = (code: string) => code.replaceAll('    ', '\t');

/** Per task, a model's raw continuations of the prompt (after its `### Response:`). */
export const WIZARD_GENERATIONS: string[][] = [
  [
    `\nHere's a solution:\n\n\`\`\`python\n${tabs(whole(WIZARD_ROWS[0]!))}\n\`\`\`\n\nIt compares every pair.</s>more`,
    `\n\`\`\`python\ndef has_close_elements(numbers, threshold):\n\treturn False\n\`\`\``,
    // No closing fence: bigcode's clean_comp raises; explora keeps the text after the opening fence.
    `\n\`\`\`python\n${whole(WIZARD_ROWS[0]!)}`,
  ],
  [
    `${whole(WIZARD_ROWS[1]!)}\n\nif __name__ == "__main__":\n    print(separate_paren_groups('( )'))\n`,
    // A crash.
    '\ndef separate_paren_groups(paren_string):\n    return 1 / 0\n',
    // Empty.
    '',
  ],
  [
    "Here's the function:\ndef truncate_number(number: float) -> float:\n    return number % 1.0\n\n# Example usage\nprint(truncate_number(3.5))",
    // A timeout.
    '\n```python\ndef truncate_number(number):\n    while True:\n        pass\n```',
    // Another name.
    '\n```python\ndef truncate(number):\n    return number % 1.0\n```',
  ],
];
