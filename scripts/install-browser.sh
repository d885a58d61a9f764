#!/usr/bin/env bash
# Installs the headless browser the report tests drive: Debian's `chromium` at /usr/bin/chromium
# (playwright-core launches it by path; no browser build is downloaded). Idempotent; a no-op when
# it is installed and starts.
set -euo pipefail

fail() {
  echo "install-browser: $*" >&2
  exit 1
}

CHROMIUM=/usr/bin/chromium

if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    fail "$CHROMIUM is missing and we are not root: install Debian's 'chromium' package (apt-get install -y chromium)"
  fi
  command -v apt-get >/dev/null 2>&1 || fail "$CHROMIUM is missing and apt-get is not available: install 'chromium' with this system's package manager"
  echo "install-browser: installing chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || fail "apt-get update failed"
  apt-get install -y -qq chromium >/dev/null || fail "apt-get install chromium failed"
  [ -x "$CHROMIUM" ] || fail "chromium installed but $CHROMIUM is missing"
fi

version="$("$CHROMIUM" --version 2>/dev/null)" || fail "$CHROMIUM is installed but does not start (try: $CHROMIUM --version)"
echo "install-browser: ok ($version)"
