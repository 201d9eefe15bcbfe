#!/usr/bin/env bash
# CI smoke test of tools/bench (not a speed judgement): starts cairnd on a free port with a
# temporary --dbpath, runs the benchmark with tiny sizes, checks it exited 0 and printed a line
# for every workload, and stops cairnd with SIGTERM. The aggregate-* workloads generate their data
# with the project's tools/bench/shop_data.py.
#   smoke.sh BENCH CAIRND
set -uo pipefail
bench=${1:?usage: smoke.sh BENCH CAIRND}
cairnd=${2:?usage: smoke.sh BENCH CAIRND}

workloads=(insert "point-read x1" "point-read x8" update scan indexed-read
           "aggregate-group status" "aggregate-group category" "aggregate-group report"
           "aggregate-lookup indexed\\+unwind" "aggregate-lookup indexed"
           "aggregate-lookup hash\\+unwind" "aggregate-lookup hash"
           "aggregate-lookup indexed diamond" "aggregate-lookup hash diamond")
select=()

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-bench-smoke-XXXXXX")
pid=
cleanup() {
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Start cairnd; retry on another port if it cannot listen (someone took the port meanwhile).
for attempt in 1 2 3; do
  port=$(free_port)
  log="$tmp/cairnd.log"
  "$cairnd" --port "$port" --bind_ip 127.0.0.1 --dbpath "$tmp/db" >"$log" 2>&1 &
  pid=$!
  up=0
  for _ in $(seq 1 200); do
    if grep -q '"Waiting for connections"' "$log"; then up=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [[ $up == 1 ]] && break
  kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
done
if [[ -z "$pid" ]]; then
  echo "bench_smoke: cairnd did not log \"Waiting for connections\"" >&2
  cat "$log" >&2
  exit 1
fi

out="$tmp/bench.out"
timeout 120 "$bench" --uri "mongodb://127.0.0.1:$port" --docs 2000 --seconds 1 \
  --json "$tmp/bench.json" --ceiling-dir "$tmp" "${select[@]}" >"$out" 2>&1
rc=$?
cat "$out"
status=0
if [[ $rc -ne 0 ]]; then
  echo "bench_smoke: bench exited $rc" >&2
  status=1
fi
for name in "${workloads[@]}"; do
  if ! grep -Eq "^${name} +([0-9,]+ |skipped: )" "$out"; then
    echo "bench_smoke: no line for '$name'" >&2
    status=1
  fi
done
if ! grep -q '"name": "scan"' "$tmp/bench.json" 2>/dev/null; then
  echo "bench_smoke: --json did not write the results" >&2
  status=1
fi

kill -TERM "$pid"
if ! wait "$pid"; then
  echo "bench_smoke: cairnd did not stop cleanly on SIGTERM" >&2
  cat "$log" >&2
  status=1
fi
pid=
[[ $status -eq 0 ]] && echo "bench_smoke: ok"
exit $status
