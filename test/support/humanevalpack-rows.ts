/**
 * Rows of HumanEvalPack in its published format (Hugging Face bigcode/humanevalpack,
 * data/<language>/data/humanevalpack.jsonl: task_id, prompt, declaration, canonical_solution,
 * buggy_solution, bug_type, failure_symptoms, entry_point, import, test_setup, test, example_test,
 * signature, docstring, instruction), written here after its HumanEval/0 and HumanEval/2 in Python
 * and JavaScript, and what a test's completions model answers: a model's raw continuations of
 * bigcode's prompt (before any stop word), right answers followed by more code, the bug left in,
 * a crash, an empty answer, a body that needs bigcode's Python import helper (numpy), a line at
 * column 0 without a stop word, JavaScript that prints (a failure for bigcode), extra closing
 * braces, a function never closed.
 */

const PY0_PROMPT =
  'from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n' +
  '    """ Check if in given list of numbers, are any two numbers closer to each other than\n    given threshold.\n' +
  '    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n    False\n    >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n    True\n    """\n';
const PY0_SOLUTION =
  '    for idx, elem in enumerate(numbers):\n        for idx2, elem2 in enumerate(numbers):\n            if idx != idx2:\n' +
  '                distance = abs(elem - elem2)\n                if distance < threshold:\n                    return True\n\n    return False\n';
const PY0_DOC =
  'Check if in given list of numbers, are any two numbers closer to each other than\ngiven threshold.\n' +
  '>>> has_close_elements([1.0, 2.0, 3.0], 0.5)\nFalse\n>>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\nTrue';
const PY2_PROMPT =
  '\n\ndef truncate_number(number: float) -> float:\n    """ Given a positive floating point number, it can be decomposed into\n' +
  '    and integer part (largest integer smaller than given number) and decimals\n    (leftover part always smaller than 1).\n\n' +
  '    Return the decimal part of the number.\n    >>> truncate_number(3.5)\n    0.5\n    """\n';
const PY2_DOC =
  'Given a positive floating point number, it can be decomposed into\nand integer part (largest integer smaller than given number) and decimals\n' +
  '(leftover part always smaller than 1).\nReturn the decimal part of the number.\n>>> truncate_number(3.5)\n0.5';

export const PYTHON_ROWS = [
  {
    task_id: 'Python/0',
    prompt: PY0_PROMPT,
    declaration: 'from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n',
    canonical_solution: PY0_SOLUTION,
    buggy_solution: PY0_SOLUTION.replace('abs(elem - elem2)', 'elem - elem2'),
    bug_type: 'missing logic',
    failure_symptoms: 'incorrect output',
    entry_point: 'has_close_elements',
    import: '',
    test_setup: '',
    test:
      '\n\n\n\n\ndef check(has_close_elements):\n    assert has_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) == True\n' +
      '    assert has_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05) == False\n    assert has_close_elements([1.0, 2.0, 5.9, 4.0, 5.0], 0.95) == True\n' +
      '    assert has_close_elements([1.0, 2.0, 5.9, 4.0, 5.0], 0.8) == False\n    assert has_close_elements([1.0, 2.0, 3.0, 4.0, 5.0, 2.0], 0.1) == True\n' +
      '    assert has_close_elements([1.1, 2.2, 3.1, 4.1, 5.1], 1.0) == True\n    assert has_close_elements([1.1, 2.2, 3.1, 4.1, 5.1], 0.5) == False\n\ncheck(has_close_elements)',
    example_test:
      'def check(has_close_elements):\n    assert has_close_elements([1.0, 2.0, 3.0], 0.5) == False\n' +
      '    assert has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) == True\ncheck(has_close_elements)\n',
    signature: 'has_close_elements(numbers: List[float], threshold: float) -> bool',
    docstring: PY0_DOC,
    instruction: `Write a Python function \`has_close_elements(numbers: List[float], threshold: float) -> bool\` to solve the following problem:\n${PY0_DOC}`,
  },
  {
    task_id: 'Python/2',
    prompt: PY2_PROMPT,
    declaration: '\n\ndef truncate_number(number: float) -> float:\n',
    canonical_solution: '    return number % 1.0\n',
    buggy_solution: '    return number % 1.0 + 1.0\n',
    bug_type: 'excess logic',
    failure_symptoms: 'incorrect output',
    entry_point: 'truncate_number',
    import: '',
    test_setup: '',
    test:
      '\n\n\n\n\ndef check(truncate_number):\n    assert truncate_number(3.5) == 0.5\n    assert abs(truncate_number(1.33) - 0.33) < 1e-6\n' +
      '    assert abs(truncate_number(123.456) - 0.456) < 1e-6\n\ncheck(truncate_number)',
    example_test: 'def check(truncate_number):\n    assert truncate_number(3.5) == 0.5\ncheck(truncate_number)\n',
    signature: 'truncate_number(number: float) -> float',
    docstring: PY2_DOC,
    instruction: `Write a Python function \`truncate_number(number: float) -> float\` to solve the following problem:\n${PY2_DOC}`,
  },
];

const JS0_PROMPT =
  '/* Check if in given list of numbers, are any two numbers closer to each other than\n  given threshold.\n' +
  '  >>> hasCloseElements([1.0, 2.0, 3.0], 0.5)\n  false\n  >>> hasCloseElements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n  true\n  */\n' +
  'const hasCloseElements = (numbers, threshold) => {\n';
const JS0_SOLUTION =
  '  for (let i = 0; i < numbers.length; i++) {\n    for (let j = 0; j < numbers.length; j++) {\n      if (i != j) {\n' +
  '        let distance = Math.abs(numbers[i] - numbers[j]);\n        if (distance < threshold) {\n          return true;\n        }\n' +
  '      }\n    }\n  }\n  return false;\n}\n\n';
const JS0_DOC =
  'Check if in given list of numbers, are any two numbers closer to each other than\ngiven threshold.\n' +
  '>>> hasCloseElements([1.0, 2.0, 3.0], 0.5)\nfalse\n>>> hasCloseElements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\ntrue';
const JS2_DOC =
  'Given a positive floating point number, it can be decomposed into\nand integer part (largest integer smaller than given number) and decimals\n' +
  '(leftover part always smaller than 1).\nReturn the decimal part of the number.\n>>> truncateNumber(3.5)\n0.5';

export const JS_ROWS = [
  {
    task_id: 'JavaScript/0',
    prompt: JS0_PROMPT,
    declaration: '\nconst hasCloseElements = (numbers, threshold) => {\n',
    canonical_solution: JS0_SOLUTION,
    buggy_solution: JS0_SOLUTION.replace('Math.abs(numbers[i] - numbers[j])', 'numbers[i] - numbers[j]'),
    bug_type: 'missing logic',
    failure_symptoms: 'incorrect output',
    entry_point: 'hasCloseElements',
    import: '',
    test_setup: '',
    test:
      'const testHasCloseElements = () => {\n  console.assert(hasCloseElements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) === true)\n' +
      '  console.assert(\n    hasCloseElements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05) === false\n  )\n' +
      '  console.assert(hasCloseElements([1.0, 2.0, 5.9, 4.0, 5.0], 0.95) === true)\n  console.assert(hasCloseElements([1.0, 2.0, 5.9, 4.0, 5.0], 0.8) === false)\n' +
      '  console.assert(hasCloseElements([1.0, 2.0, 3.0, 4.0, 5.0, 2.0], 0.1) === true)\n  console.assert(hasCloseElements([1.1, 2.2, 3.1, 4.1, 5.1], 1.0) === true)\n' +
      '  console.assert(hasCloseElements([1.1, 2.2, 3.1, 4.1, 5.1], 0.5) === false)\n}\n\ntestHasCloseElements()\n',
    example_test:
      'const testHasCloseElements = () => {\n  console.assert(hasCloseElements([1.0, 2.0, 3.0], 0.5) === false)\n' +
      '  console.assert(hasCloseElements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) === true)\n}\ntestHasCloseElements()\n',
    signature: 'const hasCloseElements = (numbers, threshold)',
    docstring: JS0_DOC,
    instruction: `Write a JavaScript function \`const hasCloseElements = (numbers, threshold)\` to solve the following problem:\n${JS0_DOC}`,
  },
  {
    task_id: 'JavaScript/2',
    prompt:
      '/* Given a positive floating point number, it can be decomposed into\n  and integer part (largest integer smaller than given number) and decimals\n' +
      '  (leftover part always smaller than 1).\n\n  Return the decimal part of the number.\n  >>> truncateNumber(3.5)\n  0.5\n  */\n' +
      'const truncateNumber = (number) => {\n',
    declaration: '\nconst truncateNumber = (number) => {\n',
    canonical_solution: '  return number % 1.0;\n}\n\n',
    buggy_solution: '  return number % 1.0 + 1.0;\n}\n\n',
    bug_type: 'excess logic',
    failure_symptoms: 'incorrect output',
    entry_point: 'truncateNumber',
    import: '',
    test_setup: '',
    test:
      'const testTruncateNumber = () => {\n  console.assert(truncateNumber(3.5) === 0.5)\n\n  console.assert(Math.abs(truncateNumber(1.33) - 0.33) < 1e-6)\n\n' +
      '  console.assert(Math.abs(truncateNumber(123.456 - 0.456) < 1e-6))\n}\n\ntestTruncateNumber()\n',
    example_test: 'const testTruncateNumber = () => {\n  console.assert(truncateNumber(3.5) === 0.5)\n}\ntestTruncateNumber()\n',
    signature: 'const truncateNumber = (number)',
    docstring: JS2_DOC,
    instruction: `Write a JavaScript function \`const truncateNumber = (number)\` to solve the following problem:\n${JS2_DOC}`,
  },
];

/** Raw continuations of a Python prompt that ends with the function's docstring or its signature, per task. */
export const PYTHON_GENERATIONS: string[][] = [
  [
    '\n    for i, a in enumerate(numbers):\n        for j, b in enumerate(numbers):\n            if i != j and abs(a - b) < threshold:\n' +
      '                return True\n    return False\n\n\ndef main():\n    print(has_close_elements([1.0], 0.5))\n',
    '\n    return any(numbers[i] - numbers[j] < threshold for i in range(len(numbers)) for j in range(len(numbers)) if i != j)\nresult = 1\n',
    '\n    return numbers[100]\n',
    '',
  ],
  [
    '\n    return float(np.modf(number)[0])\n\nprint(truncate_number(3.5))',
    '\n    return number % 1.0<|endoftext|>garbage',
    '\n    return number - int(number) + 1\n# done',
    '\n    while True:\n        pass\n',
  ],
];

/** Raw continuations of a JavaScript prompt that ends with `=> {`, per task. */
export const JS_GENERATIONS: string[][] = [
  [
    '\n  for (let i = 0; i < numbers.length; i++) {\n    for (let j = i + 1; j < numbers.length; j++) {\n' +
      '      if (Math.abs(numbers[i] - numbers[j]) < threshold) return true;\n    }\n  }\n  return false;\n}\n\nconst unused = () => {\n  return 1;\n}\n',
    '\n  for (let i = 0; i < numbers.length; i++) {\n    for (let j = i + 1; j < numbers.length; j++) {\n' +
      '      if (numbers[i] - numbers[j] < threshold) return true;\n    }\n  }\n  return false;\n}\n',
    '\n  throw new Error("not implemented");\n}',
    '',
  ],
  [
    '\n  return number % 1.0;\n}}}\n',
    '\n  console.log("computing");\n  return number % 1.0;\n}\n',
    '\n  return number % 1.0;\n',
    '\n  return number - Math.floor(number);\n}<|endoftext|>',
  ],
];

export const jsonl = (rows: readonly unknown[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
