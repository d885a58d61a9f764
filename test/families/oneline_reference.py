"""The independent side of test/families/oneline-bleu.test.ts: bigcode's CoNaLa / Concode prompts,
post-processing and score on the JSON on stdin ({"family", "rows", "generations"}; generations per
task, bigcode's completions after the prompt), JSON on stdout. get_prompt, two_shot_prompt and
postprocess_generation are written here as bigcode's conala.py and concode.py have them (its
f-string continued inside the literal, so the continued lines' indentation is in the prompt);
Spider has no task file in bigcode: it is scored as CoNaLa with Spider's two examples and the
instruction bigcode's docs give. BLEU is scores_reference.py's (sacrebleu 2.4.3's 13a tokens and
statistics, nmt's last step with smooth=True) over each task's first generation, as bigcode's
process_results takes gen[0]. Run with the test venv (scripts/install-test-python.sh).
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "metrics"))
from scores_reference import corpus  # noqa: E402

EXAMPLES = {
    "conala": {"instruction1": "convert a list of integers into a single integer", "instruction2": "how to convert a datetime string back to datetime object?", "solution1": "r = int(''.join(map(str, x)))", "solution2": "datetime.datetime.strptime(str, '%m/%d/%Y')"},
    "concode": {"instruction1": "get the distance of map coordinates to the center ", "instruction2": "check if details are parsed", "solution1": "float function ( int arg0 , int arg1 ) { int loc0 = arg0 - cx ; int loc1 = arg1 - cy ; return getSquaredDistance ( loc0 , loc1 ) ; }", "solution2": "boolean function ( ) { return isParsed ; }"},
    "spider": {"instruction1": "How many heads of the departments are older than 56 ?", "instruction2": "List the name, born state and age of the heads of departments ordered by age.", "solution1": "SELECT count(*) FROM head WHERE age  >  56", "solution2": "SELECT name ,  born_state ,  age FROM head ORDER BY age"},
}


class Task:
    @staticmethod
    def two_shot_prompt(entry, text, examples):
        """Two shot prompt format as instructions & solutions"""
        prompt = f"\nInstruction:\n{examples['instruction1']}\
                   \nSolution:\n{examples['solution1']}\
                   \nInstruction:\n{examples['instruction2']}\
                   \nSolution:\n{examples['solution2']}\
                   \nInstruction:\n{text}\
                   \nSolution:\n"
        assert prompt.count("Solution:\n") == 3
        return entry + prompt

    @staticmethod
    def postprocess_generation(generation):
        return generation.split("Solution:\n", 3)[-1].strip()


def get_prompt(family, doc):
    if family == "conala":
        text_column = "rewritten_intent" if doc["rewritten_intent"] else "intent"
        text = doc[text_column].strip()
        entry = "Answer the following instructions in one line of Python code:\n"
    elif family == "concode":
        text = doc["nl"].split("concode_field_sep")[0].strip()
        if text.endswith("."):
            text = text[:-1].strip()
        entry = "Answer the following instructions in a one line of Java code:\n"
    else:
        text = doc["question"].strip()
        entry = "Answer the following instructions in a one line SQL query:\n"
    return Task.two_shot_prompt(entry, text, EXAMPLES[family])


def reference(family, doc):
    return {"conala": doc.get("snippet"), "concode": doc.get("code"), "spider": doc.get("query")}[family]


def main():
    data = json.load(sys.stdin)
    family = data["family"]
    prompts = [get_prompt(family, doc) for doc in data["rows"]]
    generations = [[Task.postprocess_generation(p + g) for g in gens] for p, gens in zip(prompts, data["generations"])]
    gens = [gen[0] for gen in generations]
    refs = [reference(family, doc) for doc in data["rows"]]
    scored = corpus({"predictions": gens, "references": refs})
    json.dump({"prompts": prompts, "predictions": gens, "bleu": scored["nmt_smooth"]}, sys.stdout)


if __name__ == "__main__":
    main()
