/**
 * The Python that runs evalplus tasks in the sandbox, in two modes:
 * - `reference`: the dataset's own solution (prompt + canonical_solution) on every base and plus
 *   input, each a deep copy, timed; prints the outputs (pickled: tuples, sets, complex numbers and
 *   non-finite floats survive) and the times. What evalplus's `get_groundtruth` / `trusted_exec` do.
 * - `check`: after a sample's solution, each input is given to the entry point under a time limit
 *   of max(floor, factor * reference time), the phase as a whole within min(task cap, sum of its
 *   limits) + 1 s, and the output compared with the reference's as evalplus's `unsafe_execute`
 *   does with `fast_check` (its default): exact equality, else, when the task has an `atol` or the
 *   expected output is floats (then atol 1e-6), the same type and length and numpy's allclose with
 *   rtol 1e-7; evalplus's special oracles (HumanEval/32 `find_zero`, MBPP+ 164, 295, 558, 581, its
 *   set-equality and not-None tasks); the first failing input ends the phase. Each phase runs in a
 *   fork of the process the solution was defined in (evalplus: a process per phase), killed past
 *   its budget + 1 s as evalplus kills it. Plus runs only when
 *   base passed (evalplus's plus score is base and plus). The outcome is one line on the saved
 *   standard output, after the sample's own output is silenced (evalplus's swallow_io).
 *
 * MBPP+ stores some inputs as lists where the task takes tuples, sets or complex numbers; both
 * modes convert them per task as evalplus's `mbpp_deserialize_inputs` does.
 */
import { utf8Base64 } from '../base64.js';
import { SILENCED_OUTPUT } from '../pythonHarness.js';

/** The line the check mode prints its outcome on. */
export const EVALPLUS_RESULT_MARKER = '__explora_evalplus_result__ ';
/** The line the reference mode prints the expected outputs on. */
export const EVALPLUS_REFERENCE_MARKER = '__explora_evalplus_reference__ ';

const COMMON = String.raw`
def __explora_evalplus_common():
    import base64, json

    def as_tuples(inp):
        return [tuple(a) for a in inp]

    def all_tuples(x):
        return tuple(all_tuples(i) for i in x) if isinstance(x, list) else x

    # evalplus's mbpp_deserialize_inputs: which MBPP+ task takes which arguments as tuples, sets or complex numbers.
    conversions = [
        ({2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596, 616, 630, 726, 740, 744, 809}, as_tuples),
        ({63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780}, lambda inp: [[tuple(l) for l in a] for a in inp]),
        ({75, 413, 444, 753}, lambda inp: [[tuple(l) for l in inp[0]], inp[1]]),
        ({106, 750}, lambda inp: [inp[0], tuple(inp[1])]),
        ({115}, lambda inp: [[set(i) if isinstance(i, list) and len(i) else {} for i in inp[0]]]),
        ({124}, lambda inp: (float(inp[0]), complex(inp[1]))),
        ({250, 405, 446, 617, 720, 763, 808}, lambda inp: [tuple(inp[0]), inp[1]]),
        ({259, 401, 445}, lambda inp: [tuple(tuple(l) for l in a) for a in inp]),
        ({278}, lambda inp: [tuple(tuple(i) if isinstance(i, list) else i for i in inp[0])]),
        ({307}, lambda inp: [tuple(inp[0]), inp[1], inp[2]]),
        ({722}, lambda inp: [{k: tuple(v) for k, v in inp[0].items()}] + inp[1:]),
        ({252}, lambda inp: [complex(inp[0])]),
        ({580, 615, 791}, all_tuples),
    ]

    def inputs_of(spec, phase):
        inputs = spec[phase + "_input"]
        if spec["dataset"] == "mbpp":
            number = int(spec["task_id"].split("/")[-1])
            for tasks, convert in conversions:
                if number in tasks:
                    return [convert(inp) for inp in inputs]
        return inputs

    return inputs_of
`;

/** evalplus's MBPP+ tasks whose expected output is only whether the output is not None. */
export const MBPP_OUTPUT_NOT_NONE_TASKS = ['check_str', 'text_match_three', 'text_starta_endb'] as const;

const REFERENCE = String.raw`
def __explora_evalplus_reference(spec_b64):
    import base64, copy, json, os, pickle, time
    spec = json.loads(base64.b64decode(spec_b64).decode("utf-8"))
    inputs_of = __explora_evalplus_common()
    fn = globals()[spec["entry_point"]]
    not_none = spec["dataset"] == "mbpp" and spec["entry_point"] in ("check_str", "text_match_three", "text_starta_endb")
    expected, times = {}, {}
    for phase in ("base", "plus"):
        outs, ts = [], []
        for i, inp in enumerate(inputs_of(spec, phase)):
            inp = copy.deepcopy(inp)
            start = time.perf_counter()
            try:
                out = fn(*inp)
            except BaseException as e:
                raise RuntimeError("the canonical solution fails on %s input %d: %s: %s" % (phase, i, type(e).__name__, e))
            ts.append(time.perf_counter() - start)
            outs.append(out is not None if not_none else out)
        expected[phase], times[phase] = outs, ts
    line = "${EVALPLUS_REFERENCE_MARKER}" + json.dumps({"expected": base64.b64encode(pickle.dumps(expected)).decode("ascii"), "time": times}) + "\n"
    os.write(1, line.encode("utf-8"))
`;

const CHECK = String.raw`
def __explora_evalplus_check(spec_b64):
    import base64, io, json, math, os, pickle, select, signal, sys, time
    spec = json.loads(base64.b64decode(spec_b64).decode("utf-8"))
    inputs_of = __explora_evalplus_common()
    expected = pickle.loads(base64.b64decode(spec["expected"]))
    entry_point, dataset = spec["entry_point"], spec["dataset"]

    class Timeout(Exception):
        pass

    def on_alarm(signum, frame):
        raise Timeout()

    class Sink(io.StringIO):
        def write(self, s):
            return len(s)

    def poly(xs, x):
        return sum(c * math.pow(x, i) for i, c in enumerate(xs))

    def surface_area(base_edge, height):
        slant = math.sqrt((base_edge / 2) ** 2 + height ** 2)
        return round(base_edge ** 2 + 4 * (base_edge * slant) / 2)

    def digit_distance(a, b):
        sa, sb = str(a), str(b)
        n = max(len(sa), len(sb))
        return sum(abs(int(x) - int(y)) for x, y in zip(sa.zfill(n), sb.zfill(n)))

    def is_floats(x):
        if isinstance(x, float):
            return True
        if isinstance(x, (list, tuple)) and x:
            return all(isinstance(i, float) for i in x)
        np = sys.modules.get("numpy")
        if np is not None and isinstance(x, np.ndarray):
            return x.dtype == np.float64 or x.dtype == np.float32
        return False

    def allclose(out, exp, rtol, atol):
        try:
            import numpy
        except ImportError:
            numpy = None
        if numpy is not None:
            return bool(numpy.allclose(out, exp, rtol=rtol, atol=atol))
        # Without numpy: element-wise over equal shapes, as allclose without broadcasting.
        if isinstance(exp, (list, tuple)):
            return isinstance(out, (list, tuple)) and len(out) == len(exp) and all(allclose(o, e, rtol, atol) for o, e in zip(out, exp))
        if isinstance(exp, bool) or isinstance(out, bool) or not isinstance(exp, (int, float)) or not isinstance(out, (int, float)):
            raise TypeError("not numbers")
        if math.isinf(exp) or math.isinf(out):
            return out == exp
        return abs(out - exp) <= atol + rtol * abs(exp)

    # evalplus sets atol to 1e-6 for the first float output of a phase and keeps it for the rest of
    # the phase (its unsafe_execute reassigns the variable): done alike.
    state = {"atol": spec["atol"]}

    def matches(out, exp, inp):
        exact = out == exp
        if dataset == "mbpp":
            if entry_point == "are_equivalent":
                exact = True
            elif entry_point == "sum_div":
                exact = exact or out == 0
            elif entry_point == "surface_Area":
                exact = exact or abs(out - surface_area(*inp)) <= state["atol"]
            elif entry_point == "digit_distance_nums":
                exact = exact or out == digit_distance(*inp)
            elif entry_point in ("similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly", "larg_nnum", "intersection_array", "find_dissimilar", "Diff"):
                exact = set(out) == set(exp)
            elif entry_point in ("check_str", "text_match_three", "text_starta_endb"):
                exact = out == exp if isinstance(out, bool) else exp == (out is not None)
        if dataset == "humaneval" and entry_point == "find_zero":
            return abs(poly(*inp, out)) <= state["atol"]
        if state["atol"] == 0 and is_floats(exp):
            state["atol"] = 1e-6
        if not exact and state["atol"] != 0:
            if type(out) != type(exp):
                return False
            if isinstance(exp, (list, tuple)) and len(out) != len(exp):
                return False
            return allclose(out, exp, 1e-07, state["atol"])
        return bool(exact)

    def limits_of(phase):
        return [max(spec["min_time_limit"], spec["time_limit_factor"] * t) for t in spec["time"][phase]]

    def budget_of(phase):
        return min(spec["task_time_limit"], sum(limits_of(phase))) + 1

    def run_phase(phase, fn, started_input):
        inputs = inputs_of(spec, phase)
        limits = limits_of(phase)
        budget = budget_of(phase)
        state["atol"] = spec["atol"]
        started = time.monotonic()
        for i, inp in enumerate(inputs):
            started_input(i)
            left = budget - (time.monotonic() - started)
            if left <= 0:
                return {"status": "timeout", "passed": i, "total": len(inputs), "failed_input": i, "reason": "the phase ran out of time"}
            reason = None
            signal.setitimer(signal.ITIMER_REAL, min(limits[i], left))
            try:
                try:
                    out = fn(*inp)
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                if not matches(out, expected[phase][i], inp):
                    reason = "wrong output"
            except Timeout:
                reason = "timed out (limit %.3g s)" % limits[i]
            except BaseException as e:
                reason = "%s: %s" % (type(e).__name__, str(e)[:200])
            if reason is not None:
                return {"status": "fail", "passed": i, "total": len(inputs), "failed_input": i, "reason": reason}
        return {"status": "pass", "passed": len(inputs), "total": len(inputs)}

    def phase_in_child(phase, fn):
        # evalplus checks each phase in a process of its own (untrusted_check per phase), from the
        # state the solution's definition leaves: a fork here starts each phase from that state, and
        # a phase's crash, kill or hang loses neither the other phase's result nor this process.
        total = len(inputs_of(spec, phase))
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            code = 0
            try:
                result = run_phase(phase, fn, lambda i: os.write(w, b"%d\n" % i))
                os.write(w, ("=" + json.dumps(result) + "\n").encode("utf-8"))
            except BaseException:
                code = 1
            os._exit(code)
        os.close(w)
        data = b""
        # As evalplus: the phase's process gets its budget and one second more, then is killed.
        deadline = time.monotonic() + budget_of(phase) + 1
        killed = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                killed = True
                break
            ready, _, _ = select.select([r], [], [], left)
            if ready:
                chunk = os.read(r, 65536)
                if not chunk:
                    break
                data += chunk
        os.close(r)
        _, status = os.waitpid(pid, 0)
        lines = data.decode("utf-8", "replace").splitlines()
        for line in lines:
            if line.startswith("="):
                return json.loads(line[1:])
        last = int(lines[-1]) if lines and lines[-1].isdigit() else 0
        if killed:
            return {"status": "timeout", "passed": last, "total": total, "failed_input": last, "reason": "the phase ran out of time"}
        how = "signal %d" % os.WTERMSIG(status) if os.WIFSIGNALED(status) else "exit code %d" % os.WEXITSTATUS(status)
        return {"status": "fail", "passed": last, "total": total, "failed_input": last, "reason": "the phase's process ended (%s)" % how}

${SILENCED_OUTPUT}
    sys.stdout, sys.stderr, sys.stdin = Sink(), Sink(), io.StringIO()
    signal.signal(signal.SIGALRM, on_alarm)
    outcome = {"base": None, "plus": None}
    fn = globals().get(entry_point)
    if not callable(fn):
        outcome["base"] = {"status": "fail", "passed": 0, "total": len(spec["base_input"]), "failed_input": 0, "reason": "no function %s" % entry_point}
    else:
        outcome["base"] = phase_in_child("base", fn)
        if outcome["base"]["status"] == "pass":
            outcome["plus"] = phase_in_child("plus", fn)
    os.write(saved, ("${EVALPLUS_RESULT_MARKER}" + json.dumps(outcome) + "\n").encode("utf-8"))
    failed = next((p for p in ("base", "plus") if outcome[p] is not None and outcome[p]["status"] != "pass"), None)
    if failed is not None:
        o = outcome[failed]
        raise AssertionError("%s input %d of %d: %s" % (failed, o["failed_input"], o["total"], o["reason"]))
`;

/** The spec's JSON text, with the inputs spliced in as written in the row (Python reads them exactly). */
export function specJson(fields: Record<string, unknown>, rawInputs: { base_input: string; plus_input: string }): string {
  const head = JSON.stringify(fields);
  return `${head.slice(0, -1)},"base_input":${rawInputs.base_input},"plus_input":${rawInputs.plus_input}}`;
}

/** What runs after the reference solution: every input, timed. */
export function referenceHarness(spec: string): string {
  return `\n${COMMON}\n${REFERENCE}\n__explora_evalplus_reference(${JSON.stringify(utf8Base64(spec))})\n`;
}

/** What runs after a sample's solution: every input, compared. */
export function checkHarness(spec: string): string {
  return `\n${COMMON}\n${CHECK}\n__explora_evalplus_check(${JSON.stringify(utf8Base64(spec))})\n`;
}
