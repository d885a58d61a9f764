#!/usr/bin/env bash
# Installs the interpreter the sandbox runs programs with: a venv at .tools/sandbox-python made from
# the machine's real python3 (not the pyenv shim), holding hash-pinned numpy and pandas from PyPI
# for the MonkeyEval / BeatNumEval tasks (renamed pandas / numpy, run against the real libraries),
# and sortedcontainers and lctk, which bigcode's Mercury harness imports into every solution's
# namespace (LeetCode solutions use SortedList; bigcode fails every run without either).
# Idempotent: with the same pins and base interpreter, a second run only checks a stamp (~50 ms).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="${EXPLORA_TOOLS_DIR:-$root/.tools}"
venv="$tools/sandbox-python"

fail() {
  echo "install-sandbox-python: $*" >&2
  exit 1
}

# The tasks date from 2022 and use APIs that pandas 2 removed (DataFrame.append, iteritems) and
# aliases numpy 1.24 removed (np.float, np.int); pandas 1.5.3 / numpy 1.23.5 are the newest before
# those removals and the oldest with wheels for Python 3.11. Hashes: x86_64 and aarch64 wheels.
requirements='numpy==1.23.5 \
    --hash=sha256:58f545efd1108e647604a1b5aa809591ccd2540f468a880bedb97247e72db387 \
    --hash=sha256:5039f55555e1eab31124a5768898c9e22c25a65c1e0037f4d7c495a45778c9f2
pandas==1.5.3 \
    --hash=sha256:5f2b952406a1588ad4cad5b3f55f520e82e902388a6d5a4a91baa8d38d23c7f6 \
    --hash=sha256:e474390e60ed609cec869b0da796ad94f420bb057d86784191eefc62b65819ae
python-dateutil==2.8.2 \
    --hash=sha256:961d03dc3453ebbc59dbdea9e4e11c5651520a876d0f4db161e8674aae935da9
pytz==2022.7.1 \
    --hash=sha256:78f4f37d8198e0627c5f1143240bb0206b8691d8d7ac6d78fee88b78733f8c4a
six==1.16.0 \
    --hash=sha256:8abb2f1d86890a2dfb989f9a77cfcfd3e47c2a354b01111771326f8aa26e0254
sortedcontainers==2.4.0 \
    --hash=sha256:a163dcaede0f1c021485e957a39245190e74249897e2ae4b2aa38595db237ee0
lctk==0.0.6 \
    --hash=sha256:5ad3a1362ef7a3ffd2e083bca2a05ce6725e0c64b3d08bddc7c86d2e75e57a4d
'

# The real interpreter, not the pyenv shim: the venv's python links to it, and the shim would add
# ~80 ms to every start.
base="$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || true)"
[ -n "$base" ] || fail "no python3 on PATH; the sandbox's venv is made from it"
base_version="$("$base" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
[ "$base_version" = "3.11" ] || fail "python3 is $base_version ($base); the pinned numpy 1.23.5 / pandas 1.5.3 wheels are for Python 3.11"

stamp_text="$(printf '%s\n%s\n' "$base" "$requirements" | sha256sum | cut -d' ' -f1)"
stamp="$venv/.installed"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_text" ] && [ -x "$venv/bin/python" ]; then
  exit 0
fi

echo "install-sandbox-python: creating $venv from $base with numpy 1.23.5, pandas 1.5.3, sortedcontainers 2.4.0, lctk 0.0.6" >&2
rm -rf "$venv"
mkdir -p "$tools"
"$base" -m venv "$venv" || fail "python3 -m venv failed (is the venv module installed with $base?)"
req_file="$(mktemp)"
trap 'rm -f "$req_file"' EXIT
printf '%s' "$requirements" >"$req_file"
log="$tools/pip-sandbox-python.log"
if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --only-binary=:all: --require-hashes -r "$req_file" >"$log" 2>&1; then
  echo "install-sandbox-python: pip could not install the pinned wheels; it said:" >&2
  tail -n 20 "$log" >&2
  exit 1
fi
versions="$("$venv/bin/python" -c 'import numpy, pandas, sortedcontainers, lctk; print(numpy.__version__, pandas.__version__, sortedcontainers.__version__)')" \
  || fail "the venv installed but numpy/pandas/sortedcontainers/lctk do not import with $venv/bin/python"
[ "$versions" = "1.23.5 1.5.3 2.4.0" ] || fail "expected numpy 1.23.5, pandas 1.5.3 and sortedcontainers 2.4.0, got $versions"
echo "$stamp_text" >"$stamp"
echo "install-sandbox-python: numpy 1.23.5, pandas 1.5.3, sortedcontainers 2.4.0, lctk 0.0.6 in $venv" >&2
