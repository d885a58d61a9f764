"""The independent side of test/families/repair.test.ts and repair.e2e.test.ts: bigcode-evaluation-harness's
QuixBugs, Parity and Python Bugs tasks (bigcode_eval/tasks/quixbugs.py, parity.py, python_bugs.py at
8fc5bae) on the JSON on stdin ({"task", "prompt", "rows", "generations", "execute"}; generations per
task are a model's raw continuations of the prompt), JSON on stdout.

Written here as bigcode has them: each task's constructor (stop words, its branch order included),
get_prompt, get_reference, postprocess_generation, process_results; mutate_code and parity_reference;
compute_code_eval (custom_metrics/code_eval.py). bigcode's shared parts are bigcode_reference.py's:
estimate_pass_at_k, check_correctness (custom_metrics/execute.py), and the stopping criterion: a raw
continuation becomes bigcode's generation as its EndOfFunctionCriteria ends it (one sequence per
batch), the text up to the end of the first stop word to appear after the prompt, else all of it.
Run with the test venv (scripts/install-test-python.sh).
"""
import itertools
import json
import re
import sys
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor, as_completed

import numpy as np

from bigcode_reference import check_correctness, estimate_pass_at_k, stopped


# --- custom_metrics/code_eval.py -----------------------------------------------------------------

def compute_code_eval(predictions, references, k=[1, 10, 100], num_workers=4, timeout=3.0, runs=None):
    with ThreadPoolExecutor(max_workers=num_workers) as executor:
        futures = []
        completion_id = Counter()
        results = defaultdict(list)
        for task_id, (candidates, test_case) in enumerate(zip(predictions, references)):
            for candidate in candidates:
                test_program = candidate + "\n" + test_case
                if runs is not None:
                    runs.append(test_program)
                futures.append(executor.submit(check_correctness, test_program, timeout, task_id, completion_id[task_id]))
                completion_id[task_id] += 1
        for future in as_completed(futures):
            result = future.result()
            results[result["task_id"]].append((result["completion_id"], result))
    total, correct = [], []
    for result in results.values():
        result.sort()
        passed = [r[1]["passed"] for r in result]
        total.append(len(passed))
        correct.append(sum(passed))
    total = np.array(total)
    correct = np.array(correct)
    ks = k
    pass_at_k = {f"pass@{k}": float(estimate_pass_at_k(total, correct, k).mean()) for k in ks if (total >= k).all()}
    return pass_at_k, results


# --- quixbugs.py ----------------------------------------------------------------------------------

def quixbugs_stop_words(prompt):
    if prompt == "edit":
        return ["<commit_before>", "<commit_msg>", "<commit_after>", "<|endoftext|>"]
    elif prompt.startswith("prompt"):
        return ["\ndef", "\nclass", "\n#", "\n@", "\nprint", "\nif", "###", "///", "<|endoftext|>"]
    elif prompt.startswith("prompt_codex"):
        return ["\nclass", "###", "///", "<|endoftext|>"]
    raise ValueError(f"Unknown prompt: {prompt}")


def quixbugs_get_prompt(prompt_kind, doc):
    if prompt_kind == "edit":
        prompt = "<commit_before>" + doc["buggy_program"]
        prompt += "<commit_msg>" + "Fix bug in " + doc["name"]
        prompt += "<commit_after>"
    elif prompt_kind == "prompt":
        prompt = "# Buggy function"
        prompt += "\n" + doc["buggy_program"] + "\n"
        prompt += "# Fixed function\ndef"
    elif prompt_kind == "prompt_codex":
        prompt = "### fix the bug in the following function"
        prompt += "\n" + doc["buggy_program"] + "\n"
        prompt += "### fixed function"
    return prompt.strip()


def remove_last_block(string, stop_words):
    stop_words = [re.escape(word) for word in stop_words]
    string_list = re.split("(%s)" % "|".join(stop_words), string)
    return "".join(string_list[:-2])


def quixbugs_postprocess(prompt_kind, doc, generation):
    prompt = quixbugs_get_prompt(prompt_kind, doc)
    generation = generation[len(prompt):]
    if prompt_kind == "prompt":
        generation = "def" + generation
    return remove_last_block(generation, quixbugs_stop_words(prompt_kind))


def quixbugs_process_results(generations, references, runs):
    results = {}
    passed = []
    for gen, (name, ref) in zip(generations, references):
        sub_results, granular = compute_code_eval(references=[ref], predictions=[gen], timeout=10, runs=runs)
        results[name] = sub_results
        passed.append([r[1]["passed"] for r in sorted(granular[0])])
    if results:
        results["all"] = {k: sum(v[k] for v in results.values()) / len(results) for k in results[list(results.keys())[0]]}
        results["num_correct"] = results["all"]["pass@1"] * (len(results) - 1)
    return results, passed


def quixbugs(data):
    kind, rows = data["prompt"], data["rows"]
    stops = quixbugs_stop_words(kind)
    prompts = [quixbugs_get_prompt(kind, doc) for doc in rows]
    generations = [
        [quixbugs_postprocess(kind, doc, p + stopped(g, stops)) for g in gens]
        for doc, p, gens in zip(rows, prompts, data["generations"])
    ]
    references = [(doc["name"], doc["tests"].strip()) for doc in rows]
    out = {"prompts": prompts, "stop_words": stops, "solutions": generations, "tests": [r[1] for r in references]}
    if data.get("execute"):
        runs = []
        out["metrics"], out["passed"] = quixbugs_process_results(generations, references, runs)
        out["programs"] = runs
    return out


# --- parity.py ------------------------------------------------------------------------------------

PARITY_STOP_WORDS = [
    "\nclass", "\ndef", "\n#", "\n@", "\nprint", "\nif",
    "<commit_before>", "<commit_msg>", "<commit_after>", "<|endoftext|>",
]


def parity_mutate_code(n_bugs=5, task="parity", prompt="prompt"):
    mutation_templates = {
        "diff": [f"<NME> {task}.py\n<BEF> ", "", "\n<MSG> Fixed bugs"],
        "prompt_carper": ["# A buggy implementation\n#!/usr/bin/python3\n", "", "\n# Fixed bugs\ndef"],
        "prompt": ["#!/usr/bin/python3\n# A buggy implementation\n", "", "\n# Fixed bugs\ndef"],
        "edit": ["<commit_before>", "", "<commit_msg>Fix bugs<commit_after>"],
    }
    mutation_template = mutation_templates[prompt]
    variables = ["b", "b", "b", "b", 2]
    for i in range(n_bugs):
        variables[i] = "c" if i < 4 else 3
    func_str = (
        'def parity(b1,b2,b3,b4):\n    """Return binary parity of a sequence of input bits.'
        ' Return 0 for even parity, 1 for odd parity."""\n    bit_sum = sum(['
        "{}1,{}2,{}3,{}4])\n    return bit_sum % {}".format(*variables)
    )
    mutation_template[1] = func_str
    return "".join(mutation_template)


def parity_reference(b1, b2, b3, b4):
    bit_sum = sum([b1, b2, b3, b4])
    return bit_sum % 2


PARITY_TESTS = "assert " + " and ".join(
    [f"({parity_reference(*i)} == parity{i})" for i in itertools.product(range(2), repeat=4)]
)


def first_block(string, stop_words):
    stop_words = [re.escape(word) for word in stop_words]
    return re.split("|".join(stop_words), string)[0].rstrip()


def parity(data):
    kind = data["prompt"]
    docs = data["rows"]
    prompts = [parity_mutate_code(n_bugs=doc, task="parity", prompt=kind) for doc in docs]
    generations = []
    for p, gens in zip(prompts, data["generations"]):
        sols = []
        for g in gens:
            output = (p + stopped(g, PARITY_STOP_WORDS))[len(p):]
            if kind.startswith("prompt"):
                output = "def" + output
            sols.append(first_block(output, PARITY_STOP_WORDS))
        generations.append(sols)
    edit = parity_mutate_code(n_bugs=0, task="parity", prompt="edit")
    unmutated = edit[len("<commit_before>"):-len("<commit_msg>Fix bugs<commit_after>")]
    out = {
        "prompts": prompts, "stop_words": PARITY_STOP_WORDS, "solutions": generations, "tests": PARITY_TESTS,
        "unmutated": unmutated,
    }
    if data.get("execute"):
        metrics, passed, runs = {}, [], []
        for idx, gens in enumerate(generations):
            results, granular = compute_code_eval(
                references=[PARITY_TESTS for _ in gens], predictions=[[g] for g in gens], runs=runs
            )
            metrics[f"{docs[idx]} bugs"] = results
            passed.append([granular[i][0][1]["passed"] for i in range(len(gens))])
        out["metrics"], out["passed"], out["programs"] = metrics, passed, runs
    return out


# --- python_bugs.py -------------------------------------------------------------------------------

MUTATE_TO_TASK_TO_PROMPT = {
    "prompt_carper": {"bin-op": "# Fixed binary operator", "var-misuse": "# Fixed incorrect variable name"},
    "prompt_present": {"bin-op": "# Fix binary operator", "var-misuse": "# Fix incorrect variable name"},
    "prompt": {"bin-op": "# Fixed binary operator", "var-misuse": "# Fixed incorrect variable name"},
    "edit": {"bin-op": "Fix binary operator", "var-misuse": "Fix incorrect variable name"},
}

PYTHON_BUGS_STOP_WORDS = [
    "\nclass", "\n#", "\ndef", "\nassert", '\n"', "\nprint", "\nif",
    "<commit_before>", "<commit_msg>", "<commit_after>", "<|endoftext|>",
]


def python_bugs_mutate_code(input_code, task, prompt="prompt"):
    instruction = MUTATE_TO_TASK_TO_PROMPT[prompt][task]
    if prompt == "prompt_carper":
        return f"# A buggy implementation\n#!/usr/bin/python3\n{input_code}\n{instruction}\ndef"
    if prompt == "prompt":
        return f"#!/usr/bin/python3\n# A buggy implementation\n{input_code}\n{instruction}\ndef"
    if prompt == "edit":
        return f"<commit_before>{input_code}<commit_msg>{instruction}<commit_after>"
    else:
        raise ValueError(f"Unknown prompt: {prompt}")


def python_bugs(data):
    kind, rows = data["prompt"], data["rows"]
    prompts = [python_bugs_mutate_code(doc["prompt_code"], doc["task"], kind) for doc in rows]
    generations = []
    for doc, p, gens in zip(rows, prompts, data["generations"]):
        sols = []
        for g in gens:
            output = (p + stopped(g, PYTHON_BUGS_STOP_WORDS))[len(p):]
            if kind.startswith("prompt"):
                output = "def" + output
            sols.append(output[: len(doc["correct_code"])])
        generations.append(sols)
    references = [doc["correct_code"] for doc in rows]
    num_correct = 0
    for i, ref in enumerate(references):
        for gen in generations[i]:
            num_correct += int(gen == ref)
    accuracy = num_correct / len(references) / len(generations[0])
    return {
        "prompts": prompts,
        "stop_words": PYTHON_BUGS_STOP_WORDS,
        "solutions": generations,
        "references": references,
        "metrics": {"mean exact match": accuracy},
    }


def main():
    data = json.load(sys.stdin)
    out = {"quixbugs": quixbugs, "parity": parity, "python_bugs": python_bugs}[data["task"]](data)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
