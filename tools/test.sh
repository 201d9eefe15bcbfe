#!/usr/bin/env bash
# What CI runs: install dependencies, build, run every CTest test (unit + integration), then
# the conformance run (MongoDB's driver spec tests). The exit status is ctest's: conformance
# failures are reported (summary lines) but do not fail the script yet.
set -euo pipefail
cd "$(dirname "$0")/.."
export BUILD_DIR=${BUILD_DIR:-build}

phases=()
run_phase() {  # run_phase NAME COMMAND... ; records the elapsed time, returns the status
  local name=$1 start=$SECONDS rc=0
  shift
  echo "==== ${name}"
  "$@" || rc=$?
  phases+=("$(printf '%-13s %5ds  (exit %d)' "$name" $((SECONDS - start)) "$rc")")
  echo "==== ${name}: $((SECONDS - start))s, exit ${rc}"
  return "$rc"
}
report() {
  echo "==== phase times"
  printf '  %s\n' "${phases[@]}"
}
trap report EXIT

run_phase install-deps tools/install-deps.sh
run_phase build tools/build.sh

ctest_rc=0
run_phase ctest ctest --test-dir "$BUILD_DIR" --output-on-failure \
  -j "${CTEST_PARALLEL_LEVEL:-$(nproc)}" --timeout 1200 || ctest_rc=$?

# Not fatal yet: run.sh exits 0 whatever the failure count (non-zero only if cairnd cannot start).
run_phase conformance tests/conformance/run.sh ||
  echo "WARNING: the conformance run could not run (see above); not failing CI for it yet"

exit "$ctest_rc"
