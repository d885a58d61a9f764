"""The independent side of test/families/recode.test.ts and recode.e2e.test.ts: bigcode-evaluation-harness's
perturbed HumanEval tasks (bigcode_eval/tasks/recode.py at 8fc5bae: perturbed-humaneval-<category>-num_seeds_<n>)
on the JSON on stdin, JSON on stdout:
{"rows", "num_seeds", "generations", "generation_form", "passed" or "execute"}.

Written here as bigcode has them: the dataset filtered to seed < num_seeds, its stop words, get_prompt,
get_reference, postprocess_generation (with Task._stop_at_stop_token, base.py) and process_results,
whose compute_code_eval (custom_metrics/code_eval.py) is repair_reference.py's transcription when
"execute" is set, or, with "passed" (per kept row, each sample's outcome), gives those outcomes as its
detailed results ((completion_id, {"passed": ...}) in completion order, as its sorted lists are), so
that the metric is checked on outcomes a test chooses.

"generations" are per row of "rows" (those of left-out seeds dropped with them), each sample either a
model's raw continuation of the prompt ("generation_form": "raw"; bigcode's generation is then the prompt
and the continuation as its EndOfFunctionCriteria ends it) or bigcode's saved generation ("saved":
generations.json's, already post-processed, scored as it is).
Run with the test venv (scripts/install-test-python.sh).
"""
import json
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from repair_reference import compute_code_eval, estimate_pass_at_k, stopped  # noqa: E402

STOP_WORDS = ["\nclass", "\ndef", "\n#", "\n@", "\nprint", "\nif"]


def stop_at_stop_token(decoded_string, stop_tokens):
    min_stop_index = len(decoded_string)
    for stop_token in stop_tokens:
        stop_index = decoded_string.find(stop_token)
        if stop_index != -1 and stop_index < min_stop_index:
            min_stop_index = stop_index
    return decoded_string[:min_stop_index]


def get_prompt(doc):
    return doc["prompt"].strip()


def get_reference(doc):
    test_func = doc["test"]
    entry_point = f"check({doc['entry_point']})"
    test_code = "\n" + test_func + "\n" + entry_point
    return {
        "task_id": doc["task_id"],
        "seed": doc["seed"],
        "perturbation_name": doc["perturbation_name"],
        "test_code": test_code,
    }


def postprocess_generation(dataset, generation, idx):
    prompt = get_prompt(dataset[idx])
    generation = generation[len(prompt):]
    return prompt + stop_at_stop_token(generation, STOP_WORDS)


def process_results(generations, references, detailed_results):
    transformation_problem_results = defaultdict(lambda: defaultdict(dict))
    for i, ref in enumerate(references):
        result = detailed_results[i]
        result = [x[1]["passed"] for x in result]
        assert ref["seed"] not in transformation_problem_results[ref["perturbation_name"]][ref["task_id"]]
        transformation_problem_results[ref["perturbation_name"]][ref["task_id"]][ref["seed"]] = result

    rp1 = {}
    for transformation, problem_results in transformation_problem_results.items():
        res = {}
        res["robust-pass-at-1"] = sum(
            float(all(results_)) / len(list(results.values())[0])
            for results in problem_results.values()
            for results_ in zip(*results.values())
        ) / len(problem_results)

        res["alt-robust-pass-at-1"] = sum(
            np.prod([np.mean(results[j]) for j in results])
            for results in problem_results.values()
        ) / len(problem_results)
        rp1[transformation] = res
    return rp1


def robust_pass_at_k(references, detailed_results, ks):
    """Not bigcode's: ReCode's RP_s@k (its paper, section 3.3), the pass@k estimator over the n samples of
    a task's first seed, c the sample positions at which every seed's sample passed, per perturbation
    (grouped as process_results groups them); a k is reported when every task has n >= k."""
    groups = defaultdict(lambda: defaultdict(dict))
    for i, ref in enumerate(references):
        groups[ref["perturbation_name"]][ref["task_id"]][ref["seed"]] = [x[1]["passed"] for x in detailed_results[i]]
    out = {}
    for transformation, problem_results in groups.items():
        n = [len(list(results.values())[0]) for results in problem_results.values()]
        c = [sum(all(r) for r in zip(*results.values())) for results in problem_results.values()]
        out[transformation] = {
            f"robust-pass@{k}": float(estimate_pass_at_k(n, c, k).mean()) for k in ks if all(x >= k for x in n)
        }
    return out


def main():
    data = json.load(sys.stdin)
    num_seeds = data["num_seeds"]
    kept = [(doc, gens) for doc, gens in zip(data["rows"], data["generations"]) if doc["seed"] < num_seeds]
    dataset = [doc for doc, _ in kept]
    prompts = [get_prompt(doc) for doc in dataset]
    if data.get("generation_form", "raw") == "raw":
        generations = [
            [postprocess_generation(dataset, p + stopped(g, STOP_WORDS), idx) for g in gens]
            for idx, (p, (_, gens)) in enumerate(zip(prompts, kept))
        ]
    else:
        generations = [list(gens) for _, gens in kept]
    references = [get_reference(doc) for doc in dataset]
    out = {
        "kept": [[doc["task_id"], doc["perturbation_name"], doc["seed"]] for doc in dataset],
        "prompts": prompts,
        "stop_words": STOP_WORDS,
        "solutions": generations,
        "tests": [r["test_code"] for r in references],
    }
    if data.get("execute"):
        runs = []
        _, detailed = compute_code_eval(
            references=[r["test_code"] for r in references], predictions=generations, runs=runs
        )
        out["programs"] = runs
        out["passed"] = [[r[1]["passed"] for r in sorted(detailed[i])] for i in range(len(references))]
    elif "passed" in data:
        detailed = {i: [(j, {"passed": p}) for j, p in enumerate(row)] for i, row in enumerate(data["passed"])}
    else:
        json.dump(out, sys.stdout)
        return
    out["metrics"] = process_results(generations, references, detailed)
    if "ks" in data:
        out["robust_pass_at_k"] = robust_pass_at_k(references, detailed, data["ks"])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
