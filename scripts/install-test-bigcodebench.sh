#!/usr/bin/env bash
# Test-only: BigCodeBench's own evaluator (bigcodebench 0.2.5 from PyPI, whose bigcodebench/eval/ is
# that of bigcode-project/bigcodebench 47eff25), in .tools/test-python-bigcodebench for PYTHONPATH
# beside the tests' venv (.tools/test-python, made first by install-test-python.sh). Installed
# without its dependencies (vllm, transformers, e2b, gradio...): its evaluator needs numpy (the
# venv's) and, in reliability_guard, matplotlib, installed here with its own dependencies. The tests
# run its untrusted_check and estimate_pass_at_k (test/families/bigcodebench_reference.py).
# Idempotent: a second run only checks a stamp.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=lib/pip-folder-install.sh
. "$root/scripts/lib/pip-folder-install.sh"
tools="${EXPLORA_TOOLS_DIR:-$root/.tools}"
venv="$tools/test-python"
dir="$tools/test-python-bigcodebench"
pins='bigcodebench==0.2.5 matplotlib==3.9.2 contourpy==1.3.0 cycler==0.12.1 fonttools==4.54.1 kiwisolver==1.4.7 pillow==10.4.0 pyparsing==3.1.4'

evaluator_imports() {
  PYTHONPATH="$1" MPLBACKEND=Agg "$venv/bin/python" -c 'from bigcodebench.eval import untrusted_check, estimate_pass_at_k'
}

EXPLORA_TOOLS_DIR="$tools" bash "$root/scripts/install-test-python.sh"
# A run stopped midway leaves no half folder (pip_folder_install builds it as DIR.partial.PID).
trap 'rm -rf "$dir.partial.$$"' EXIT
pip_folder_install install-test-bigcodebench "$venv" "$dir" "$tools/pip-test-python-bigcodebench.log" "$pins" \
  "bigcodebench 0.2.5's evaluator" evaluator_imports 'bigcodebench installed but its evaluator does not import' \
  --only-binary=:all: || exit 1
