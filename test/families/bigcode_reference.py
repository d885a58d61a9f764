"""bigcode-evaluation-harness's shared parts (at 8fc5bae), written out once for the tests' transcriptions
of its tasks (humanevalpack_reference.py, repair_reference.py, and humanevalexplain_reference.py
through the first): its EndOfFunctionCriteria on one sequence (bigcode_eval/utils.py), and
custom_metrics/execute.py's check_correctness (the program exec'd in its own process under a time
limit, any exception a failure; reliability_guard left out, which these programs do not reach) with
code_eval.py's estimate_pass_at_k. Imported from the scripts' own folder (Python puts a script's
folder first on sys.path).
"""
import contextlib
import io
import multiprocessing
import signal

import numpy as np


# --- the stopping criterion -----------------------------------------------------------------------

def stopped(continuation, stop_words):
    """bigcode's EndOfFunctionCriteria on one sequence: generation ends once a stop word appears."""
    ends = [continuation.find(s) + len(s) for s in stop_words if s in continuation]
    return continuation[: min(ends)] if ends else continuation


def bigcode_generation(prompt, continuation, stop_words):
    """The generation bigcode hands postprocess_generation: the prompt, then the continuation as it stopped."""
    return prompt + stopped(continuation, stop_words)


# --- custom_metrics/execute.py and code_eval.py -------------------------------------------------

class TimeoutException(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds):
    def signal_handler(signum, frame):
        raise TimeoutException("Timed out!")

    signal.setitimer(signal.ITIMER_REAL, seconds)
    signal.signal(signal.SIGALRM, signal_handler)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def unsafe_execute(check_program, result, timeout):
    try:
        exec_globals = {}
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            with time_limit(timeout):
                exec(check_program, exec_globals)
        result.append("passed")
    except TimeoutException:
        result.append("timed out")
    except BaseException as e:
        result.append(f"failed: {e}")


def check_correctness(check_program, timeout, task_id, completion_id):
    manager = multiprocessing.Manager()
    result = manager.list()
    p = multiprocessing.Process(target=unsafe_execute, args=(check_program, result, timeout))
    p.start()
    p.join(timeout=timeout + 1)
    if p.is_alive():
        p.kill()
    if not result:
        result.append("timed out")
    return dict(task_id=task_id, passed=result[0] == "passed", result=result[0], completion_id=completion_id)


def estimate_pass_at_k(num_samples, num_correct, k):
    def estimator(n, c, k):
        if n - c < k:
            return 1.0
        return 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))

    num_samples_it = iter(num_samples)
    return np.array([estimator(int(n), int(c), k) for n, c in zip(num_samples_it, num_correct)])
