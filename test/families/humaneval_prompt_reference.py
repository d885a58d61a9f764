"""The independent side of test/families/humaneval-unstripped.test.ts: bigcode's HumanEval tasks
(`humaneval`: strip_prompt=True; `humaneval-unstripped`: strip_prompt=False) on the JSON on stdin
({"rows", "generations"}; a raw completion per task, what a model writes after the prompt), JSON on
stdout. GeneralHumanEval's stop words, get_prompt, get_reference, postprocess_generation (with
Task._stop_at_stop_token) and code_eval's check program are written here as bigcode's
tasks/humaneval.py, base.py and custom_metrics/code_eval.py have them.
Run with the test venv (scripts/install-test-python.sh).
"""
import json
import sys

STOP_WORDS = ["\nclass", "\ndef", "\n#", "\n@", "\nprint", "\nif", "\n```", "<file_sep>"]


def stop_at_stop_token(decoded_string, stop_tokens):
    min_stop_index = len(decoded_string)
    for stop_token in stop_tokens:
        stop_index = decoded_string.find(stop_token)
        if stop_index != -1 and stop_index < min_stop_index:
            min_stop_index = stop_index
    return decoded_string[:min_stop_index]


def get_prompt(doc, strip_prompt):
    return doc["prompt"].strip() if strip_prompt else doc["prompt"]


def get_reference(doc):
    return "\n" + doc["test"] + "\n" + f"check({doc['entry_point']})"


def postprocess_generation(doc, generation, strip_prompt):
    prompt = get_prompt(doc, strip_prompt)
    generation = generation[len(prompt):]
    return prompt + stop_at_stop_token(generation, STOP_WORDS)


def main():
    data = json.load(sys.stdin)
    out = {"stop_words": STOP_WORDS}
    for name, strip in (("unstripped", False), ("stripped", True)):
        prompts = [get_prompt(doc, strip) for doc in data["rows"]]
        solutions = [postprocess_generation(doc, p + g, strip) for doc, p, g in zip(data["rows"], prompts, data["generations"])]
        # code_eval's check_program: the generation, a newline, the reference.
        programs = [s + "\n" + get_reference(doc) for s, doc in zip(solutions, data["rows"])]
        out[name] = {"prompts": prompts, "solutions": solutions, "programs": programs}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
