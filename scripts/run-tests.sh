#!/usr/bin/env bash
# `npm test` after its set-up: the format check first (seconds), then the tests, with lint, tsc and
# the import rules (scripts/static-checks.sh) beside them at a lower CPU priority. The tests keep
# the two cores about 60-70% busy (an e2e file mostly waits on Temporal, a restart, an outage), so
# the static checks fill the idle time instead of adding their minute before the first test, and
# `nice` keeps them from slowing the timing-bound tests. The static checks' output is printed after
# the tests'; the exit status is non-zero if either failed, naming which.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

npm run --silent format:check || exit 1

static_out="$(mktemp)"
trap 'rm -f "$static_out"' EXIT
EXPLORA_SKIP_FORMAT_CHECK=1 nice -n 10 bash scripts/static-checks.sh >"$static_out" 2>&1 &
static_pid=$!

vitest run "$@"
tests=$?
wait "$static_pid"
static=$?
cat "$static_out"

failed=()
[ "$tests" -ne 0 ] && failed+=("tests")
[ "$static" -ne 0 ] && failed+=("static checks")
echo "npm test: $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "npm test failed: ${failed[*]}" >&2
  exit 1
fi
