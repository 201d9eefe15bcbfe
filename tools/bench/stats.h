// Latency percentiles and the timed, paired measurement loop: a workload and its ceiling run
// alternately in short slices on the same threads and connections, so a burst of noise on the
// shared machine hits both sides of the ratio alike.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cairn::bench {

// Nearest-rank percentile (q in [0, 1]) of `sorted` nanosecond samples, in microseconds.
double PercentileUs(const std::vector<int64_t>& sorted, double q);

// One unit of timed work on one thread: a command, or a full collection pass.
class Op {
 public:
  virtual ~Op() = default;
  // Does the work once; returns how many units it did (1 for a command, documents for a scan)
  // or -1 on failure with *error set.
  virtual int64_t Run(std::string* error) = 0;
};

struct Measured {
  int64_t units = 0;
  int64_t ops = 0;
  double seconds = 0;
  std::vector<int64_t> latencies_ns;  // one per op, sorted after Finish()
  std::string error;                  // the first failure, if any

  double rate() const { return seconds > 0 ? static_cast<double>(units) / seconds : 0; }
  double p50_us() const { return PercentileUs(latencies_ns, 0.50); }
  double p99_us() const { return PercentileUs(latencies_ns, 0.99); }
  void Finish();
};

// Runs ops[i] on thread i (one thread per op object, all started together) until `seconds`
// have passed: an op that starts before the deadline is counted whole. Adds to *out.
void RunPhase(const std::vector<Op*>& ops, double seconds, Measured* out);

// Warms up `work` briefly, then alternates work and ceiling phases over `seconds` in total for
// each side (a few rounds), accumulating into *work_out and *ceiling_out. Stops at the first
// error.
void RunPaired(const std::vector<Op*>& work, const std::vector<Op*>& ceiling, double seconds,
               Measured* work_out, Measured* ceiling_out);

}  // namespace cairn::bench
