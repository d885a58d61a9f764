#!/usr/bin/env bash
# Checks the toolchains of the process-run languages (MultiPL-E's js, ts, go_test.go, rs, java,
# cpp, lua, rb, php, pl, sh, r, rkt, d, jl, swift, scala, cs) and installs what the project itself provides for them:
#   - the interpreters and test libraries of MultiPL-E's scripting languages, from Debian packages
#     (apt-get, when run as root on Debian; elsewhere it names the packages): lua5.4 + lua-unit
#     (+ liblua5.4-dev, the headers the Lua fork server's C module is built with),
#     ruby + ruby-test-unit, php-cli, perl + libtest-deep-perl, bash, r-base-core, racket, ldc (D),
#     scala (Scala 2.11, as in MultiPL-E's image; it runs on the JDK), mono-mcs + mono-runtime +
#     libmono-system-numerics4.0-cil (C#: Mono's compiler and runtime, and System.Numerics, which
#     MultiPL-E's C# prompts use);
#   - (javatuples 1.2, which MultiPL-E's Java prompts import, is fetched by install-warm-compilers.sh,
#     sha-256 pinned; this script only checks it is there);
#   - a read-only Go build cache of the standard library (.tools/go-cache), so that a sandboxed
#     `go test -c` does not rebuild it for every program;
#   - what HumanEvalPack's programs need beside (code_eval_octopack's environment, optional parts:
#     MultiPL-E runs without them): boost's headers for C++ (Debian's libboost-dev), the Rust crates
#     of its Cargo project (rand, regex, md5: built by cargo from crates.io, pinned by
#     infra/sandbox/octopack/rust/Cargo.lock, into .tools/octopack/rust), and testify for Go
#     (fetched through the Go module proxy, pinned by infra/sandbox/octopack/go/go.sum, with a build
#     cache of it and the standard library, into .tools/octopack/go).
# The compilers themselves come from the machine (Node.js, Go, Rust, a JDK, g++): for each one
# missing this names it and how to get it. A missing toolchain does not fail the install (Python
# needs none of them); a sweep or evaluate run that uses its language is refused before it starts.
#
#   bash scripts/install-toolchains.sh [LANGUAGE...]   (`npm run setup -- --languages ...` calls it)
# With no language, every one. Exit 0 when every named language can run, 3 when some part is
# missing (each named on its own line, its language refused until installed), 2 on a bad argument.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="${EXPLORA_TOOLS_DIR:-$root/.tools}"
missing=0
missing_languages=()

ALL_LANGUAGES=(js ts go_test.go rs java cpp lua rb php pl sh r rkt d jl swift scala cs)
if [ $# -eq 0 ]; then set -- "${ALL_LANGUAGES[@]}"; fi
for l in "$@"; do
  if [[ " ${ALL_LANGUAGES[*]} " != *" $l "* ]]; then
    echo "install-toolchains: unknown language '$l'; known: ${ALL_LANGUAGES[*]}" >&2
    exit 2
  fi
done
wanted=" $* "
# Whether any of the languages named is one this run is for.
wants() {
  local l
  for l in "$@"; do [[ "$wanted" == *" $l "* ]] && return 0; done
  return 1
}

have() { command -v "$1" >/dev/null 2>&1; }
say_missing() {  # language, what, how
  echo "install-toolchains: language $1: $2 is missing; $3" >&2
  missing=$((missing + 1))
  # An optional part ("lua (fork server)": lua runs without it) refuses no language; "js, ts": both.
  # shellcheck disable=SC2207 # ids have no spaces
  [[ "$1" == *"("* ]] || missing_languages+=($(echo "$1" | sed 's/,//g'))
}

if wants js ts; then
  have node || say_missing "js, ts" "node" "install Node.js 20 or later (Debian: apt-get install nodejs)"
fi
if wants ts && [ ! -f "$root/node_modules/typescript/bin/tsc" ]; then
  say_missing "ts" "TypeScript's compiler" "run npm install in $root (typescript is a dependency)"
fi
if wants cpp; then
  have g++ || say_missing "cpp" "g++" "apt-get install g++"
fi
if wants rs; then
  if have rustc; then
    have cc || say_missing "rs" "a C linker (cc)" "apt-get install gcc"
  else
    say_missing "rs" "rustc" "install Rust with rustup (rustup.rs) or apt-get install rustc"
  fi
fi
if wants go_test.go; then
  if have go; then
    if [ ! -f "$tools/go-cache/.explora-warm-std" ]; then
      if [ -x "$root/node_modules/.bin/tsx" ]; then
        echo "install-toolchains: building Go's standard library into $tools/go-cache (once; a minute or two)" >&2
        EXPLORA_TOOLS_DIR="$tools" "$root/node_modules/.bin/tsx" "$root/scripts/warm-go-cache.ts" \
          || echo "install-toolchains: the Go cache will be built on the first Go run instead" >&2
      else
        echo "install-toolchains: npm install first; the Go cache will be built on the first Go run" >&2
      fi
    fi
  else
    say_missing "go_test.go" "go" "install Go 1.21 or later (go.dev/dl, or apt-get install golang)"
  fi
fi
# HumanEvalPack's Rust crates: built once per rustc version (an rlib is only read by the rustc that built it);
# checked too, so that the tests' run of bigcode's own Cargo steps (test/families/humanevalpack_reference.py) finds them built.
if wants rs && have rustc; then
  crates="$tools/octopack/rust"
  stamp="$crates/.explora-built-$(rustc --version | tr -c 'A-Za-z0-9.\n' '_')"
  if [ ! -f "$stamp" ]; then
    if have cargo; then
      echo "install-toolchains: building HumanEvalPack's Rust crates (rand, regex, md5) into $crates (once; a minute)" >&2
      rm -rf "$crates" && mkdir -p "$crates/src" && cp "$root/infra/sandbox/octopack/rust/Cargo.toml" "$root/infra/sandbox/octopack/rust/Cargo.lock" "$crates/" \
        && : >"$crates/src/lib.rs" \
        && CARGO_HOME="$crates/cargo-home" cargo build --locked -q --manifest-path "$crates/Cargo.toml" --target-dir "$crates/target" >&2 \
        && CARGO_HOME="$crates/cargo-home" cargo check --locked -q --manifest-path "$crates/Cargo.toml" --target-dir "$crates/target" >&2 \
        && touch "$stamp" \
        || say_missing "rs (HumanEvalPack crates)" "rand, regex and md5 built in $crates" "check that crates.io is reachable and run this script again"
    else
      say_missing "rs (HumanEvalPack crates)" "cargo" "install Rust with rustup (rustup.rs), which brings cargo"
    fi
  fi
fi
# HumanEvalPack's Go tests import testify: its module cache, and a build cache of std and testify.
if wants go_test.go && have go; then
  gotools="$tools/octopack/go"
  if [ ! -f "$gotools/gocache/.explora-warm-testify" ]; then
    echo "install-toolchains: fetching testify into $gotools and compiling it (once; a minute or two)" >&2
    work="$(mktemp -d)"
    cp "$root/infra/sandbox/octopack/go/go.mod" "$root/infra/sandbox/octopack/go/go.sum" "$work/"
    printf 'package main\n\nimport (\n    "testing"\n    "github.com/stretchr/testify/assert"\n)\n\nfunc TestWarm(t *testing.T) {\n    assert.New(t).Equal(1, 1)\n}\n' >"$work/main_test.go"
    rm -rf "$gotools/gocache" && mkdir -p "$gotools"
    # The standard library's compiled packages from the shared cache, when built (else built here).
    if [ -f "$tools/go-cache/.explora-warm-std" ]; then cp -a "$tools/go-cache" "$gotools/gocache" && rm -f "$gotools/gocache/.explora-warm-std"; fi
    if (cd "$work" && env GOMODCACHE="$gotools/modcache" GOCACHE="$gotools/gocache" GOFLAGS=-mod=mod GOTOOLCHAIN=local GOTELEMETRY=off \
      HOME="$work" GOPATH="$work/gopath" go mod download >&2 \
      && env GOMODCACHE="$gotools/modcache" GOCACHE="$gotools/gocache" GOFLAGS=-mod=mod GOTOOLCHAIN=local GOTELEMETRY=off GOPROXY=off \
        HOME="$work" GOPATH="$work/gopath" go test -c -o "$work/warm.test" main_test.go >&2); then
      chmod -R a+rX "$gotools"
      date -u +%FT%TZ >"$gotools/gocache/.explora-warm-testify"
    else
      say_missing "go_test.go (testify)" "testify in $gotools" "check that the Go module proxy is reachable and run this script again"
    fi
    rm -rf "$work"
  fi
fi
if wants java && ! { have javac && have java; }; then
  say_missing "java" "a JDK (javac and java)" "apt-get install openjdk-17-jdk-headless"
fi

# MultiPL-E's scripting languages: Debian packages, installed when missing (as root, with apt-get).
apt_updated=0
apt_install() {  # language, probe command (exit 0 when present), Debian packages...
  local language="$1" probe="$2"
  shift 2
  wants "${language%% *}" || return 0
  bash -c "$probe" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" -eq 0 ] && have apt-get; then
    if [ "$apt_updated" -eq 0 ]; then
      apt-get update -qq >&2 || true
      apt_updated=1
    fi
    echo "install-toolchains: language $language: apt-get install $*" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2 || true
    bash -c "$probe" >/dev/null 2>&1 && return 0
  fi
  say_missing "$language" "$*" "apt-get install $* (Debian), or the same from your distribution"
}
apt_install lua "lua -e \"require('luaunit')\"" lua5.4 lua-unit
# Lua 5.4's headers, for the Lua fork server's C module (infra/sandbox/process/fork/luafork.c):
# without them lua runs, and its opt-in fork server stays in exec mode.
apt_install "lua (fork server)" "test -f /usr/include/lua5.4/lua.h" liblua5.4-dev
apt_install rb "ruby -e \"require 'test/unit/version'\"" ruby ruby-test-unit
apt_install php "php --version" php-cli
apt_install pl "perl -MTest::Deep -e 1" perl libtest-deep-perl
apt_install sh "bash --version" bash
apt_install r "Rscript --version" r-base-core
apt_install rkt "racket -l racket/base -l rackunit -e 1" racket
apt_install d "ldc2 --version" ldc
# boost's headers: HumanEvalPack's C++ programs include <boost/any.hpp> (an optional part: MultiPL-E needs none).
apt_install "cpp (boost)" "test -f /usr/include/boost/any.hpp" libboost-dev
if wants scala; then
  if have java; then
    apt_install scala "scalac -version" scala
  else
    say_missing "scala" "a JDK (java)" "apt-get install openjdk-17-jdk-headless, then run this script again (Scala runs on it)"
  fi
fi
apt_install cs "mcs --version && mono --version && test -f /usr/lib/mono/4.5/System.Numerics.dll" mono-mcs mono-runtime libmono-system-numerics4.0-cil
# Julia and Swift are not in Debian bookworm (its swift package is OpenStack's client): named, not installed.
if wants jl; then
  have julia || say_missing "jl" "julia" "install Julia: curl -fsSL https://install.julialang.org | sh (julialang.org)"
fi
if wants swift; then
  have swiftc || say_missing "swift" "swiftc" "install a Swift toolchain from swift.org/install/linux"
fi

# What the project builds beside the compilers (javatuples, the warm javac, scalac and mcs servers,
# the C++ PCH), now that the compilers are here: a no-op when built.
warm=()
for l in java scala cs cpp; do wants "$l" && warm+=("$l"); done
if [ ${#warm[@]} -gt 0 ]; then
  bash "$root/scripts/install-warm-compilers.sh" "${warm[@]}" || say_missing "${warm[*]}" "a warm compiler or javatuples" "see the lines above"
fi
if wants java && have javac && [ ! -f "$tools/multiple/javatuples-1.2.jar" ]; then
  say_missing "java" "javatuples 1.2 ($tools/multiple/javatuples-1.2.jar)" "run bash scripts/install-warm-compilers.sh java (it fetches it from Maven Central, sha-256 pinned)"
fi

if [ ${#missing_languages[@]} -eq 0 ]; then
  echo "install-toolchains: ready: $*${missing:+$([ "$missing" -gt 0 ] && echo " ($missing optional part(s) missing, named above)")}" >&2
  exit 0
fi
# shellcheck disable=SC2207 # ids have no spaces
refused=($(printf '%s\n' "${missing_languages[@]}" | awk '!seen[$0]++'))
echo "install-toolchains: ${#refused[@]} language(s) cannot run here until installed: ${refused[*]}" >&2
exit 3
