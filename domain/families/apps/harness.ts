/**
 * The Python that checks an APPS sample in the sandbox, test case by test case, with the semantics
 * of APPS's own checker (hendrycks/apps `testing_util.run_test`, as codeparrot's `apps_metric`
 * and bigcode's APPS task use it):
 * - the solution is compiled once after APPS's prelude of imports (`from math import *`, ...); a
 *   program that does not compile (or, call-based, lacks its function) fails every test case (-2);
 * - call-based (`fn_name`): the function (a method of `Solution()` when the code defines that
 *   class) is called with each test's arguments; a tuple output is a list; it passes when equal to
 *   the expected output or, the expected output being a list, to its first item;
 * - standard input, `testing-util` (APPS's own way): from its first line that is not an import
 *   (`from ...`, `import ...` at the line's start) on, the program is indented by a tab into
 *   `def code():`, after `stdin = sys.stdin` and `stdout = sys.stdout`; the module is compiled
 *   and run once (its name is not "__main__"), then `code()` is called per test case with the
 *   patches of the checker's call_method, entered in its decorators' order (bottom first): the
 *   read, readlines and readline of the sys.stdin of that moment (the object the module's `stdin`
 *   names) answer the whole input, its lines and its next line (no newline, StopIteration past
 *   the end); then sys.stdin is a StringIO of the input, open() a mock_open of it; standard output
 *   is captured (SystemExit ends a case normally);
 * - standard input, `as-written`: the program runs once per test case with that input as its
 *   standard input, `__name__ == "__main__"`, its standard output captured (SystemExit ends it
 *   normally); either way the output passes when equal to the expected one after stripping each (whole, then line by line),
 *   as non-empty stripped lines, as numbers within numpy's default allclose, or as sets of lines'
 *   sets of tokens (also with numbers rounded to 3 decimals): APPS's successive comparisons;
 * - each test case has a time limit (APPS: 4 s); an exception or a timeout is -1 for that case.
 * One line on the saved standard output reports each case's result; the sample's own output is
 * silenced otherwise.
 */
import { utf8Base64 } from '../base64.js';
import { importPreludeLine, SILENCED_OUTPUT } from '../pythonHarness.js';

export const APPS_RESULT_MARKER = '__explora_apps_result__ ';

const CHECK = String.raw`
def __explora_apps_check(source_b64, spec_b64):
    import base64, builtins, io, json, math, os, signal, sys
    source = base64.b64decode(source_b64).decode("utf-8")
    spec = json.loads(base64.b64decode(spec_b64).decode("utf-8"))
    io_spec = json.loads(spec["input_output"])
    inputs, outputs = io_spec["inputs"], io_spec["outputs"]
    fn_name = io_spec.get("fn_name") or None
${importPreludeLine('6*10**5')}

    class Timeout(Exception):
        pass

    def on_alarm(signum, frame):
        raise Timeout()

${SILENCED_OUTPUT}
    real_stdout, real_stderr = sys.stdout, sys.stderr
    signal.signal(signal.SIGALRM, on_alarm)
    limit = spec["test_time_limit"]

    def report(results, error=None):
        os.write(saved, ("${APPS_RESULT_MARKER}" + json.dumps({"results": results, "error": error}) + "\n").encode("utf-8"))
        failed = [i for i, r in enumerate(results) if r is not True]
        if failed:
            raise AssertionError("test cases passed: %d of %d (first failing: %d%s)" % (len(results) - len(failed), len(results), failed[0], "; " + error if error else ""))

    def int_keys(d):
        return {int(k): v for k, v in d.items()}

    def numbers_close(a, b):
        try:
            import numpy
            return bool(numpy.allclose(a, b))
        except ImportError:
            return all(abs(x - y) <= 1e-08 + 1e-05 * abs(y) for x, y in zip(a, b))

    try:
        code = compile(prelude + source, "<solution>", "exec")
    except BaseException as e:
        return report([-2] * len(inputs), "compile error: %s: %s" % (type(e).__name__, e))

    if fn_name is not None:
        g = {"__name__": "__explora_solution__"}
        sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            try:
                exec(code, g)
                method = getattr(g["Solution"](), fn_name) if "class Solution" in source else g[fn_name]
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except BaseException as e:
            sys.stdout, sys.stderr = real_stdout, real_stderr
            return report([-2] * len(inputs), "%s: %s" % (type(e).__name__, str(e)[:200]))
        results = []
        for args, expected in zip(inputs, outputs):
            try:
                if args and isinstance(args[0], dict):
                    args = [int_keys(args[0])]
            except Exception:
                pass
            try:
                if isinstance(expected, dict):
                    expected = [int_keys(expected)]
                elif isinstance(expected, list) and expected and isinstance(expected[0], dict):
                    expected = [int_keys(expected[0])]
            except Exception:
                pass
            try:
                signal.setitimer(signal.ITIMER_REAL, limit)
                try:
                    out = method(*args)
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                if isinstance(out, tuple):
                    out = list(out)
                ok = out == expected
                if isinstance(expected, list) and expected:
                    ok = ok or out == expected[0]
                try:
                    if isinstance(out[0], tuple):
                        ok = ok or [list(x) for x in out] == expected[0]
                except Exception:
                    pass
                results.append(bool(ok))
            except BaseException:
                results.append(-1)
        sys.stdout, sys.stderr = real_stdout, real_stderr
        return report(results)

    def run_stdin(data):
        stdin = io.TextIOWrapper(io.BytesIO(data.encode("utf-8")), encoding="utf-8")
        out = io.BytesIO()
        stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
        real_open = builtins.open
        def open_stdin(file, *a, **k):
            if file in (0, "/dev/stdin"):
                return io.TextIOWrapper(io.BytesIO(data.encode("utf-8")), encoding="utf-8")
            return real_open(file, *a, **k)
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, io.StringIO()
        builtins.open = open_stdin
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            try:
                exec(code, {"__name__": "__main__"})
            except SystemExit:
                pass
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                stdout.flush()
        finally:
            builtins.open = real_open
            sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, real_stdout, real_stderr
        return out.getvalue().decode("utf-8", "replace")

    def call_code(fn, data):
        import contextlib
        from unittest import mock
        lines = iter(data.split("\n"))
        captured = io.StringIO()
        with contextlib.ExitStack() as patches:
            # The order the checker's stacked @patch decorators enter in (bottom first): the three
            # method patches land on the stdin of the moment, before sys.stdin is replaced.
            patches.enter_context(mock.patch("sys.stdin.read", lambda *a: data))
            patches.enter_context(mock.patch("sys.stdin.readlines", lambda *a: data.split("\n")))
            patches.enter_context(mock.patch("sys.stdin.readline", lambda *a: next(lines)))
            patches.enter_context(mock.patch("sys.stdin", io.StringIO(data)))
            patches.enter_context(mock.patch("builtins.open", mock.mock_open(read_data=data)))
            sys.stdout, sys.stderr = captured, io.StringIO()
            signal.setitimer(signal.ITIMER_REAL, limit)
            try:
                fn()
            except SystemExit:
                pass
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                sys.stdout, sys.stderr = real_stdout, real_stderr
        return captured.getvalue()

    def matches(text, expected):
        if isinstance(expected, list):
            expected = "\n".join(expected)
        lines = text.splitlines()
        # custom_compare_: the whole output, then each line, stripped.
        if "\n".join(lines).strip() == expected.strip() or "\n".join(l.strip() for l in lines).strip() == expected.strip():
            return True
        if lines == [expected]:
            return True
        want = [x.strip() for x in expected.split("\n") if x]
        if lines == [want] or lines == want:
            return True
        got = [l for l in lines if len(l)]
        if got == want:
            return True
        try:
            a, b = [float(e) for e in got], [float(e) for e in want]
            if len(a) == len(b) and numbers_close(a, b):
                return True
        except Exception:
            pass
        want_sets = [set(x.split()) for x in want]
        got_sets = [set(x.split()) for x in got]
        got_sets = [s for s in got_sets if len(s)]
        try:
            if set(frozenset(s) for s in got_sets) == set(frozenset(s) for s in want_sets):
                return True
        except Exception:
            pass
        try:
            return set(frozenset(round(float(t), 3) for t in s) for s in got_sets) == set(frozenset(round(float(t), 3) for t in s) for s in want_sets)
        except Exception:
            return False

    if spec["stdin_form"] == "testing-util":
        wrapped, started = "", False
        for line in source.split("\n"):
            if not started and not (line.startswith("from ") or line.startswith("import ")):
                wrapped += "stdin = sys.stdin\nstdout = sys.stdout\ndef code():\n"
                started = True
            wrapped += ("\t" if started else "") + line + "\n"
        # The module's "stdin" names the standard input of the moment it runs: an empty one here
        # (the checker's process has one; the sandbox's may be closed).
        sys.stdin = io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8")
        g = {"__name__": "tmp_sol"}
        sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            try:
                exec(compile(prelude + wrapped, "<solution>", "exec"), g)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                sys.stdout, sys.stderr = real_stdout, real_stderr
            code_fn = g["code"]
        except BaseException as e:
            return report([-2] * len(inputs), "%s: %s" % (type(e).__name__, str(e)[:200]))
        run_case = lambda data: call_code(code_fn, data)
    else:
        run_case = run_stdin

    results = []
    for data, expected in zip(inputs, outputs):
        if isinstance(data, list):
            data = "\n".join(data)
        try:
            text = run_case(data)
        except BaseException:
            results.append(-1)
            continue
        try:
            results.append(bool(matches(text, expected)))
        except Exception:
            results.append(False)
    return report(results)
`;

/** The solution as the program holds it: a string the harness compiles (see embedSolution). */
export function embeddedSolution(solution: string): string {
  return `__explora_apps_source = ${JSON.stringify(utf8Base64(solution))}\n`;
}

/** What runs after the embedded solution: every test case. */
export function appsHarness(spec: { input_output: string; test_time_limit: number; stdin_form: 'testing-util' | 'as-written' }): string {
  return `\n${CHECK}\n__explora_apps_check(__explora_apps_source, ${JSON.stringify(utf8Base64(JSON.stringify(spec)))})\n`;
}
