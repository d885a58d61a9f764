/**
 * The Python that runs a PAL program in the sandbox the way bigcode's executor runs it
 * (custom_metrics/pal_metric/python_executor.py, run_program): the program is exec'd with empty
 * globals (so `__name__` is not "__main__"), its standard output and standard error written to
 * one buffer; its answer is that buffer's last line (readlines()[-1]), stripped. One line on the
 * real standard output reports it, after a marker: the answer as JSON, or null when the program
 * raised (SystemExit too) or printed nothing, and then the harness fails the run the same way
 * (bigcode's "failed: ..." answers). An answer that is not within 1e-3 of the reference (or that
 * float() refuses) fails the run with an AssertionError naming both, so that a run's status says
 * what happened: `passed` right, `failed` wrong, `error` no answer. The family's score reads the
 * reported answer and compares it itself (domain/metrics/pal.ts); the status is for people. A run
 * killed for time or memory reports nothing: no answer.
 */
import { utf8Base64 } from '../base64.js';

export const PAL_ANSWER_MARKER = '__explora_pal_answer__ ';

const RUN = String.raw`
def __explora_pal_run(source_b64, target):
    import base64, contextlib, io, json, os
    source = base64.b64decode(source_b64).decode("utf-8")
    report = os.fdopen(os.dup(1), "w", encoding="utf-8")
    buffer = io.StringIO()
    failure = None
    try:
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
            exec(source, {})
    except BaseException as e:
        failure = e
    buffer.seek(0)
    lines = buffer.readlines()
    if failure is None and not lines:
        failure = RuntimeError("the program printed nothing (bigcode: failed: list index out of range)")
    answer = None if failure is not None else lines[-1].strip()
    report.write("${PAL_ANSWER_MARKER}" + json.dumps(answer) + "\n")
    report.flush()
    if failure is not None:
        raise failure
    try:
        right = abs(float(answer) - float(target)) < 1e-3
    except (ValueError, TypeError, OverflowError):
        right = False
    if not right:
        raise AssertionError("answer %r, reference %r" % (answer, target))
`;

/** The harness with the program to run (the sample's solution), as a string it executes. */
export function palHarness(program: string): string {
  return `${RUN}\n__explora_pal_source = ${JSON.stringify(utf8Base64(program))}\n`;
}

/** What runs after it: the call, with the reference (a JSON number or string is a Python literal). */
export function palRunCall(target: number | string): string {
  return `__explora_pal_run(__explora_pal_source, ${JSON.stringify(target)})`;
}

/**
 * The answer a run reported: its marker line's JSON (null: none), or null when there is no marker
 * line (killed) or it was cut short (an answer longer than the output the sandbox keeps, which no
 * number is).
 */
export function reportedAnswer(stdout: string): string | null {
  const at = stdout.lastIndexOf(PAL_ANSWER_MARKER);
  if (at < 0) return null;
  const line = stdout.slice(at + PAL_ANSWER_MARKER.length).split('\n', 1)[0]!;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}
