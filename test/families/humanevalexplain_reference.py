"""bigcode-evaluation-harness's HumanEvalExplain (bigcode_eval/tasks/humanevalpack.py:
HumanEvalExplainDescribeBase and HumanEvalExplainSynthesizeBase), written out for the tests on top
of HumanEvalPack's base class as humanevalpack_reference.py transcribes it (get_prompt's formats,
stop words, remove_last_block of the generative tasks, process_results' import helper).

Reads a list of jobs on stdin: {language, prompt, rows, describe_generations: one list of raw
continuations per row, synthesize_generations: one list of raw continuations per (row, description)
in bigcode's get_dataset order}; writes for each: the describe prompts, the descriptions
(postprocess_generation, as main.py saves them for --load_data_path), the synthesize prompts,
the synthesized solutions and the programs run.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bigcode_reference import bigcode_generation  # noqa: E402
from humanevalpack_reference import Pack  # noqa: E402

LANGUAGE_TO_NAME = {"python": "Python", "cpp": "C++", "js": "JavaScript", "java": "Java", "go": "Go", "rust": "Rust"}


class ExplainDescribe(Pack):
    def __init__(self, language, prompt):
        super().__init__(language, prompt, "fixtests")  # with_docs=False, as bigcode's describe

    def get_prompt(self, doc):
        prompt_base = self.get_prompt_base(doc)
        instruction = f"Provide a concise natural language description of the code using at most {len(doc['docstring'])} characters."
        context = prompt_base + doc["canonical_solution"]
        return self.wrap("", instruction, context)

    def remove_last_block(self, text):
        for w in self.stop_words:
            if w in text:
                text = text[:text.find(w)]
        return text

    def remove_code(self, text, canonical_solution):
        for line in canonical_solution.split("\n"):
            line = line.strip()
            if len(line) > 20 and line in text:
                text = text.replace(line, "")
        return text

    def postprocess_generation(self, generation, doc):
        prompt = self.get_prompt(doc)
        docstring_len = len(doc["docstring"])
        gen = self.remove_last_block(generation[len(prompt):].strip()[:docstring_len]).rstrip()
        gen = self.remove_code(gen, doc["canonical_solution"])
        return gen


class ExplainSynthesize(Pack):
    def __init__(self, language, prompt, descriptions, rows):
        super().__init__(language, prompt, "fixtests")  # with_docs=False: the declaration to continue
        self.descriptions = descriptions
        self.rows = rows

    def get_dataset(self):
        dataset = []
        for description, sample in zip(self.descriptions, self.rows):
            for description_candidate in description:
                dataset.append({"description": description_candidate} | sample)
        return dataset

    def get_prompt(self, doc):
        prompt_base = self.get_prompt_base(doc)
        instruction = f"Write functional code in {LANGUAGE_TO_NAME[self.DATASET_NAME]} according to the description."
        context = doc["description"]
        return self.wrap(prompt_base, instruction, context)

    # HumanEvalPackGenerative.postprocess_generation: the row's prompt (with its docstring) before the kept text.
    def postprocess_generation(self, generation, doc):
        prompt = self.get_prompt(doc)
        gen = self.remove_last_block(generation[len(prompt):].rstrip())
        return doc["prompt"].rstrip() + gen


def run(job):
    rows = job["rows"]
    describe = ExplainDescribe(job["language"], job["prompt"])
    describe_prompts = [describe.get_prompt(doc) for doc in rows]
    descriptions = [
        [describe.postprocess_generation(bigcode_generation(describe_prompts[t], g, describe.stop_words), rows[t]) for g in gens]
        for t, gens in enumerate(job["describe_generations"])
    ]
    synthesize = ExplainSynthesize(job["language"], job["prompt"], descriptions, rows)
    dataset = synthesize.get_dataset()
    prompts = [synthesize.get_prompt(doc) for doc in dataset]
    solutions = [
        [synthesize.postprocess_generation(bigcode_generation(prompts[i], g, synthesize.stop_words), dataset[i]) for g in gens]
        for i, gens in enumerate(job["synthesize_generations"])
    ]
    codes = synthesize.program_codes(solutions, [synthesize.get_reference(d) for d in dataset], dataset)
    programs = [[c + "\n" + synthesize.get_reference(dataset[i]) for c in codes[i]] for i in range(len(codes))]
    return {
        "describe_prompts": describe_prompts,
        "stop_words": describe.stop_words,
        "descriptions": descriptions,
        "synthesize_prompts": prompts,
        "solutions": solutions,
        "programs": programs,
    }


def main():
    json.dump([run(job) for job in json.load(sys.stdin)], sys.stdout)


if __name__ == "__main__":
    main()
