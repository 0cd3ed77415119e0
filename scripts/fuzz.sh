#!/usr/bin/env bash
# Fuzzing with libFuzzer (clang 14, ASan + UBSan; see fuzz/ and the `fuzz` preset, whose build
# needs a CPU with SSE4.2, AES and PCLMUL: any x86-64 since 2010), and the golden tools' .npy
# reader with atheris (fuzz/fuzz_npy.py, from .venv).
#   scripts/fuzz.sh          build the fuzz preset and replay the committed corpus (fuzz/corpus/<target>,
#                            written by fuzz/make_corpus.py) and the inputs of past findings
#                            (fuzz/regressions/<target>, kept as they were found)
#   scripts/fuzz.sh --ci     ... then fuzz each target for FUZZ_SECONDS (default 60) from a copy of
#                            both (build/fuzz/corpus/<target>, so fuzz/ stays as committed)
# Exits non-zero on any finding: a crash, a sanitizer report, a leak, a timeout or a broken
# invariant. Findings are written to build/fuzz/artifacts/ and can be replayed with
#   build/fuzz/fuzz/fuzz_<target> build/fuzz/artifacts/<file>
# Environment: FUZZ_SECONDS (per target), FUZZ_JOBS (build parallelism, default 2).
set -euo pipefail
cd "$(dirname "$0")/.."

ci=0
for arg in "$@"; do
  case "$arg" in
    --ci) ci=1 ;;
    -h|--help) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done
seconds="${FUZZ_SECONDS:-60}"
targets=(create_tensor bce_op)
build=build/fuzz
artifacts="$build/artifacts"

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "${FUZZ_JOBS:-2}"
mkdir -p "$artifacts"

# Options for every run: a finding must stop the run with a non-zero status.
common=(-timeout=10 -rss_limit_mb=4096 -artifact_prefix="$artifacts/" -print_final_stats=1)
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

status=0
summary=()
stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -n 1; }
count_files() { find "$@" -maxdepth 1 -type f | wc -l; }

for t in "${targets[@]}"; do
  exe="$build/fuzz/fuzz_$t"
  corpus="fuzz/corpus/$t"
  seeds=("$corpus")
  [ -d "fuzz/regressions/$t" ] && seeds+=("fuzz/regressions/$t")
  log="$build/fuzz_${t}_replay.log"
  echo "--- $t: replaying $(count_files "${seeds[@]}") corpus and regression files"
  if ! "$exe" "${common[@]}" -runs=0 "${seeds[@]}" >"$log" 2>&1; then
    echo "FINDING while replaying the corpus of $t:"; tail -n 40 "$log"
    status=1
    continue
  fi
  [ "$ci" = 1 ] || continue

  work="$build/corpus/$t"
  rm -rf "$work"; mkdir -p "$work"
  for dir in "${seeds[@]}"; do cp "$dir"/* "$work"/; done
  log="$build/fuzz_${t}.log"
  echo "--- $t: fuzzing for ${seconds} s"
  if "$exe" "${common[@]}" -max_total_time="$seconds" "$work" >"$log" 2>&1; then
    execs=$(stat number_of_executed_units "$log")
    rate=$(stat average_exec_per_sec "$log")
    summary+=("$t: ${execs:-?} executions (${rate:-?}/s) in ${seconds} s, corpus $(count_files "${seeds[@]}") -> $(count_files "$work") files, no finding")
  else
    echo "FINDING while fuzzing $t:"; tail -n 60 "$log"
    summary+=("$t: FINDING (see $log and $artifacts/)")
    status=1
  fi
done

# The golden tools' .npy reader (python/aclnn_bce/npy.py), with atheris from .venv
# (scripts/python_env.sh): replay its seeds, then fuzz it for FUZZ_NPY_SECONDS (default 30).
if [ -x .venv/bin/python ] && .venv/bin/python -c "import atheris, aclnn_bce" 2>/dev/null; then
  log="$build/fuzz_npy.log"
  mkdir -p "$build"
  echo "--- npy: replaying $(count_files fuzz/corpus/npy) corpus files"
  if ! .venv/bin/python fuzz/fuzz_npy.py -runs=0 fuzz/corpus/npy >"$log" 2>&1; then
    echo "FINDING while replaying the corpus of npy:"; tail -n 40 "$log"; status=1
  elif [ "$ci" = 1 ]; then
    npy_seconds="${FUZZ_NPY_SECONDS:-30}"
    echo "--- npy: fuzzing for ${npy_seconds} s"
    if FUZZ_NPY_WORKDIR="$build/corpus/npy" .venv/bin/python fuzz/fuzz_npy.py -timeout=10 -print_final_stats=1 \
         -max_total_time="$npy_seconds" fuzz/corpus/npy >"$log" 2>&1; then
      summary+=("npy: $(stat number_of_executed_units "$log") executions ($(stat average_exec_per_sec "$log")/s) in ${npy_seconds} s, no finding")
    else
      echo "FINDING while fuzzing npy:"; tail -n 60 "$log"; summary+=("npy: FINDING (see $log)"); status=1
    fi
  fi
else
  echo "--- npy: skipped (no .venv with atheris and aclnn_bce: run scripts/python_env.sh)"
fi

if [ "$ci" = 1 ]; then
  echo; echo "=== fuzzing summary"
  for line in "${summary[@]}"; do echo "$line"; done
fi
[ "$status" = 0 ] && echo "fuzz.sh: no finding"
exit "$status"
