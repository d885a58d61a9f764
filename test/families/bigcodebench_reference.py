"""BigCodeBench's own scoring of samples, for the tests (run with the tests' venv, PYTHONPATH
.tools/test-python-bigcodebench: scripts/install-test-bigcodebench.sh).

Reads JSON on stdin: {"rows": [row...], "samples": {task_id: [solution...]}, "k": [1, 2],
"timeout_per_task": seconds, "calibrated": true} and prints {"statuses": {task_id: [status...]},
"pass_at_k": {...}}, each sample checked by bigcodebench.eval.untrusted_check with the arguments
bigcodebench.evaluate.evaluate gives it (its default limits; the calibrated solution; a ground-truth
time under min_time_limit, as the tasks' canonical solutions take), and pass@k as evaluate computes
it. TIMEOUT_LIMIT (what BIGCODEBENCH_TIMEOUT_PER_TASK is meant to set) is the module's constant,
set here so that a timeout takes seconds, not four minutes.
"""
import json
import os
import signal
import sys

import numpy as np

os.environ.setdefault("MPLBACKEND", "Agg")
import bigcodebench.eval as bcb_eval  # noqa: E402
# Imported once here, so that each check's process (forked) has matplotlib's font cache made: its
# reliability_guard imports pyplot, whose first import in a fresh config dir takes longer than the
# short timeout the tests use.
import matplotlib.pyplot  # noqa: E402,F401


def kill_leftovers():
    """BigCodeBench's checks leave multiprocessing Managers behind (a terminated check's own among
    them): every other process of this script's process group is killed, so that none outlives it."""
    me, group = os.getpid(), os.getpgid(0)
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != me:
            try:
                if os.getpgid(int(entry)) == group:
                    os.kill(int(entry), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def main():
    os.setpgid(0, 0)
    data = json.load(sys.stdin)
    bcb_eval.TIMEOUT_LIMIT = data["timeout_per_task"]
    problems = {row["task_id"]: row for row in data["rows"]}
    statuses = {}
    for task_id, solutions in data["samples"].items():
        problem = problems[task_id]
        statuses[task_id] = []
        for solution in solutions:
            if data.get("calibrated", True):
                solution = problem["code_prompt"] + "\n    pass\n" + solution
            stat, _details = bcb_eval.untrusted_check(
                solution, problem["test"], problem["entry_point"], 30 * 1024, 30 * 1024, 10, 1, 0.1
            )
            statuses[task_id].append(stat)
    total = np.array([len(r) for r in statuses.values()])
    correct = np.array([sum(s == bcb_eval.PASS for s in r) for r in statuses.values()])
    pass_at_k = {f"pass@{k}": float(bcb_eval.estimate_pass_at_k(total, correct, k).mean()) for k in data["k"] if total.min() >= k}
    print(json.dumps({"statuses": statuses, "pass_at_k": pass_at_k}), flush=True)
    kill_leftovers()


if __name__ == "__main__":
    main()
