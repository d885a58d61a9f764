/**
 * Rows of Hugging Face's wellesley-easel/StudentEval (test split) in its published format: the
 * columns its build notebook joins (problem, entrypoint, assertions, prints, username,
 * submitted_text, tests_passed, total_tests, prompt, completion, first_attempt, last_attempt,
 * is_success and the four subset flags), the prompt the signature, the student's text as a
 * docstring. Two problems, written here in the dataset's style; among the rows: an attempt in no
 * subset (bigcode drops it), two students with the same prompt in the same subset (bigcode's
 * groupby counts them as one prompt), a prompt ending in blanks (bigcode rstrips it to prompt).
 *
 * The generations are a model's raw continuations of each kept row's prompt (before any stop word
 * is applied): right bodies followed by more code (`\nprint`, `\ndef`, `\nif` stop them), a wrong
 * body (an assertion fails), a crash, an empty answer, a body with no stop word.
 */

const REMOVE_ODD_ASSERTIONS =
  'assert remove_odd([4.3, 4, 5, 2, 7]) == [4.3, 4, 2]\nassert remove_odd([1.1, 2.2, 3.3]) == [1.1, 2.2, 3.3]\nassert remove_odd([1, 2, 3]) == [2]';
const REMOVE_ODD_PRINTS = 'print(remove_odd([4.3, 4, 5, 2, 7]))\nprint(remove_odd([1.1, 2.2, 3.3]))\nprint(remove_odd([1, 2, 3]))';
const ADD_UP_ASSERTIONS =
  "assert add_up([ [ 'one', 2, 3, 4 ] ]) == 9\nassert add_up([ [ 3, 'hello', 3.4 ] ]) == 6.4\nassert add_up([ [ ] ]) == 0";
const ADD_UP_PRINTS = "print(add_up([ [ 'one', 2, 3, 4 ] ]))\nprint(add_up([ [ 3, 'hello', 3.4 ] ]))\nprint(add_up([ [ ] ]))";

const prompt = (signature: string, text: string) => `${signature}\n    """\n    ${text}\n    """\n`;

type Flags = 'first_failure' | 'last_success' | 'first_success' | 'last_failure' | null;

function row(
  problem: 'remove_odd' | 'add_up',
  username: string,
  text: string,
  flags: Flags,
  attempt: { first: boolean; last: boolean; passed: number; completion: string },
  promptText?: string,
) {
  const removeOdd = problem === 'remove_odd';
  return {
    problem,
    entrypoint: problem,
    assertions: removeOdd ? REMOVE_ODD_ASSERTIONS : ADD_UP_ASSERTIONS,
    prints: removeOdd ? REMOVE_ODD_PRINTS : ADD_UP_PRINTS,
    username,
    submitted_text: text,
    tests_passed: attempt.passed,
    total_tests: 3,
    prompt: promptText ?? prompt(removeOdd ? 'def remove_odd(lst):' : 'def add_up(arr):', text),
    completion: attempt.completion,
    first_attempt: attempt.first,
    last_attempt: attempt.last,
    is_success: attempt.passed === 3,
    is_first_success: flags === 'first_success',
    is_last_success: flags === 'last_success',
    is_first_failure: flags === 'first_failure',
    is_last_failure: flags === 'last_failure',
  };
}

const ODD_TEXT = 'takes in a list of numbers. returns the list of numbers without odd numbers';
const ODD_TEXT_2 = 'takes in a list of numbers. removes the odd integers and returns the rest, floats included';
const SAME_TEXT = 'remove every whole number that is odd from lst and return the list';

export const STUDENTEVAL_ROWS = [
  row('remove_odd', 'student0', ODD_TEXT, 'first_failure', {
    first: true,
    last: false,
    passed: 1,
    completion: '    return [x for x in lst if x % 2 == 0]\n',
  }),
  // A middle attempt: in no subset, left out.
  row('remove_odd', 'student0', ODD_TEXT + '.', null, {
    first: false,
    last: false,
    passed: 1,
    completion: '    return [num for num in lst if num % 2 == 0]\n',
  }),
  row('remove_odd', 'student0', ODD_TEXT_2, 'last_success', {
    first: false,
    last: true,
    passed: 3,
    completion: '    return [x for x in lst if not (isinstance(x, int) and x % 2 == 1)]\n',
  }),
  // Two students, the same prompt, the same subset: one prompt to bigcode.
  row('remove_odd', 'student1', SAME_TEXT, 'first_success', {
    first: true,
    last: true,
    passed: 3,
    completion: '    return [x for x in lst if not (type(x) == int and x % 2)]\n',
  }),
  row('remove_odd', 'student2', SAME_TEXT, 'first_success', {
    first: true,
    last: true,
    passed: 3,
    completion: '    return [x for x in lst if not (type(x) == int and x % 2)]\n',
  }),
  // A prompt ending in blanks: rstripped before the model continues it.
  row(
    'add_up',
    'student1',
    'takes a list of lists and adds up the numbers in them, skipping strings',
    'first_failure',
    { first: true, last: false, passed: 1, completion: '    return sum(arr)\n' },
    'def add_up(arr):\n    """\n    takes a list of lists and adds up the numbers in them, skipping strings\n    """\n   \n\n',
  ),
  row('add_up', 'student3', 'add the ints and floats of the lists in arr', 'last_failure', {
    first: false,
    last: true,
    passed: 0,
    completion: '    return 0\n',
  }),
];

const ODD_RIGHT = '\n    return [x for x in lst if not (isinstance(x, int) and x % 2 == 1)]';
const ADD_UP_RIGHT =
  '\n    total = 0\n    for inner in arr:\n        for x in inner:\n            if type(x) in (int, float):\n                total += x\n    return total';

/** A model's raw continuations of each kept row's prompt (rstripped), three per task. */
export const STUDENTEVAL_GENERATIONS: string[][] = [
  // student0, first failure: right then more code, wrong (odd floats dropped: an assertion fails), a crash.
  [`${ODD_RIGHT}\n\nprint(remove_odd([1, 2]))\n`, '\n    return [x for x in lst if x % 2 == 0]\n', '\n    return lst[100]\n'],
  // student0, last success: right with a helper after (`\ndef`), right with a main guard (`\nif`), empty.
  [`${ODD_RIGHT}\n\ndef helper():\n    pass\n`, `${ODD_RIGHT}\n\nif __name__ == "__main__":\n    print(1)\n`, ''],
  // student1 and student2, the same prompt: right, right, wrong; wrong, wrong, right.
  [ODD_RIGHT, `${ODD_RIGHT}\n`, '\n    return []'],
  ['\n    return []', '\n    return lst', ODD_RIGHT],
  // add_up, first failure: right with no stop word, a crash (strings summed), right.
  [ADD_UP_RIGHT, '\n    return sum(sum(x) for x in arr)\n', `${ADD_UP_RIGHT}\nprint(add_up([]))`],
  // add_up, last failure: all wrong.
  ['\n    return 0', '\n    return None', '\n    return 0\n\nclass X:\n    pass'],
];

export const jsonl = (rows: readonly object[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
