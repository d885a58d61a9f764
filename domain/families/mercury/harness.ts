/**
 * The Python that runs a Mercury sample in the sandbox and times it against the task's reference
 * solutions, in the same process and the same rounds, so that Beyond compares runtimes measured
 * under the same conditions (bigcode times the references once per task and the sample five times,
 * in other processes, by wall clock). What it keeps of bigcode's run (beyond_eval.py unsafe_execute):
 * - each program runs in bigcode's namespace (its imports, ListNode and TreeNode, a silent
 *   `print`; `lctk` and `sortedcontainers`, which the sandbox's venv has, only when present), with its
 *   standard streams swallowed: the solution's code, `solution = Solution()`, the row's
 *   convert_offline and evaluate_offline, then every test case: `convert_offline((input, expected))`,
 *   the entry point called on the inputs, `evaluate_offline(inputs, outputs, expected)`;
 * - its status as bigcode names it: failed@load (the code, the class or the row's functions raise),
 *   failed@eval (a test case raises, the run's time limit included: bigcode's alarm is caught
 *   there), failed@cases (a wrong answer), failed@error (anything else, SystemExit), passed;
 *   failed@timeout a run killed or dead without a word, or the sandbox's kill (no report at all);
 * - each run in a process of its own (forked from the harness, bigcode's namespace already
 *   imported), with bigcode's limit (10 s of wall time: its alarm) and, a second later, its kill:
 *   a run that reports nothing (killed, crashed) is failed@timeout, as bigcode's "sandbox time out".
 * What it measures, so that the timing is of the solution alone and trustworthy on a loaded machine:
 * - the CPU time of the thread that calls the entry point (clock_gettime's CLOCK_THREAD_CPUTIME_ID,
 *   to the nanosecond; the process's clock, CLOCK_PROCESS_CPUTIME_ID, reads in coarse jumps in the
 *   sandbox's forked interpreters), inside the entry point's calls, summed over the test cases:
 *   loading, converting and checking are not timed, and time spent waiting for a core does not
 *   count (Mercury's solutions are single-threaded: a thread a solution started would not be timed);
 * - the garbage collector collected before and disabled during a run (as timeit does);
 * - `runs` rounds: in each, every program still passing runs once, the order rotating from round to
 *   round, each program loaded afresh in its own process (so no cache of a previous round is kept,
 *   and nothing a program changes in the interpreter reaches another); the
 *   first round decides the status, and a program's runtime is its least over the rounds it passed
 *   (noise only adds time); a sample that fails the first round is not timed, nor are the
 *   references then (its Beyond is 0 whatever they take);
 * - rounds stop early when the next one would overrun the budget (the sandbox's limit less a
 *   margin): the report says how many ran.
 * One line on the saved standard output reports it; the programs' output goes nowhere.
 */
import { utf8Base64 } from '../base64.js';
import { writeOnlyStreamClass } from '../pythonHarness.js';

export const MERCURY_RESULT_MARKER = '__explora_mercury_result__ ';

const RUN = String.raw`
def __explora_mercury_run(candidate_b64, spec_b64):
    import base64, contextlib, gc, io, json, os, select, signal, sys, time
    spec = json.loads(base64.b64decode(spec_b64).decode("utf-8"))
    programs = [base64.b64decode(candidate_b64).decode("utf-8")] + spec["references"]
    started = time.monotonic()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)

    def report(payload):
        os.write(saved, ("\n__explora_mercury_result__ " + json.dumps(payload) + "\n").encode("utf-8"))

    class Timeout(Exception):
        pass

    def on_alarm(signum, frame):
        raise Timeout("Timed out!")

${writeOnlyStreamClass('WriteOnly')}

    base = {}
    for line in ("import re", "import itertools", "import collections", "import heapq", "import bisect", "import string",
                 "import sys", "import functools", "import math", "import copy",
                 "from math import floor, ceil, factorial, sqrt, inf", "from sys import maxsize, stdin",
                 "from bisect import bisect_left, bisect_right", "from itertools import permutations, zip_longest",
                 "from heapq import heappush, heappop, heapify", "from collections import deque, defaultdict, OrderedDict",
                 "from typing import List, Optional, Tuple", "from functools import lru_cache, cache"):
        exec(line, base)
    for optional in ("import lctk", "import sortedcontainers"):
        try:
            exec(optional, base)
        except ImportError:
            pass
    exec("class ListNode(object):\n\tdef __init__(self, val=0, next=None):\n\t\tself.val = val\n\t\tself.next = next", base)
    exec("class TreeNode(object):\n\tdef __init__(self, val=0, left=None, right=None):\n\t\tself.val = val\n\t\tself.left = left\n\t\tself.right = right", base)
    exec("def print(*args):pass", base)
    signal.signal(signal.SIGALRM, on_alarm)
    entry = spec["entry_point"]

    def run_once(source):
        """One run of a program over every test case: its status and the CPU time of its entry point's calls (ns)."""
        namespace = dict(base)
        cases = json.loads(spec["test_cases"])
        status, spent = None, 0
        clock = time.thread_time_ns
        stream = WriteOnly()
        gc.collect()
        gc.disable()
        signal.setitimer(signal.ITIMER_REAL, spec["run_limit"])
        try:
            with contextlib.redirect_stdout(stream), contextlib.redirect_stderr(stream):
                old_stdin, sys.stdin = sys.stdin, stream
                try:
                    try:
                        exec(source, namespace)
                        exec("solution=Solution()", namespace)
                        exec(spec["convert_offline"], namespace)
                        exec(spec["evaluate_offline"], namespace)
                    except Exception:
                        status = "failed@load"
                    total = passed = 0
                    try:
                        convert = namespace["convert_offline"]
                        evaluate = namespace["evaluate_offline"]
                        call = getattr(namespace["solution"], entry)
                        for case in cases:
                            inputs, expected = convert((case["input"], case["expected"]))
                            before = clock()
                            outputs = call(*inputs)
                            spent += clock() - before
                            total += 1
                            passed += 1 if evaluate(inputs, outputs, expected) else 0
                    except Exception:
                        status = status or "failed@eval"
                    status = status or ("passed" if total == passed else "failed@cases")
                finally:
                    sys.stdin = old_stdin
        except Timeout:
            status = status or "failed@timeout"
        except BaseException:
            status = status or "failed@error"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            gc.enable()
        return status, spent

    def run_apart(source):
        """run_once in a child process (as bigcode runs each in a Process of its own): a program's changes to modules,
        builtins or the interpreter die with it, so none reaches the programs timed after it. A child that sends
        nothing within the run limit and a second (killed, crashed) is bigcode's failed@timeout."""
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                os.write(w, json.dumps(run_once(source)).encode("utf-8"))
            finally:
                os._exit(0)
        os.close(w)
        chunks, deadline = [], time.monotonic() + spec["run_limit"] + 1
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([r], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                break
            chunk = os.read(r, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(r)
        os.waitpid(pid, 0)
        try:
            status, spent = json.loads(b"".join(chunks).decode("utf-8"))
            return status, spent
        except ValueError:
            return "failed@timeout", 0

    statuses = [None] * len(programs)
    times = [[] for _ in programs]
    status, spent = run_apart(programs[0])
    statuses[0] = status
    if status != "passed":
        return report({"candidate": {"status": status, "runtimes": []}, "references": [], "rounds": 1})
    times[0].append(spent)
    for i in range(1, len(programs)):
        statuses[i], spent = run_apart(programs[i])
        if statuses[i] == "passed":
            times[i].append(spent)
    rounds = 1
    live = [i for i in range(len(programs)) if statuses[i] == "passed"]
    while rounds < spec["runs"]:
        took = time.monotonic() - started
        if took / rounds * (rounds + 1) > spec["budget"]:
            break
        order = live[rounds % len(live):] + live[:rounds % len(live)]
        for i in order:
            status, spent = run_apart(programs[i])
            if status == "passed":
                times[i].append(spent)
        rounds += 1
    report({
        "candidate": {"status": statuses[0], "runtimes": times[0]},
        "references": [{"status": statuses[i], "runtimes": times[i]} for i in range(1, len(programs))],
        "rounds": rounds,
    })
`;

/** The solution as the program holds it: a string the harness runs afresh each round. */
export function embeddedSolution(solution: string): string {
  return `__explora_mercury_source = ${JSON.stringify(utf8Base64(solution))}\n`;
}

/** What the harness is given: the task's references and functions, and the timing's settings. */
export interface MercuryHarnessSpec {
  references: readonly string[];
  entry_point: string;
  /** The row's test_cases, JSON text of [{input, expected}]. */
  test_cases: string;
  convert_offline: string;
  evaluate_offline: string;
  /** Rounds of timed runs (bigcode: 5 runs of the sample). */
  runs: number;
  /** Seconds a run may take (bigcode: 10). */
  run_limit: number;
  /** Seconds after which no further round starts. */
  budget: number;
}

/** What runs after the embedded solution. */
export function mercuryHarness(spec: MercuryHarnessSpec): string {
  return `\n${RUN}\n__explora_mercury_run(__explora_mercury_source, ${JSON.stringify(utf8Base64(JSON.stringify(spec)))})\n`;
}
