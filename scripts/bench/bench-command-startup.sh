#!/bin/bash
# Start-up of the long-lived commands: wall seconds and CPU seconds (user + system, the whole process)
# of `start-sweep --dry-run` on HumanEval (module loading, configuration, dataset, plan and forecast;
# no Temporal, S3 or model needed) and of `start-sweep --help` and the worker's `--help` (module
# loading alone), each through tsx's loader (`node --import tsx`, how npm's scripts ran them before
# 2026-11-29) and through bin/run.mjs (how they run now: the entry's kept bundle), alternating.
#
#   bash scripts/bench/bench-command-startup.sh [RUNS]     (default 5; from the repository root)
set -euo pipefail
runs=${1:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
humaneval="$root/../shared/reference/humaneval/HumanEval.jsonl.gz"
[ -f "$humaneval" ] || { echo "no $humaneval (HumanEval)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/sweep.yaml" <<EOF
id: startup-bench
datasets:
  - name: humaneval
    family: humaneval
    path: $humaneval
models:
  - id: m
    base_url: http://127.0.0.1:9
    model: x
    api: completions
methods: [direct]
temperatures: [0.8]
n_samples: 10
k: [1]
seed: 1
EOF
# The bundles made (or found fresh) once, outside the timed runs: a first start after a change pays
# for esbuild once (under a second here), like tsx's own first transform.
node bin/run.mjs scripts/start-sweep.ts --help >/dev/null
node bin/run.mjs workers/main.ts --help >/dev/null

measure() {
  local label=$1
  shift
  /usr/bin/time -f "%e %U %S" -o "$dir/time" "$@" >/dev/null 2>"$dir/stderr" || { cat "$dir/stderr" >&2; exit 1; }
  read -r wall user sys <"$dir/time"
  awk -v l="$label" -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN { printf "%-40s %6.2f s wall %6.2f s CPU\n", l, w, u + s }'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
for ((i = 1; i <= runs; i++)); do
  measure "start-sweep --dry-run, tsx loader" node --import tsx scripts/start-sweep.ts --config "$dir/sweep.yaml" --dry-run
  measure "start-sweep --dry-run, bin/run.mjs" node bin/run.mjs scripts/start-sweep.ts --config "$dir/sweep.yaml" --dry-run
  measure "start-sweep --help, tsx loader" node --import tsx scripts/start-sweep.ts --help
  measure "start-sweep --help, bin/run.mjs" node bin/run.mjs scripts/start-sweep.ts --help
  measure "worker --help, tsx loader" node --import tsx workers/main.ts --help
  measure "worker --help, bin/run.mjs" node bin/run.mjs workers/main.ts --help
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
