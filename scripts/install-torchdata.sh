#!/usr/bin/env bash
# Opt-in (not part of install-tools.sh): torchdata for TorchDataEval (PyCodeGPT's private-eval
# tasks on torchdata's DataPipes), installed into the sandbox's venv (.tools/sandbox-python, made
# by install-sandbox-python.sh; its numpy 1.23.5 and pandas 1.5.3 stay as they are), and the API
# docs the library-using methods read, dumped from the installed library's own docstrings:
#   bash scripts/install-torchdata.sh      torch 2.1.2 + torchdata 0.7.1, docs in .tools/torchdata/
#
# torchdata 0.7.1 is the release made with torch 2.1.2 and among the last with the DataPipes the
# tasks use (they were removed in 0.10). PyPI's torch wheel for Linux x86_64 does not import
# without its CUDA libraries (it preloads libcublas & co. from the nvidia-* packages, even with no
# GPU), and PyPI has no CPU-only wheel, so they come too: ~4.6 GB in the venv (nvidia-* 2.9 GB,
# torch 1.4 GB, triton 0.3 GB). install-ds1000.sh --with-torch pins the same torch, so either
# script may run first.
# Idempotent: with the same pins a second run only checks a stamp.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=lib/sandbox-venv-install.sh
. "$root/scripts/lib/sandbox-venv-install.sh"
tools="${EXPLORA_TOOLS_DIR:-$root/.tools}"
venv="$tools/sandbox-python"
docs_dir="$tools/torchdata"
docs="$docs_dir/torchdata-api-docs.jsonl"

fail() {
  echo "install-torchdata: $*" >&2
  exit 1
}

[ $# -eq 0 ] || fail "takes no arguments (got $*)"
packages=(torch==2.1.2 torchdata==0.7.1)
# The public APIs whose docs are dumped: every DataPipe (iter and map, torchdata's and those it
# re-exports from torch.utils.data), the datapipe utilities and DataLoader2 with its reading services.
doc_modules=(torchdata.datapipes.iter torchdata.datapipes.map torchdata.datapipes.utils torchdata.dataloader2)

EXPLORA_TOOLS_DIR="$tools" bash "$root/scripts/install-sandbox-python.sh"
[ -x "$venv/bin/python" ] || fail "no sandbox venv at $venv"

stamp_text="$(printf '%s\n' "${packages[@]}" "${doc_modules[@]}" | cat - "$root/scripts/lib/dump_api_docs.py" | sha256sum | cut -d' ' -f1)"
stamp="$docs_dir/.installed"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_text" ] && [ -s "$docs" ] \
    && "$venv/bin/python" -c 'import torchdata.datapipes' 2>/dev/null; then
  exit 0
fi

log="$tools/pip-torchdata.log"
echo "install-torchdata: installing ${packages[*]} (with torch's CUDA libraries, ~4.6 GB) into $venv" >&2
sandbox_venv_install install-torchdata "$venv" "$log" "${packages[@]}" || exit 1
"$venv/bin/python" -c '
import sys, torch, torchdata, torchdata.datapipes
print("install-torchdata: torch %s, torchdata %s" % (torch.__version__, torchdata.__version__), file=sys.stderr)
' || fail "torch/torchdata installed but do not import with $venv/bin/python"

mkdir -p "$docs_dir"
"$venv/bin/python" "$root/scripts/lib/dump_api_docs.py" --out "$docs.partial" "${doc_modules[@]}" \
  || fail "could not dump torchdata's API docs"
mv "$docs.partial" "$docs"
echo "$stamp_text" >"$stamp"
echo "install-torchdata: $(wc -l <"$docs") API docs in $docs" >&2
