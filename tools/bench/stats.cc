// Percentiles from a sorted sample vector, and the phase runner (one std::thread per op object,
// released together, stopped by one deadline).
#include "tools/bench/stats.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <latch>
#include <thread>

namespace cairn::bench {

using Clock = std::chrono::steady_clock;

double PercentileUs(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return static_cast<double>(sorted[rank - 1]) / 1000.0;
}

void Measured::Finish() { std::sort(latencies_ns.begin(), latencies_ns.end()); }

void RunPhase(const std::vector<Op*>& ops, double seconds, Measured* out) {
  struct PerThread {
    int64_t units = 0;
    std::vector<int64_t> latencies_ns;
    std::string error;
  };
  const size_t n = ops.size();
  std::vector<PerThread> results(n);
  std::latch ready(static_cast<std::ptrdiff_t>(n));
  std::atomic<bool> go{false};
  Clock::time_point deadline;  // written before `go`, read after it

  std::vector<std::thread> threads;
  threads.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      PerThread& r = results[i];
      r.latencies_ns.reserve(1 << 16);
      ready.count_down();
      go.wait(false);
      Clock::time_point t0 = Clock::now();
      while (t0 < deadline) {
        int64_t units = ops[i]->Run(&r.error);
        Clock::time_point t1 = Clock::now();
        if (units < 0) break;
        r.units += units;
        r.latencies_ns.push_back(
            std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
        t0 = t1;
      }
    });
  }
  ready.wait();
  Clock::time_point start = Clock::now();
  deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  go.store(true);
  go.notify_all();
  for (std::thread& t : threads) t.join();
  out->seconds += std::chrono::duration<double>(Clock::now() - start).count();
  for (PerThread& r : results) {
    out->units += r.units;
    out->ops += static_cast<int64_t>(r.latencies_ns.size());
    out->latencies_ns.insert(out->latencies_ns.end(), r.latencies_ns.begin(), r.latencies_ns.end());
    if (out->error.empty() && !r.error.empty()) out->error = r.error;
  }
}

void RunPaired(const std::vector<Op*>& work, const std::vector<Op*>& ceiling, double seconds,
               Measured* work_out, Measured* ceiling_out) {
  // Rounds of at least 0.2 s per side, at most 5.
  int rounds = std::clamp(static_cast<int>(seconds / 0.2), 1, 5);
  double slice = seconds / rounds;
  Measured warmup;
  RunPhase(work, std::min(0.5, slice / 2), &warmup);
  if (!warmup.error.empty()) {
    work_out->error = warmup.error;
    return;
  }
  for (int r = 0; r < rounds; ++r) {
    RunPhase(work, slice, work_out);
    if (!work_out->error.empty()) break;
    RunPhase(ceiling, slice, ceiling_out);
    if (!ceiling_out->error.empty()) break;
  }
  work_out->Finish();
  ceiling_out->Finish();
}

}  // namespace cairn::bench
