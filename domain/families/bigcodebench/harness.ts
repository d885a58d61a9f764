/**
 * The program a BigCodeBench sample runs as: BigCodeBench's `unsafe_execute` (bigcodebench/eval/
 * __init__.py, with reliability_guard and swallow_io of eval/utils.py), written for explora's
 * sandbox. The solution and the task's `test` are executed together as a module named `__test__`
 * (its globals holding sys, os and environ, as BigCodeBench's do), its `TestCases` run by unittest
 * under an interval timer of `timeout` seconds, stdout, stderr and stdin swallowed, subprocess
 * output piped; TZ=UTC, OMP_NUM_THREADS=1, exit and quit removed, RLIMIT_DATA and RLIMIT_STACK as
 * BigCodeBench sets them (RLIMIT_AS is the sandbox's memory limit). The verdict is BigCodeBench's:
 * `pass` when the module ran and no test failed or erred, `fail` otherwise (an exception while
 * executing the module included), and `timeout` when the process ended without one (killed at the
 * wall-clock limit, or gone by os._exit, a signal, the memory limit): the harness prints
 * `__bigcodebench__ <status>` on the real stdout, then `__bigcodebench_details__ <json>`, its
 * `details` (each failed test's trace, its last 2,000 characters, 32,000 over them all); a failure then raises
 * AssertionError naming the failed tests, so the record's status is `failed` with them as its exception.
 *
 * What BigCodeBench does that the sandbox does instead: safe_environment's interception of kill,
 * killpg, system, exec* and Popen (the sandbox's slot uid, pid namespace and process limit contain
 * them), create_tempdir (a sample's working directory is private and removed after it).
 */
import { utf8Base64 } from '../base64.js';
import { writeOnlyStreamClass } from '../pythonHarness.js';

/** The line the harness prints its verdict on (score.ts reads the last one). */
export const VERDICT_MARK = '__bigcodebench__';
/** The line after it: the verdict's `details` (failed test -> its trace; `ALL` when the module did not run), as JSON. */
export const DETAILS_MARK = '__bigcodebench_details__';
/**
 * Each trace's last characters kept, and the most over a sample's traces (BigCodeBench keeps them
 * whole; the sandbox keeps the first 64 KiB of a run's output, and the verdict must stay in it).
 */
export const DETAIL_CHARS = 2000;
export const DETAILS_CHARS = 32_000;

export type BigCodeBenchStatus = 'pass' | 'fail' | 'timeout';

/** BigCodeBench's TIMEOUT_LIMIT (eval/utils.py): seconds a task's tests may take, unless BIGCODEBENCH_TIMEOUT_PER_TASK says otherwise. */
export const BIGCODEBENCH_TIMEOUT_LIMIT_S = 240;
/** evaluate()'s min_time_limit default (seconds), the floor of the limit. */
export const BIGCODEBENCH_MIN_TIME_LIMIT_S = 1;
/** evaluate()'s max_as_limit and max_data_limit (MiB) and max_stack_limit (MiB). */
export const BIGCODEBENCH_MEMORY_MIB = 30 * 1024;
export const BIGCODEBENCH_STACK_MIB = 10;

/**
 * The seconds untrusted_check gives the test suite (its `timeout`): max(the per-task limit, the
 * floor) + 1. The process itself is waited for one second more (p.join(timeout + 1)) before it is
 * killed: the sandbox's wall-clock limit.
 */
export function suiteTimeoutS(perTaskS: number): number {
  return Math.max(perTaskS, BIGCODEBENCH_MIN_TIME_LIMIT_S) + 1;
}

/** The solution as the program carries it: BigCodeBench's `solution` (calibrated: after code_prompt and a `pass` body). */
export function embeddedSolution(solution: string): string {
  return `_BCB_SOLUTION = __import__("base64").b64decode(${JSON.stringify(utf8Base64(solution))}).decode("utf-8")\n`;
}

/**
 * What runs after the embedded solution: the task's test, and the harness. `environment`, when
 * given, is the BigCodeBench venv (scripts/install-bigcodebench.sh) whose site-packages go first
 * on sys.path, so its pinned libraries shadow the sandbox's own.
 */
export function harnessProgram(test: string, timeoutS: number, environment: string | undefined): string {
  return `_BCB_TEST = __import__("base64").b64decode(${JSON.stringify(utf8Base64(test))}).decode("utf-8")
_BCB_ENVIRONMENT = ${environment === undefined ? 'None' : JSON.stringify(environment)}
_BCB_TIMEOUT = ${timeoutS.toFixed(1)}
${HARNESS}`;
}

// Python: kept apart so that the program's per-task part stays short. Names start with _bcb so that
// they stay out of the module the solution runs in (a module of its own, __test__).
const HARNESS = `
def _bcb_run(solution, test, environment, timeout):
    import builtins, contextlib, faulthandler, io, os, resource, signal, subprocess, sys, time, types, unittest

    if environment is not None:
        import glob, site
        for packages in sorted(glob.glob(os.path.join(environment, "lib", "python*", "site-packages"))):
            sys.path.insert(0, packages)
            site.addsitedir(packages)

    class TimeoutException(Exception):
        pass

${writeOnlyStreamClass('WriteOnlyStringIO')}

    class redirect_stdin(contextlib._RedirectStream):
        _stream = "stdin"

    @contextlib.contextmanager
    def swallow_subprocess_output():
        original_popen, original_run = subprocess.Popen, subprocess.run
        def piped(kwargs):
            if kwargs.get("capture_output"):
                kwargs.pop("stdout", None)
                kwargs.pop("stderr", None)
            else:
                kwargs.setdefault("stdout", subprocess.PIPE)
                kwargs.setdefault("stderr", subprocess.PIPE)
            return kwargs
        subprocess.Popen = lambda *args, **kwargs: original_popen(*args, **piped(kwargs))
        subprocess.run = lambda *args, **kwargs: original_run(*args, **piped(kwargs))
        try:
            yield
        finally:
            subprocess.Popen, subprocess.run = original_popen, original_run

    @contextlib.contextmanager
    def swallow_io():
        stream = WriteOnlyStringIO()
        with contextlib.redirect_stdout(stream), contextlib.redirect_stderr(stream), redirect_stdin(stream), swallow_subprocess_output():
            yield

    @contextlib.contextmanager
    def time_limit(seconds):
        def handler(signum, frame):
            raise TimeoutException("Timed out!")
        signal.setitimer(signal.ITIMER_REAL, seconds)
        signal.signal(signal.SIGALRM, handler)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    # The sandbox gives no HOME, and its uids have no passwd entry: libraries that keep a config
    # (matplotlib, imported below as reliability_guard does) would stop at import. The sample's
    # private working directory stands in, as BigCodeBench's create_tempdir would.
    os.environ.setdefault("HOME", os.getcwd())
    # reliability_guard
    os.environ["TZ"] = "UTC"
    time.tzset()
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    for limit, mib in ((resource.RLIMIT_DATA, ${BIGCODEBENCH_MEMORY_MIB}), (resource.RLIMIT_STACK, ${BIGCODEBENCH_STACK_MIB})):
        soft, hard = resource.getrlimit(limit)
        wanted = mib * 1024 * 1024
        if hard != resource.RLIM_INFINITY:
            wanted = min(wanted, hard)
        resource.setrlimit(limit, (wanted, wanted))
    faulthandler.disable()
    builtins.exit = None
    builtins.quit = None
    try:
        import matplotlib.pyplot as plt
        plt.close("all")
    except ImportError:
        pass

    module = types.ModuleType("__test__")
    module.__dict__.update({"__builtins__": builtins, "__file__": "__test__.py", "__package__": None, "__doc__": None,
                            "sys": sys, "os": os, "environ": os.environ})
    details = {}
    try:
        with swallow_io():
            exec(compile(solution + "\\n" + test, "__test__.py", "exec"), module.__dict__)
            sys.modules["__test__"] = module
            suite = unittest.TestLoader().loadTestsFromTestCase(getattr(module, "TestCases"))
            result = unittest.TestResult()
            with time_limit(timeout):
                suite.run(result)
        for case, trace in result.failures + result.errors:
            details[case.id().split(".")[-1]] = trace
        status = "fail" if details else "pass"
    except BaseException as e:
        details["ALL"] = str(e)
        status = "fail"
    import json
    per_trace = max(1, min(${DETAIL_CHARS}, ${DETAILS_CHARS} // max(1, len(details))))
    kept = {name: str(trace)[-per_trace:] for name, trace in details.items()}
    out = sys.__stdout__
    out.write("\\n${VERDICT_MARK} " + status + "\\n${DETAILS_MARK} " + json.dumps(kept) + "\\n")
    out.flush()
    if status == "fail":
        for name, trace in details.items():
            sys.__stderr__.write("--- " + name + "\\n" + str(trace)[-2000:] + "\\n")
        sys.__stderr__.flush()
        raise AssertionError("BigCodeBench: failed " + ", ".join(sorted(details)))

_bcb_run(_BCB_SOLUTION, _BCB_TEST, _BCB_ENVIRONMENT, _BCB_TIMEOUT)
`;

/**
 * The details the harness printed with its verdict (the line right after the last verdict line),
 * or {} when it printed none (a timeout, as BigCodeBench's details of a killed check).
 */
export function detailsOf(stdout: string): Record<string, string> {
  const lines = stdout.split('\n');
  let at = lines.length - 1;
  while (at >= 0 && !lines[at]!.startsWith(VERDICT_MARK + ' ')) at--;
  const next = at >= 0 ? lines[at + 1] : undefined;
  if (next === undefined || !next.startsWith(DETAILS_MARK + ' ')) return {};
  try {
    const parsed: unknown = JSON.parse(next.slice(DETAILS_MARK.length + 1));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).map(([name, trace]) => [name, String(trace)]));
  } catch {
    return {};
  }
}

/** The verdict of a run, from what it printed: the last verdict line, or `timeout` when it printed none (BigCodeBench's _UNKNOWN). */
export function verdictOf(stdout: string): BigCodeBenchStatus {
  const lines = stdout.split('\n').filter((line) => line.startsWith(VERDICT_MARK + ' '));
  const last = lines
    .at(-1)
    ?.slice(VERDICT_MARK.length + 1)
    .trim();
  return last === 'pass' || last === 'fail' ? last : 'timeout';
}
