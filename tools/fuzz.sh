#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/, clang-14, CAIRN_FUZZ=ON) into $FUZZ_BUILD_DIR and
# runs them: first every reproducer in tests/fuzz/regressions/<target>/ once (any crash fails at
# once), then each target for $FUZZ_SECONDS from its seed corpus. Prints the executions each
# target ran; exits non-zero when a target crashed, leaked, timed out or ran out of memory.
#
#   tools/fuzz.sh                        # every target, as CI runs them (about a minute in all)
#   FUZZ_SECONDS=600 tools/fuzz.sh       # a long run: 10 minutes per target
#   tools/fuzz.sh filter pipeline        # some targets only
#   FUZZ_SECONDS=0 tools/fuzz.sh         # build and replay the regressions only
#
# Environment (defaults in brackets):
#   FUZZ_BUILD_DIR   the clang build directory [build-fuzz]; tools/test.sh also builds cairnd
#                    there for the ASan+UBSan integration run
#   FUZZ_SECONDS     seconds of fuzzing per target [15]
#   FUZZ_PARALLEL    targets fuzzed at the same time [nproc]
#   FUZZ_TIMEOUT     seconds one input may take before it counts as a hang [20]
#   FUZZ_RSS_MB      memory limit of one fuzzing process, MiB [2048]
#   FUZZ_NO_BUILD=1  use the binaries already built
#   FUZZ_KEEP_GOING=1  keep fuzzing after a crash, hang or OOM (libFuzzer's -fork=1 with
#                    -ignore_crashes etc.), to collect every distinct one of a long run
# What a run finds: crashing inputs are copied to tests/fuzz/regressions/<target>/ (commit them
# with the fix: every later run replays them first); libFuzzer's own artifacts and logs are in
# $FUZZ_BUILD_DIR/fuzz-out/<target>/, and the corpus it grew in $FUZZ_BUILD_DIR/fuzz-corpus/<target>/
# (kept between runs, never committed: tests/fuzz/corpus/ holds only the small seed corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
[[ "$BUILD" = /* ]] || BUILD="$REPO/$BUILD"
SECONDS_PER_TARGET=${FUZZ_SECONDS:-15}
PARALLEL=${FUZZ_PARALLEL:-$(nproc)}
TIMEOUT=${FUZZ_TIMEOUT:-20}
RSS_MB=${FUZZ_RSS_MB:-2048}

ALL_TARGETS=(wire dispatch filter update projection pipeline key_string index_bounds)
if (($#)); then targets=("$@"); else targets=("${ALL_TARGETS[@]}"); fi
for t in "${targets[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { echo "fuzz: unknown target '$t' (${ALL_TARGETS[*]})" >&2; exit 2; }
done

# ---- build
if [[ "${FUZZ_NO_BUILD:-}" != 1 ]]; then
  if [[ ! -f "$BUILD/CMakeCache.txt" ]]; then
    cmake -S "$REPO" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DCAIRN_FUZZ=ON
  fi
  cmake --build "$BUILD" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"
fi

# Every sanitizer report is fatal and shows its stack; LeakSanitizer runs after each input.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$REPO/tests/sanitizers/lsan.supp:print_suppressions=0}

OUT="$BUILD/fuzz-out"
mkdir -p "$OUT"
status=0

# ---- regressions: every saved crash input, once
for t in "${targets[@]}"; do
  dir="$REPO/tests/fuzz/regressions/$t"
  mapfile -t inputs < <(find "$dir" -type f ! -name '*.md' 2>/dev/null | sort)
  ((${#inputs[@]})) || continue
  log="$OUT/$t.regressions.log"
  if "$BUILD/tests/fuzz/fuzz_$t" -rss_limit_mb="$RSS_MB" -timeout="$TIMEOUT" "${inputs[@]}" >"$log" 2>&1; then
    echo "fuzz $t: ${#inputs[@]} regression inputs pass"
  else
    echo "fuzz $t: a regression input fails (log: $log)"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|Running: |==== fuzz invariant)' "$log" | tail -n 20 || true
    status=1
  fi
done
((SECONDS_PER_TARGET > 0)) || exit "$status"

# ---- fuzzing
run_target() {  # run_target NAME: fuzzes one target; writes $OUT/NAME.log and NAME.result
  local t=$1
  local corpus="$BUILD/fuzz-corpus/$t" artifacts="$OUT/$t/"
  rm -rf "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  local args=(-max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb="$RSS_MB" -timeout="$TIMEOUT"
              -max_len=16384 -print_final_stats=1 -artifact_prefix="$artifacts")
  [[ -f "$REPO/tests/fuzz/dict/$t.dict" ]] && args+=(-dict="$REPO/tests/fuzz/dict/$t.dict")
  [[ $t == wire ]] && args+=(-use_value_profile=1)  # checksums and length fields: cmp feedback
  [[ $t == dispatch ]] && args+=(-detect_leaks=0)    # see dispatch_fuzz.cc
  [[ "${FUZZ_KEEP_GOING:-}" == 1 ]] &&
    args+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  local rc=0
  "$BUILD/tests/fuzz/fuzz_$t" "${args[@]}" "$corpus" "$REPO/tests/fuzz/corpus/$t" >"$OUT/$t.log" 2>&1 || rc=$?
  echo "$rc" >"$OUT/$t.result"
}

rm -f "$OUT"/*.result
running=0
for t in "${targets[@]}"; do
  run_target "$t" &
  ((++running >= PARALLEL)) && { wait -n || true; ((running--)); }
done
wait || true

printf '%-13s %12s %9s %7s  %s\n' target executions exec/s corpus result
for t in "${targets[@]}"; do
  log="$OUT/$t.log"
  rc=$(cat "$OUT/$t.result" 2>/dev/null || echo 1)
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || true)
  rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' || true)
  if [[ -z $execs ]]; then  # fork mode: the last status line "#<executions>: cov: ... exec/s <n> ..."
    execs=$(grep -oE '^#[0-9]+: cov' "$log" | tail -n 1 | grep -oE '[0-9]+' || echo '?')
    rate=$(grep -oE 'exec/s:? ?[0-9]+' "$log" | tail -n 1 | grep -oE '[0-9]+$' || echo '?')
  fi
  corpus=$(find "$BUILD/fuzz-corpus/$t" -type f | wc -l)
  result=ok
  found=$(find "$OUT/$t" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | sort)
  if [[ $rc != 0 || -n $found ]]; then
    status=1
    echo 1 >"$OUT/$t.result"
    result="FAILED (exit $rc, log $log)"
    # Keep what it found as regression inputs.
    for artifact in $found; do
      mkdir -p "$REPO/tests/fuzz/regressions/$t"
      cp "$artifact" "$REPO/tests/fuzz/regressions/$t/"
      result+="; saved tests/fuzz/regressions/$t/$(basename "$artifact")"
      # A CI machine's clone is thrown away: the input itself goes to the log, to be saved by hand.
      (($(stat -c %s "$artifact") <= 16384)) &&
        echo "fuzz $t: input $(basename "$artifact") (base64): $(base64 -w0 "$artifact")" >&2
    done
  fi
  printf '%-13s %12s %9s %7s  %s\n' "$t" "$execs" "$rate" "$corpus" "$result"
done
for t in "${targets[@]}"; do
  [[ $(cat "$OUT/$t.result" 2>/dev/null || echo 1) == 0 ]] && continue
  echo "---- fuzz $t: the report"
  grep -A40 -E '^(==[0-9]+==ERROR|==== fuzz invariant|.*runtime error:|ALARM: working on the last Unit)' "$OUT/$t.log" | head -n 60 || tail -n 40 "$OUT/$t.log"
done
exit "$status"
