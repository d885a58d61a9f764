# Sourced by the tests' installers (install-test-python.sh, install-test-bigcodebench.sh): pinned
# packages pip-installed without their dependencies into a folder of their own beside the tests'
# venv, for PYTHONPATH, so that a venv rebuilt for other pins (or by an older copy of a script)
# neither loses them nor rebuilds for them. The folder is built beside its final place (DIR.partial.PID),
# checked, stamped with its pins and moved in whole: two runs starting together never see half a
# folder, and a second run with the same pins only reads the stamp.
#   pip_folder_current DIR PINS: whether DIR holds PINS already (its stamp).
#   pip_folder_install NAME VENV DIR LOG PINS DONE CHECK BROKEN [PIP_OPTION...]
#     NAME: the script, in its messages; VENV's python runs pip, with the PIP_OPTIONs; pip's output
#     and CHECK's stderr go to LOG. CHECK: a command given the new folder, that fails when the
#     packages do not work; BROKEN says so in the message then (with LOG). DONE names what was
#     installed, in the last message. On failure, prints why and returns 1, leaving DIR as it was.

pip_folder_current() {
  [ -f "$1/.installed" ] && [ "$(cat "$1/.installed")" = "$2" ]
}

pip_folder_install() {
  local name="$1" venv="$2" dir="$3" log="$4" pins="$5" done="$6" check="$7" broken="$8"
  shift 8
  pip_folder_current "$dir" "$pins" && return 0
  local partial="$dir.partial.$$"
  rm -rf "$partial"
  # shellcheck disable=SC2086 # the pins are words
  if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
      "$@" --no-deps --target "$partial" $pins >"$log" 2>&1; then
    rm -rf "$partial"
    echo "$name: pip could not install $pins; it said:" >&2
    tail -n 20 "$log" >&2
    return 1
  fi
  if ! "$check" "$partial" 2>>"$log"; then
    rm -rf "$partial"
    echo "$name: $broken (see $log)" >&2
    return 1
  fi
  # Called in a condition (`|| exit 1`), where set -e does not stop a failed step: each is checked.
  { echo "$pins" >"$partial/.installed" && rm -rf "$dir" && mv "$partial" "$dir"; } || return 1
  echo "$name: $done in $dir" >&2
}
