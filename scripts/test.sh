#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to every test passing: dependencies, the release
# build with all unit, differential and installed-package tests, the Python package (a virtual
# environment from PyPI, pip install ., pytest), then the sanitizer builds and fuzzing.
#   scripts/test.sh            everything
#   scripts/test.sh --quick    the release build's tests and the Python tests
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
quick=0
[ "${1:-}" = "--quick" ] && quick=1

# Each stage prints the seconds since the start (CI has a time limit: keep the stages short).
stage() { echo; echo "=== $* (at ${SECONDS} s) ==="; }

stage "release build and tests"
cmake --preset release >/dev/null
cmake --build --preset release
ctest --preset release -j2 -LE slow

stage "Python package: pip install . into .venv, then its tests"
scripts/python_env.sh
.venv/bin/python -m pytest -q -p no:cacheprovider python/tests  # imports the installed package

[ $quick = 1 ] && exit 0

stage "ASan + UBSan: all tests"
cmake --preset asan >/dev/null
cmake --build --preset asan
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 ctest --preset asan -j2 -LE "slow|torch"

stage "TSan: concurrency tests"
cmake --preset tsan >/dev/null
cmake --build --preset tsan  # only the concurrency suites' programs (CMakePresets.json)
TSAN_OPTIONS=halt_on_error=1 ctest --preset tsan -j2 -L concurrency

if [ -x scripts/fuzz.sh ]; then
  stage "fuzzing: corpus replay and a bounded run"
  scripts/fuzz.sh --ci
fi
stage "done"
