# Sourced by the opt-in library installs (install-ds1000.sh, install-torchdata.sh): pip-installs
# packages into the sandbox's venv while numpy and pandas stay at the venv's own pins (the
# MonkeyEval / BeatNumEval tasks need them), wheels only; on failure prints pip's last words.
#   sandbox_venv_install NAME VENV LOG PACKAGE...
sandbox_venv_install() {
  local name="$1" venv="$2" log="$3"
  shift 3
  local constraints
  constraints="$(mktemp)"
  "$venv/bin/python" -c 'import numpy, pandas; print("numpy==" + numpy.__version__); print("pandas==" + pandas.__version__)' >"$constraints"
  if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --only-binary=:all: \
      -c "$constraints" "$@" >"$log" 2>&1; then
    rm -f "$constraints"
    echo "$name: pip could not install them; it said:" >&2
    tail -n 20 "$log" >&2
    return 1
  fi
  rm -f "$constraints"
}
