"""The independent side of test/families/instruct-wizard-humaneval(.e2e).test.ts: bigcode-evaluation-harness's
instruct_wizard_humaneval task (bigcode_eval/tasks/instruct_wizard_humaneval.py at 8fc5bae) on the JSON on stdin
({"rows", "generations", "execute"}: HumanEval rows; generations per task are a model's raw continuations of the
prompt, which bigcode decodes with the prompt), JSON on stdout. generate_prompt, get_prompt, get_reference,
clean_comp, postprocess_generation and process_results as bigcode has them; the execution and pass@k are
repair_reference.py's transcription of bigcode's check_correctness and compute_code_eval. A generation whose
post-processing raises in bigcode's code (clean_comp's `a += 1` on a ```python block without a closing fence)
is reported as null. Run with the test venv (scripts/install-test-python.sh).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from repair_reference import compute_code_eval  # noqa: E402


def generate_prompt(input):
    INSTRUCTION = f"""Below is an instruction that describes a task. Write a response that appropriately completes the request.


### Instruction:
Create a Python script for this problem:
{input}

### Response:"""
    return INSTRUCTION


def get_prompt(doc):
    prompt = doc["prompt"].replace("    ", "\t")
    prompt = generate_prompt(prompt)
    return prompt


def get_reference(doc):
    test_func = doc["test"]
    entry_point = f"check({doc['entry_point']})"
    return "\n" + test_func + "\n" + entry_point


def clean_comp(completion):
    if "```python" in completion:
        def_line = completion.index("```python")
        completion = completion[def_line:].strip()
        completion = completion.replace("```python", "")
        try:
            next_line = completion.index("```")
            completion = completion[:next_line].strip()
        except:  # noqa: E722 (bigcode's)
            a += 1  # noqa: F821 (bigcode's: raises UnboundLocalError)
    if '__name__ == "__main__"' in completion:
        next_line = completion.index('if __name__ == "__main__":')
        completion = completion[:next_line].strip()

    if "# Example usage" in completion:
        next_line = completion.index("# Example usage")
        completion = completion[:next_line].strip()
    if completion.startswith("Here's"):
        completion = completion.split("\n")[1:]
        completion = "\n".join(completion)
    result = completion
    return result


def postprocess_generation(generation):
    generation = generation.split("### Response:")[-1]
    generation = generation.replace("\t", "    ")
    generation = generation.split("</s>")[0]
    generation = clean_comp(generation)
    return generation


def safe_postprocess(generation):
    try:
        return postprocess_generation(generation)
    except Exception:
        return None


def main():
    data = json.load(sys.stdin)
    rows = data["rows"]
    prompts = [get_prompt(doc) for doc in rows]
    generations = [[safe_postprocess(p + g) for g in gens] for p, gens in zip(prompts, data["generations"])]
    references = [get_reference(doc) for doc in rows]
    out = {"prompts": prompts, "solutions": generations, "references": references}
    if data.get("execute"):
        runs = []
        metrics, granular = compute_code_eval(references=references, predictions=generations, k=[1, 2], runs=runs)
        out["metrics"] = metrics
        out["passed"] = [[r[1]["passed"] for r in sorted(granular[t])] for t in range(len(rows))]
        out["programs"] = runs
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
