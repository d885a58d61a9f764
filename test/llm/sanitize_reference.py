"""The independent side of test/llm/sanitize-reference.test.ts: evalplus 0.3.1's own `sanitize`
(evalplus/sanitize.py, with tree-sitter 0.25.2 and tree-sitter-python 0.25.0) on the chat answers
given as JSON on stdin ({"answers": [{"answer": str, "entryPoint": str | null}, ...],
"snippets": [str, ...]}); on stdout, JSON: {"sanitized": [str, ...], "extracted": [str, ...],
"syntax": [[bool, ...], ...], "snippets": [bool, ...]}, where extracted[k] is `code_extract` of answer k, syntax[k] is evalplus's `syntax_check` on every run of lines
code_extract tries in answer k (lines i..j, j > i, in its order), and snippets[k] on snippet k. Run with the test venv (scripts/install-test-python.sh), never the
product's.

evalplus is installed without its dependencies: `evalplus.data` (which sanitize.py imports for its
command line only, `script`) imports Hugging Face `datasets`, so an empty stand-in module is put in
its place before evalplus/sanitize.py is loaded; `sanitize` and everything it calls
(code_extract, syntax_check, extract_target_code_or_empty) are evalplus's code, unchanged.
"""
import json
import sys
import types

data_stub = types.ModuleType("evalplus.data")
for name in ("get_human_eval_plus", "get_mbpp_plus", "load_solutions", "write_directory", "write_jsonl"):
    setattr(data_stub, name, None)
sys.modules["evalplus.data"] = data_stub

from evalplus.sanitize import code_extract, sanitize  # noqa: E402
from evalplus.syncheck import syntax_check  # noqa: E402


def runs_syntax(text):
    lines = text.split("\n")
    return [
        syntax_check("\n".join(lines[i : j + 1]))
        for i in range(len(lines))
        for j in range(i + 1, len(lines))
    ]


given = json.load(sys.stdin)
cases = given["answers"]
json.dump(
    {
        "sanitized": [sanitize(c["answer"], c["entryPoint"]) for c in cases],
        "extracted": [code_extract(c["answer"]) for c in cases],
        "syntax": [runs_syntax(c["answer"]) for c in cases],
        "snippets": [syntax_check(s) for s in given["snippets"]],
    },
    sys.stdout,
)
