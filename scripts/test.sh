#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to every test passing: dependencies, the release
# build with all unit, differential and installed-package tests (run as an AMD EPYC host, as an
# Intel Xeon host and as this host), the Python package (a virtual environment from PyPI,
# pip install ., pytest), the documentation's examples, then the sanitizer builds and fuzzing.
#   scripts/test.sh            everything
#   scripts/test.sh --quick    the release build's tests, the Python tests and the docs' examples
# Every stage runs even when an earlier one failed (a stage that needs a failed one is skipped and
# says so); the script ends with one line per stage and exits non-zero if any stage failed.
set -uo pipefail
cd "$(dirname "$0")/.."
quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  *) echo "test.sh: unknown argument '$1' (use --quick or nothing)" >&2; exit 2 ;;
esac

summary=()   # one line per stage, printed at the end
failed=0
declare -A status_of

# stage NAME NEEDS COMMAND...: runs COMMAND (a shell function or program) unless the stage named
# NEEDS (empty: none) did not pass; records "passed", "failed" or "skipped" and the time, and the
# stage's count line (the last line of its output that matches COUNT_PATTERN).
COUNT_PATTERN='tests passed|[0-9]+ passed|[0-9]+ failed|snippets|no finding|executions'
stage() {
  local name="$1" needs="$2"
  shift 2
  if [ -n "$needs" ] && [ "${status_of[$needs]:-}" != passed ]; then
    status_of[$name]=skipped
    summary+=("$(printf '%-40s skipped (needs "%s", which %s)' "$name" "$needs" "${status_of[$needs]:-did not run}")")
    echo; echo "=== $name: skipped (needs \"$needs\") ==="
    return 0
  fi
  echo; echo "=== $name (at ${SECONDS} s) ==="
  local start=$SECONDS log
  log=$(mktemp)
  "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local counts
  counts=$(grep -aE "$COUNT_PATTERN" "$log" | tail -n 1 | sed -E 's/^[ =]+//; s/ *=+$//' | cut -c1-90)
  rm -f "$log"
  if [ "$rc" = 0 ]; then
    status_of[$name]=passed
  else
    status_of[$name]=failed
    failed=1
  fi
  summary+=("$(printf '%-40s %-7s %4d s  %s' "$name" "${status_of[$name]}" $((SECONDS - start)) "$counts")")
}

# The release suite as one kind of host: ACLNN_CPU_CACHES describes its caches to the tiling
# (Note [Caches from the environment], src/platform/platform_info.h); empty: this host's own.
release_tests() {
  if [ -n "$1" ]; then
    ACLNN_CPU_CACHES="$1" ctest --preset release -j2 -LE slow
  else
    env -u ACLNN_CPU_CACHES ctest --preset release -j2 -LE slow
  fi
}
release_build() { cmake --preset release >/dev/null && cmake --build --preset release; }
python_package() { scripts/python_env.sh; }
python_tests() { .venv/bin/python -m pytest -q -p no:cacheprovider python/tests; }  # the installed package
# The runner's own tests (it fails a broken example), then the examples themselves.
docs_examples() {
  .venv/bin/python -m pytest -q -p no:cacheprovider tests/docs && .venv/bin/python tests/docs/run_snippets.py build/release .venv/bin/python
}
asan_build() { cmake --preset asan >/dev/null && cmake --build --preset asan; }
asan_tests() { ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 ctest --preset asan -j2 -LE "slow|torch"; }
tsan_build() { cmake --preset tsan >/dev/null && cmake --build --preset tsan; }  # the concurrency suites only
tsan_tests() { TSAN_OPTIONS=halt_on_error=1 ctest --preset tsan -j2 -L concurrency; }

stage "dependencies" "" scripts/install_deps.sh
stage "release build" "dependencies" release_build
stage "release tests as AMD EPYC (1M,32M)" "release build" release_tests 1M,32M
stage "release tests as Intel Xeon (2M,260M)" "release build" release_tests 2M,260M
stage "release tests as this host" "release build" release_tests ""
stage "Python package" "release build" python_package
stage "Python tests" "Python package" python_tests
if [ -f tests/docs/run_snippets.py ]; then
  stage "documentation examples" "Python package" docs_examples
fi
if [ $quick = 0 ]; then
  stage "ASan + UBSan build" "dependencies" asan_build
  stage "ASan + UBSan tests" "ASan + UBSan build" asan_tests
  stage "TSan build" "dependencies" tsan_build
  stage "TSan tests" "TSan build" tsan_tests
  stage "fuzzing" "dependencies" scripts/fuzz.sh --ci
fi

echo
echo "=== summary (${SECONDS} s) ==="
printf '%s\n' "${summary[@]}"
exit $failed
