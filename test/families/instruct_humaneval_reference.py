"""The independent side of test/families/instruct-humaneval(.e2e).test.ts: bigcode-evaluation-harness's
instruct-humaneval and instruct-humaneval-nocontext tasks (bigcode_eval/tasks/instruct_humaneval.py at 8fc5bae)
with the generation steps they go through in bigcode_eval/utils.py and generation.py: the stop words extended
with the tokenizer's EOS and the non-blank instruction tokens, _make_instruction_prompt (no --prefix),
_parse_instruction on the generation decoded with its prompt, _stop_at_stop_token, remove_after_return, each
task's postprocess_generation and get_reference; the execution and pass@k are repair_reference.py's
transcription of check_correctness and compute_code_eval. Input on stdin: {"rows", "context", "tokens",
"eos", "generations" (a model's raw continuations of the prompt), "execute"}; JSON on stdout.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from repair_reference import compute_code_eval, stopped  # noqa: E402

STOP_WORDS = ["if __name__", "\nprint", "\nclass"]


def remove_after_return(code):
    pattern = r"[^\n]+(\n|$)"
    end_last_match = None
    for match in re.finditer(pattern, code):
        start_match, end_match = match.span()
        if end_last_match is not None and start_match < len(code) and code[start_match].strip() != "":
            return code[0:start_match]
        end_last_match = end_match
    return code


def _stop_at_stop_token(decoded_string, stop_tokens):
    min_stop_index = len(decoded_string)
    for stop_token in stop_tokens:
        stop_index = decoded_string.find(stop_token)
        if stop_index != -1 and stop_index < min_stop_index:
            min_stop_index = stop_index
    return decoded_string[:min_stop_index]


def _make_instruction_prompt(instruction_tokens, instruction, context, prefix=""):
    user_token, end_token, assistant_token = instruction_tokens
    return prefix + user_token + instruction + end_token + assistant_token + context


def _parse_instruction(code, instruction_tokens):
    _, end_token, assistant_token = instruction_tokens
    if not assistant_token and end_token:
        assistant_token = end_token
    elif not assistant_token and not end_token:
        return code
    idx = code.find(assistant_token)
    shift = len(assistant_token)
    if idx == -1:
        return code
    if "```python" in assistant_token:
        idx = code.find("```python", idx)
        shift = len("```python")
    return code[idx + shift:]


def postprocess_with_context(generation, doc, stop_words):
    generation = _stop_at_stop_token(generation, stop_words)
    function_name = doc["entry_point"]
    func_index = generation.find(f"def {function_name}")
    return generation[0:func_index] + remove_after_return(generation[func_index:])


def postprocess_without_context(generation, doc, stop_words):
    prompt, function_name = doc["context"], doc["entry_point"]
    prefix = prompt[0: prompt.find(f"def {function_name}")]
    sep_index = generation.find("```")
    if sep_index == -1:
        pass
    else:
        if generation[sep_index + len("```"): sep_index + len("```python")] == "python":
            generation = generation[sep_index + len("```python"):]
        else:
            generation = generation[sep_index + len("```"):]
    generation = _stop_at_stop_token(generation, stop_words)
    func_index = generation.find(f"def {function_name}")
    if func_index == -1:
        func_index = 0
    return_index = generation[func_index:].rfind("  return ")
    if return_index == -1:
        return_index = 0
    j = func_index + return_index
    n = len(generation)
    while j < n and generation[j] != "\n":
        j += 1
    sep_index_2 = generation.find("```")
    if sep_index_2 == -1:
        return prefix.strip() + "\n" + generation[func_index:j]
    else:
        return prefix.strip() + "\n" + generation[func_index: min(j, sep_index_2)]


def get_reference(doc):
    return "\n" + doc["test"] + "\n" + f"check({doc['entry_point']})"


def main():
    data = json.load(sys.stdin)
    rows, tokens, with_context = data["rows"], data["tokens"], data["context"]
    # generation.py: the EOS, then each non-blank instruction token, join the task's stop words.
    stop_words = list(STOP_WORDS) + [data["eos"]] + [t for t in tokens if t.strip() != ""]
    prompts = [_make_instruction_prompt(tokens, doc["instruction"], doc["context"] if with_context else "") for doc in rows]
    post = postprocess_with_context if with_context else postprocess_without_context
    generations = [
        [post(_parse_instruction(p + stopped(g, stop_words), tokens), doc, stop_words) for g in gens]
        for doc, p, gens in zip(rows, prompts, data["generations"])
    ]
    references = [get_reference(doc) for doc in rows]
    out = {"prompts": prompts, "stop_words": stop_words, "solutions": generations, "references": references}
    if data.get("execute"):
        metrics, granular = compute_code_eval(references=references, predictions=generations, k=[1, 2])
        out["metrics"] = metrics
        out["passed"] = [[r[1]["passed"] for r in sorted(granular[t])] for t in range(len(rows))]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
