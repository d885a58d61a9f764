/**
 * DS-1000 rows written by hand in its current release's format (ds1000.jsonl: prompt,
 * reference_code, metadata, code_context defining generate_test_case, exec_test, exec_context with
 * its [insert] and test_execution, and for some tasks test_string), for the libraries the sandbox
 * has by default (numpy, pandas) and one it may lack (scipy): the data cannot be downloaded here.
 */

export interface Ds1000FixtureTask {
  line: string;
  problem_id: number;
  prompt: string;
  library: string;
  samples: Array<{ what: string; answer: string; passed: boolean }>;
}

function codeContext(opts: {
  imports: string;
  inputs: string[];
  answer: string;
  check: string;
  setup: string;
  testString?: string;
}): string {
  const cases = opts.inputs
    .map((input, i) => `        ${i === 0 ? 'if' : 'elif'} test_case_id == ${i + 1}:\n            data = ${input}\n`)
    .join('');
  return `${opts.imports}
import copy
import tokenize, io


def generate_test_case(test_case_id):
    def define_test_input(test_case_id):
${cases}        return data

    def generate_ans(data):
${opts.answer}

    test_input = define_test_input(test_case_id)
    expected_result = generate_ans(copy.deepcopy(test_input))
    return test_input, expected_result


def exec_test(result, ans):
${opts.check}
    return 1


exec_context = r"""
${opts.imports}
${opts.setup}
[insert]
"""


def test_execution(solution: str):
    code = exec_context.replace("[insert]", solution)
    for i in range(${opts.inputs.length}):
        test_input, expected_result = generate_test_case(i + 1)
        test_env = {"test_input": test_input}
        exec(code, test_env)
        assert exec_test(test_env["result"], expected_result)
${
  opts.testString
    ? `

def test_string(solution: str):
    tokens = []
    for token in tokenize.tokenize(io.BytesIO(solution.encode("utf-8")).readline):
        tokens.append(token.string)
${opts.testString}
`
    : ''
}`;
}

function row(problem_id: number, library: string, prompt: string, reference_code: string, code_context: string): string {
  return JSON.stringify({
    prompt,
    reference_code,
    metadata: {
      problem_id,
      library_problem_id: problem_id,
      library,
      test_case_cnt: 2,
      perturbation_type: 'Origin',
      perturbation_origin_id: problem_id,
    },
    code_context,
  });
}

const NP_PROMPT =
  'Problem:\nHow do I get the sums of the columns of a 2-d numpy array, without a Python loop?\nA:\n<code>\nimport numpy as np\na = np.array([[1, 2], [3, 4]])\n</code>\nresult = ... # put solution in this variable\nBEGIN SOLUTION\n<code>\n';
const PD_PROMPT =
  'Problem:\nI have a DataFrame with a column "x". How do I keep only the rows where x is above 1?\nA:\n<code>\nimport pandas as pd\ndf = pd.DataFrame({"x": [0, 1, 2, 3]})\n</code>\nresult = ... # put solution in this variable\nBEGIN SOLUTION\n<code>\n';
const SP_PROMPT =
  'Problem:\nHow do I compute the determinant of a matrix with scipy?\nA:\n<code>\nimport numpy as np\nfrom scipy import linalg\na = np.array([[1.0, 2.0], [3.0, 4.0]])\n</code>\nresult = ... # put solution in this variable\nBEGIN SOLUTION\n<code>\n';

export const DS1000_TASKS: Ds1000FixtureTask[] = [
  {
    problem_id: 0,
    library: 'Numpy',
    prompt: NP_PROMPT,
    line: row(
      0,
      'Numpy',
      NP_PROMPT,
      'result = a.sum(axis=0)\n',
      codeContext({
        imports: 'import numpy as np',
        inputs: ['np.array([[1, 2], [3, 4]])', 'np.arange(6).reshape(2, 3)'],
        answer: '        a = data\n        return a.sum(axis=0)',
        check: '    np.testing.assert_array_equal(result, ans)',
        setup: 'a = test_input',
        testString: '    assert "for" not in tokens and "while" not in tokens',
      }),
    ),
    samples: [
      { what: 'right', answer: 'result = a.sum(axis=0)\n</code>\nEND SOLUTION\n', passed: true },
      {
        what: 'right, with a loop (test_string refuses it)',
        answer: 'result = np.array([sum(a[:, j]) for j in range(a.shape[1])])\n',
        passed: false,
      },
      { what: 'rows instead of columns', answer: 'result = a.sum(axis=1)\n', passed: false },
    ],
  },
  {
    problem_id: 1,
    library: 'Pandas',
    prompt: PD_PROMPT,
    line: row(
      1,
      'Pandas',
      PD_PROMPT,
      'result = df[df["x"] > 1]\n',
      codeContext({
        imports: 'import pandas as pd',
        inputs: ['pd.DataFrame({"x": [0, 1, 2, 3]})', 'pd.DataFrame({"x": [5, -1, 1]})'],
        answer: '        df = data\n        return df[df["x"] > 1]',
        check: '    pd.testing.assert_frame_equal(result, ans, check_dtype=False)',
        setup: 'df = test_input',
      }),
    ),
    samples: [
      { what: 'right', answer: 'result = df.query("x > 1")\n', passed: true },
      { what: 'index reset (not what was asked)', answer: 'result = df[df["x"] > 1].reset_index(drop=True)\n', passed: false },
      { what: 'raises', answer: 'result = df["y"]\n', passed: false },
    ],
  },
];

/** A scipy task: runs only where install-ds1000.sh put scipy into the sandbox. */
export const DS1000_SCIPY_TASK: Ds1000FixtureTask = {
  problem_id: 2,
  library: 'Scipy',
  prompt: SP_PROMPT,
  line: row(
    2,
    'Scipy',
    SP_PROMPT,
    'result = linalg.det(a)\n',
    codeContext({
      imports: 'import numpy as np\nfrom scipy import linalg',
      inputs: ['np.array([[1.0, 2.0], [3.0, 4.0]])', 'np.eye(3)'],
      answer: '        a = data\n        return linalg.det(a)',
      check: '    assert np.allclose(result, ans)',
      setup: 'a = test_input',
    }),
  ),
  samples: [{ what: 'right', answer: 'result = np.linalg.det(a)\n', passed: true }],
};

export function ds1000Jsonl(tasks: Ds1000FixtureTask[]): string {
  return tasks.map((t) => t.line + '\n').join('');
}

/**
 * The insertion form of a task: its row with the prompt DS-1000's original format has for
 * insertion (ds1000_data/<Library>/Insertion/q<N>/prompt.txt: the code before the gap, `[insert]`,
 * the code after it), written here in that shape for the tasks above.
 */
export function insertionPrompt(task: Ds1000FixtureTask): string {
  return `${task.prompt}[insert]\n</code>\nEND SOLUTION\n<code>\nprint(result)\n</code>\n`;
}

export function ds1000InsertionJsonl(tasks: Ds1000FixtureTask[]): string {
  return tasks.map((t) => JSON.stringify({ ...JSON.parse(t.line), prompt: insertionPrompt(t) }) + '\n').join('');
}

/** A Matplotlib row, which insertion mode leaves out (bigcode: DS-1000 has no insertion prompt for it). */
export const DS1000_MATPLOTLIB_LINE = row(
  3,
  'Matplotlib',
  'Problem:\nPlot y over x.\nA:\n<code>\nimport matplotlib.pyplot as plt\nx = [1, 2]\ny = [3, 4]\n</code>\n# SOLUTION START\n',
  'plt.plot(x, y)\n',
  'def test_execution(solution: str):\n    pass\n',
);

/** What each insertion sample of the tasks above is (the middle a FIM model writes), and whether it passes. */
export const DS1000_INSERTION_SAMPLES: Record<number, Array<{ what: string; answer: string; passed: boolean }>> = {
  0: [
    { what: 'right, cut at </code>', answer: 'result = a.sum(axis=0)\n</code>\nEND SOLUTION', passed: true },
    { what: 'rows instead of columns', answer: '\n  result = a.sum(axis=1)\n', passed: false },
  ],
  1: [
    { what: 'right, indented (stripped)', answer: '    result = df[df.x > 1]   \n', passed: true },
    { what: 'raises', answer: 'result = df["y"]', passed: false },
  ],
};
