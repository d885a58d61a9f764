#!/usr/bin/env bash
# Opt-in (not part of install-tools.sh): the libraries DS-1000's tasks import beyond numpy and
# pandas, installed into the sandbox's venv (.tools/sandbox-python, made by
# install-sandbox-python.sh with numpy 1.23.5 and pandas 1.5.3, which stay as they are):
#   bash scripts/install-ds1000.sh                     scipy, matplotlib, scikit-learn (~150 MB)
#   bash scripts/install-ds1000.sh --with-torch        and torch 2.1.2 (PyPI's wheel with its CUDA libraries, ~4.6 GB)
#   bash scripts/install-ds1000.sh --with-tensorflow   and tensorflow-cpu (~500 MB)
# Versions are the newest of each line that support numpy 1.23.5 and Python 3.11 wheels; torch is
# 2.1.2, the version torchdata 0.7.1 (install-torchdata.sh, TorchDataEval) is made for, so that the
# two scripts share one torch in the one venv whichever runs first. A sweep
# naming DS-1000 tasks whose library is missing is refused before it starts, naming this command.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=lib/sandbox-venv-install.sh
. "$root/scripts/lib/sandbox-venv-install.sh"
tools="${EXPLORA_TOOLS_DIR:-$root/.tools}"
venv="$tools/sandbox-python"

fail() {
  echo "install-ds1000: $*" >&2
  exit 1
}

packages=(scipy==1.11.4 matplotlib==3.7.5 scikit-learn==1.3.2)
modules=(scipy matplotlib sklearn)
for arg in "$@"; do
  case "$arg" in
    --with-torch) packages+=(torch==2.1.2); modules+=(torch) ;;
    --with-tensorflow) packages+=(tensorflow-cpu==2.15.1); modules+=(tensorflow) ;;
    *) fail "unknown option $arg (expected --with-torch, --with-tensorflow)" ;;
  esac
done

EXPLORA_TOOLS_DIR="$tools" bash "$root/scripts/install-sandbox-python.sh"
[ -x "$venv/bin/python" ] || fail "no sandbox venv at $venv"

log="$tools/pip-ds1000.log"
echo "install-ds1000: installing ${packages[*]} into $venv" >&2
sandbox_venv_install install-ds1000 "$venv" "$log" "${packages[@]}" || exit 1
"$venv/bin/python" -c "
import importlib, sys
for m in sys.argv[1:]:
    print('install-ds1000: %s %s' % (m, importlib.import_module(m).__version__), file=sys.stderr)
" "${modules[@]}"
