/**
 * evalplus rows written by hand in the release format (HumanEvalPlus.jsonl / MbppPlus.jsonl: one
 * JSON object a line with task_id, prompt, entry_point, canonical_solution, base_input,
 * plus_input, atol, contract, and MBPP+'s assertion), exactly as Python's json.dumps writes them
 * (NaN, big integers): the release files cannot be downloaded here. Each task comes with sample
 * solutions and the base and plus scores evalplus gives them.
 */

export interface EvalplusFixtureTask {
  /** The row's line, as the release writes it. */
  line: string;
  task_id: string;
  prompt: string;
  /** Sample completions (continuing the prompt) and their expected scores. */
  samples: Array<{ what: string; completion: string; base: boolean; plus: boolean }>;
}

function row(fields: Record<string, unknown>, raw: { base_input: string; plus_input: string }): string {
  const head = JSON.stringify(fields);
  return `${head.slice(0, -1)}, "base_input": ${raw.base_input}, "plus_input": ${raw.plus_input}}`;
}

const ADD_PROMPT = 'def add(x: int, y: int) -> int:\n    """Add two numbers x and y\n    >>> add(2, 3)\n    5\n    """\n';
const MEAN_PROMPT =
  'from typing import List\n\n\ndef mean(numbers: List[float]) -> float:\n    """The mean of a non-empty list of numbers."""\n';
const NAN_PROMPT = 'def is_nan(x: float) -> bool:\n    """Whether x is not a number."""\n';
const PAIRS_PROMPT =
  'from typing import List, Tuple\n\n\ndef pairs(n: int) -> List[Tuple[int, int]]:\n    """The pairs (i, i + 1) for i below n, as a list."""\n';
const SIMILAR_PROMPT =
  '"""\nWrite a function to find the shared elements from the given two lists.\nassert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))\n"""\n';

/** HumanEval+ rows. */
export const HUMANEVAL_PLUS_TASKS: EvalplusFixtureTask[] = [
  {
    // The plus inputs catch a solution that is right on the base ones; a big integer is read exactly.
    task_id: 'HumanEval/53',
    prompt: ADD_PROMPT,
    line: row(
      {
        task_id: 'HumanEval/53',
        prompt: ADD_PROMPT,
        entry_point: 'add',
        canonical_solution: '\n    return x + y\n',
        contract: '\n    assert type(x) is int, "invalid inputs"\n',
        atol: 0,
      },
      { base_input: '[[0, 1], [1, 0], [2, 3], [5, 7]]', plus_input: '[[-5, 3], [12345678901234567890123, 1], [0, 0]]' },
    ),
    samples: [
      { what: 'right', completion: '    return x + y\n', base: true, plus: true },
      { what: 'right on base only (abs)', completion: '    return abs(x) + y\n', base: true, plus: false },
      {
        what: 'right on base only (float arithmetic loses the big integer)',
        completion: '    return int(float(x) + y)\n',
        base: true,
        plus: false,
      },
      { what: 'wrong', completion: '    return x - y\n', base: false, plus: false },
    ],
  },
  {
    // Floats: within atol passes, beyond it fails.
    task_id: 'HumanEval/4',
    prompt: MEAN_PROMPT,
    line: row(
      {
        task_id: 'HumanEval/4',
        prompt: MEAN_PROMPT,
        entry_point: 'mean',
        canonical_solution: '    return sum(numbers) / len(numbers)\n',
        contract: '',
        atol: 0.001,
      },
      { base_input: '[[[1.0, 2.0, 3.0]], [[1.5]]]', plus_input: '[[[0.1, 0.2, 0.3, 0.4]], [[1e-05, 2e-05]]]' },
    ),
    samples: [
      { what: 'right', completion: '    return sum(numbers) / len(numbers)\n', base: true, plus: true },
      { what: 'within atol', completion: '    return sum(numbers) / len(numbers) + 0.0005\n', base: true, plus: true },
      { what: 'beyond atol', completion: '    return sum(numbers) / len(numbers) + 0.01\n', base: false, plus: false },
      { what: 'an int where a float is expected', completion: '    return int(sum(numbers) / len(numbers))\n', base: false, plus: false },
    ],
  },
  {
    // NaN in the inputs, as Python writes it; the outputs are booleans.
    task_id: 'HumanEval/900',
    prompt: NAN_PROMPT,
    line: row(
      {
        task_id: 'HumanEval/900',
        prompt: NAN_PROMPT,
        entry_point: 'is_nan',
        canonical_solution: '    return x != x\n',
        contract: '',
        atol: 0,
      },
      { base_input: '[[1.0], [NaN]]', plus_input: '[[Infinity], [-Infinity], [0.0]]' },
    ),
    samples: [
      { what: 'right', completion: '    return x != x\n', base: true, plus: true },
      { what: 'wrong on infinities (plus)', completion: '    return not (-1e308 < x < 1e308)\n', base: true, plus: false },
    ],
  },
  {
    // Nested lists and tuples: a list of tuples is not a list of lists; a slow answer times out.
    task_id: 'HumanEval/901',
    prompt: PAIRS_PROMPT,
    line: row(
      {
        task_id: 'HumanEval/901',
        prompt: PAIRS_PROMPT,
        entry_point: 'pairs',
        canonical_solution: '    return [(i, i + 1) for i in range(n)]\n',
        contract: '',
        atol: 0,
      },
      { base_input: '[[0], [1], [3]]', plus_input: '[[10]]' },
    ),
    samples: [
      { what: 'right', completion: '    return [(i, i + 1) for i in range(n)]\n', base: true, plus: true },
      { what: 'lists for tuples', completion: '    return [[i, i + 1] for i in range(n)]\n', base: false, plus: false },
      {
        what: 'too slow on plus',
        completion: '    import time\n    if n > 5:\n        time.sleep(30)\n    return [(i, i + 1) for i in range(n)]\n',
        base: true,
        plus: false,
      },
    ],
  },
];

/** MBPP+ rows: tuples given as lists in the file (evalplus converts them for Mbpp/2), set-equality oracle. */
export const MBPP_PLUS_TASKS: EvalplusFixtureTask[] = [
  {
    task_id: 'Mbpp/2',
    prompt: SIMILAR_PROMPT,
    line: row(
      {
        task_id: 'Mbpp/2',
        prompt: SIMILAR_PROMPT,
        entry_point: 'similar_elements',
        canonical_solution: '\ndef similar_elements(test_tup1, test_tup2):\n  return tuple(set(test_tup1) & set(test_tup2))\n',
        contract: '',
        assertion: '\nassert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))\n',
        atol: 0,
      },
      { base_input: '[[[3, 4, 5, 6], [5, 7, 4, 10]], [[1, 2, 3, 4], [5, 4, 3, 7]]]', plus_input: '[[[], [1, 2]], [[1, 1, 2], [2, 2, 1]]]' },
    ),
    samples: [
      {
        what: 'right, another order',
        completion: 'def similar_elements(a, b):\n  return tuple(sorted(set(a) & set(b), reverse=True))\n',
        base: true,
        plus: true,
      },
      {
        what: 'needs tuples (given tuples)',
        completion:
          'def similar_elements(a, b):\n  assert isinstance(a, tuple) and isinstance(b, tuple)\n  return tuple(x for x in set(a) if x in b)\n',
        base: true,
        plus: true,
      },
      {
        what: 'right on base only (no empty input)',
        completion: 'def similar_elements(a, b):\n  return tuple(set(a) & set(b)) if a else (0,)\n',
        base: true,
        plus: false,
      },
      { what: 'wrong', completion: 'def similar_elements(a, b):\n  return tuple(set(a) | set(b))\n', base: false, plus: false },
    ],
  },
];

export function jsonl(tasks: EvalplusFixtureTask[]): string {
  return tasks.map((t) => t.line + '\n').join('');
}
