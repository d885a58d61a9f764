"""The independent side of test/families/studenteval.test.ts: bigcode-evaluation-harness's StudentEval
task (bigcode_eval/tasks/studenteval.py) on the JSON on stdin, JSON on stdout. Input:
{"rows", "generations", "execute"} (rows in the published format of wellesley-easel/StudentEval;
generations per kept doc are a model's raw continuations of its prompt), or {"rows", "outcomes"}
(per kept doc, each sample's success, 1 or 0, as the runs ended) for the aggregation alone.

Written out here as bigcode has it: the dataset kept by _get_group, get_prompt, get_reference,
postprocess_generation with _stop_at_stop_token, the program each generation makes, the run
(python3 on a temporary file, 15 s, success when it exits 0) and process_results' aggregation with
pandas (groupby problem, prompt, group; _estimator's pass@1; the mean per group; to_dict records).
A raw continuation becomes bigcode's generation as its EndOfFunctionCriteria ends it (one sequence
per batch): the prompt, then the continuation up to the end of the first stop word to appear.
Run with the test venv (scripts/install-test-python.sh).
"""
import json
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import pandas as pd

STOP_WORDS = ["\ndef", "\nclass", "\nif", "\nprint"]
EXECUTION_TIMEOUT = 15


def estimator(n, c, k):
    # 1 - comb(n - c, k) / comb(n, k), in the product form bigcode uses.
    assert c <= n
    if n - c < k:
        return 1.0
    return 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))


def get_group(item):
    # The flags are exclusive in the dataset; read in bigcode's order.
    for flag, name in (
        ("is_first_success", "First Success"),
        ("is_last_success", "Last Success"),
        ("is_first_failure", "First Failure"),
        ("is_last_failure", "Last Failure"),
    ):
        if item[flag]:
            return name
    return None


def get_prompt(doc):
    return doc["prompt"].rstrip()


def get_reference(doc):
    return {"prompt": doc["prompt"], "assertions": doc["assertions"], "problem": doc["problem"], "group": get_group(doc)}


def stop_at_stop_token(text):
    cut = len(text)
    for word in STOP_WORDS:
        at = text.find(word)
        if at != -1 and at < cut:
            cut = at
    return text[:cut]


def stopped(continuation):
    """EndOfFunctionCriteria on one sequence: generation ends once a stop word appears."""
    ends = [continuation.find(w) + len(w) for w in STOP_WORDS if w in continuation]
    return continuation[: min(ends)] if ends else continuation


def postprocess_generation(doc, generation):
    prompt = get_prompt(doc)
    return prompt + stop_at_stop_token(generation[len(prompt):])


def run_program(program):
    with tempfile.NamedTemporaryFile(mode="w", suffix=".py") as f:
        f.write(program)
        f.flush()
        try:
            code = subprocess.run(
                [sys.executable, f.name],
                timeout=EXECUTION_TIMEOUT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                stdin=subprocess.DEVNULL,
            ).returncode
        except subprocess.TimeoutExpired:
            code = 1
    return 1 if code == 0 else 0


def aggregate(results):
    """process_results after the runs: pass@1 per (problem, prompt, group), then the mean per group."""
    df = pd.DataFrame(results)
    df = df.groupby(["problem", "prompt", "group"]).agg(c=("success", np.sum), n=("success", "count"))
    df.reset_index(inplace=True)
    df["pass1"] = df.apply(lambda row: estimator(row["n"], row["c"], 1), axis=1)
    df = df.groupby(["group"]).agg(pass1=("pass1", np.mean))
    df.reset_index(inplace=True)
    return df.to_dict(orient="records")


def main():
    # pandas 2.2 warns that np.sum and np.mean as aggregations will mean something else later; bigcode passes them.
    warnings.simplefilter("ignore", FutureWarning)
    data = json.load(sys.stdin)
    docs = [row for row in data["rows"] if get_group(row) is not None]
    references = [get_reference(doc) for doc in docs]
    out = {"kept": len(docs), "stop_words": STOP_WORDS}
    if "outcomes" in data:
        results = [
            {"problem": ref["problem"], "prompt": ref["prompt"], "group": ref["group"], "success": s}
            for ref, outcomes in zip(references, data["outcomes"])
            for s in outcomes
        ]
        out["results"] = aggregate(results)
        print(json.dumps(out))
        return
    out["prompts"] = [get_prompt(doc) for doc in docs]
    generations = [
        [postprocess_generation(doc, get_prompt(doc) + stopped(g)) for g in gens] for doc, gens in zip(docs, data["generations"])
    ]
    out["solutions"] = generations
    out["programs"] = [[g + "\n\n" + ref["assertions"] for g in gens] for gens, ref in zip(generations, references)]
    if data.get("execute"):
        results = []
        successes = []
        for programs, ref in zip(out["programs"], references):
            row = [run_program(p) for p in programs]
            successes.append(row)
            results += [{"problem": ref["problem"], "prompt": ref["prompt"], "group": ref["group"], "success": s} for s in row]
        out["successes"] = successes
        out["results"] = aggregate(results)
    print(json.dumps(out))


main()
