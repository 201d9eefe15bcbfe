#!/usr/bin/python3
"""Resilience figures of a cairnd under hostile or heavy clients (prints figures; judges nothing).

  tools/bench/resilience.py [--cairnd build/server/cairnd] [--slow 100] [--idle 2000]
                            [--agg-seconds 5]

Starts its own cairnd on a free port with a fresh --dbpath, then measures:
  slow:  --slow connections each send a header announcing a 48,000,000-byte message and then
         trickle a byte a second; the server's peak RSS (VmHWM) and a new client's ping latency.
  idle:  --idle connections that have each run one command and then sit idle: RSS.
  load:  one connection runs an aggregation of about --agg-seconds seconds while another pings
         every 10 ms on its own connection: ping latency p50 / p99 / max, and a new connection's
         first ping.
Runs with Debian's /usr/bin/python3 (pymongo 3.11).
"""

import argparse
import os
import resource
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "integration", "python"))
import harness  # noqa: E402  (the test harness's server runner and wire toolkit)
from pymongo.errors import OperationFailure  # noqa: E402


def rss_kib(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def ping_ms(port):
    started = time.monotonic()
    sock = harness.connect_raw(port, timeout=60)
    harness.command(sock, {"ping": 1})
    elapsed = (time.monotonic() - started) * 1000
    sock.close()
    return elapsed


def slow_case(server, count):
    pid = server.proc.pid
    before = rss_kib(pid, "VmRSS")
    socks = []
    for _ in range(count):
        s = harness.connect_raw(server.port, timeout=60)
        s.sendall(struct.pack("<iiii", 48_000_000, 1, 0, harness.OP_MSG))
        socks.append(s)
    stop = threading.Event()

    def trickle():
        while not stop.is_set():
            for s in socks:
                try:
                    s.sendall(b"\x00")
                except OSError:
                    pass
            stop.wait(1.0)

    t = threading.Thread(target=trickle, daemon=True)
    t.start()
    time.sleep(3)
    latency = ping_ms(server.port)
    peak = rss_kib(pid, "VmHWM")
    stop.set()
    t.join()
    for s in socks:
        s.close()
    print("slow:  %d connections announcing 48 MB each, trickling: RSS %.1f MiB before, "
          "peak %.1f MiB; a new client's ping %.1f ms" % (count, before / 1024, peak / 1024, latency))


def idle_case(server, count):
    pid = server.proc.pid
    before = rss_kib(pid, "VmRSS")
    socks = []
    for _ in range(count):
        s = harness.connect_raw(server.port, timeout=60)
        harness.command(s, {"ping": 1})
        socks.append(s)
    time.sleep(1)
    after = rss_kib(pid, "VmRSS")
    latency = ping_ms(server.port)
    for s in socks:
        s.close()
    print("idle:  %d idle connections: RSS %.1f MiB before, %.1f MiB with them (%.1f KiB each); "
          "a new client's ping %.1f ms" % (count, before / 1024, after / 1024,
                                          (after - before) / max(1, count), latency))


def load_case(server, seconds):
    client = server.client()
    coll = client.resilience.docs
    coll.drop()
    coll.insert_many([{"_id": i, "x": i % 100} for i in range(20000)])
    # Calibrate: the cost of one pass of the slow stage over all documents.
    steps = 2000
    slow = {"$expr": {"$gte": [{"$reduce": {"input": {"$range": [0, steps]}, "initialValue": 0,
                                            "in": {"$add": ["$$value", "$$this"]}}}, 0]}}
    started = time.monotonic()
    list(coll.aggregate([{"$match": slow}, {"$count": "n"}]))
    one_pass = time.monotonic() - started
    passes = max(1, round(seconds / one_pass))
    pipeline = [{"$unionWith": {"coll": "docs"}}] * (passes - 1) + [{"$match": slow},
                                                                    {"$count": "n"}]
    done = threading.Event()
    took = {}

    def long_aggregation():
        t0 = time.monotonic()
        try:
            list(client.resilience.docs.aggregate(pipeline))
        except OperationFailure as e:
            print("load:  the aggregation failed: %s" % e)
        took["s"] = time.monotonic() - t0
        done.set()

    worker = threading.Thread(target=long_aggregation)
    worker.start()
    time.sleep(0.2)
    sock = harness.connect_raw(server.port, timeout=60)
    latencies = []
    first_new = ping_ms(server.port)
    while not done.is_set():
        t0 = time.monotonic()
        harness.command(sock, {"ping": 1})
        latencies.append((time.monotonic() - t0) * 1000)
        time.sleep(0.01)
    worker.join()
    sock.close()
    client.close()
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print("load:  pings during a %.1f s aggregation (%d pings): p50 %.2f ms, p99 %.2f ms, max "
          "%.2f ms; a new connection's first ping %.1f ms"
          % (took.get("s", 0), len(latencies), statistics.median(latencies), p99,
             latencies[-1], first_new))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cairnd", default=harness.CAIRND)
    parser.add_argument("--slow", type=int, default=100)
    parser.add_argument("--idle", type=int, default=2000)
    parser.add_argument("--agg-seconds", type=float, default=5.0)
    args = parser.parse_args()
    harness.CAIRND = args.cairnd
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this client's own sockets
    server = harness.CairnServer(args=["--quiet"]).start()
    try:
        slow_case(server, args.slow)
        idle_case(server, args.idle)
        load_case(server, args.agg_seconds)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
