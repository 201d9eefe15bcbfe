#!/usr/bin/env bash
# Runs MongoDB's driver specification tests (../shared/conformance, unified test format) against
# a fresh cairnd, twice: a standalone, then a one-member replica set (`--replSet rs0 --initiate`,
# reached through a replicaSet= URI, so the tests that need a replica set run too): spec/crud,
# spec/command-monitoring and spec/collection-management. Prints each directory's summary line
# ("N passed, M failed, K skipped") per mode and a total per mode. Failures do not fail
# this script yet: it exits 0 whatever the count, and non-zero only if cairnd cannot be started
# (or nothing can run). Without ../shared/conformance beside the repository (a user's clone) it
# says so in one line and exits 0.
#
# Environment: CAIRND (default <repo>/$BUILD_DIR/server/cairnd), BUILD_DIR (default build),
# CONFORMANCE_MODES (default "standalone replset"),
# CONFORMANCE_DIRS (default "crud command-monitoring collection-management"),
# CONFORMANCE_TIMEOUT (seconds for each mode's run, default 900), CONFORMANCE_OUT (where full logs
# and JSON go, default $BUILD_DIR/conformance), CONFORMANCE_SHOW_FAILS (FAIL lines printed per
# directory, default 25).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
# The physical path: the runner only runs when argv[1] is its real path (a symlinked shared/).
SHARED=$(cd -P "$REPO/../shared/conformance" 2>/dev/null && pwd -P) || {
  echo "conformance: skipped: no ../shared/conformance beside the repository"
  exit 0
}
BUILD_DIR=${BUILD_DIR:-build}
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$REPO/$BUILD_DIR"
CAIRND=${CAIRND:-$BUILD_DIR/server/cairnd}
DIRS=${CONFORMANCE_DIRS:-crud command-monitoring collection-management}
BUDGET=${CONFORMANCE_TIMEOUT:-900}
OUT=${CONFORMANCE_OUT:-$BUILD_DIR/conformance}
SHOW_FAILS=${CONFORMANCE_SHOW_FAILS:-25}
MODES=${CONFORMANCE_MODES:-standalone replset}

if [[ ! -x "$CAIRND" ]]; then
  echo "conformance: cairnd not found at $CAIRND" >&2
  exit 1
fi
if [[ ! -d "$REPO/tests/node_modules/mongodb" ]]; then
  echo "conformance: $REPO/tests/node_modules/mongodb missing (run tools/install-deps.sh)" >&2
  exit 2
fi
mkdir -p "$OUT"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-conformance-XXXXXX")
pid=""
stop_server() {
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  pid=""
}
cleanup() {
  stop_server
  rm -rf "$tmp"
}
trap cleanup EXIT

# run_mode MODE: a fresh cairnd in MODE (standalone or replset), every directory against it.
run_mode() {
  local mode=$1 args=() query=""
  if [[ $mode == replset ]]; then
    args=(--replSet rs0 --initiate)
    query="/?replicaSet=rs0"
  fi
  local out="$OUT/$mode"
  mkdir -p "$out"
  # A free port (bind port 0), then cairnd on it; retry if someone takes the port in between.
  local log="$out/cairnd.log" started="" port
  for attempt in 1 2 3; do
    port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
    rm -rf "$tmp/db" && mkdir -p "$tmp/db"
    # Test commands on: the runner finds configureFailPoint and runs the failpoint tests.
    "$CAIRND" --port "$port" --bind_ip 127.0.0.1 --dbpath "$tmp/db" \
      --setParameter enableTestCommands=1 "${args[@]}" >"$log" 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do  # 20 s
      if grep -Eq '"id"[[:space:]]*:[[:space:]]*23016[,}[:space:]]|"msg"[[:space:]]*:[[:space:]]*"Waiting for connections"' "$log"; then
        started=yes
        break
      fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    [[ -n "$started" ]] && break
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    grep -qi 'address already in use' "$log" || break
  done
  if [[ -z "$started" ]]; then
    echo "conformance ($mode): cairnd did not log \"Waiting for connections\" within 20 s" >&2
    echo "--- $log ---" >&2
    tail -n 100 "$log" >&2
    exit 1
  fi
  echo "conformance ($mode): cairnd listening on 127.0.0.1:$port (log: $log)"

  local deadline=$((SECONDS + BUDGET)) total_pass=0 total_fail=0 total_skip=0
  for dir in $DIRS; do
    local name=${dir//\//-} remaining=$((deadline - SECONDS)) rc=0 summary fails
    if ((remaining <= 0)); then
      summaries+=("$mode spec/$dir: not run (time budget of ${BUDGET}s used up)")
      continue
    fi
    (cd "$REPO/tests" && MONGODB_DRIVER_DIR="$REPO/tests" timeout "$remaining" \
      node "$SHARED/run-unified.mjs" --uri "mongodb://127.0.0.1:$port$query" --quiet \
        --json "$out/$name.json" "$SHARED/spec/$dir") >"$out/$name.txt" 2>&1 || rc=$?
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$out/$name.txt" | tail -n 1 || true)
    if [[ -z "$summary" ]]; then
      if ((rc == 124)); then summary="timed out after ${remaining}s"; else summary="no summary (exit $rc)"; fi
      tail -n 20 "$out/$name.txt"
    else
      read -r p _ f _ s _ <<<"$summary"
      total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + s))
    fi
    fails=$(grep -c '^FAIL' "$out/$name.txt" || true)
    if ((fails > 0 && SHOW_FAILS > 0)); then
      echo "--- $mode spec/$dir: first FAIL lines (all in $out/$name.txt) ---"
      awk -v n="$SHOW_FAILS" '/^FAIL/ && shown++ < n { print substr($0, 1, 300) }' "$out/$name.txt"
    fi
    summaries+=("$mode spec/$dir: $summary")
  done
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "WARNING: cairnd ($mode) is no longer running after the conformance run; log tail:"
    tail -n 40 "$log"
  fi
  stop_server
  summaries+=("$mode total: $total_pass passed, $total_fail failed, $total_skip skipped")
}

summaries=()
for mode in $MODES; do
  case $mode in
    standalone | replset) run_mode "$mode" ;;
    *) echo "conformance: unknown mode '$mode' (standalone or replset)" >&2; exit 2 ;;
  esac
done

echo "==== conformance summary"
printf '  %s\n' "${summaries[@]}"
exit 0
