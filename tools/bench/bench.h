// tools/bench: shared declarations. The benchmark runs named workloads against a mongodb:// URI
// through libmongoc and measures, in the same run, the physical ceiling of the same work on the
// same machine (Cairn's storage in-process, or a bare `ping` on the same connections).
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cairn::bench {

struct Options {
  std::string uri = "mongodb://127.0.0.1:27017";
  std::string db = "cairn_bench";
  std::string collection = "docs";
  int64_t docs = 200000;               // documents loaded by insert (and read by the others)
  double seconds = 5;                  // per timed workload, and as much again for its ceiling
  int connections = 8;                 // the multi-connection point-read
  std::vector<std::string> workloads;  // empty = all, in registry order
  std::string json_path;               // --json FILE
  std::string ceiling_dir;             // where the in-process RocksDB ceilings write (temp dir)
  int64_t orders = 0;                  // benchdata orders for aggregate-*; 0 = --docs
  int secondary_indexes = 0;           // indexes built before insert: ts, age, address.city
  std::string shop_generator;          // the shop data's generator: tools/bench/shop_data.py
};

// One output line.
struct Result {
  std::string name;
  std::optional<std::string> skipped;  // reason, when the workload is not runnable yet
  std::optional<std::string> error;    // set when the workload failed
  double figure = 0;
  std::string unit;
  double ceiling = 0;
  std::string ceiling_unit;
  std::string ceiling_what;
  std::optional<double> p50_us, p99_us;                  // the figure's latency, if per-op
  std::optional<double> ceiling_p50_us, ceiling_p99_us;  // the ceiling's latency, if per-op
  double target = 0;                                     // informational; 0 = none
  std::string note;                                      // e.g. "812 ms per pass"
  double ratio() const { return ceiling > 0 ? figure / ceiling : 0; }
};

// ---- documents.cc: the deterministic generator shared by the client and the ceilings. ----

// Documents {_id: int32 i, name, email, age, score, ts: int64, active, balance, address: {city,
// street, zip}} for i in [0, count), ~212 bytes each, identical on every run and machine.
class DocumentSet {
 public:
  explicit DocumentSet(int64_t count);
  // The `count` Extended JSON documents, one per line, that `command` prints (benchdata's
  // gen_data.py), each passed through `adjust` (may be null) after parsing; null with *error.
  static std::unique_ptr<DocumentSet> FromJsonLines(const std::string& command, int64_t count,
                                                    void (*adjust)(bson_t* doc),
                                                    std::string* error);
  ~DocumentSet();
  DocumentSet(const DocumentSet&) = delete;
  DocumentSet& operator=(const DocumentSet&) = delete;

  size_t size() const { return size_; }
  const bson_t* const* data() const { return docs_; }
  const bson_t* operator[](size_t i) const { return docs_[i]; }
  uint64_t total_bytes() const { return total_bytes_; }

 private:
  DocumentSet() = default;
  bson_t** docs_ =
      nullptr;  // a plain array: libbson's aligned bson_t makes std::vector<bson_t*> warn
  size_t size_ = 0;
  uint64_t total_bytes_ = 0;
};

// SplitMix64: the generator behind the documents and the random keys.
struct SplitMix64 {
  uint64_t state;
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) { return Next() % n; }
};

}  // namespace cairn::bench
