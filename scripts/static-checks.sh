#!/usr/bin/env bash
# The checks `npm test` runs beside the tests (docs/contributing.md): the format first (quick), then
# lint with types and the import rules at once. Lint and types are one process sharing one
# TypeScript program (scripts/lint-and-types.mjs; apart, ESLint's typed rules built the program tsc
# builds, 30 CPU-s more). Each job's output is printed whole when it ends; the exit status is
# non-zero if any failed, naming which. `--without-format`: all but the format check
# (scripts/run-tests.sh runs that one first, on its own).
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
node scripts/lint-and-types.mjs >"$out/lint-and-types" 2>&1 &
pids[lint-and-types]=$!
npm run --silent check:deps >"$out/deps" 2>&1 &
pids[deps]=$!

failed=()
for name in lint-and-types deps; do
  if ! wait "${pids[$name]}"; then failed+=("$name"); fi
  cat "$out/$name"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "static checks failed: ${failed[*]} (lint-and-types: node scripts/lint-and-types.mjs, or npm run lint and npx tsc --noEmit apart; deps: npm run check:deps)" >&2
  exit 1
fi
