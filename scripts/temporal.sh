#!/usr/bin/env bash
# `npm run temporal -- ARGS`: the Temporal CLI that install-tools.sh put in .tools/ (the same binary
# that runs the local dev server), so listing or describing workflows needs no separate install. It
# reads TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and its own profiles, as explora's scripts do.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cli="${EXPLORA_TOOLS_DIR:-$root/.tools}/py/bin/temporal"
if [ ! -x "$cli" ]; then
  echo "temporal: $cli is not installed; run 'npm run setup' (scripts/install-tools.sh) first" >&2
  exit 2
fi
exec "$cli" "$@"
