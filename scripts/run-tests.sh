#!/usr/bin/env bash
# `npm test` after its set-up (docs/contributing.md): the format check (seconds), then the tests,
# with lint, types and the import rules (scripts/static-checks.sh) running beside them at a lower
# priority. Those take a minute of both cores on their own. Beside the tests they use whatever CPU
# the tests leave idle, which saves that minute on a machine with cores to spare; on 2 cores the
# suite keeps both busy, and their CPU only moves inside the tests' run (docs/contributing.md).
# Arguments go to `vitest run` (a file, `-t name`, `--project unit`).
set -uo pipefail
cd "$(dirname "$0")/.."

npm run --silent format:check || exit 1

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
nice -n 10 bash scripts/static-checks.sh --without-format >"$out" 2>&1 &
checks=$!
node_modules/.bin/vitest run "$@" &
tests=$!

# The checks' output is printed when they end, even mid-run, so that a failed check is seen at
# once (stop the run with Ctrl-C, which reaches the tests' every process, or let it finish); it is
# named again at the end. The tests are not stopped from here: a signal to vitest alone leaves its
# workers and the sweeps they started running.
wait -n -p first "$checks" "$tests"
status=$?
if [ "$first" = "$checks" ]; then
  checks_status=$status
  cat "$out"
  [ "$checks_status" -ne 0 ] && echo "run-tests: a static check failed (above); the tests go on, and the run will fail" >&2
  wait "$tests"
  tests_status=$?
else
  tests_status=$status
  wait "$checks"
  checks_status=$?
  cat "$out"
fi
if [ "$checks_status" -ne 0 ]; then
  echo "run-tests: a static check failed (its output is above)" >&2
  exit 1
fi
exit "$tests_status"
