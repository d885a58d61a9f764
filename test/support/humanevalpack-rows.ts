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

/*
 * Java, Go, C++ and Rust rows (HumanEval-X's translations, as HumanEvalPack publishes them): the
 * same two problems. Java's tests are a `public class Main` that throws AssertionError; Go's a
 * `package main` test file (its setup imports testing and testify); C++'s a main of asserts after
 * `#undef NDEBUG`; Rust's a #[cfg(test)] module, its declaration `use`s rand, regex and md5.
 */
const HCE_DOC = (call: string, list: (xs: string) => string, t: string, f: string) =>
  'Check if in given list of numbers, are any two numbers closer to each other than given threshold.\n' +
  `>>> ${call}(${list('1.0, 2.0, 3.0')}, 0.5)\n${f}\n>>> ${call}(${list('1.0, 2.8, 3.0, 4.0, 5.0, 2.0')}, 0.3)\n${t}`;
const TN_DOC = (call: string) =>
  'Given a positive floating point number, it can be decomposed into\nand integer part (largest integer smaller than given number) and decimals\n' +
  `(leftover part always smaller than 1).\nReturn the decimal part of the number.\n>>> ${call}(3.5)\n0.5`;
const JAVA0_DOC = HCE_DOC('hasCloseElements', (xs) => `Arrays.asList(${xs})`, 'true', 'false');
const JAVA0_SOLUTION =
  '        for (int i = 0; i < numbers.size(); i++) {\n            for (int j = i + 1; j < numbers.size(); j++) {\n' +
  '                double distance = Math.abs(numbers.get(i) - numbers.get(j));\n                if (distance < threshold) return true;\n' +
  '            }\n        }\n        return false;\n    }\n}';
const JAVA_HEAD = 'import java.util.*;\nimport java.lang.*;\n\nclass Solution {\n';

export const JAVA_ROWS = [
  {
    task_id: 'Java/0',
    prompt:
      JAVA_HEAD +
      '    /**\n    Check if in given list of numbers, are any two numbers closer to each other than given threshold.\n' +
      '    >>> hasCloseElements(Arrays.asList(1.0, 2.0, 3.0), 0.5)\n    false\n    >>> hasCloseElements(Arrays.asList(1.0, 2.8, 3.0, 4.0, 5.0, 2.0), 0.3)\n    true\n     */\n' +
      '    public boolean hasCloseElements(List<Double> numbers, double threshold) {\n',
    declaration: JAVA_HEAD + '    public boolean hasCloseElements(List<Double> numbers, double threshold) {\n',
    canonical_solution: JAVA0_SOLUTION,
    buggy_solution: JAVA0_SOLUTION.replace('Math.abs(numbers.get(i) - numbers.get(j))', 'numbers.get(i) - numbers.get(j)'),
    bug_type: 'missing logic',
    failure_symptoms: 'incorrect output',
    entry_point: 'hasCloseElements',
    import: '',
    test_setup: '',
    test:
      'public class Main {\n    public static void main(String[] args) {\n        Solution s = new Solution();\n        List<Boolean> correct = Arrays.asList(\n' +
      '                s.hasCloseElements(new ArrayList<>(Arrays.asList(11.0, 2.0, 3.9, 4.0, 5.0, 2.2)), 0.3),\n' +
      '                !s.hasCloseElements(new ArrayList<>(Arrays.asList(1.0, 2.0, 3.9, 4.0, 5.0, 2.2)), 0.05),\n' +
      '                s.hasCloseElements(new ArrayList<>(Arrays.asList(1.0, 2.0, 5.9, 4.0, 5.0)), 0.95),\n' +
      '                !s.hasCloseElements(new ArrayList<>(Arrays.asList(1.0, 2.0, 5.9, 4.0, 5.0)), 0.8),\n' +
      '                s.hasCloseElements(new ArrayList<>(Arrays.asList(1.0, 2.0, 3.0, 4.0, 5.0, 2.0)), 0.1),\n' +
      '                s.hasCloseElements(new ArrayList<>(Arrays.asList(1.1, 2.2, 3.1, 4.1, 5.1)), 1.0),\n' +
      '                !s.hasCloseElements(new ArrayList<>(Arrays.asList(1.1, 2.2, 3.1, 4.1, 5.1)), 0.5)\n        );\n' +
      '        if (correct.contains(false)) {\n            throw new AssertionError();\n        }\n    }\n}',
    example_test:
      'public class Main {\n    public static void main(String[] args) {\n        Solution s = new Solution();\n        List<Boolean> correct = Arrays.asList(\n' +
      '                !s.hasCloseElements(new ArrayList<>(Arrays.asList(1.0, 2.0, 3.0)), 0.5),\n' +
      '                s.hasCloseElements(new ArrayList<>(Arrays.asList(1.0, 2.8, 3.0, 4.0, 5.0, 2.0)), 0.3)\n        );\n' +
      '        if (correct.contains(false)) {\n            throw new AssertionError();\n        }\n    }\n}\n',
    signature: 'public boolean hasCloseElements(List<Double> numbers, double threshold)',
    docstring: JAVA0_DOC,
    instruction: `Write a Java function \`public boolean hasCloseElements(List<Double> numbers, double threshold)\` to solve the following problem:\n${JAVA0_DOC}`,
  },
  {
    task_id: 'Java/2',
    prompt:
      JAVA_HEAD +
      '    /**\n    Given a positive floating point number, it can be decomposed into\n    and integer part (largest integer smaller than given number) and decimals\n' +
      '    (leftover part always smaller than 1).\n\n    Return the decimal part of the number.\n    >>> truncateNumber(3.5)\n    0.5\n     */\n' +
      '    public double truncateNumber(double number) {\n',
    declaration: JAVA_HEAD + '    public double truncateNumber(double number) {\n',
    canonical_solution: '        return number % 1.0;\n    }\n}',
    buggy_solution: '        return number % 1.0 + 1.0;\n    }\n}',
    bug_type: 'excess logic',
    failure_symptoms: 'incorrect output',
    entry_point: 'truncateNumber',
    import: '',
    test_setup: '',
    test:
      'public class Main {\n    public static void main(String[] args) {\n        Solution s = new Solution();\n        List<Boolean> correct = Arrays.asList(\n' +
      '                s.truncateNumber(3.5) == 0.5,\n                Math.abs(s.truncateNumber(1.33) - 0.33) < 1e-6,\n' +
      '                Math.abs(s.truncateNumber(123.456) - 0.456) < 1e-6\n        );\n' +
      '        if (correct.contains(false)) {\n            throw new AssertionError();\n        }\n    }\n}',
    example_test:
      'public class Main {\n    public static void main(String[] args) {\n        Solution s = new Solution();\n        List<Boolean> correct = Arrays.asList(\n' +
      '                s.truncateNumber(3.5) == 0.5\n        );\n        if (correct.contains(false)) {\n            throw new AssertionError();\n        }\n    }\n}\n',
    signature: 'public double truncateNumber(double number)',
    docstring: TN_DOC('truncateNumber'),
    instruction: `Write a Java function \`public double truncateNumber(double number)\` to solve the following problem:\n${TN_DOC('truncateNumber')}`,
  },
];

const GO_SETUP = 'package main\n\nimport (\n    "testing"\n    "github.com/stretchr/testify/assert"\n)\n';
const GO_MATH = 'import (\n    "math"\n)\n';
const GO0_DOC = HCE_DOC('HasCloseElements', (xs) => `[]float64{${xs}}`, 'true', 'false');
const GO0_SOLUTION =
  '    for i := 0; i < len(numbers); i++ {\n        for j := i + 1; j < len(numbers); j++ {\n' +
  '            var distance float64 = math.Abs(numbers[i] - numbers[j])\n            if distance < threshold {\n                return true\n            }\n' +
  '        }\n    }\n    return false\n}\n\n';

export const GO_ROWS = [
  {
    task_id: 'Go/0',
    prompt:
      GO_MATH +
      '\n// Check if in given list of numbers, are any two numbers closer to each other than given threshold.\n' +
      '// >>> HasCloseElements([]float64{1.0, 2.0, 3.0}, 0.5)\n// false\n// >>> HasCloseElements([]float64{1.0, 2.8, 3.0, 4.0, 5.0, 2.0}, 0.3)\n// true\n' +
      'func HasCloseElements(numbers []float64, threshold float64) bool {\n',
    declaration: '\nfunc HasCloseElements(numbers []float64, threshold float64) bool {\n',
    canonical_solution: GO0_SOLUTION,
    buggy_solution: GO0_SOLUTION.replace('math.Abs(numbers[i] - numbers[j])', 'numbers[i] - numbers[j]'),
    bug_type: 'missing logic',
    failure_symptoms: 'incorrect output',
    entry_point: 'HasCloseElements',
    import: GO_MATH,
    test_setup: GO_SETUP,
    test:
      'func TestHasCloseElements(t *testing.T) {\n    assert := assert.New(t)\n' +
      '    assert.Equal(true, HasCloseElements([]float64{11.0, 2.0, 3.9, 4.0, 5.0, 2.2}, 0.3))\n' +
      '    assert.Equal(false, HasCloseElements([]float64{1.0, 2.0, 3.9, 4.0, 5.0, 2.2}, 0.05))\n' +
      '    assert.Equal(true, HasCloseElements([]float64{1.0, 2.0, 5.9, 4.0, 5.0}, 0.95))\n' +
      '    assert.Equal(false, HasCloseElements([]float64{1.0, 2.0, 5.9, 4.0, 5.0}, 0.8))\n' +
      '    assert.Equal(true, HasCloseElements([]float64{1.0, 2.0, 3.0, 4.0, 5.0, 2.0}, 0.1))\n' +
      '    assert.Equal(true, HasCloseElements([]float64{1.1, 2.2, 3.1, 4.1, 5.1}, 1.0))\n' +
      '    assert.Equal(false, HasCloseElements([]float64{1.1, 2.2, 3.1, 4.1, 5.1}, 0.5))\n}\n',
    example_test:
      'func TestHasCloseElements(t *testing.T) {\n    assert := assert.New(t)\n' +
      '    assert.Equal(false, HasCloseElements([]float64{1.0, 2.0, 3.0}, 0.5))\n' +
      '    assert.Equal(true, HasCloseElements([]float64{1.0, 2.8, 3.0, 4.0, 5.0, 2.0}, 0.3))\n}\n',
    signature: 'func HasCloseElements(numbers []float64, threshold float64) bool',
    docstring: GO0_DOC,
    instruction: `Write a Go function \`func HasCloseElements(numbers []float64, threshold float64) bool\` to solve the following problem:\n${GO0_DOC}`,
  },
  {
    task_id: 'Go/2',
    prompt:
      GO_MATH +
      '\n// Given a positive floating point number, it can be decomposed into\n// and integer part (largest integer smaller than given number) and decimals\n' +
      '// (leftover part always smaller than 1).\n//\n// Return the decimal part of the number.\n// >>> TruncateNumber(3.5)\n// 0.5\n' +
      'func TruncateNumber(number float64) float64 {\n',
    declaration: '\nfunc TruncateNumber(number float64) float64 {\n',
    canonical_solution: '    return math.Mod(number,1)\n}\n\n',
    buggy_solution: '    return math.Mod(number,1)+1\n}\n\n',
    bug_type: 'excess logic',
    failure_symptoms: 'incorrect output',
    entry_point: 'TruncateNumber',
    import: GO_MATH,
    test_setup: GO_SETUP,
    test:
      'func TestTruncateNumber(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal(0.5, TruncateNumber(3.5))\n' +
      '    assert.Equal(true, math.Abs(TruncateNumber(1.33)-0.33) < 1e-6)\n    assert.Equal(true, math.Abs(TruncateNumber(123.456)-0.456) < 1e-6)\n}\n',
    example_test: 'func TestTruncateNumber(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal(0.5, TruncateNumber(3.5))\n}\n',
    signature: 'func TruncateNumber(number float64) float64',
    docstring: TN_DOC('TruncateNumber'),
    instruction: `Write a Go function \`func TruncateNumber(number float64) float64\` to solve the following problem:\n${TN_DOC('TruncateNumber')}`,
  },
];

const CPP0_DOC = HCE_DOC('has_close_elements', (xs) => `{${xs}}`, 'true', 'false');
const CPP0_SOLUTION =
  '    int i,j;\n    \n    for (i=0;i<numbers.size();i++)\n    for (j=i+1;j<numbers.size();j++)\n' +
  '    if (abs(numbers[i]-numbers[j])<threshold)\n    return true;\n\n    return false;\n}\n\n';

export const CPP_ROWS = [
  {
    task_id: 'CPP/0',
    prompt:
      '/*\nCheck if in given vector of numbers, are any two numbers closer to each other than\ngiven threshold.\n' +
      '>>> has_close_elements({1.0, 2.0, 3.0}, 0.5)\nfalse\n>>> has_close_elements({1.0, 2.8, 3.0, 4.0, 5.0, 2.0}, 0.3)\ntrue\n*/\n' +
      '#include<stdio.h>\n#include<vector>\n#include<math.h>\nusing namespace std;\nbool has_close_elements(vector<float> numbers, float threshold){\n',
    declaration:
      '#include<stdio.h>\n#include<vector>\n#include<math.h>\nusing namespace std;\n#include<algorithm>\n#include<stdlib.h>\n' +
      'bool has_close_elements(vector<float> numbers, float threshold){\n',
    canonical_solution: CPP0_SOLUTION,
    buggy_solution: CPP0_SOLUTION.replace('abs(numbers[i]-numbers[j])', 'numbers[i]-numbers[j]'),
    bug_type: 'missing logic',
    failure_symptoms: 'incorrect output',
    entry_point: 'has_close_elements',
    import: '',
    test_setup: '',
    test:
      '#undef NDEBUG\n#include<assert.h>\nint main(){\n    vector<float> a={1.0, 2.0, 3.9, 4.0, 5.0, 2.2};\n' +
      '    assert (has_close_elements(a, 0.3)==true);\n    assert (has_close_elements(a, 0.05) == false);\n\n' +
      '    assert (has_close_elements({1.0, 2.0, 5.9, 4.0, 5.0}, 0.95) == true);\n    assert (has_close_elements({1.0, 2.0, 5.9, 4.0, 5.0}, 0.8) ==false);\n' +
      '    assert (has_close_elements({1.0, 2.0, 3.0, 4.0, 5.0}, 2.0) == true);\n    assert (has_close_elements({1.1, 2.2, 3.1, 4.1, 5.1}, 1.0) == true);\n' +
      '    assert (has_close_elements({1.1, 2.2, 3.1, 4.1, 5.1}, 0.5) == false);\n    \n}\n',
    example_test:
      '#undef NDEBUG\n#include<assert.h>\nint main(){\n    assert (has_close_elements({1.0, 2.0, 3.0}, 0.5) == false && "failure 1");\n' +
      '    assert (has_close_elements({1.0, 2.8, 3.0, 4.0, 5.0, 2.0}, 0.3) && "failure 2")  ;\n}\n',
    signature: 'bool has_close_elements(vector<float> numbers, float threshold)',
    docstring: CPP0_DOC,
    instruction: `Write a C++ function \`bool has_close_elements(vector<float> numbers, float threshold)\` to solve the following problem:\n${CPP0_DOC}`,
  },
  {
    task_id: 'CPP/2',
    prompt:
      '/*\nGiven a positive floating point number, it can be decomposed into\nand integer part (largest integer smaller than given number) and decimals\n' +
      '(leftover part always smaller than 1).\n\nReturn the decimal part of the number.\n>>> truncate_number(3.5)\n0.5\n*/\n' +
      '#include<stdio.h>\n#include<math.h>\nusing namespace std;\nfloat truncate_number(float number){\n',
    declaration:
      '#include<stdio.h>\n#include<math.h>\nusing namespace std;\n#include<algorithm>\n#include<stdlib.h>\nfloat truncate_number(float number){\n',
    canonical_solution: '    return number-int(number);\n}\n',
    buggy_solution: '    return number-int(number)+1;\n}\n',
    bug_type: 'excess logic',
    failure_symptoms: 'incorrect output',
    entry_point: 'truncate_number',
    import: '',
    test_setup: '',
    test:
      '#undef NDEBUG\n#include<assert.h>\nint main(){\n assert (truncate_number(3.5) == 0.5); \n assert (abs(truncate_number(1.33) - 0.33) < 1e-4);\n' +
      '  assert (abs(truncate_number(123.456) - 0.456) < 1e-4);\n}\n',
    example_test: '#undef NDEBUG\n#include<assert.h>\nint main(){\n assert (truncate_number(3.5) == 0.5); \n}\n',
    signature: 'float truncate_number(float number)',
    docstring: TN_DOC('truncate_number'),
    instruction: `Write a C++ function \`float truncate_number(float number)\` to solve the following problem:\n${TN_DOC('truncate_number')}`,
  },
];

const RUST_USES =
  'use std::{slice::Iter, cmp::{max, self}, mem::replace, collections::{HashSet, HashMap}, ops::Index, ascii::AsciiExt};\n' +
  'use rand::Rng;\nuse regex::Regex;\nuse md5;\nuse std::any::{Any, TypeId};\n';
/** bigcode: a Rust row's prompt "already includes fn main" (and the declaration's uses). */
const RUST_MAIN = 'fn main(){ \n } \n\n' + RUST_USES;
const RUST0_DOC = 'Check if in given list of numbers, are any two numbers closer to each other than\ngiven threshold.';
const RUST0_SOLUTION =
  '\n    for i in 0..numbers.len(){\n        for j in 1..numbers.len(){\n\n            if i != j {\n' +
  '                let distance:f32 = numbers[i] - numbers[j];\n\n            if distance.abs() < threshold{\n                return true;\n            }\n\n' +
  '            }\n            \n        }\n    }\n\n    return false;\n\n}\n';

export const RUST_ROWS = [
  {
    task_id: 'Rust/0',
    prompt:
      RUST_MAIN +
      '\n/*\n Check if in given list of numbers, are any two numbers closer to each other than\n given threshold.\n \n*/\n' +
      'fn has_close_elements(numbers:Vec<f32>, threshold: f32) -> bool{\n',
    declaration: '\n' + RUST_USES + '\nfn has_close_elements(numbers:Vec<f32>, threshold: f32) -> bool{\n',
    canonical_solution: RUST0_SOLUTION,
    buggy_solution: RUST0_SOLUTION.replace('distance.abs() < threshold', 'distance < threshold'),
    bug_type: 'missing logic',
    failure_symptoms: 'incorrect output',
    entry_point: 'has_close_elements',
    import: '',
    test_setup: '',
    test:
      '\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn test_has_close_elements() {\n' +
      '        assert_eq!(has_close_elements(vec![11.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3), true);\n' +
      '        assert_eq!(has_close_elements(vec![1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05), false);\n' +
      '        assert_eq!(has_close_elements(vec![1.0, 2.0, 5.9, 4.0, 5.0], 0.95), true);\n' +
      '        assert_eq!(has_close_elements(vec![1.0, 2.0, 5.9, 4.0, 5.0], 0.8), false);\n' +
      '        assert_eq!(has_close_elements(vec![1.0, 2.0, 3.0, 4.0, 5.0, 2.0], 0.1), true);\n' +
      '        assert_eq!(has_close_elements(vec![1.1, 2.2, 3.1, 4.1, 5.1], 1.0), true);\n' +
      '        assert_eq!(has_close_elements(vec![1.1, 2.2, 3.1, 4.1, 5.1], 0.5), false);\n    }\n\n}\n',
    example_test:
      '\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn test_has_close_elements() {\n' +
      '        assert_eq!(has_close_elements(vec![1.0, 2.0, 3.0], 0.5), false);\n' +
      '        assert_eq!(has_close_elements(vec![1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3), true);\n    }\n\n}\n',
    signature: 'has_close_elements(numbers:Vec<f32>, threshold: f32) -> bool',
    docstring: RUST0_DOC,
    instruction: `Write a Rust function \`has_close_elements(numbers:Vec<f32>, threshold: f32) -> bool\` to solve the following problem:\n${RUST0_DOC}`,
  },
  {
    task_id: 'Rust/2',
    prompt:
      RUST_MAIN +
      '\n/*\n Given a positive floating point number, it can be decomposed into\n and integer part (largest integer smaller than given number) and decimals\n' +
      ' (leftover part always smaller than 1).\n\n Return the decimal part of the number.\n \n*/\nfn truncate_number(number: &f32) -> f32{\n',
    declaration: '\n' + RUST_USES + '\nfn truncate_number(number: &f32) -> f32{\n',
    canonical_solution: '\n    return number % 1.0;\n}\n',
    buggy_solution: '\n    return number % 1.0 + 1.0;\n}\n',
    bug_type: 'excess logic',
    failure_symptoms: 'incorrect output',
    entry_point: 'truncate_number',
    import: '',
    test_setup: '',
    test:
      '\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn test_truncate_number() {\n' +
      '        assert_eq!(truncate_number(&3.5), 0.5);\n        let t1: f32 = 1.33 - 0.33;\n        assert!(truncate_number(&t1) < 0.000001);\n' +
      '        let t2: f32 = 123.456 - 0.456;\n        assert!(truncate_number(&t2) < 0.000001);\n    }\n\n}\n',
    example_test:
      '\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn test_truncate_number() {\n        assert_eq!(truncate_number(&3.5), 0.5);\n    }\n\n}\n',
    signature: 'truncate_number(number: &f32) -> f32',
    docstring: TN_DOC('truncate_number').replace('>>> truncate_number(3.5)\n0.5', '').trimEnd(),
    instruction: `Write a Rust function \`truncate_number(number: &f32) -> f32\` to solve the following problem:\n${TN_DOC('truncate_number').replace('>>> truncate_number(3.5)\n0.5', '').trimEnd()}`,
  },
];

/**
 * Raw continuations of each language's prompt (which ends with the function's opening brace), per
 * task: the right body then more code (cut at the function's closing brace, or Go's `\nfunc`), the
 * bug left in, and for the first task an answer that does not compile, an empty one, and answers
 * process_results changes: a C++ `int main` dropped, an empty Java Main class dropped, Go's
 * packages imported for it, a Rust answer with its own `fn main()` twice.
 */
export const JAVA_GENERATIONS: string[][] = [
  [
    '\n        for (int i = 0; i < numbers.size(); i++)\n            for (int j = i + 1; j < numbers.size(); j++)\n' +
      '                if (Math.abs(numbers.get(i) - numbers.get(j)) < threshold) return true;\n        return false;\n    }\n}\n\nclass Extra {}\n',
    '\n        return numbers.get(0) - numbers.get(1) < threshold;\n    }\n}',
    // Solution never closed: remove_last_block keeps it all, process_results drops the empty Main, javac fails.
    '\n        return true;\n    }\n    public class Main {\n    }\n',
    '',
  ],
  [
    '\n        return number - Math.floor(number);\n    }\n}\n\npublic class Main {\n    }\n',
    '\n        return number - (int) number + 1;\n    }\n}',
  ],
];

export const GO_GENERATIONS: string[][] = [
  [
    '\n    for i := range numbers {\n        for j := i + 1; j < len(numbers); j++ {\n' +
      '            if math.Abs(numbers[i]-numbers[j]) < threshold {\n                return true\n            }\n        }\n    }\n    return false\n}\n\nfunc main() {}\n',
    '\n    for i := range numbers {\n        for j := i + 1; j < len(numbers); j++ {\n' +
      '            if numbers[i]-numbers[j] < threshold {\n                return true\n            }\n        }\n    }\n    return false\n}\n',
    '\n    return "no"\n}\n',
    '',
  ],
  [
    '\n    s := strconv.FormatFloat(number, \'f\', -1, 64)\n    _ = strings.Split(s, ".")\n    return math.Mod(number, 1)\n}\n// trailing comment\n',
    '\n    return number - math.Floor(number) + 1\n}\n',
  ],
];

export const CPP_GENERATIONS: string[][] = [
  [
    '\n    for (size_t i = 0; i < numbers.size(); i++)\n        for (size_t j = i + 1; j < numbers.size(); j++)\n' +
      '            if (fabs(numbers[i] - numbers[j]) < threshold) return true;\n    return false;\n}\n\nint main() { return 1; }\n',
    '\n    for (size_t i = 0; i < numbers.size(); i++)\n        for (size_t j = i + 1; j < numbers.size(); j++)\n' +
      '            if (numbers[i] - numbers[j] < threshold) return true;\n    return false;\n}\n',
    '\n    return numbers.missing();\n}\n',
    '',
  ],
  ['\n    boost::any kept = number;\n    return number - int(number);\n}\n', '\n    return number - int(number) + 1;\n}\n'],
];

export const RUST_GENERATIONS: string[][] = [
  [
    '\n    for i in 0..numbers.len() {\n        for j in (i + 1)..numbers.len() {\n' +
      '            if (numbers[i] - numbers[j]).abs() < threshold {\n                return true;\n            }\n        }\n    }\n    false\n}\n\nfn helper() {}\n',
    '\n    for i in 0..numbers.len() {\n        for j in (i + 1)..numbers.len() {\n' +
      '            if numbers[i] - numbers[j] < threshold {\n                return true;\n            }\n        }\n    }\n    false\n}\n',
    '\n    "yes"\n}\n',
    '',
  ],
  ['\n    let _r = Regex::new("a").unwrap();\n    number % 1.0\n}\nfn main() {}\nfn main() {}\n', '\n    number % 1.0 + 1.0\n}\n'],
];
