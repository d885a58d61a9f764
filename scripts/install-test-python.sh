#!/usr/bin/env bash
# Installs the Python that tests check explora against: a venv at .tools/test-python with pinned
# SciPy and statsmodels (the comparison statistics); sacrebleu, lm-eval's copy of CodeXGLUE's bleu.py,
# scikit-learn and sqlparse (the scores of the generation benchmarks, issue 28); DuckDB (reads back
# the exported Parquet tables), all from PyPI; and
# beside it, .tools/test-python-moses: mosestokenizer (the Moses detokenizer bigcode runs over
# code-to-text references), for PYTHONPATH; .tools/test-python-evalplus: evalplus 0.3.1 without
# its dependencies, with tree-sitter (what evalplus's sanitizer runs on), for PYTHONPATH; and
# .tools/test-python-dmp: diff-match-patch (bigcode's HumanEvalFix `diff` format), for PYTHONPATH.
# Test-only: the sandbox's venv (install-sandbox-python.sh) and the product never use it.
# Idempotent: with the same pins and base interpreter, a second run only checks a stamp.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=lib/pip-folder-install.sh
. "$root/scripts/lib/pip-folder-install.sh"
tools="${EXPLORA_TOOLS_DIR:-$root/.tools}"
venv="$tools/test-python"

fail() {
  echo "install-test-python: $*" >&2
  exit 1
}

# Pinned: the reference values the tests compare with must not move with an upgrade.
requirements='scipy==1.14.1
statsmodels==0.14.4
numpy==2.1.3
pandas==2.2.3
patsy==1.0.1
packaging==24.2
python-dateutil==2.9.0.post0
pytz==2024.2
tzdata==2024.2
six==1.16.0
sacrebleu==2.4.3
portalocker==2.10.1
regex==2024.11.6
tabulate==0.9.0
colorama==0.4.6
lxml==5.3.0
lm-eval==0.4.5
scikit-learn==1.5.2
joblib==1.4.2
threadpoolctl==3.5.0
sqlparse==0.5.2
duckdb==1.1.3
'

# The real interpreter, not the pyenv shim (~80 ms per start).
base="$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || true)"
[ -n "$base" ] || fail "no python3 on PATH; the test venv is made from it"

# mosestokenizer and its helpers are published as source only (pure Python; mosestokenizer bundles
# Moses' Perl scripts and runs them with the system's perl): built by pip into a folder of their
# own (lib/pip-folder-install.sh).
moses_dir="$tools/test-python-moses"
moses_pins='mosestokenizer==1.2.1 docopt==0.6.2 openfile==0.0.7 toolwrapper==2.1.0 uctools==1.3.0'
moses_detokenizes() {
  [ "$(PYTHONPATH="$1" "$venv/bin/python" -c 'from mosestokenizer import MosesDetokenizer
with MosesDetokenizer("en") as d: print(d(["a", "(", "b", ")", "."]))')" = "a (b)." ]
}
ensure_moses() {
  pip_folder_current "$moses_dir" "$moses_pins" && return 0
  command -v perl >/dev/null || fail "no perl on PATH: mosestokenizer runs Moses' detokenizer.perl with it"
  pip_folder_install install-test-python "$venv" "$moses_dir" "$tools/pip-test-python-moses.log" "$moses_pins" \
    'mosestokenizer 1.2.1' moses_detokenizes 'mosestokenizer installed but its detokenizer does not run' || exit 1
}

# evalplus's sanitizer (the chat answers' extraction explora repeats) imports tree-sitter and, through
# evalplus.data, Hugging Face datasets: evalplus is installed without its dependencies, with what
# sanitize.py itself needs, in a folder of its own (as mosestokenizer, above); the tests stand in for
# evalplus.data (test/llm/sanitize_reference.py).
evalplus_imports() {
  PYTHONPATH="$1" "$venv/bin/python" -c 'import tree_sitter, tree_sitter_python
tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language())).parse(b"x = 1")' && [ -f "$1/evalplus/sanitize.py" ]
}
ensure_evalplus() {
  pip_folder_install install-test-python "$venv" "$tools/test-python-evalplus" "$tools/pip-test-python-evalplus.log" \
    'evalplus==0.3.1 tree-sitter==0.25.2 tree-sitter-python==0.25.0 termcolor==2.5.0 tqdm==4.67.1' \
    'evalplus 0.3.1 and tree-sitter 0.25.2' evalplus_imports 'evalplus and tree-sitter installed but do not import' \
    --only-binary=:all: || exit 1
}

# diff_match_patch (what bigcode's HumanEvalFix `diff` format applies patches with): pure Python,
# in a folder of its own (as mosestokenizer, above), for PYTHONPATH.
dmp_imports() {
  PYTHONPATH="$1" "$venv/bin/python" -c 'from diff_match_patch import diff_match_patch'
}
ensure_dmp() {
  pip_folder_install install-test-python "$venv" "$tools/test-python-dmp" "$tools/pip-test-python-dmp.log" \
    'diff-match-patch==20241021' 'diff-match-patch 20241021' dmp_imports 'diff-match-patch installed but does not import' \
    --only-binary=:all: || exit 1
}

stamp_text="$(printf '%s\n%s\n' "$base" "$requirements" | sha256sum | cut -d' ' -f1)"
stamp="$venv/.installed"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_text" ] && [ -x "$venv/bin/python" ]; then
  ensure_moses
  ensure_evalplus
  ensure_dmp
  exit 0
fi

echo "install-test-python: creating $venv from $base with scipy, statsmodels, sacrebleu, lm-eval, scikit-learn, sqlparse" >&2
# Built beside the final place and moved in whole: two test runs starting together never see a half venv.
tmp="$venv.partial.$$"
rm -rf "$tmp"
mkdir -p "$tools"
"$base" -m venv "$tmp" || fail "python3 -m venv failed (is the venv module installed with $base?)"
req_file="$(mktemp)"
trap 'rm -f "$req_file"; rm -rf "$tmp"' EXIT
printf '%s' "$requirements" >"$req_file"
log="$tools/pip-test-python.log"
if ! "$tmp/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --only-binary=:all: --no-deps -r "$req_file" >"$log" 2>&1; then
  echo "install-test-python: pip could not install the pinned wheels; it said:" >&2
  tail -n 20 "$log" >&2
  exit 1
fi
versions="$("$tmp/bin/python" -c 'import scipy, statsmodels, sacrebleu, sklearn, sqlparse
print(scipy.__version__, statsmodels.__version__, sacrebleu.__version__, sklearn.__version__)')" \
  || fail "the venv installed but scipy/statsmodels/sacrebleu/sklearn do not import (see $log)"
[ "$versions" = "1.14.1 0.14.4 2.4.3 1.5.2" ] \
  || fail "expected scipy 1.14.1, statsmodels 0.14.4, sacrebleu 2.4.3, scikit-learn 1.5.2, got $versions"
# lm-eval is installed without its dependencies and never imported: the tests load one file of it,
# CodeXGLUE's bleu.py, by path.
purelib="$("$tmp/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
[ -f "$purelib/lm_eval/tasks/code_x_glue/code-text/bleu.py" ] \
  || fail "lm-eval 0.4.5 installed without lm_eval/tasks/code_x_glue/code-text/bleu.py (see $log)"
echo "$stamp_text" >"$tmp/.installed"
rm -rf "$venv"
mv "$tmp" "$venv"
ensure_moses
ensure_evalplus
ensure_dmp
echo "install-test-python: scipy 1.14.1, statsmodels 0.14.4, sacrebleu 2.4.3, lm-eval 0.4.5, scikit-learn 1.5.2 in $venv" >&2
