#!/usr/bin/env bash
# The integration suites against sanitized builds of cairnd (clang-14; libbson, RocksDB and the
# other system libraries stay uninstrumented):
#   asan  ASan + UBSan, in the fuzz build directory (CAIRN_FUZZ=ON: the libraries the fuzz
#         targets use are the same objects, built once); every suite labelled `integration`.
#   tsan  ThreadSanitizer, in its own directory (CAIRN_TSAN=ON); the suites labelled
#         `concurrency` (many connections, both I/O threads, read-ahead, tailable waits).
# Both also run the command behaviour specs (label `spec`: tests/spec/, in-process through
# spec_tests and through the Node driver against the sanitized cairnd). Each build builds cairnd
# and spec_tests alone. Every sanitizer report fails the run: the sanitizers write
# their reports to files ($DIR/sanitizer-reports/), which are printed and counted after CTest
# (a server killed by a suite, or one whose exit status a suite does not check, cannot hide one).
#
#   tools/sanitize.sh asan|tsan [build [EXTRA_TARGET...] | test [CTEST_ARG...] | all]
#
# Environment: ASAN_BUILD_DIR [$FUZZ_BUILD_DIR, else build-fuzz], TSAN_BUILD_DIR [build-tsan],
# CTEST_PARALLEL_LEVEL [nproc]. Suppressions of third-party reports: tests/sanitizers/*.supp
# (each one says why).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
kind=${1:?usage: tools/sanitize.sh asan|tsan [build|test|all]}
step=${2:-all}
shift $(($# >= 2 ? 2 : $#))

case $kind in
  asan)
    DIR=${ASAN_BUILD_DIR:-${FUZZ_BUILD_DIR:-build-fuzz}}
    options=(-DCAIRN_FUZZ=ON)
    label='integration|spec'
    ;;
  tsan)
    DIR=${TSAN_BUILD_DIR:-build-tsan}
    options=(-DCAIRN_TSAN=ON -DCAIRN_BUILD_TESTS=OFF)
    label='concurrency|spec'
    ;;
  *) echo "sanitize: unknown kind '$kind' (asan or tsan)" >&2; exit 2 ;;
esac
[[ "$DIR" = /* ]] || DIR="$REPO/$DIR"
# llvm-symbolizer (Debian's llvm-14) turns the reports' addresses into file:line.
export PATH="/usr/lib/llvm-14/bin:$PATH"

build() {
  local configure=(cmake -S "$REPO" -B "$DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${options[@]}")
  # The generator and compilers only when the directory is first configured: naming a compiler
  # again (even the same one, spelled differently) makes CMake drop the whole cache and forget
  # every other option.
  [[ -f "$DIR/CMakeCache.txt" ]] ||
    configure+=(-G Ninja -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14)
  "${configure[@]}" >/dev/null
  if ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang' "$DIR/CMakeCache.txt"; then
    echo "sanitize: $DIR is not a clang build directory; remove it and run again" >&2
    exit 1
  fi
  cmake --build "$DIR" -j "$(nproc)" --target cairnd spec_tests "$@"
}

run_tests() {
  local reports="$DIR/sanitizer-reports"
  rm -rf "$reports"
  mkdir -p "$reports"
  local supp="$REPO/tests/sanitizers"
  # log_path: one file per sanitized process that reported (node and python are not sanitized).
  # Only the running kind's options: a runtime also reads the others' (TSan reads UBSAN_OPTIONS),
  # and the last log_path would win.
  unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS
  if [[ $kind == asan ]]; then
    export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1"
    export UBSAN_OPTIONS="log_path=$reports/asan:print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
  else
    export TSAN_OPTIONS="log_path=$reports/tsan:halt_on_error=0:second_deadlock_stack=1:suppressions=$supp/tsan.supp:print_suppressions=0"
  fi
  local rc=0
  ctest --test-dir "$DIR" -L "$label" --output-on-failure \
    -j "${CTEST_PARALLEL_LEVEL:-$(nproc)}" --timeout 1800 "$@" || rc=$?
  local files
  mapfile -t files < <(find "$reports" -type f | sort)
  if ((${#files[@]})); then
    echo "sanitize $kind: ${#files[@]} sanitizer report(s):"
    for f in "${files[@]}"; do
      echo "---- $f"
      head -n 80 "$f"
    done
    rc=1
  else
    echo "sanitize $kind: no sanitizer reports"
  fi
  return "$rc"
}

case $step in
  build) build "$@" ;;
  test) run_tests "$@" ;;
  all) build && run_tests ;;
  *) echo "sanitize: unknown step '$step' (build, test or all)" >&2; exit 2 ;;
esac
