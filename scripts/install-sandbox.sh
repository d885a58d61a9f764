#!/usr/bin/env bash
# Installs what the program sandbox needs: Debian's bubblewrap (bwrap), and checks that it can
# create the namespaces the sandbox uses. Idempotent; a no-op (well under a second) when installed.
set -euo pipefail

fail() {
  echo "install-sandbox: $*" >&2
  exit 1
}

if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    fail "bwrap is missing and we are not root: install Debian's 'bubblewrap' package (apt-get install -y bubblewrap)"
  fi
  command -v apt-get >/dev/null 2>&1 || fail "bwrap is missing and apt-get is not available: install 'bubblewrap' with this system's package manager"
  echo "install-sandbox: installing bubblewrap"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || fail "apt-get update failed"
  apt-get install -y -qq bubblewrap >/dev/null || fail "apt-get install bubblewrap failed"
  command -v bwrap >/dev/null 2>&1 || fail "bubblewrap installed but bwrap is not on PATH"
fi

# The sandbox needs new pid, network, ipc and uts namespaces; prove they can be created here.
if ! bwrap --unshare-pid --unshare-net --unshare-ipc --unshare-uts --die-with-parent \
  --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
  --proc /proc --dev /dev /bin/true >/dev/null 2>&1; then
  fail "bwrap is installed ($(command -v bwrap)) but cannot create namespaces here (are user namespaces disabled, or is this a restricted container?)"
fi
echo "install-sandbox: bwrap ok ($(bwrap --version))"
