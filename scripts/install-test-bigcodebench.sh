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
tools="${EXPLORA_TOOLS_DIR:-$root/.tools}"
venv="$tools/test-python"
dir="$tools/test-python-bigcodebench"
pins='bigcodebench==0.2.5 matplotlib==3.9.2 contourpy==1.3.0 cycler==0.12.1 fonttools==4.54.1 kiwisolver==1.4.7 pillow==10.4.0 pyparsing==3.1.4'

fail() {
  echo "install-test-bigcodebench: $*" >&2
  exit 1
}

EXPLORA_TOOLS_DIR="$tools" bash "$root/scripts/install-test-python.sh"
if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$pins" ]; then
  exit 0
fi
partial="$dir.partial.$$"
log="$tools/pip-test-python-bigcodebench.log"
rm -rf "$partial"
trap 'rm -rf "$partial"' EXIT
# shellcheck disable=SC2086 # the pins are words
if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --only-binary=:all: --no-deps --target "$partial" $pins >"$log" 2>&1; then
  echo "install-test-bigcodebench: pip could not install $pins; it said:" >&2
  tail -n 20 "$log" >&2
  exit 1
fi
PYTHONPATH="$partial" MPLBACKEND=Agg "$venv/bin/python" -c 'from bigcodebench.eval import untrusted_check, estimate_pass_at_k' 2>>"$log" \
  || fail "bigcodebench installed but its evaluator does not import (see $log)"
echo "$pins" >"$partial/.installed"
rm -rf "$dir"
mv "$partial" "$dir"
echo "install-test-bigcodebench: bigcodebench 0.2.5's evaluator in $dir" >&2
