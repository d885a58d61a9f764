#!/usr/bin/env bash
# The checks `npm test` runs beside the tests (docs/contributing.md): the format first (quick), then
# lint, types and the import rules at once. Each of those reads the whole tree on one core (lint
# type-checks it again, for its typed rules), so side by side on two cores they take about as long
# as the longest of them rather than their sum. Each one's output is printed whole when it ends; the
# exit status is non-zero if any failed, naming which. `--without-format`: all but the format
# check (scripts/run-tests.sh runs that one first, on its own).
set -uo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  '') npm run --silent format:check || exit 1 ;;
  --without-format) ;;
  *)
    echo "static-checks.sh: unknown option $1 (the only one is --without-format)" >&2
    exit 2
    ;;
esac

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
declare -A pids=()
npm run --silent lint >"$out/lint" 2>&1 &
pids[lint]=$!
npx tsc --noEmit >"$out/types" 2>&1 &
pids[types]=$!
npm run --silent check:deps >"$out/deps" 2>&1 &
pids[deps]=$!

failed=()
for name in lint types deps; do
  if ! wait "${pids[$name]}"; then failed+=("$name"); fi
  cat "$out/$name"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "static checks failed: ${failed[*]} (lint: npm run lint; types: npx tsc --noEmit; deps: npm run check:deps)" >&2
  exit 1
fi
