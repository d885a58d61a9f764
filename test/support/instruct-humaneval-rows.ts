/**
 * Rows in codeparrot/instructhumaneval's format (test split: task_id, prompt, canonical_solution,
 * test, entry_point, signature, docstring, context, instruction), built from HumanEval's first rows
 * as its card describes them: `context` the prompt up to the signature line (imports, helpers),
 * `instruction` "Write a function <signature> to solve the following problem:" and the docstring.
 * And a model's raw continuations for both bigcode tasks: with context (the function's body), and
 * without (a whole function, fenced or not), with the failures bigcode's scoring sees.
 */
import { WIZARD_ROWS, type HumanEvalRow } from './wizard-humaneval-rows.js';

function instructRow(row: HumanEvalRow) {
  const def = row.prompt.indexOf(`def ${row.entry_point}`);
  const lineEnd = row.prompt.indexOf('\n', def) + 1;
  const signature = row.prompt
    .slice(def + 4, lineEnd)
    .trim()
    .replace(/:$/, '');
  const docstring = row.prompt
    .slice(lineEnd)
    .trim()
    .replace(/^"""\s*|\s*"""$/g, '');
  return {
    task_id: row.task_id,
    prompt: row.prompt,
    canonical_solution: row.canonical_solution,
    test: row.test,
    entry_point: row.entry_point,
    signature,
    docstring,
    context: row.prompt.slice(0, lineEnd),
    instruction: `Write a function ${signature} to solve the following problem:\n${docstring}\n`,
  };
}

export const INSTRUCT_ROWS = WIZARD_ROWS.map(instructRow);

/** StarChat's tokens, as bigcode's docs give them, and its EOS. */
export const STARCHAT_TOKENS: [string, string, string] = ['<|user|>\n', '<|end|>\n', '<|assistant|>\n'];
export const STARCHAT_EOS = '<|endoftext|>';

const body = (row: HumanEvalRow) => row.canonical_solution;

/** With context: continuations of the signature line. */
export const INSTRUCT_CONTEXT_GENERATIONS: string[][] = [
  [`${body(WIZARD_ROWS[0]!)}\n\nprint(has_close_elements([1.0], 0.5))`, '    return False\n<|end|>\n'],
  // A helper after the function (cut after the return), and a crash.
  [`${body(WIZARD_ROWS[1]!)}\ndef helper():\n    pass\n`, '    return 1 / 0\n<|endoftext|>'],
  // A timeout, and the right answer ended by EOS.
  ['    while True:\n        pass\n', `${body(WIZARD_ROWS[2]!)}<|endoftext|>`],
];

/** Without context: whole functions. */
export const INSTRUCT_NOCONTEXT_GENERATIONS: string[][] = [
  [`Here it is:\n\`\`\`python\n${WIZARD_ROWS[0]!.prompt}${body(WIZARD_ROWS[0]!)}\`\`\`\nDone.`, ''],
  [
    `${WIZARD_ROWS[1]!.prompt.slice(WIZARD_ROWS[1]!.prompt.indexOf('def '))}${body(WIZARD_ROWS[1]!)}`,
    '```\ndef other(x):\n  return x\n```',
  ],
  [
    '```python\ndef truncate_number(number: float) -> float:\n    return number % 1.0\n```<|end|>',
    'def truncate_number(n):\n    return n\n',
  ],
];
