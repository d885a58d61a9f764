#!/usr/bin/env bash
# Installs what MultiPL-E's compiled languages need beside the machine's toolchains, into
# .tools/multiple (git-ignored). Idempotent: a second run with the same pins and toolchains is a
# no-op. A missing toolchain is not an error here (the language is then refused before a sweep);
# each step says what it skipped and why.
#   - javatuples 1.2 from Maven Central (MultiPL-E's Java tests import org.javatuples), sha-256 pinned;
#   - the warm javac server (infra/sandbox/warm/java/JavacServer.java), compiled with the machine's javac;
#   - the warm scalac server (infra/sandbox/warm/scala/ScalacServer.scala), compiled with the machine's scalac;
#   - the warm mcs server (infra/sandbox/warm/cs/McsServer.cs), compiled against the machine's mcs.exe (copied beside it);
#   - the C++ precompiled header of MultiPL-E's shared includes (<bits/stdc++.h>), for the machine's g++.
#   bash scripts/install-warm-compilers.sh [java|scala|cs|cpp ...]   (none named: all four)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="${EXPLORA_TOOLS_DIR:-$root/.tools}"
dir="$tools/multiple"
mkdir -p "$dir"

JAVATUPLES_VERSION=1.2
JAVATUPLES_SHA256=2eda5b19d9820e1cc2f69fcd01639a715a673c11f8507e3d1ed593cf765d5e0a
JAVATUPLES_URL="https://repo1.maven.org/maven2/org/javatuples/javatuples/$JAVATUPLES_VERSION/javatuples-$JAVATUPLES_VERSION.jar"
jar="$dir/javatuples-$JAVATUPLES_VERSION.jar"

say() { echo "install-warm-compilers: $*" >&2; }
if [ $# -eq 0 ]; then set -- java scala cs cpp; fi
for l in "$@"; do
  case "$l" in java | scala | cs | cpp) ;; *) say "unknown language '$l' (expected java, scala, cs, cpp)"; exit 2 ;; esac
done
wanted=" $* "
wants() { [[ "$wanted" == *" $1 "* ]]; }
done_parts=()

if wants java && { [ ! -f "$jar" ] || ! echo "$JAVATUPLES_SHA256  $jar" | sha256sum --check --status; }; then
  say "downloading javatuples $JAVATUPLES_VERSION from Maven Central"
  curl -fsSL --retry 3 -o "$jar.part" "$JAVATUPLES_URL" || { say "could not download $JAVATUPLES_URL"; exit 1; }
  if ! echo "$JAVATUPLES_SHA256  $jar.part" | sha256sum --check --status; then
    rm -f "$jar.part"
    say "javatuples-$JAVATUPLES_VERSION.jar from Maven Central does not have the pinned sha-256 $JAVATUPLES_SHA256"
    exit 1
  fi
  mv "$jar.part" "$jar"
fi

if ! wants java; then
  :
elif command -v javac >/dev/null 2>&1; then
  src="$root/infra/sandbox/warm/java/JavacServer.java"
  stamp="$dir/javac-server/.stamp"
  want="$(sha256sum "$src" | cut -c1-64) $(javac -version 2>&1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    rm -rf "$dir/javac-server" && mkdir -p "$dir/javac-server"
    javac -encoding UTF8 -d "$dir/javac-server" "$src"
    echo "$want" >"$stamp"
  fi
  done_parts+=("javatuples" "javac server")
else
  say "no javac on PATH: skipped the warm javac server (Java is refused until a JDK is installed: apt-get install -y default-jdk-headless)"
fi

if ! wants scala; then
  :
elif command -v scalac >/dev/null 2>&1; then
  src="$root/infra/sandbox/warm/scala/ScalacServer.scala"
  stamp="$dir/scalac-server/.stamp"
  want="$(sha256sum "$src" | cut -c1-64) $(scalac -version 2>&1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    say "compiling the warm scalac server (once; scalac takes a few seconds)"
    rm -rf "$dir/scalac-server" && mkdir -p "$dir/scalac-server"
    scalac -d "$dir/scalac-server" "$src"
    echo "$want" >"$stamp"
  fi
  done_parts+=("scalac server")
else
  say "no scalac on PATH: skipped the warm scalac server (Scala is refused until installed: npm run setup -- --languages scala)"
fi

# mcs's own launcher names its assembly: `exec /usr/bin/mono $MONO_OPTIONS /usr/lib/mono/4.5/mcs.exe "$@"`.
mcs_exe="$(wants cs && command -v mcs >/dev/null 2>&1 && grep -o '[^ ]*/mcs\.exe' "$(command -v mcs)" | head -1 || true)"
if [ -n "$mcs_exe" ] && [ -f "$mcs_exe" ]; then
  src="$root/infra/sandbox/warm/cs/McsServer.cs"
  stamp="$dir/mcs-server/.stamp"
  want="$(sha256sum "$src" "$mcs_exe" | cut -c1-64 | tr '\n' ' ')"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    rm -rf "$dir/mcs-server" && mkdir -p "$dir/mcs-server"
    cp "$mcs_exe" "$dir/mcs-server/mcs.exe"   # beside the server: Mono loads a referenced assembly from the app's directory
    mcs -r:"$dir/mcs-server/mcs.exe" "$src" -out:"$dir/mcs-server/McsServer.exe"
    echo "$want" >"$stamp"
  fi
  done_parts+=("mcs server")
elif wants cs; then
  say "no mcs on PATH: skipped the warm mcs server (C# is refused until installed: npm run setup -- --languages cs)"
fi

if ! wants cpp; then
  :
elif command -v g++ >/dev/null 2>&1; then
  # The header and its .gch side by side: g++ uses X.gch for `-include X` when the .gch was built
  # with the same compiler and flags (-std=c++17, no optimisation: MultiPL-E's own flags).
  pch="$dir/cpp-pch"
  stamp="$pch/.stamp"
  want="$(g++ -dumpfullversion) $(g++ -dumpmachine) -std=c++17 v1"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || [ ! -f "$pch/multiple.h.gch" ]; then
    rm -rf "$pch" && mkdir -p "$pch"
    printf '#include <assert.h>\n#include <bits/stdc++.h>\n' >"$pch/multiple.h"
    g++ -std=c++17 -x c++-header "$pch/multiple.h" -o "$pch/multiple.h.gch"
    echo "$want" >"$stamp"
  fi
  done_parts+=("C++ PCH")
else
  say "no g++ on PATH: skipped the C++ precompiled header (C++ is refused until g++ is installed: apt-get install -y g++)"
fi
say "ok: $(IFS=,; echo "${done_parts[*]:-nothing to build}" | sed 's/,/, /g')"
