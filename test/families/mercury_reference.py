"""The independent side of test/families/mercury.test.ts: bigcode-evaluation-harness's Mercury task
(bigcode_eval/tasks/mercury.py and custom_metrics/beyond_eval.py) on the JSON on stdin, JSON on stdout.

Written here as bigcode has them: prompt_generate, postprocess_generation's cut at the stop words
(_stop_at_stop_token), estimate_pass_at_k, estimate_beyond_at_k and compute_beyond_eval. The runs
of compute_beyond_eval's sandbox (run_sample) are the one part replaced: each returns the status and
runtime the test scripts for it (a reference's one run, a generation's five), so that bigcode's own
arithmetic (the reference range, the clamp, Beyond, its aggregation per difficulty, its errors) is
what is compared, on runtimes both sides are given. Where bigcode's code raises, the error's type
and message are returned. Run with the test venv (scripts/install-test-python.sh).
"""
import itertools
import json
import sys

import numpy as np

STOP_WORDS = ["\nclass", "\ndef", "\n#", "\n@", "\nprint", "\nif", "\n```", "<file_sep>", "<｜end▁of▁sentence｜>", "\n###", "\n\n\n\n\n", "<|endoftext|>"]


def prompt_generate(question_content, starter_code):
    examples_json = {
        "question": "You are given a 0-indexed array of positive integers nums. Find the number of triplets (i, j, k) that meet the following conditions:\n\n0 <= i < j < k < nums.length\nnums[i], nums[j], and nums[k] are pairwise distinct.\n\t\nIn other words, nums[i] != nums[j], nums[i] != nums[k], and nums[j] != nums[k].\n\n\n\nReturn the number of triplets that meet the conditions.\n \nExample 1:\n\nInput: nums = [4,4,2,4,3]\nOutput: 3\nExplanation: The following triplets meet the conditions:\n- (0, 2, 4) because 4 != 2 != 3\n- (1, 2, 4) because 4 != 2 != 3\n- (2, 3, 4) because 2 != 4 != 3\nSince there are 3 triplets, we return 3.\nNote that (2, 0, 4) is not a valid triplet because 2 > 0.\n\nExample 2:\n\nInput: nums = [1,1,1,1,1]\nOutput: 0\nExplanation: No triplets meet the conditions so we return 0.\n\n \nConstraints:\n\n3 <= nums.length <= 100\n1 <= nums[i] <= 1000\n\n",
        "sample_code": 'class Solution(object):\n    def unequalTriplets(self, nums: List[int]) -> int:\n        """\n\t:type nums: List[int]\n\t:rtype: int\n\t"""\n        \n',
        "answer": 'class Solution(object):\n    def unequalTriplets(self, nums: List[int]) -> int:\n        """\n\t:type nums: List[int]\n\t:rtype: int\n\t"""\n        \n        ans = 0\n        n = len(a)\n        for i in range(n):\n            for j in range(i + 1, n):\n                for k in range(j + 1, n):\n                    ans += len({a[i], a[j], a[k]}) == 3\n        return ans'
    }

    def get_example_prompt(example):
        prompt = ""
        prompt += "### Question\n"
        prompt += example["question"]
        prompt += "\n\n"
        if starter_code:
            prompt += "### Code Prompt\n"
            prompt += example["sample_code"]
            prompt += "\n\n"
        prompt += "### Completion\n"
        prompt += example["answer"]
        if example["answer"]:
            prompt += "\n\n"
        return prompt

    prompt = ""
    prompt += get_example_prompt(examples_json)
    prompt += get_example_prompt({"question": question_content, "sample_code": starter_code, "answer": ""})
    return prompt


def stop_at_stop_token(decoded_string, stop_tokens):
    # bigcode_eval/base.py Task._stop_at_stop_token
    min_stop_index = len(decoded_string)
    for stop_token in stop_tokens:
        stop_index = decoded_string.find(stop_token)
        if stop_index != -1 and stop_index < min_stop_index:
            min_stop_index = stop_index
    return decoded_string[:min_stop_index]


def postprocess_generation(prompt, generation):
    generation = generation[len(prompt):]
    return stop_at_stop_token(generation, STOP_WORDS)


def estimate_pass_at_k(num_samples, num_correct, k):
    def estimator(n, c, k):
        if n - c < k:
            return 1.0
        return 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))

    if isinstance(num_samples, int):
        num_samples_it = itertools.repeat(num_samples, len(num_correct))
    else:
        assert len(num_samples) == len(num_correct)
        num_samples_it = iter(num_samples)
    return np.array([estimator(int(n), int(c), k) for n, c in zip(num_samples_it, num_correct)])


def estimate_beyond_at_k(beyonds, k):
    return sum([sum(b[:k]) / k for b in beyonds]) / len(beyonds)


class ScriptedSandbox:
    """run_sample's results as the test scripts them: by the sample's solution text, one after another."""

    def __init__(self, script):
        self.script = {key: list(runs) for key, runs in script.items()}

    def run_sample(self, sample):
        status, runtime = self.script[sample["solution"]].pop(0)
        return dict(result=status, runtime=runtime, index=sample["solution_index"], error="None")


def compute_beyond_eval(generations_list, reference_list, sandbox, timeout=10):
    scores = {
        "Easy": dict(total_c=list(), correct_c=list(), beyond_c=list()),
        "Medium": dict(total_c=list(), correct_c=list(), beyond_c=list()),
        "Hard": dict(total_c=list(), correct_c=list(), beyond_c=list()),
        "Average": dict(total_c=list(), correct_c=list(), beyond_c=list()),
    }
    errors = {
        "Easy": {"failed@load": 0, "failed@eval": 0, 'failed@cases': 0, "failed@timeout": 0, "failed@error": 0, "passed": 0},
        "Medium": {"failed@load": 0, "failed@eval": 0, "failed@cases": 0, "failed@timeout": 0, "failed@error": 0, "passed": 0},
        "Hard": {"failed@load": 0, "failed@eval": 0, "failed@cases": 0, "failed@timeout": 0, "failed@error": 0, "passed": 0},
    }
    for generations, instance in zip(generations_list, reference_list):
        runtimes = list()
        for index, solution in enumerate(instance['solutions']):
            sample = {"solution": solution['solution'], "solution_index": index, "timeout": timeout}
            result = sandbox.run_sample(sample)
            if result['result'] == "passed":
                runtimes += [result['runtime']]
        runtimes = sorted(runtimes)
        min_runtime = min(runtimes)
        max_runtime = max(runtimes)
        t_c, p_c = 0, 0
        b_l = list()
        difficulty = instance['difficulty']
        for index, solution in enumerate(generations):
            sample = {"solution": solution, "solution_index": index, "timeout": timeout}
            results = [sandbox.run_sample(sample) for _ in range(5)]
            t_c += 1
            if results[0]['result'] == "passed":
                runtime = sum([r['runtime'] for r in results]) / len(results)
                p_c += 1
            else:
                runtime = float('inf')
            errors[difficulty][results[0]['result']] += 1
            runtime = min(runtime, max_runtime)
            runtime = max(runtime, min_runtime)
            b_l += [(max_runtime - runtime) / (max_runtime - min_runtime)]
        scores[difficulty]['total_c'] += [t_c]
        scores[difficulty]['correct_c'] += [p_c]
        scores[difficulty]['beyond_c'] += [b_l]
        scores['Average']['total_c'] += [t_c]
        scores['Average']['correct_c'] += [p_c]
        scores['Average']['beyond_c'] += [b_l]

    results = dict()
    for difficulty in ['Easy', "Medium", "Hard", "Average"]:
        total = np.array(scores[difficulty]['total_c'])
        correct = np.array(scores[difficulty]['correct_c'])
        beyond = scores[difficulty]['beyond_c']
        pass_at_k = {f"{difficulty}_pass@{k}": estimate_pass_at_k(total, correct, k).mean()
                     for k in [1, 3, 5, 10, 15, 20, 30, 50, 100] if (total >= k).all()}
        beyond_at_k = {f"{difficulty}_beyond@{k}": estimate_beyond_at_k(beyond, k)
                       for k in [1, 3, 5, 10, 15, 20, 30, 50, 100] if (total >= k).all()}
        results.update(pass_at_k)
        results.update(beyond_at_k)
    results.update(errors)
    return results


def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return float(value) if isinstance(value, (np.floating, float)) else value


def scored(case):
    """compute_beyond_eval on scripted runs: each task's references run once, each generation five times."""
    script, generations_list, reference_list = {}, [], []
    for t, task in enumerate(case["tasks"]):
        solutions = []
        for r, (status, runtime) in enumerate(task["references"]):
            key = f"task{t}-reference{r}"
            script[key] = [(status, runtime)]
            solutions.append({"solution": key, "runtime": "0ms"})
        gens = []
        for g, runs in enumerate(task["generations"]):
            key = f"task{t}-generation{g}"
            script[key] = [tuple(run) for run in runs]
            gens.append(key)
        generations_list.append(gens)
        reference_list.append({"solutions": solutions, "difficulty": task["difficulty"]})
    try:
        return {"results": plain(compute_beyond_eval(generations_list, reference_list, ScriptedSandbox(script)))}
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}


request = json.load(sys.stdin)
json.dump({
    "prompts": [prompt_generate(q, s) for q, s in request.get("prompts", [])],
    "postprocessed": [postprocess_generation(p, g) for p, g in request.get("postprocess", [])],
    "cases": [scored(case) for case in request.get("cases", [])],
}, sys.stdout)
