"""The independent side of test/families/humanevalpack.test.ts and humanevalpack.e2e.test.ts:
bigcode-evaluation-harness's HumanEvalPack tasks (bigcode_eval/tasks/humanevalpack.py at 8fc5bae):
HumanEvalSynthesize and HumanEvalFix (tests and docs) on the JSON on stdin ({"variant", "prompt",
"language", "rows", "generations", "execute"}; generations per task are a model's raw
continuations of the prompt), JSON on stdout.

Written here as bigcode has them: HumanEvalPack's constructor (stop words), get_prompt_base,
get_prompt (HumanEvalPack's, HumanEvalFixBase's, HumanEvalSynthesizeBase's), get_reference,
remove_last_block, postprocess_generation (Synthesize's and Fix's, diff-carper's), process_results'
patch application (diff: diff_match_patch from PyPI, on PYTHONPATH from .tools/test-python-dmp;
diff-carper: OpenELM's diff_eval.py, written out below) and its Python and JavaScript branches
(the import helper); the runs as code_eval_octopack's execution does them
(CodeGeeX's: Python exec'd in its own process under a time limit, any exception a failure;
JavaScript written to test.js and run by node, failed on any output to stderr or stdout; C++ by
g++ -std=c++11 then a.out, Java as Main.java by javac then `java -cp DIR Main`, Go by `go test
main_test.go` in a module requiring testify, Rust by `cargo check --bin` then `cargo test --bin` in
a Cargo project with rand, regex and md5, each passed on exit 0: the "octopack" paths of the job
name the installed caches, copied, offline; Python's is bigcode's check_correctness) and estimate_pass_at_k,
both bigcode_reference.py's. A raw continuation becomes bigcode's generation as its EndOfFunctionCriteria
ends it (bigcode_reference.py): the prompt, then the text up to the end of the first stop word to appear,
else all of it (its check_fn's bracket heuristic stops earlier, at text remove_last_block cuts anyway).
Run with the test venv (scripts/install-test-python.sh).
"""
import json
import re
import os
import subprocess
import sys
import shutil
import tempfile

from bigcode_reference import bigcode_generation, estimate_pass_at_k
from bigcode_reference import check_correctness as bigcode_check_correctness

LANGUAGE_TO_STOP_WORDS = {
    "python": ["\nclass", "\ndef", "\n#", "\n@", "\nprint", "\nif", "\nassert"],
    "cpp": [],
    "js": [],
    "go": ["\n//", "\nfunc main(", "struct", "\nfunc"],
    "java": [],
    "rust": [],
}
LANGUAGE_TO_TIMEOUT = {"python": 10, "cpp": 60, "js": 10, "java": 10, "go": 20, "rust": 300}
LANGUAGE_TO_EXTENSION = {"python": "py", "cpp": "cpp", "js": "js", "java": "java", "go": "go", "rust": "rs"}
CPP_IMPORTS = [
    "using namespace std;", "#include<stdlib.h>", "#include<algorithm>", "#include<cmath>", "#include<math.h>",
    "#include<numeric>", "#include<stdio.h>", "#include<vector>", "#include<set>", "#include<map>", "#include<queue>",
    "#include<stack>", "#include<list>", "#include<deque>", "#include<boost/any.hpp>", "#include<string>",
    "#include<climits>", "#include<cstring>", "#include<iostream>", "#include<sstream>", "#include<fstream>",
]
GO_IMPORTS = ["math", "strings", "fmt", "strconv", "time", "bytes", "regexp", "sort", "math/rand", "crypto/md5"]
PYTHON_IMPORTS = [
    "import math", "import re", "import sys", "import copy", "import datetime", "import itertools",
    "import collections", "import heapq", "import statistics", "import functools", "import hashlib",
    "import numpy", "import numpy as np", "import string", "from typing import *", "from collections import *",
]


class Pack:
    def __init__(self, language, prompt, variant):
        self.DATASET_NAME = language
        self.prompt = prompt
        self.variant = variant
        self.with_docs = variant in ("synthesize", "fixdocs")
        stop_words = list(LANGUAGE_TO_STOP_WORDS[language])
        if self.prompt.startswith("edit"):
            stop_words.extend(["<commit_before>", "<commit_msg>", "<commit_after>"])
        elif self.prompt == "starchat":
            stop_words.append("<|end|>")
        elif self.prompt == "diff":
            stop_words = ["<commit_before>", "<commit_msg>", "<commit_after>"]
        elif self.prompt == "diff-carper":
            stop_words = ["<BEF>", "<MSG>", "<DFF>", "\\ No newline at end of file"]
        elif self.prompt == "issue":
            stop_words.append("```")
        stop_words.append("<|endoftext|>")
        self.stop_words = stop_words

    def get_prompt_base(self, doc):
        if self.with_docs:
            return doc["prompt"]
        if self.DATASET_NAME == "rust":
            return "fn main(){}\n" + doc["declaration"]
        return doc["declaration"]

    def wrap(self, prompt_base, instruction, context=None):
        if context is None:
            inp = instruction
        elif self.prompt in ["continue", "instruct"]:
            inp = context + "\n" + instruction
        else:
            inp = instruction + "\n" + context
        p = self.prompt
        if p == "continue":
            assert context is None
            prompt = prompt_base
        elif p == "instruct":
            prompt = inp + "\n\n" + prompt_base
        elif p == "octocoder":
            prompt = f'Question: {inp}\n\nAnswer:\n{prompt_base}'
        elif p == "octogeex":
            prompt = f'Question: {inp.strip()}\n\nAnswer:\n{prompt_base}'
        elif p == "starchat":
            prompt = f'<|system|>\n<|end|>\n<|user|>\n{inp}<|end|>\n<|assistant|>\n{prompt_base}'
        elif p == "starcodercommit":
            prompt = f'<commit_before><commit_msg>{inp}<commit_after>{prompt_base}'
        elif p == "instructcodet5p":
            prompt = f'Below is an instruction that describes a task. Write a response that appropriately completes the request.\n\n### Instruction:\n{inp}\n\n### Response:{prompt_base}'
        elif p == "wizardcoder":
            prompt = f'Below is an instruction that describes a task. Write a response that appropriately completes the request.\n\n### Instruction:\n{inp}\n\n### Response:\n{prompt_base}'
        elif p == "codellama":
            prompt = f"[INST] {inp.strip()} [/INST] {prompt_base}"
        elif p == "deepseek":
            prompt = f"You are an AI programming assistant, utilizing the Deepseek Coder model, developed by Deepseek Company, and you only answer questions related to computer science. For politically sensitive questions, security and privacy issues, and other non-computer science questions, you will refuse to answer\n### Instruction:\n{inp.strip()}\n### Response:\n{prompt_base}"
        elif p in ["tulu", "gritlm"]:
            prompt = f"<|user|>\n{inp}\n<|assistant|>\n{prompt_base}"
        elif p == "zephyr":
            prompt = f"<|user|>\n{inp}</s>\n<|assistant|>\n{prompt_base}"
        elif p in ["yi", "starchat2", "codeqwen"]:
            prompt = f"<|im_start|>user\n{inp}<|im_end|>\n<|im_start|>assistant\n{prompt_base}"
        elif p == "codegemma":
            prompt = f"<start_of_turn>user\n{inp}<end_of_turn>\n<start_of_turn>model\n{prompt_base}"
        elif p == "codellama-70b":
            prompt = f"Source: user\n\n {inp.strip()} Source: assistant\nDestination: user \n\n{prompt_base}"
        elif p == "aurora-m":
            prompt = f'### Instruction:\n{inp}\n### Response:\n{prompt_base}'
        else:
            raise ValueError(f"The --prompt argument {p} wasn't provided or isn't supported")
        return prompt.strip()

    def get_prompt(self, doc):
        if self.variant == "synthesize":
            return self.wrap(self.get_prompt_base(doc), doc["instruction"].strip())
        prompt_base = self.get_prompt_base(doc)
        instruction = f'Fix bugs in {doc["entry_point"]}.'
        context = prompt_base + doc["buggy_solution"]
        if self.with_docs is False:
            context += "\n" + doc["test"]
        if self.prompt == "diff":
            prompt = f"<commit_before>{context}<commit_msg>{instruction}<commit_after>"
        elif self.prompt == "diff-carper":
            prompt = f"<NME> {doc['entry_point']}.{LANGUAGE_TO_EXTENSION[self.DATASET_NAME]}\n"
            prompt += f"<BEF> {context}\n<MSG> {instruction}\n<DFF>"
        elif self.prompt == "file":
            file_name = doc["entry_point"] + "." + LANGUAGE_TO_EXTENSION[self.DATASET_NAME]
            prompt = f"<file_name>\n{file_name}\n<commit_before>\n{context}\n<commit_msg>\n{instruction}<commit_after>\n{prompt_base}"
        elif self.prompt == "starcodercommit":
            prompt = f"<commit_before>{context}<commit_msg>{instruction}<commit_after>{prompt_base}"
        elif self.prompt == "issue":
            prompt = f"<issue_start>username_0: {instruction}\n\n```{context}```\nUpvotes: 100<issue_comment>username_1: Sure, here is the fixed code.\n\n```{prompt_base}"
        else:
            prompt = self.wrap(prompt_base, instruction, context)
        return prompt.strip()

    def get_reference(self, doc):
        return "\n" + doc["test"]

    def remove_last_block(self, code):
        for w in self.stop_words:
            if w in code:
                code = code[:code.find(w)]
        if self.DATASET_NAME == "python":
            for i, line in enumerate(code.split("\n")):
                if len(line.strip()) > 0 and line[0] != ' ' and line[0] != '\t':
                    return "\n".join(code.split("\n")[:i])
        elif self.DATASET_NAME in ["java", "js", "go", "cpp", "rust"]:
            open_brackets = 2 if self.DATASET_NAME == "java" else 1
            cut = False
            for i, c in enumerate(code):
                if c == '{':
                    open_brackets += 1
                elif c == '}':
                    open_brackets -= 1
                if open_brackets == 0:
                    code = code[:i + 1]
                    cut = True
                    break
            if not cut:
                if self.DATASET_NAME == "java":
                    main_pos = code.find("public static void main")
                    if main_pos != -1:
                        code = code[:main_pos] + '}'
                    if '}' in code:
                        code = code[:code.rfind('}')] + '}'
                    if code.count('{') - 1 == code.count('}'):
                        code += "\n}"
                elif '}' in code:
                    code = code[:code.rfind('}')] + '}'
        return code

    def postprocess_generation(self, generation, doc):
        prompt = self.get_prompt(doc)
        if self.prompt == "diff-carper":
            generation = self.remove_last_block(generation[len(prompt):].rstrip())
            generation = prompt + generation
            end_of_diff = re.compile("\n[^ +-@]+")
            parsed = split_diff(generation)
            if parsed and all((s in parsed for s in ["name", "file", "message", "diff"])):
                diff_hunk = end_of_diff.split(parsed["diff"])[0]
                nme_idx = diff_hunk.find("<NME>")
                if nme_idx != -1:
                    diff_hunk = diff_hunk[:nme_idx]
                return diff_hunk
            return None
        gen = self.remove_last_block(generation[len(prompt):].rstrip())
        if self.prompt.startswith("diff"):
            return gen
        if self.variant == "synthesize":
            return doc["prompt"].rstrip() + gen
        return self.get_prompt_base(doc).rstrip() + gen

    def mutate(self, generations, docs):
        """process_results' CUSTOM MUTATE METHOD CHANGES for diff-carper (the diff applied to the buggy code)."""
        generations = [list(gen) for gen in generations]
        if self.prompt == "diff":
            from diff_match_patch import diff_match_patch
            dmp = diff_match_patch()
            for gen, doc in zip(generations, docs):
                old_code = self.get_prompt_base(doc) + doc["buggy_solution"]
                for i, diff in enumerate(gen):
                    try:
                        patches = dmp.patch_fromText(diff.lstrip())
                        fixed_code, _ = dmp.patch_apply(patches, old_code)
                    except Exception:
                        fixed_code = ""
                    gen[i] = fixed_code
        elif self.prompt == "diff-carper":
            for gen, doc in zip(generations, docs):
                old_code = self.get_prompt_base(doc) + doc["buggy_solution"]
                for i, diff_hunk in enumerate(gen):
                    if not (diff_hunk):
                        gen[i] = ""
                        continue
                    gen[i] = apply_diff(old_code, diff_hunk)
        return generations

    def program_codes(self, generations, references, docs):
        """process_results' CUSTOM PROG LANGUAGE CHANGES, as bigcode has them (Go's set of packages
        ordered as IMPORT_HELPER lists them: a Python set's order is arbitrary, and Go's is free)."""
        language = self.DATASET_NAME
        generations = [list(gen) for gen in generations]
        if language == "python":
            python_imports = "\n".join(PYTHON_IMPORTS)
            return [[(python_imports + "\n" + g).strip() for g in gen] for gen in generations]
        if language == "cpp":
            cpp_imports = "\n".join(CPP_IMPORTS)
            return [[(cpp_imports + "\n" + g.split("int main")[0]).strip() for g in gen] for gen in generations]
        if language == "java":
            return [[g.replace("public class Main {\n    }", "").strip() for g in gen] for gen in generations]
        if language == "go":
            for gen, ref, doc in zip(generations, references, docs):
                for line in doc["import"].split("\n"):
                    line = line.replace("import", "").replace("(", "").replace(")", "").replace('"', "").strip()
                    if line:
                        assert line in GO_IMPORTS, doc["import"]
                test_setup_str = doc["test_setup"] + "\n"
                for i, g in enumerate(gen):
                    for line in test_setup_str.split("\n"):
                        line = line.replace("import", "").replace("(", "").replace(")", "").strip()
                        if line.startswith('"') and line in g:
                            test_setup_str = test_setup_str.replace(line, "")
                    g = test_setup_str + g + "\n" + ref
                    other_pkgs = set()
                    for pkg in GO_IMPORTS:
                        if ('"' + pkg + '"' not in g):
                            p = pkg.split("/")[-1]
                            if (p + "." in g):
                                lines = g.split("\n")
                                for line in lines:
                                    if (p + "." in line) and not (line.strip().startswith("//")):
                                        other_pkgs.add('"' + p + '"')
                                        break
                    other_pkgs_str = ""
                    if other_pkgs:
                        ordered = sorted(other_pkgs, key=lambda q: [x.split("/")[-1] for x in GO_IMPORTS].index(q.strip('"')))
                        other_pkgs_str = "import (\n" + "\n".join(["    " + p for p in ordered]) + "\n)\n"
                    if ("package main" in gen[i]) and ("package main" in test_setup_str):
                        gen[i] = gen[i].replace("package main", "")
                    gen[i] = test_setup_str + other_pkgs_str + gen[i]
            return generations
        if language == "rust":
            main = "fn main(){}\n"
            for gen, doc in zip(generations, docs):
                declaration = doc["declaration"]
                for i, g in enumerate(gen):
                    new_gen = ""
                    if "fn main()" not in g:
                        new_gen += main
                    for line in declaration.split("\n"):
                        if line.strip() not in g:
                            if line.strip().startswith("fn") and (line.strip().split("(")[0]) in g:
                                continue
                            new_gen += line.strip() + "\n"
                    g = "fn main()".join(g.split("fn main()")[0:2])
                    new_gen += g
                    gen[i] = new_gen
            return generations
        return generations


# --- OpenELM's diff_eval.py as bigcode carries it (custom_metrics/diff_eval.py): what diff-carper uses ---

line_number_pattern = re.compile(r"(?m)^@@ -(?P<l1>\d*),*?(?P<s1>\d*?) \+(?P<l2>\d*),*?(?P<s2>\d*?) @@")
diff_pattern = re.compile(
    r"""<NME> (?P<name>.*?)
<BEF> (?P<file>(.|\n)*?)
<MSG> (?P<message>(.|\n)*?)
<DFF> (?P<diff>(.|\n)*)"""
)
hunk_split_pattern = re.compile(r"(?m)^(@@ .*? @@).*\n")
ignored = re.compile(r"(?m)^\\ No newline at end of file$\n?")


def split_diff(content):
    match = diff_pattern.match(content)
    return {} if match is None else match.groupdict()


def parse_line_info(content):
    match = line_number_pattern.match(content)
    if match is None:
        return ()
    match_dict = match.groupdict()
    if not match_dict["l1"] or not match_dict["l2"]:
        return ()
    for s in ["s1", "s2"]:
        match_dict[s] = match_dict[s] if match_dict[s] else "1"
    return (int(match_dict["l1"]), int(match_dict["s1"]), int(match_dict["l2"]), int(match_dict["s2"]))


def parse_diff_content(hunk, separate_lines=False, reject_invalid=False):
    hunk = hunk.split("\n")
    before_diff, after_diff = [], []
    for line in hunk:
        if not line:
            continue
        if line[0] == "-" or line[0] == " ":
            before_diff.append(line[1:])
        if line[0] == "+" or line[0] == " ":
            after_diff.append(line[1:])
        if reject_invalid:
            if all([line[0] != c for c in [" ", "-", "+"]]):
                return None
    if separate_lines:
        return before_diff, after_diff
    return "\n".join(before_diff), "\n".join(after_diff)


def replace_text(text, before, after, start_pointer, reject_incomplete_line=True):
    idx = text[start_pointer:].find(before)
    start_idx = start_pointer + idx
    if reject_incomplete_line:
        if idx >= 0 and start_idx + len(before) < len(text) and text[start_idx + len(before)] != "\n":
            return text, start_pointer
    if idx < 0:
        return text, start_pointer
    return text[:start_idx] + after + text[start_idx + len(before):], start_idx + len(after)


def apply_diff(file, diff, use_line_number=False, allow_add_file=True):
    diff = hunk_split_pattern.split(ignored.sub("", diff))
    file_by_line = file.split("\n") if use_line_number else None
    line_offset = 0
    patch_pointer = 0
    i = 0 if diff[0] else 1
    while i < len(diff) - 1:
        line_info = parse_line_info(diff[i])
        diff_content = diff[i + 1]
        i += 2
        parsed_diff = parse_diff_content(diff_content, separate_lines=use_line_number)
        if allow_add_file and file == "ADDFILE":
            if use_line_number:
                return parsed_diff[1] if line_info == (0, 0) else ""
            return parsed_diff[1]
        if use_line_number:
            if not line_info:
                continue
            start_idx = line_info[0] + line_offset
            referred_lines = file_by_line[start_idx - 1: start_idx - 1 + line_info[1]]
            valid = all([l1 == l2 for l1, l2 in zip(parsed_diff[0], referred_lines)])
            if valid and len(parsed_diff[0]) == line_info[1]:
                if start_idx == 0:
                    file_by_line = parsed_diff[1] + file_by_line
                else:
                    file_by_line = file_by_line[: start_idx - 1] + parsed_diff[1] + file_by_line[start_idx - 1 + line_info[1]:]
                line_offset += len(parsed_diff[1]) - line_info[1]
        else:
            if parsed_diff[0] == "":
                if patch_pointer != 0:
                    continue
                file = parsed_diff[1] + "\n" + file
                patch_pointer = len(parsed_diff[0]) + 1
            else:
                file, patch_pointer = replace_text(file, parsed_diff[0], parsed_diff[1], patch_pointer)
    if use_line_number:
        file = "\n".join(file_by_line)
    return file


# --- code_eval_octopack's execution (CodeGeeX's) ------------------------------------------------

def check_correctness(language, program, timeout, node, task_id="", env=None):
    if language == "python":
        return bigcode_check_correctness(program, timeout, task_id, 0)["result"]
    if language != "js":
        return compiled_execute(language, program, timeout, task_id, env)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "test.js")
        with open(path, "w") as f:
            f.write(program)
        try:
            r = subprocess.run([node, path], timeout=timeout, capture_output=True, cwd=tmp)
        except subprocess.TimeoutExpired:
            return "timed out"
        if r.stderr.decode():
            return "failed: " + r.stderr.decode()
        if r.stdout.decode():
            return "failed: " + r.stdout.decode()
        return "passed"


class OctopackEnv:
    """What code_eval_octopack's machine has: g++ and boost, a JDK, Go with a module requiring
    testify, and its Cargo project (rand, regex, md5). Offline here: copies of what
    scripts/install-toolchains.sh installed in .tools/octopack (the build caches copied; the module
    cache and the crates' sources read in place, cargo taking only its lock there), so that nothing
    is downloaded or rebuilt."""

    def __init__(self, octopack, module_files, cargo_project):
        self.tmp = tempfile.mkdtemp(prefix="hep-octopack-")
        self.octopack = octopack
        self.module_files = module_files
        self.cargo_project = cargo_project
        self.ready = set()

    def go(self):
        gocache = os.path.join(self.tmp, "gocache")
        if "go" not in self.ready:
            shutil.copytree(os.path.join(self.octopack, "go", "gocache"), gocache, symlinks=True)
            self.ready.add("go")
        return {
            **os.environ, "GOMODCACHE": os.path.join(self.octopack, "go", "modcache"), "GOCACHE": gocache,
            "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOTOOLCHAIN": "local", "GOTELEMETRY": "off",
        }

    def rust(self):
        project = os.path.join(self.tmp, "rust")
        if "rust" not in self.ready:
            os.makedirs(os.path.join(project, "src", "bin"))
            for f in ("Cargo.toml", "Cargo.lock"):
                shutil.copy(os.path.join(self.cargo_project, f), project)
            open(os.path.join(project, "src", "lib.rs"), "w").close()
            shutil.copytree(os.path.join(self.octopack, "rust", "target"), os.path.join(project, "target"), symlinks=True)
            self.ready.add("rust")
        # The installed CARGO_HOME (the crates' sources): their builds in the copied target are then fresh.
        cargo_home = os.path.join(self.octopack, "rust", "cargo-home")
        return project, {**os.environ, "CARGO_HOME": cargo_home, "CARGO_NET_OFFLINE": "true"}


def run_for(argv, timeout, **kw):
    try:
        return subprocess.run(argv, timeout=timeout, capture_output=True, **kw)
    except subprocess.TimeoutExpired:
        return None


def compiled_execute(language, program, timeout, task_id, env):
    """code_eval_octopack's execute.py for C++, Java, Go and Rust (CodeGeeX's, with bigcode's changes)."""
    if language == "rust":
        project, cargo_env = env.rust()
        file_prefix = task_id.lower().replace("/", "_")
        with open(os.path.join(project, "src", "bin", file_prefix + ".rs"), "w") as f:
            f.write(program)
        check = subprocess.run(["cargo", "check", "--bin", file_prefix, "--message-format", "json"], cwd=project, env=cargo_env, capture_output=True)
        if check.returncode != 0:
            return "failed: compilation error"
        test = subprocess.run(["cargo", "test", "--bin", file_prefix, "--message-format", "json"], cwd=project, env=cargo_env, capture_output=True)
        return "passed" if test.returncode == 0 else "failed: execution error"
    with tempfile.TemporaryDirectory() as tmp:
        if language == "cpp":
            with open(os.path.join(tmp, "test.cpp"), "w") as f:
                f.write(program)
            built = run_for(["g++", "-std=c++11", "test.cpp"], timeout, cwd=tmp)
            if built is None or built.returncode != 0:
                return "failed: compilation error"
            r = run_for(["./a.out"], timeout, cwd=tmp)
            return "timed out" if r is None else "passed" if r.returncode == 0 else "failed: " + r.stderr.decode()
        if language == "java":
            with open(os.path.join(tmp, "Main.java"), "w") as f:
                f.write(program)
            built = None
            for _ in range(5):
                built = run_for(["javac", os.path.join(tmp, "Main.java")], 5)
                if built is not None:
                    break
            if built is None or built.returncode != 0:
                return "failed: compilation error"
            r = run_for(["java", "-cp", tmp, "Main"], timeout)
            if r is None:
                return "time out"
            if r.returncode == 0:
                return "passed"
            return "failed: wrong answer" if "AssertionError" in r.stderr.decode("unicode-escape") else "failed: " + r.stderr.decode()
        if language == "go":
            for f in ("go.mod", "go.sum"):
                shutil.copy(os.path.join(env.module_files, f), tmp)
            with open(os.path.join(tmp, "main_test.go"), "w") as f:
                f.write(program)
            r = run_for(["go", "test", f"-timeout={timeout}s", "main_test.go"], timeout, cwd=tmp, env={**env.go(), "HOME": tmp, "GOPATH": os.path.join(tmp, "gopath")})
            return "timed out" if r is None else "passed" if r.returncode == 0 else "failed: " + (r.stderr or r.stdout).decode()
    raise ValueError(language)


def run(job):
    task = Pack(job["language"], job["prompt"], job["variant"])
    rows = job["rows"]
    prompts = [task.get_prompt(doc) for doc in rows]
    out = {"prompts": prompts, "stop_words": task.stop_words, "references": [task.get_reference(d) for d in rows]}
    gens = job.get("generations")
    if gens is not None:
        postprocessed = [
            [task.postprocess_generation(bigcode_generation(prompts[t], g, task.stop_words), rows[t]) for g in gens[t]]
            for t in range(len(gens))
        ]
        out["postprocessed"] = postprocessed
        solutions = task.mutate(postprocessed, rows)
        out["solutions"] = solutions
        codes = task.program_codes(solutions, out["references"], rows)
        programs = [[c + "\n" + out["references"][t] for c in codes[t]] for t in range(len(codes))]
        out["programs"] = programs
        if job.get("execute"):
            timeout = LANGUAGE_TO_TIMEOUT[job["language"]]
            env = OctopackEnv(job.get("octopack"), job.get("go_module"), job.get("cargo_project")) if "octopack" in job else None
            try:
                results = [
                    [check_correctness(job["language"], p, timeout, job.get("node", "node"), rows[t]["task_id"], env) for p in ps]
                    for t, ps in enumerate(programs)
                ]
            finally:
                if env is not None:
                    shutil.rmtree(env.tmp, ignore_errors=True)
            passed = [[r == "passed" for r in rs] for rs in results]
            out["passed"] = passed
            out["results"] = results
            out["pass@1"] = float(estimate_pass_at_k([len(p) for p in passed], [sum(p) for p in passed], 1).mean())
    return out


def main():
    jobs = json.load(sys.stdin)
    if isinstance(jobs, dict) and "apply_diff" in jobs:
        # diff_eval's own functions on hand-written cases: [buggy, hunk] -> applied; record -> split.
        out = {"applied": [apply_diff(b, h) for b, h in jobs["apply_diff"]], "split": [split_diff(r) for r in jobs["split_diff"]]}
        diff_task = Pack("python", "diff", "fixtests")
        # process_results' diff branch on [buggy, patch] pairs (the prompt base empty: the buggy code is all of it).
        out["patched"] = [
            diff_task.mutate([[p]], [{"prompt": "", "declaration": "", "buggy_solution": b}])[0][0] for b, p in jobs.get("patch", [])
        ]
        json.dump(out, sys.stdout)
        return
    json.dump([run(job) for job in jobs] if isinstance(jobs, list) else run(jobs), sys.stdout)


if __name__ == "__main__":
    main()
