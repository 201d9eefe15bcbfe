#!/usr/bin/env python3
"""Start-to-listening time and idle memory of cairnd, per storage mode: starts a fresh cairnd
N times (default 20) in each mode (on disk, --storageEngine inMemory), measures from the spawn to
the "Waiting for connections" log line, and reads the process's resident memory after it has
been idle for a second. Prints the median and the spread of each.

    tools/bench/startup.py [--cairnd build/server/cairnd] [--runs 20]
"""
import argparse
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def one_start(cairnd, extra):
    dbpath = tempfile.mkdtemp(prefix="cairn-startup-")
    port = free_port()
    begin = time.perf_counter()
    proc = subprocess.Popen([cairnd, "--port", str(port), "--dbpath", dbpath, "--nounixsocket"] +
                            extra, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    elapsed = None
    try:
        for raw in proc.stdout:
            if b'"Waiting for connections"' in raw:
                elapsed = (time.perf_counter() - begin) * 1000
                break
        time.sleep(1.0)
        rss = rss_kib(proc.pid)
    finally:
        proc.terminate()
        proc.wait(20)
        proc.stdout.close()
        shutil.rmtree(dbpath, ignore_errors=True)
    if elapsed is None:
        raise SystemExit(f"cairnd {' '.join(extra)} never listened")
    return elapsed, rss


def main():
    parser = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--cairnd", default=os.path.join(here, "..", "..", "build", "server", "cairnd"))
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    for name, extra in (("on disk", []), ("in memory", ["--storageEngine", "inMemory"])):
        times, rss = [], []
        for _ in range(args.runs):
            t, r = one_start(args.cairnd, extra)
            times.append(t)
            rss.append(r)
        print(f"{name:10s} start-to-listening median {statistics.median(times):6.1f} ms "
              f"(min {min(times):.1f}, max {max(times):.1f}, {args.runs} runs); "
              f"idle RSS median {statistics.median(rss) / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
