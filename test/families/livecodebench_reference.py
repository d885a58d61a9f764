"""The independent side of test/families/livecodebench.test.ts: LiveCodeBench's code-generation
scenario as its own code does it, on the JSON on stdin, JSON on stdout. Written here after
LiveCodeBench's lcb_runner (github.com/LiveCodeBench/LiveCodeBench at 28fef95):
- benchmarks/code_generation.py: CodeGenerationProblem.__post_init__ (private_test_cases tried as
  JSON, else base64 -> zlib -> pickle -> JSON), get_evaluation_sample (public then private tests,
  metadata's func_name), load_code_generation_dataset's --start_date / --end_date filter;
- utils/extraction_utils.py: extract_code (input {"extract": [answer, ...]}, output {"extracted": [...]});
- prompts/code_generation.py: PromptConstants and get_generic_question_template_answer (the
  OpenAIChat style's system and user messages);
- evaluation/testing_util.py: run_test, grade_call_based, grade_stdio, clean_if_name,
  make_function, call_method (its stdin mocks), compile_code, get_stripped_lines,
  convert_line_to_decimals; compute_code_generation_metrics.py: check_correctness (a child
  process, the global timeout, all -1 when it gives nothing); pass_k_utils.py:
  estimate_pass_at_k and compute_metrics_from_results.
Input: {"rows": [jsonl lines], "start_date", "end_date", "timeout", "samples": {question_id:
[code, ...]}, "k": [...]}. Output: {"problems": [...], "graded": {question_id: [[results], ...]},
"metrics": {"pass@k": ...}}. Run with the test venv (.tools/test-python, numpy).
"""
import ast
import base64
import faulthandler
import json
import multiprocessing
import pickle
import signal
import sys
import time
import zlib
from datetime import datetime
from decimal import Decimal
from io import StringIO
from types import ModuleType
from unittest.mock import mock_open, patch

import numpy as np

sys.set_int_max_str_digits(50000)

SYSTEM_MESSAGE_GENERIC = "You are an expert Python programmer. You will be given a question (problem specification) and will generate a correct Python program that matches the specification and passes all tests."
FORMATTING_MESSAGE_WITH_STARTER_CODE = "You will use the following starter code to write the solution to the problem and enclose your code within delimiters."
FORMATTING_WITHOUT_STARTER_CODE = "Read the inputs from stdin solve the problem and write the answer to stdout (do not directly test on the sample inputs). Enclose your code within delimiters as follows. Ensure that when the python program runs, it reads the inputs, runs the algorithm and writes output to STDOUT."

IMPORTS = (
    "from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\nfrom heapq import *\n"
    "from bisect import *\nfrom copy import *\nfrom math import *\nfrom random import *\nfrom statistics import *\n"
    "from itertools import *\nfrom functools import *\nfrom operator import *\nfrom io import *\nfrom sys import *\n"
    "from json import *\nfrom builtins import *\nfrom typing import *\nimport string\nimport re\nimport datetime\n"
    "import collections\nimport heapq\nimport bisect\nimport copy\nimport math\nimport random\nimport statistics\n"
    "import itertools\nimport functools\nimport operator\nimport io\nimport sys\nimport json\nsys.setrecursionlimit(50000)\n"
)


def user_message(question_content, starter_code):
    prompt = f"### Question:\n{question_content}\n\n"
    if starter_code:
        prompt += f"### Format: {FORMATTING_MESSAGE_WITH_STARTER_CODE}\n"
        prompt += f"```python\n{starter_code}\n```\n\n"
    else:
        prompt += f"### Format: {FORMATTING_WITHOUT_STARTER_CODE}\n"
        prompt += "```python\n# YOUR CODE HERE\n```\n\n"
    prompt += "### Answer: (use the provided format with backticks)\n\n"
    return prompt


def decode_private(field):
    try:
        return json.loads(field)
    except Exception:
        return json.loads(pickle.loads(zlib.decompress(base64.b64decode(field.encode("utf-8")))))


class TimeoutException(Exception):
    pass


def timeout_handler(signum, frame):
    raise TimeoutException


class Capturing(list):
    def __enter__(self):
        self._stdout = sys.stdout
        sys.stdout = self._stringio = StringIO()
        self._stringio.close = lambda x: 1
        return self

    def __exit__(self, *args):
        self.append(self._stringio.getvalue())
        del self._stringio
        sys.stdout = self._stdout


class MockBuffer:
    def __init__(self, inputs):
        self.inputs = inputs.encode("utf-8")

    def read(self, *args):
        return self.inputs

    def readline(self, *args):
        return self.inputs.split(b"\n")[0] + b"\n"


class MockStdinWithBuffer:
    def __init__(self, inputs):
        self.inputs = inputs
        self._stringio = StringIO(inputs)
        self.buffer = MockBuffer(inputs)

    def read(self, *args):
        return self.inputs

    def readline(self, *args):
        return self._stringio.readline(*args)

    def readlines(self, *args):
        return self.inputs.split("\n")

    def __getattr__(self, name):
        return getattr(self._stringio, name)


def clean_if_name(code):
    try:
        tree = ast.parse(code)
        last = tree.body[-1]
        if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
            code = ast.unparse(tree.body[:-1]) + "\n" + ast.unparse(last.body)
    except:  # noqa: E722 (as LiveCodeBench)
        pass
    return code


def make_function(code):
    try:
        imports, others = [], []
        for stmt in ast.parse(code).body:
            (imports if isinstance(stmt, (ast.Import, ast.ImportFrom)) else others).append(stmt)
        fn = ast.FunctionDef(
            name="wrapped_function",
            args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=others,
            decorator_list=[],
            lineno=-1,
        )
        return IMPORTS + "\n" + ast.unparse(imports) + "\n" + ast.unparse(fn)
    except Exception:
        return code


def call_method(method, inputs):
    if isinstance(inputs, list):
        inputs = "\n".join(inputs)
    lines = iter(inputs.split("\n"))
    stdin = MockStdinWithBuffer(inputs)

    @patch("builtins.open", mock_open(read_data=inputs))
    @patch("sys.stdin", stdin)
    @patch("sys.stdin.readline", lambda *args: next(lines))
    @patch("sys.stdin.readlines", lambda *args: inputs.split("\n"))
    @patch("sys.stdin.read", lambda *args: inputs)
    def inner(m):
        try:
            return m()
        except SystemExit:
            pass

    return inner(method)


def compile_code(code, timeout):
    signal.alarm(timeout)
    try:
        module = ModuleType("tmp_sol", "")
        exec(code, module.__dict__)
        compiled = module.Solution() if "class Solution" in code else module
        assert compiled is not None
    finally:
        signal.alarm(0)
    return compiled


def decimals(line):
    try:
        return True, [Decimal(e) for e in line.split()]
    except:  # noqa: E722
        return False, []


def stripped_lines(val):
    return [line.strip() for line in val.strip().split("\n")]


def grade_call_based(code, inputs, outputs, fn_name, timeout):
    compiled = compile_code(IMPORTS + "\n\n" + code, timeout)
    if compiled is None:
        return
    method = getattr(compiled, fn_name, None) if hasattr(compiled, fn_name) else None
    if method is None:
        return
    inputs = [[json.loads(line) for line in i.split("\n")] for i in inputs]
    outputs = [json.loads(o) for o in outputs]
    results = []
    for gt_in, gt_out in zip(inputs, outputs):
        signal.alarm(timeout)
        faulthandler.enable()
        try:
            prediction = method(*gt_in)
            signal.alarm(0)
            if isinstance(prediction, tuple):
                prediction = list(prediction)
            ok = prediction == gt_out
            results.append(ok)
            if not ok:
                return results, {"error_code": -2}
        except Exception as e:
            signal.alarm(0)
            results.append(-3 if "timeoutexception" in repr(e).lower() else -4)
            return results, {"error_code": results[-1]}
        finally:
            signal.alarm(0)
            faulthandler.disable()
    return results, {}


def grade_stdio(code, inputs, outputs, timeout):
    code = make_function(clean_if_name(code))
    compiled = compile_code(code, timeout)
    if compiled is None:
        return
    method = getattr(compiled, "wrapped_function", None) if hasattr(compiled, "wrapped_function") else None
    if method is None:
        return
    results = []
    for gt_in, gt_out in zip(inputs, outputs):
        signal.alarm(timeout)
        faulthandler.enable()
        with Capturing() as captured:
            try:
                call_method(method, gt_in)
                signal.alarm(0)
            except Exception as e:
                signal.alarm(0)
                results.append(-3 if "timeoutexception" in repr(e).lower() else -4)
                return results, {"error_code": results[-1]}
            finally:
                signal.alarm(0)
                faulthandler.disable()
        got, want = stripped_lines(captured[0]), stripped_lines(gt_out)
        if len(got) != len(want):
            results.append(-2)
            return results, {"error_code": -2}
        for a, b in zip(got, want):
            if a == b:
                continue
            ok_a, da = decimals(a)
            if not ok_a:
                results.append(-2)
                return results, {"error_code": -2}
            ok_b, db = decimals(b)
            if not ok_b:
                results.append(-2)
                return results, {"error_code": -2}
            if da == db:
                continue
            results.append(-2)
            return results, {"error_code": -2}
        results.append(True)
    return results, {}


def run_test(sample, code, timeout):
    signal.signal(signal.SIGALRM, timeout_handler)
    import builtins

    builtins.quit = None
    builtins.help = None
    io_spec = json.loads(sample["input_output"])
    grade = (
        (lambda: grade_call_based(code, io_spec["inputs"], io_spec["outputs"], io_spec["fn_name"], timeout))
        if io_spec.get("fn_name") is not None
        else (lambda: grade_stdio(code, io_spec["inputs"], io_spec["outputs"], timeout))
    )
    signal.alarm(timeout)
    try:
        results, metadata = grade()
        return results, metadata
    except Exception as e:
        return [-4], {"error_code": -4, "error_message": f"Error during testing: {e}"}
    finally:
        signal.alarm(0)


def child(sample, code, timeout, result):
    res, _ = run_test(sample, code, timeout)
    result.append(res)


def check_correctness(sample, code, timeout):
    manager = multiprocessing.Manager()
    result = manager.list()
    p = multiprocessing.Process(target=child, args=(sample, code, timeout, result))
    p.start()
    p.join(timeout=(timeout + 1) * len(json.loads(sample["input_output"])["inputs"]) + 5)
    if p.is_alive():
        p.kill()
    if not result:
        return [-1 for _ in json.loads(sample["input_output"])["inputs"]]
    fixed = []
    for e in result[0]:
        if isinstance(e, np.ndarray):
            e = e.item(0)
        if isinstance(e, np.bool_):
            e = bool(e)
        fixed.append(e)
    return fixed


def estimate_pass_at_k(total, correct, k):
    def estimator(n, c, k):
        if n - c < k:
            return 1.0
        return 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))

    return np.array([estimator(int(n), int(c), k) for n, c in zip(total, correct)])


def extract_code(model_output):
    """utils/extraction_utils.py extract_code, the branch of every chat style but CodeLLaMa-Instruct's."""
    outputlines = model_output.split("\n")
    indexlines = [i for i, line in enumerate(outputlines) if "```" in line]
    if len(indexlines) < 2:
        return ""
    return "\n".join(outputlines[indexlines[-2] + 1 : indexlines[-1]])


def main():
    spec = json.load(sys.stdin)
    if "extract" in spec:
        json.dump({"extracted": [extract_code(answer) for answer in spec["extract"]]}, sys.stdout)
        return
    problems = []
    for line in spec["rows"]:
        row = json.loads(line)
        row["contest_date"] = datetime.fromisoformat(row["contest_date"])
        public = json.loads(row["public_test_cases"])
        private = decode_private(row["private_test_cases"])
        metadata = json.loads(row["metadata"])
        problems.append((row, public + private, metadata.get("func_name", None)))
    if spec.get("start_date"):
        start = datetime.strptime(spec["start_date"], "%Y-%m-%d")
        problems = [p for p in problems if start <= p[0]["contest_date"]]
    if spec.get("end_date"):
        end = datetime.strptime(spec["end_date"], "%Y-%m-%d")
        problems = [p for p in problems if p[0]["contest_date"] <= end]
    out_problems, graded = [], {}
    for row, tests, fn_name in problems:
        sample = {"input_output": json.dumps({"inputs": [t["input"] for t in tests], "outputs": [t["output"] for t in tests], "fn_name": fn_name})}
        out_problems.append(
            {
                "question_id": row["question_id"],
                "tests": [{"input": t["input"], "output": t["output"]} for t in tests],
                "fn_name": fn_name,
                "system": SYSTEM_MESSAGE_GENERIC,
                "user": user_message(row["question_content"], row["starter_code"]),
            }
        )
        codes = spec.get("samples", {}).get(row["question_id"])
        if codes is not None:
            graded[row["question_id"]] = [check_correctness(sample, code, spec["timeout"]) for code in codes]
    metrics = {}
    if graded:
        totals = [len(g) for g in graded.values()]
        corrects = [sum(bool(np.all(np.array(r) > 0)) for r in g) for g in graded.values()]
        for k in spec.get("k", [1]):
            if all(t >= k for t in totals):
                metrics[f"pass@{k}"] = float(estimate_pass_at_k(totals, corrects, k).mean())
    json.dump({"problems": out_problems, "graded": graded, "metrics": metrics}, sys.stdout)


if __name__ == "__main__":
    main()
