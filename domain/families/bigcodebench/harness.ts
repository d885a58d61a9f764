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

/**
 * The variables the harness sets (its reliability_guard's), for the methods' own runs of a task's
 * code (index.ts methodSandbox) to run as the samples do: HARNESS below sets the same.
 */
export const BIGCODEBENCH_ENVIRON: Readonly<Record<string, string>> = {
  TZ: 'UTC',
  OMP_NUM_THREADS: '1',
  TF_CPP_MIN_LOG_LEVEL: '3',
  TF_ENABLE_ONEDNN_OPTS: '0',
};

/** BigCodeBench's TIMEOUT_LIMIT (eval/utils.py): seconds a task's tests may take, unless BIGCODEBENCH_TIMEOUT_PER_TASK says otherwise. */
export const BIGCODEBENCH_TIMEOUT_LIMIT_S = 240;
/** evaluate()'s min_time_limit default (seconds), the floor of the limit. */
export const BIGCODEBENCH_MIN_TIME_LIMIT_S = 1;
/** evaluate()'s max_as_limit and max_data_limit (MiB) and max_stack_limit (MiB). */
export const BIGCODEBENCH_MEMORY_MIB = 30 * 1024;
export const BIGCODEBENCH_STACK_MIB = 10;

/** evaluate()'s default gt_time_limit of a task without a ground-truth time: `expected_time[task_id] if expected_time[task_id] else 20`. */
export const BIGCODEBENCH_NO_GT_TIME_S = 20;

/**
 * The seconds untrusted_check gives a sample's test suite (its `timeout`), as evaluate() derives
 * them per task: gt_time_limit is the task's ground-truth time (expected_time), or 20 s when it has
 * none (failed, not checked with --no_gt, or 0); then max(TIMEOUT_LIMIT, max(min_time_limit,
 * gt_time_limit)) + 1. The process itself is waited for one second more (p.join(timeout + 1))
 * before it is killed: the sandbox's wall-clock limit. bigcodebench 0.2.5 has no factor on the
 * ground truth's time (evalplus's gt_time_limit_factor; bigcodebench's evaluate_files takes one
 * and uses it nowhere).
 */
export function suiteTimeoutS(perTaskS: number, minTimeLimitS: number, expectedTimeS: number | null): number {
  const gtTimeLimit = expectedTimeS ? expectedTimeS : BIGCODEBENCH_NO_GT_TIME_S;
  return Math.max(perTaskS, Math.max(minTimeLimitS, gtTimeLimit)) + 1;
}

/**
 * The seconds trusted_check gives the ground truth's process: max(TIMEOUT_LIMIT, min_time_limit)
 * + 1, joined one second more; its test suite runs under time_limit(TIMEOUT_LIMIT).
 */
export function groundTruthTimeoutS(perTaskS: number, minTimeLimitS: number): number {
  return Math.max(perTaskS, minTimeLimitS) + 1;
}

/** The line the ground-truth run prints its time on (JSON: seconds, or null when it failed). */
export const GROUND_TRUTH_MARK = '__bigcodebench_gt__';

/** The ground truth's time from what its run printed (the last mark line): null when it printed none or null (BigCodeBench's None). */
export function groundTruthTimeOf(stdout: string): number | null {
  const line = stdout
    .split('\n')
    .filter((l) => l.startsWith(GROUND_TRUTH_MARK + ' '))
    .at(-1);
  if (line === undefined) return null;
  try {
    const value: unknown = JSON.parse(line.slice(GROUND_TRUTH_MARK.length + 1));
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

/** The solution as the program carries it: BigCodeBench's `solution` (calibrated: after code_prompt and a `pass` body). */
export function embeddedSolution(solution: string): string {
  return `_BCB_SOLUTION = __import__("base64").b64decode(${JSON.stringify(utf8Base64(solution))}).decode("utf-8")\n`;
}

/**
 * What runs after the embedded solution: the task's test, and the harness. `environment`, when
 * given, is the BigCodeBench venv (scripts/install-bigcodebench.sh) whose site-packages go first
 * on sys.path, so its pinned libraries shadow the sandbox's own. `trusted`: the ground truth's run
 * (groundTruthProgram) instead of a sample's.
 */
export function harnessProgram(test: string, timeoutS: number, environment: string | undefined, trusted = false): string {
  return `_BCB_TEST = __import__("base64").b64decode(${JSON.stringify(utf8Base64(test))}).decode("utf-8")
_BCB_ENVIRONMENT = ${environment === undefined ? 'None' : JSON.stringify(environment)}
_BCB_TIMEOUT = ${JSON.stringify(timeoutS)}
_BCB_TRUSTED = ${trusted ? 'True' : 'False'}
${HARNESS}`;
}

/**
 * The ground truth's run, as get_groundtruth's trusted_check runs it (bigcodebench/gen/util): the
 * program complete_prompt + "\n" + canonical_solution (never calibrated) with the task's test,
 * XDG_CONFIG_HOME a fresh folder, reliability_guard as for samples, the module executed, then its
 * TestCases run under swallow_io and time_limit(TIMEOUT_LIMIT), timed (time.time() around the
 * run, the module's execution not counted). It prints its time, or null (BigCodeBench's None) when a
 * test failed or erred or the module did not run; a run killed prints none, also None. What
 * differs: the module's own output at execution is dropped (BigCodeBench lets it through to its
 * console), so that the time line stays in the output the sandbox keeps.
 */
export function groundTruthProgram(groundTruth: string, test: string, perTaskS: number, environment: string | undefined): string {
  return embeddedSolution(groundTruth) + harnessProgram(test, perTaskS, environment, true);
}

// Python: kept apart so that the program's per-task part stays short. Names start with _bcb so that
// they stay out of the module the solution runs in (a module of its own, __test__).
const HARNESS = `
def _bcb_run(solution, test, environment, timeout, trusted):
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
    if trusted:
        # trusted_exec: a config folder of its own (its library caches are made afresh).
        import tempfile
        os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="xdg_config_", dir=os.getcwd())
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
    if trusted:
        import json
        took = None
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                exec(compile(solution + "\\n" + test, "__test__.py", "exec"), module.__dict__)
            sys.modules["__test__"] = module
            suite = unittest.TestLoader().loadTestsFromTestCase(getattr(module, "TestCases"))
            result = unittest.TestResult()
            start = time.time()
            with swallow_io(), time_limit(timeout):
                suite.run(result)
            if not (result.failures + result.errors):
                took = time.time() - start
        except BaseException:
            took = None
        out = sys.__stdout__
        out.write("\\n${GROUND_TRUTH_MARK} " + json.dumps(took) + "\\n")
        out.flush()
        return

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

_bcb_run(_BCB_SOLUTION, _BCB_TEST, _BCB_ENVIRONMENT, _BCB_TIMEOUT, _BCB_TRUSTED)
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
