"""The independent side of test/families/code-to-text.test.ts: bigcode's references for CodeXGLUE
code-to-text and its BLEU, computed by the Python packages bigcode calls, on the JSON on stdin; JSON
on stdout. Run with the test venv (scripts/install-test-python.sh), never the product's, with
.tools/test-python-moses on PYTHONPATH.

- References: bigcode's get_reference (docstring_tokens joined by spaces, newlines dropped, a leading
  "r" dropped; four lines, repeated here) over mosestokenizer 1.2.1's MosesDetokenizer("en"), the
  package bigcode imports (it runs Moses' detokenizer.perl with the system's perl).
- BLEU: CodeXGLUE's evaluator bleu.py as lm-eval 0.4.5 ships it (see test/metrics/scores_reference.py),
  called as bigcode's compute_codexglue_code_to_text_bleu does (tab cut, strip, lower; repeated here).
"""
import importlib.util
import json
import os
import sys
import sysconfig

from mosestokenizer import MosesDetokenizer


def load_codexglue_bleu():
    path = os.path.join(sysconfig.get_paths()["purelib"], "lm_eval", "tasks", "code_x_glue", "code-text", "bleu.py")
    spec = importlib.util.spec_from_file_location("codexglue_bleu", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CODEXGLUE = load_codexglue_bleu()


def reference(detokenize, docstring_tokens):
    docstring = " ".join(docstring_tokens).replace("\n", "")
    if docstring[0] == "r":
        docstring = docstring[1:]
    return detokenize(docstring.strip().split())


def bleu(pairs):
    gold_map, predicted_map = {}, {}
    for ix, (gold_str, predicted_str) in enumerate(pairs):
        gold = gold_str.strip().split("\t")[0]
        gold_map[ix] = [CODEXGLUE.splitPuncts(gold.strip().lower())]
        pred = predicted_str.strip().split("\t")[0]
        predicted_map[ix] = [CODEXGLUE.splitPuncts(pred.strip().lower())]
    return CODEXGLUE.bleuFromMaps(gold_map, predicted_map)[0]


# bigcode's stop words (GeneralCodeToText.__init__), its stopping criterion (utils.py's
# EndOfFunctionCriteria: generation ends once a stop word is in the decoded completion, which keeps
# it; here to the end of the first stop word completed) and both post-processings, repeated here.
TRIPLE_QUOTE = '"""'
SINGLE_TRIPLE_QUOTE = "'''"
SUFFIX_PROMPT = {
    "python": '\n""" The goal of this function is to:\n',
    "ruby": "\n=begin The goal of this function is to:\n",
    "other": "\n/* The goal of this function is to:\n",
}


def stop_words(language):
    return ["'''", '"""'] if language == "python" else ["\n"]


def stopped(completion, stops):
    ends = [completion.index(s) + len(s) for s in stops if s in completion]
    return completion[: min(ends)] if ends else completion


def postprocess(subset, generation):
    if subset == "python-left":
        output = generation.strip().split("\n")[0].strip()
        for delimiter in [TRIPLE_QUOTE, SINGLE_TRIPLE_QUOTE]:
            if delimiter in generation:
                generation = generation[generation.index(delimiter) + 3 :]
                output = generation.strip().split("\n")[0].strip()
                output = output.split(delimiter, 1)[0]
        return output
    delimiter = SUFFIX_PROMPT.get(subset, SUFFIX_PROMPT["other"])
    return generation.split(delimiter)[1].strip().split("\n")[0]


def answers(tasks):
    out = []
    for task in tasks:
        language = "python" if task["subset"] == "python-left" else task["subset"]
        completion = stopped(task["completion"], stop_words(language))
        out.append(postprocess(task["subset"], task["prompt"] + completion))
    return out


def main():
    data = json.load(sys.stdin)
    with MosesDetokenizer("en") as detokenize:
        detokenized = [detokenize(tokens) for tokens in data["detokenize"]]
        corpora = []
        for corpus in data["corpora"]:
            references = [reference(detokenize, row) for row in corpus["docstring_tokens"]]
            corpora.append({"references": references, "bleu": bleu(list(zip(references, corpus["predictions"])))})
        answered = answers(data["answers"])
        answered_references = [reference(detokenize, task["docstring_tokens"]) for task in data["answers"]]
    answered_bleu = bleu(list(zip(answered_references, answered)))
    json.dump({"detokenized": detokenized, "corpora": corpora, "answers": answered, "answers_bleu": answered_bleu}, sys.stdout)


if __name__ == "__main__":
    main()
