#!/usr/bin/env bash
# Opt-in, `npm run setup -- --bigcodebench` (install-tools.sh's step): BigCodeBench's evaluation environment, its own venv at
# .tools/bigcodebench-python (beside, never inside, the sandbox's .tools/sandbox-python), made from
# the sandbox's interpreter (python3.11): BigCodeBench's programs run on the sandbox's Python
# zygote with this venv's site-packages first on sys.path (domain/families/bigcodebench/harness.ts).
#
#   npm run setup -- --bigcodebench               (several GB with tensorflow; 10-30 min; this script)
#
# The pins are BigCodeBench's Requirements/requirements-eval.txt (bigcode-project/bigcodebench
# 47eff25). Its image is Python 3.10; a pin with no wheel for 3.11 is replaced by the oldest
# version that has one (SUBSTITUTES below; docs/sandbox.md#bigcodebench-environment). The install tries all
# pins at once, then, if pip refuses the set, one package at a time under the same constraints, so
# that one package without a wheel does not keep the others out. Afterwards every top-level module
# of the venv is imported, each in its own process, and the importable ones get a marker file
# <venv>/explora-modules/<module>: a BigCodeBench task whose `libs` name a module without one is
# refused by name before a run starts. Prints the summary (installed, failed, importable modules,
# size, time) and writes it to <venv>/explora-install.txt; pip's log is .tools/pip-bigcodebench.log.
# Exit 0 when the venv exists (some packages may have failed: see the summary), 1 otherwise. A
# second run whose pins are those of the last completed one only prints its summary again.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="${EXPLORA_TOOLS_DIR:-$root/.tools}"
venv="$tools/bigcodebench-python"
log="$tools/pip-bigcodebench.log"
started=$(date +%s)

fail() {
  echo "install-bigcodebench: $*" >&2
  exit 1
}

# requirements-eval.txt as BigCodeBench pins it (its duplicate lines once; `Requests` is `requests`,
# python-Levenshtein-wheels an old repackaging of Levenshtein, which is pinned itself).
PINS=(
  beautifulsoup4==4.8.2 blake3==0.4.1 chardet==5.2.0 cryptography==38.0.0 datetime==5.5 Django==4.2.7
  dnspython==2.6.1 docxtpl==0.11.5 Faker==20.1.0 flask_login==0.6.3 flask_restful==0.3.10 flask_wtf==1.2.1
  Flask-Mail==0.9.1 flask==3.0.3 folium==0.16.0 gensim==4.3.2 geopandas==0.13.2 geopy==2.4.1 holidays==0.29
  keras==2.11.0 Levenshtein==0.25.0 librosa==0.10.1 lxml==4.9.3 matplotlib==3.7.0 mechanize==0.4.9
  natsort==7.1.1 networkx==2.6.3 nltk==3.8 numba==0.55.0 numpy==1.21.2 opencv-python-headless==4.9.0.80
  openpyxl==3.1.2 pandas==2.0.3 Pillow==10.3.0 prettytable==3.10.0 psutil==5.9.5 pycryptodome==3.14.1
  pyfakefs==5.4.1 pyquery==1.4.3 pytesseract==0.3.10 pytest==8.2.0 python_http_client==3.3.7
  python-dateutil==2.9.0 python-docx==1.1.0 pytz==2023.3.post1 PyYAML==6.0.1 requests_mock==1.11.0
  requests==2.31.0 rsa==4.9 scikit-image==0.18.0 scikit-learn==1.3.1 scipy==1.7.2 seaborn==0.13.2
  selenium==4.15 sendgrid==6.11.0 shapely==2.0.4 soundfile==0.12.1 statsmodels==0.14.0 sympy==1.12
  tensorflow==2.11.0 textblob==0.18.0 texttable==1.7.0 Werkzeug==3.0.1 wikipedia==1.4.0 wordcloud==1.9.3
  wordninja==2.0.0 WTForms==3.1.2 xlrd==2.0.1 xlwt==1.3.0 xmltodict==0.13.0
)
# Pins with no CPython 3.11 wheel, and the oldest release that has one (and fits the other pins).
declare -A SUBSTITUTES=(
  [numpy==1.21.2]=numpy==1.23.5
  [scipy==1.7.2]=scipy==1.9.3
  [numba==0.55.0]=numba==0.57.1
  [scikit-image==0.18.0]=scikit-image==0.20.0
  [tensorflow==2.11.0]=tensorflow==2.12.0
  [keras==2.11.0]=keras==2.12.0
)
wanted=()
for pin in "${PINS[@]}"; do wanted+=("${SUBSTITUTES[$pin]:-$pin}"); done

base="$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || true)"
[ -n "$base" ] || fail "no python3 on PATH; the venv is made from it"
base_version="$("$base" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
[ "$base_version" = "3.11" ] || fail "python3 is $base_version ($base); the sandbox's interpreter, which runs BigCodeBench's programs, is 3.11"

stamp="$venv/explora-pins.txt"
if [ -x "$venv/bin/python" ] && [ -f "$venv/explora-install.txt" ] && [ "$(cat "$stamp" 2>/dev/null)" = "${wanted[*]}" ]; then
  echo "install-bigcodebench: $venv is in place with these pins; its summary:" >&2
  cat "$venv/explora-install.txt" >&2
  exit 0
fi

mkdir -p "$tools"
if [ ! -x "$venv/bin/python" ]; then
  "$base" -m venv "$venv" || fail "python3 -m venv failed (is the venv module installed with $base?)"
fi
constraints="$(mktemp)"
trap 'rm -f "$constraints"' EXIT
printf '%s\n' "${wanted[@]}" >"$constraints"
pip=("$venv/bin/python" -m pip install --disable-pip-version-check --no-input --prefer-binary -c "$constraints")
: >"$log"
failed=()
echo "install-bigcodebench: installing ${#wanted[@]} pinned packages into $venv (log: $log)" >&2
if ! "${pip[@]}" "${wanted[@]}" >>"$log" 2>&1; then
  echo "install-bigcodebench: pip refused the whole set; installing one package at a time" >&2
  for pin in "${wanted[@]}"; do
    if ! "${pip[@]}" "$pin" >>"$log" 2>&1; then
      failed+=("$pin")
      echo "install-bigcodebench: $pin failed" >&2
    fi
  done
fi

# scikit-image 0.20.0 requires networkx>=2.8, and BigCodeBench pins networkx 2.6.3 (0.18.0 took
# any networkx 2): it goes in without its dependencies, beside those it needs besides networkx.
NO_DEPS=(scikit-image==0.20.0 imageio==2.31.1 tifffile==2023.7.10 PyWavelets==1.4.1)
if ! "$venv/bin/python" -c 'import skimage' >/dev/null 2>&1; then
  if "$venv/bin/python" -m pip install --disable-pip-version-check --no-input --prefer-binary --no-deps "${NO_DEPS[@]}" >>"$log" 2>&1; then
    kept=()
    for pin in "${failed[@]}"; do [ "$pin" = scikit-image==0.20.0 ] || kept+=("$pin"); done
    failed=("${kept[@]}")
    echo "install-bigcodebench: ${NO_DEPS[*]} installed without their dependencies (networkx stays 2.6.3)" >&2
  fi
fi

# Every top-level module of the venv, imported in a process of its own (a crash or a download at
# import stays there); the importable ones get a marker.
markers="$venv/explora-modules"
rm -rf "$markers"
mkdir -p "$markers"
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
modules="$("$venv/bin/python" -c '
import pkgutil, sys
import os
skip = ("pip", "setuptools", "pkg_resources", "distutils-precedence")
names = {m.name for m in pkgutil.iter_modules([sys.argv[1]])}
# Namespace packages (mpl_toolkits, google) have no __init__.py, which pkgutil lists packages by.
names |= {d for d in os.listdir(sys.argv[1]) if d.isidentifier() and os.path.isdir(os.path.join(sys.argv[1], d))}
names = sorted(n for n in names if not n.startswith("_") and n not in skip)
print("\n".join(names))' "$site")"
importable=()
broken=()
for m in $modules; do
  if (cd /tmp && MPLBACKEND=Agg TF_CPP_MIN_LOG_LEVEL=3 timeout 300 "$venv/bin/python" -c "import $m" >>"$log" 2>&1); then
    : >"$markers/$m"
    importable+=("$m")
  else
    broken+=("$m")
  fi
done
chmod -R a+rX "$venv"

size="$(du -sh "$venv" | cut -f1)"
elapsed=$(($(date +%s) - started))
{
  echo "BigCodeBench environment $venv (python $base_version), made $(date -u +%Y-%m-%dT%H:%MZ) in ${elapsed}s, $size"
  echo "pins: ${#wanted[@]}; substituted for Python 3.11: ${!SUBSTITUTES[*]}"
  echo "packages pip could not install (${#failed[@]}): ${failed[*]:-none}; without their dependencies: ${NO_DEPS[*]}"
  echo "importable modules (${#importable[@]}): ${importable[*]}"
  echo "modules that do not import (${#broken[@]}): ${broken[*]:-none}"
} | tee "$venv/explora-install.txt" >&2
printf '%s' "${wanted[*]}" >"$stamp"
