"""BigCodeBench's own prompts and scoring of samples, for the tests (run with the tests' venv, PYTHONPATH
.tools/test-python-bigcodebench: scripts/install-test-bigcodebench.sh).

Reads JSON on stdin: {"rows": [row...], "samples": {task_id: [solution...]}, "k": [1, 2],
"timeout_per_task": seconds, "calibrated": true} and prints {"statuses": {task_id: [status...]},
"failed_tests": {task_id: [[the names of its details...]...]}, "pass_at_k": {...}}, each sample checked by bigcodebench.eval.untrusted_check with the arguments
bigcodebench.evaluate.evaluate gives it (its default limits; the calibrated solution; a ground-truth
time under min_time_limit, as the tasks' canonical solutions take), and pass@k as evaluate computes
it. TIMEOUT_LIMIT (what BIGCODEBENCH_TIMEOUT_PER_TASK is meant to set) is the module's constant,
set here so that a timeout takes seconds, not four minutes.

With {"mode": "files", "rows": [...], "samples_file": path, "split", "subset", "k", "calibrated",
"timeout_per_task"}: the files BigCodeBench's evaluate writes for the samples (peer_files).

Each task's ground truth runs first, as evaluate() runs it (get_groundtruth: trusted_check of
complete_prompt + "\n" + canonical_solution, with evaluate's min_time_limit default, 1): the output
also has each task's "expected_time" (None when it failed), and "gt_pass_rate" and "failed_tasks"
as evaluate computes them; each sample's gt_time_limit is evaluate's, the time or 20.

With {"mode": "files", ..., "no_gt": false}: evaluate() runs its get_groundtruth too.

With {"mode": "limits", "cases": [[timeout_per_task, min_time_limit, expected_time], ...]}: the
seconds BigCodeBench gives each case, read from its own functions with their process stubbed (no
test runs): untrusted_check's suite timeout and how long it waits for the process (p.join), with
gt_time_limit from evaluate's own expression on expected_time; trusted_check's the same.

With {"mode": "prompts", "rows": [...]}: prints each row's chat message for both splits as
bigcodebench's make_raw_chat_prompt makes it without a tokenizer (its API providers' way), with
generate.py's default instruction prefix, its base models' stop words (EOS and
extra_eos_for_direct_completion) and the interpreter's sys.stdlib_module_names. provider/utility.py
imports transformers, which the tests' venv lacks: the functions are taken from its source, as
written there, and executed alone.
"""
import ast
import json
from contextlib import redirect_stdout
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


def peer_functions(module_file, names, scope=None):
    """The top-level definitions and assignments `names` of a module of bigcodebench, executed alone
    (in `scope`: the names they use that are not among them)."""
    import bigcodebench

    path = os.path.join(os.path.dirname(bigcodebench.__file__), *module_file.split("/"))
    tree = ast.parse(open(path).read())
    picked = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in names:
            picked.append(node)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in names for t in node.targets):
            picked.append(node)
    scope = {"List": list, "AutoTokenizer": object} if scope is None else scope
    exec(compile(ast.Module(body=picked, type_ignores=[]), path, "exec"), scope)
    return scope


class InOrder:
    """as_completed in the order the futures were submitted: the ground truth's expected_time (and so
    failed_tasks) in task order, where BigCodeBench's order is that of completion."""

    def __call__(self, futures, **kwargs):
        for future in futures:
            future.result()
            yield future


def limits(data):
    """The timeouts of BigCodeBench's untrusted_check and trusted_check for each case, their process
    replaced by one that records its target's arguments and the join's timeout."""
    import bigcodebench.gen.util as gen_util

    seen = {}

    class Recorder:
        def __init__(self, target, args):
            seen["args"] = args

        def start(self):
            pass

        def join(self, timeout=None):
            seen["join"] = timeout

        def is_alive(self):
            return False

    class NoManager:
        def dict(self):
            return {}

    fake = type("multiprocessing", (), {"Process": staticmethod(lambda target, args: Recorder(target, args))})
    bcb_eval.multiprocessing, gen_util.multiprocessing = fake, fake
    bcb_eval.Manager = gen_util.Manager = NoManager
    evaluate_tree = ast.parse(open(os.path.join(os.path.dirname(bcb_eval.__file__), "..", "evaluate.py")).read())
    gt_limit = next(
        ast.Expression(body=n) for n in ast.walk(evaluate_tree) if isinstance(n, ast.IfExp) and "expected_time" in ast.unparse(n.test)
    )
    gt_limit = compile(ast.fix_missing_locations(gt_limit), "evaluate.py", "eval")
    out = []
    for timeout_per_task, min_time_limit, expected_time in data["cases"]:
        bcb_eval.TIMEOUT_LIMIT = gen_util.TIMEOUT_LIMIT = timeout_per_task
        gt_time_limit = eval(gt_limit, {"expected_time": {"t": expected_time}, "task_id": "t"})
        bcb_eval.untrusted_check("", "", "f", 30 * 1024, 30 * 1024, 10, min_time_limit, gt_time_limit)
        sample = {"suite": seen["args"][3], "join": seen["join"]}
        gen_util.trusted_check("", "", "t", 30 * 1024, 30 * 1024, 10, min_time_limit)
        out.append({"gt_time_limit": gt_time_limit, "sample": sample, "ground_truth": {"process": seen["join"] - 1, "join": seen["join"]}})
    print(json.dumps(out))


def ground_truth(problems, n_workers=1):
    """get_groundtruth from evaluate.py's source, its pool one of threads (each check starts a process
    of its own all the same), its futures taken in task order, its cache a folder of its own."""
    import concurrent.futures
    import pickle
    import tempfile
    import time
    import bigcodebench.gen.util as gen_util

    scope = {
        "os": os, "pickle": pickle, "time": time, "ProcessPoolExecutor": concurrent.futures.ThreadPoolExecutor,
        "as_completed": InOrder(), "tqdm": lambda items, **kwargs: items, "trusted_check": gen_util.trusted_check,
        "CACHE_DIR": tempfile.mkdtemp(prefix="bcb-gt-cache-"),
    }
    return peer_functions("evaluate.py", {"get_groundtruth"}, scope)["get_groundtruth"], scope


def peer_files(data):
    """evaluate.py's evaluate() itself (execution "local", --no_gt) on a samples file, the rows as its
    dataset: the eval_results.json and pass_at_k.json it writes, as text. evaluate.py imports
    gradio_client and e2b, which the tests' venv lacks, and bigcodebench.data downloads the dataset:
    evaluate and check_correctness are taken from its source and executed alone, with the dataset's
    loaders answering the rows, its progress bar and colours off, and its pool of processes one of
    threads (each check starts a process of its own all the same)."""
    import collections
    import concurrent.futures
    import datetime
    import gzip
    import multiprocessing
    import threading
    import time
    import typing
    import warnings
    from contextlib import redirect_stdout

    import bigcodebench.gen.util as gen_util

    bcb_eval.TIMEOUT_LIMIT = gen_util.TIMEOUT_LIMIT = data["timeout_per_task"]
    get_groundtruth, _ = ground_truth(None)
    typing_names = {name: getattr(typing, name) for name in ("Any", "Dict", "List", "Tuple", "Optional", "Iterable")}
    utils = peer_functions("data/utils.py", {"stream_jsonl", "load_solutions"}, {"os": os, "json": json, "gzip": gzip, "PathLike": os.PathLike, **typing_names})
    problems = {row["task_id"]: row for row in data["rows"]}
    scope = {
        **typing_names,
        "os": os, "json": json, "np": np, "time": time, "threading": threading, "multiprocessing": multiprocessing,
        "Counter": collections.Counter, "defaultdict": collections.defaultdict, "datetime": datetime.datetime,
        "ProcessPoolExecutor": concurrent.futures.ThreadPoolExecutor, "as_completed": concurrent.futures.as_completed,
        "wait": concurrent.futures.wait, "FIRST_COMPLETED": concurrent.futures.FIRST_COMPLETED, "warn": warnings.warn,
        "tqdm": lambda items, **kwargs: items, "cprint": lambda text, *args, **kwargs: print(text, file=sys.stderr),
        "PASS": bcb_eval.PASS, "compatible_eval_result": bcb_eval.compatible_eval_result,
        "estimate_pass_at_k": bcb_eval.estimate_pass_at_k, "untrusted_check": bcb_eval.untrusted_check,
        "load_solutions": utils["load_solutions"], "get_bigcodebench": lambda subset: problems,
        "get_bigcodebench_hash": lambda subset: "unused", "run_codegen": None, "get_groundtruth": get_groundtruth,
    }
    evaluate = peer_functions("evaluate.py", {"Result", "check_correctness", "evaluate"}, scope)["evaluate"]
    with redirect_stdout(sys.stderr):
        evaluate(data["split"], data["subset"], samples=data["samples_file"], execution="local", no_gt=data.get("no_gt", True),
                 pass_k=",".join(str(k) for k in data["k"]), calibrated=data["calibrated"], parallel=2)
    result_path = data["samples_file"].replace(".jsonl", "_eval_results.json")
    with open(result_path) as results, open(result_path.replace("eval_results.json", "pass_at_k.json")) as pass_at_k:
        print(json.dumps({"eval_results": results.read(), "pass_at_k": pass_at_k.read()}), flush=True)


def prompts(data):
    utility = peer_functions("provider/utility.py", {"make_raw_chat_prompt", "_MAGIC_SPLITTER_", "EOS", "extra_eos_for_direct_completion"})
    generate = ast.parse(open(os.path.join(os.path.dirname(bcb_eval.__file__), "..", "generate.py")).read())
    run_codegen = next(n for n in generate.body if isinstance(n, ast.FunctionDef) and n.name == "run_codegen")
    defaults = dict(zip([a.arg for a in run_codegen.args.args][-len(run_codegen.args.defaults):], run_codegen.args.defaults))
    prefix = ast.literal_eval(defaults["instruction_prefix"])
    messages = {
        split: [
            utility["make_raw_chat_prompt"](row[f"{split}_prompt"], "full", split, prefix, "unused", None)
            for row in data["rows"]
        ]
        for split in ("complete", "instruct")
    }
    stop = utility["EOS"] + utility["extra_eos_for_direct_completion"]("bigcodebench")
    stdlib = sorted(n for n in sys.stdlib_module_names if not n.startswith("_"))
    print(json.dumps({"messages": messages, "prefix": prefix, "stop": stop, "stdlib": stdlib}))


def main():
    os.setpgid(0, 0)
    data = json.load(sys.stdin)
    if data.get("mode") == "prompts":
        return prompts(data)
    if data.get("mode") == "files":
        peer_files(data)
        return kill_leftovers()
    if data.get("mode") == "limits":
        return limits(data)
    import bigcodebench.gen.util as gen_util

    bcb_eval.TIMEOUT_LIMIT = gen_util.TIMEOUT_LIMIT = data["timeout_per_task"]
    problems = {row["task_id"]: row for row in data["rows"]}
    get_groundtruth, _ = ground_truth(problems)
    min_time_limit = 1
    with open(os.devnull, "w") as quiet, redirect_stdout(quiet):
        expected_time = get_groundtruth(1, problems, "explora-test", False, 30 * 1024, 30 * 1024, 10, min_time_limit)
    gt_pass_rate = float(np.mean([1 if v is not None else 0 for k, v in expected_time.items() if k in problems]))
    failed_tasks = [k for k, v in expected_time.items() if v is None and k in problems]
    statuses = {}
    failed_tests = {}
    for task_id, solutions in data["samples"].items():
        problem = problems[task_id]
        statuses[task_id] = []
        failed_tests[task_id] = []
        for solution in solutions:
            if data.get("calibrated", True):
                solution = problem["code_prompt"] + "\n    pass\n" + solution
            stat, details = bcb_eval.untrusted_check(
                solution, problem["test"], problem["entry_point"], 30 * 1024, 30 * 1024, 10, min_time_limit,
                expected_time[task_id] if expected_time[task_id] else 20,
            )
            statuses[task_id].append(stat)
            failed_tests[task_id].append(sorted(details))
    total = np.array([len(r) for r in statuses.values()])
    correct = np.array([sum(s == bcb_eval.PASS for s in r) for r in statuses.values()])
    pass_at_k = {f"pass@{k}": float(bcb_eval.estimate_pass_at_k(total, correct, k).mean()) for k in data["k"] if total.min() >= k}
    print(json.dumps({"statuses": statuses, "failed_tests": failed_tests, "pass_at_k": pass_at_k, "expected_time": expected_time,
                      "gt_pass_rate": gt_pass_rate, "failed_tasks": failed_tasks}), flush=True)
    kill_leftovers()


if __name__ == "__main__":
    main()
