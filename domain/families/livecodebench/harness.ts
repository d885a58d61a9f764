/**
 * The Python that grades a LiveCodeBench sample in the sandbox, with the semantics of
 * LiveCodeBench's evaluator (lcb_runner/evaluation/testing_util.py `run_test`, as
 * compute_code_generation_metrics.py calls it, timeout 6 s):
 * - the process as the evaluator's child has it: `sys.set_int_max_str_digits(50000)`, and
 *   reliability_guard's `quit` and `help` set to None;
 * - functional (`fn_name`): the evaluator's imports prelude, then the code, run as a module
 *   `tmp_sol` (within the time limit); when the code contains "class Solution" the method is
 *   looked up on `Solution()`, else the function on the module; each test's input is its lines,
 *   each JSON-decoded, passed as positional arguments, its output JSON-decoded; a tuple result
 *   counts as a list, and the result must equal the output (`==`, no tolerance);
 * - standard input: a trailing `if __name__ == '__main__':` block is replaced by its body
 *   (clean_if_name), then the top-level imports stay at the top and every other statement becomes
 *   the body of `def wrapped_function():` after the prelude (make_function, through `ast`; code
 *   that does not parse is left as is); it is run as module `tmp_sol` and `wrapped_function()`
 *   called per test with the evaluator's patches: `sys.stdin` a stand-in whose read, readline,
 *   readlines and buffer answer the input; the read, readline and readlines of the standard input
 *   the module saw (the prelude's `from sys import *` binds it as `stdin`) answer the whole input,
 *   its next line without its newline, and its lines; `open` a mock_open of the input; standard
 *   output captured; SystemExit ends the call normally. The output matches when its lines and
 *   the expected ones (each text stripped, split on "\n", each line stripped) are as many and each
 *   pair is equal, or equal as lists of Decimals of their whitespace-separated tokens;
 * - a test stops the grading at the first failure: -2 wrong answer, -3 over the time limit
 *   (SIGALRM), -4 a runtime error; anything that keeps the grading from starting (a syntax
 *   error, no such function) is [-4]. A sample passes when every result is > 0.
 * The result list goes on the saved standard output behind a marker; everything else the
 * sample prints is silenced.
 */
import { utf8Base64 } from '../base64.js';
import { importPreludeLine, SILENCED_OUTPUT } from '../pythonHarness.js';

export const LCB_RESULT_MARKER = '__explora_lcb_result__ ';

const CHECK = String.raw`
def __explora_lcb_check(source_b64, spec_b64):
    import ast, base64, builtins, io, json, os, signal, sys, types
    from decimal import Decimal
    from unittest import mock
    source = base64.b64decode(source_b64).decode("utf-8")
    spec = json.loads(base64.b64decode(spec_b64).decode("utf-8"))
    tests, fn_name, limit = spec["tests"], spec["fn_name"], spec["timeout"]
${importPreludeLine('50000')}

    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(50000)
    builtins.quit = None
    builtins.help = None

    class TimeLimit(Exception):
        pass

    def on_alarm(signum, frame):
        raise TimeLimit()

${SILENCED_OUTPUT}
    real_stdout, real_stderr = sys.stdout, sys.stderr
    signal.signal(signal.SIGALRM, on_alarm)
    # The evaluator's child reads a standard input of its own (devnull): the one the module sees.
    sys.stdin = io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8")

    def report(results, message=None):
        os.write(saved, ("${LCB_RESULT_MARKER}" + json.dumps({"results": results, "error": message}) + "\n").encode("utf-8"))
        try:
            ok = all(r > 0 for r in results)
        except Exception:
            ok = False
        if not ok:
            raise AssertionError(message or "failed")

    def as_json(r):
        if r is True or r is False:
            return r
        if isinstance(r, int):
            return r
        try:
            return bool(r)
        except Exception:
            return False

    def load(code):
        module = types.ModuleType("tmp_sol", "")
        sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
        signal.alarm(limit)
        try:
            exec(code, module.__dict__)
            target = module.Solution() if "class Solution" in code else module
        finally:
            signal.alarm(0)
            sys.stdout, sys.stderr = real_stdout, real_stderr
        return target

    def classify(e):
        return -3 if isinstance(e, TimeLimit) else -4

    if fn_name is not None:
        try:
            target = load(prelude + "\n\n" + source)
            method = getattr(target, fn_name, None)
            if method is None:
                raise LookupError("no %s in the code" % fn_name)
            inputs = [[json.loads(line) for line in t["input"].split("\n")] for t in tests]
            outputs = [json.loads(t["output"]) for t in tests]
        except BaseException as e:
            return report([-4], "Error during testing: %s: %s" % (type(e).__name__, str(e)[:200]))
        results, message = [], None
        sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
        for i, (args, expected) in enumerate(zip(inputs, outputs)):
            signal.alarm(limit)
            try:
                got = method(*args)
                signal.alarm(0)
                if isinstance(got, tuple):
                    got = list(got)
                ok = got == expected
                results.append(ok)
                if not ok:
                    message = "Wrong Answer on test %d" % i
                    break
            except Exception as e:
                signal.alarm(0)
                results.append(classify(e))
                what = "Time Limit Exceeded" if results[-1] == -3 else "Runtime Error (%s: %s)" % (type(e).__name__, str(e)[:200])
                message = "%s on test %d" % (what, i)
                break
            finally:
                signal.alarm(0)
        sys.stdout, sys.stderr = real_stdout, real_stderr
        return report([as_json(r) for r in results], message)

    def without_main_guard(code):
        try:
            tree = ast.parse(code)
            last = tree.body[-1]
            if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
                code = ast.unparse(tree.body[:-1]) + "\n" + ast.unparse(last.body)
        except Exception:
            pass
        return code

    def wrapped(code):
        try:
            tree = ast.parse(code)
            imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
            body = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
            fields = dict(name="wrapped_function", args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=body, decorator_list=[], lineno=-1)
            if "type_params" in ast.FunctionDef._fields and sys.version_info < (3, 13):
                fields["type_params"] = []
            function = ast.FunctionDef(**fields)
            return prelude + "\n" + ast.unparse(imports) + "\n" + ast.unparse(function)
        except Exception:
            return code

    class StandIn:
        def __init__(self, data):
            self.data = data
            self.text = io.StringIO(data)
            self.buffer = BufferStandIn(data)
        def read(self, *a):
            return self.data
        def readline(self, *a):
            return self.text.readline(*a)
        def readlines(self, *a):
            return self.data.split("\n")
        def __getattr__(self, name):
            return getattr(self.text, name)

    class BufferStandIn:
        def __init__(self, data):
            self.data = data.encode("utf-8")
        def read(self, *a):
            return self.data
        def readline(self, *a):
            return self.data.split(b"\n")[0] + b"\n"

    def call(function, data):
        lines = iter(data.split("\n"))
        captured = io.StringIO()
        # The evaluator's stacked @patch decorators enter bottom first: the three method patches
        # land on the standard input of the moment, then sys.stdin is replaced, then open.
        with mock.patch("sys.stdin.read", lambda *a: data), mock.patch("sys.stdin.readlines", lambda *a: data.split("\n")), mock.patch("sys.stdin.readline", lambda *a: next(lines)), mock.patch("sys.stdin", StandIn(data)), mock.patch("builtins.open", mock.mock_open(read_data=data)):
            sys.stdout = captured
            try:
                function()
            except SystemExit:
                pass
            finally:
                sys.stdout = real_stdout
        return captured.getvalue()

    def stripped_lines(text):
        return [line.strip() for line in text.strip().split("\n")]

    def decimals(line):
        try:
            return True, [Decimal(t) for t in line.split()]
        except Exception:
            return False, []

    def same(got, expected):
        a, b = stripped_lines(got), stripped_lines(expected)
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if x == y:
                continue
            ok_x, dx = decimals(x)
            ok_y, dy = decimals(y)
            if not (ok_x and ok_y) or dx != dy:
                return False
        return True

    try:
        target = load(wrapped(without_main_guard(source)))
        function = getattr(target, "wrapped_function", None)
        if function is None:
            raise LookupError("no wrapped_function")
    except BaseException as e:
        return report([-4], "Error during testing: %s: %s" % (type(e).__name__, str(e)[:200]))
    results = []
    sys.stderr = io.StringIO()
    for i, t in enumerate(tests):
        data = t["input"]
        signal.alarm(limit)
        try:
            got = call(function, data)
            signal.alarm(0)
        except Exception as e:
            signal.alarm(0)
            results.append(classify(e))
            what = "Time Limit Exceeded" if results[-1] == -3 else "Runtime Error (%s: %s)" % (type(e).__name__, str(e)[:200])
            return report(results, "%s on test %d" % (what, i))
        finally:
            signal.alarm(0)
        try:
            ok = same(got, t["output"])
        except Exception as e:
            return report(results + [-4], "Error during testing: %s: %s" % (type(e).__name__, str(e)[:200]))
        if not ok:
            return report(results + [-2], "Wrong Answer on test %d" % i)
        results.append(True)
    return report(results)
`;

/** The solution as the program holds it: a string the harness compiles (a stdin program must not run before its input is set). */
export function embeddedSolution(solution: string): string {
  return `__explora_lcb_source = ${JSON.stringify(utf8Base64(solution))}\n`;
}

export interface LcbTest {
  input: string;
  output: string;
}

/** What runs after the embedded solution: every test, public then private, in the order LiveCodeBench grades them. */
export function lcbHarness(spec: { tests: readonly LcbTest[]; fn_name: string | null; timeout: number }): string {
  return `\n${CHECK}\n__explora_lcb_check(__explora_lcb_source, ${JSON.stringify(utf8Base64(JSON.stringify(spec)))})\n`;
}
