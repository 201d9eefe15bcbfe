// bench: Cairn's benchmark. Runs named workloads against any mongodb:// URI through libmongoc and
// prints, beside each figure, the physical ceiling of the same work measured on the same machine
// in the same run, and the ratio. It reports; it never asserts on speed. Exit status: 0 when
// every selected workload ran (or is marked skipped), 1 when one failed, 2 on bad usage or when
// the server cannot be reached.
#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>

#include "tools/bench/bench.h"
#include "tools/bench/ceilings.h"
#include "tools/bench/client.h"
#include "tools/bench/report.h"
#include "tools/bench/stats.h"
#include "tools/bench/workloads.h"

namespace cairn::bench {
namespace {

constexpr size_t kInsertBatch = 1000;

// The registry, in run order. `needs` marks workloads that are defined but not runnable yet.
struct Workload {
  const char* name;
  const char* needs;  // null when runnable
  const char* about;
};
constexpr Workload kWorkloads[] = {
    {"insert", nullptr, "insertMany of 1,000 docs, ordered, w:1 (loads the collection)"},
    {"point-read", nullptr, "find {_id: k} on 1 and on --connections connections"},
    {"update", nullptr, "updateOne {_id: k} {$inc: {score: 1}}, 1 connection"},
    {"scan", nullptr, "find {} through a cursor over the whole collection"},
    {"indexed-read", nullptr, "find {ts: t} through the secondary index {ts: 1}, 1 connection"},
    {"aggregate-group", "the aggregation engine", "$group over the benchdata orders"},
    {"aggregate-lookup", "the aggregation engine", "$lookup orders → customers (benchdata)"},
};

void Usage(std::ostream& out) {
  out << "usage: bench [--uri mongodb://127.0.0.1:27017] [--docs 200000] [--seconds 5]\n"
         "             [--connections 8] [--workloads a,b,c] [--json FILE] [--db cairn_bench]\n"
         "             [--ceiling-dir DIR]\n\n"
         "Each timed workload runs --seconds, alternating in short rounds with its ceiling\n"
         "(another --seconds). The database --db is dropped at start and at end.\n"
         "Ceilings are written to a temporary directory under --ceiling-dir (TMPDIR or /tmp).\n\n"
         "workloads:\n";
  for (const Workload& w : kWorkloads) {
    char line[160];
    snprintf(line, sizeof line, "  %-17s %s%s%s\n", w.name, w.about, w.needs ? "; needs " : "",
             w.needs ? w.needs : "");
    out << line;
  }
}

bool ParseFlags(int argc, char** argv, Options* options, int* exit_code) {
  auto fail = [&](const std::string& message) {
    std::cerr << "bench: " << message << "\n";
    Usage(std::cerr);
    *exit_code = 2;
    return false;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    if (arg == "--help" || arg == "-h") {
      Usage(std::cout);
      *exit_code = 0;
      return false;
    }
    if (!has_value) {
      if (i + 1 >= argc) return fail("missing value for " + arg);
      value = argv[++i];
    }
    try {
      if (arg == "--uri") {
        options->uri = value;
      } else if (arg == "--db") {
        options->db = value;
      } else if (arg == "--docs") {
        options->docs = std::stoll(value);
        if (options->docs < 1 || options->docs > INT32_MAX) return fail("--docs: 1 to 2^31-1");
      } else if (arg == "--seconds") {
        options->seconds = std::stod(value);
        if (!(options->seconds > 0)) return fail("--seconds must be positive");
      } else if (arg == "--connections") {
        options->connections = std::stoi(value);
        if (options->connections < 1 || options->connections > 256) {
          return fail("--connections: 1 to 256");
        }
      } else if (arg == "--workloads") {
        std::stringstream ss(value);
        std::string name;
        while (std::getline(ss, name, ',')) {
          if (name.empty()) continue;
          bool known = false;
          for (const Workload& w : kWorkloads) known = known || name == w.name;
          if (!known) return fail("unknown workload '" + name + "'");
          options->workloads.push_back(name);
        }
      } else if (arg == "--json") {
        options->json_path = value;
      } else if (arg == "--ceiling-dir") {
        options->ceiling_dir = value;
      } else {
        return fail("unknown flag " + arg);
      }
    } catch (const std::exception&) {
      return fail("bad value for " + arg + ": " + value);
    }
  }
  return true;
}

std::string Hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

std::string Now() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// Progress on stderr (the table goes to stdout), with seconds since start: tells a profiler
// attached to the server which phase is running.
void Progress(const std::string& what) {
  static const auto start = std::chrono::steady_clock::now();
  double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fprintf(stderr, "bench: %6.2fs %s\n", t, what.c_str());
}

// Fills a Result from a paired measurement of per-operation work.
void FromPaired(const Measured& work, const Measured& ceiling, bool latency, Result* r) {
  if (!work.error.empty() || !ceiling.error.empty()) {
    r->error = !work.error.empty() ? work.error : "ceiling: " + ceiling.error;
    return;
  }
  r->figure = work.rate();
  r->ceiling = ceiling.rate();
  if (latency) {
    r->p50_us = work.p50_us();
    r->p99_us = work.p99_us();
    r->ceiling_p50_us = ceiling.p50_us();
    r->ceiling_p99_us = ceiling.p99_us();
  }
}

int Run(const Options& options) {
  auto selected = [&](const char* name) {
    if (options.workloads.empty()) return true;
    for (const std::string& w : options.workloads) {
      if (w == name) return true;
    }
    return false;
  };
  const bool needs_data = selected("point-read") || selected("update") || selected("scan") ||
                          selected("indexed-read");

  std::string error;
  Client main_client = Connect(options, &error);
  if (!main_client) {
    std::cerr << "bench: cannot reach " << options.uri << ": " << error << "\n";
    return 2;
  }
  std::string server = ServerVersion(main_client.get());

  auto gen_start = std::chrono::steady_clock::now();
  DocumentSet docs(options.docs);
  double gen_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - gen_start).count();
  const double avg_bytes =
      static_cast<double>(docs.total_bytes()) / static_cast<double>(docs.size());

  char header[1024];
  snprintf(header, sizeof header,
           "bench %s: %s on %s (%ld vCPUs, %s), load %s\n"
           "server %s at %s; %lld docs of %.1f B avg (built in %.2f s); %.3g s per side\n",
           Now().c_str(), "cairn bench", Hostname().c_str(), sysconf(_SC_NPROCESSORS_ONLN),
           CpuModel().c_str(), LoadAverage().c_str(), server.c_str(), options.uri.c_str(),
           static_cast<long long>(options.docs), avg_bytes, gen_seconds, options.seconds);
  std::cout << header << std::flush;
  std::string context = "{\"date\": " + JsonString(Now()) +
                        ", \"host\": " + JsonString(Hostname()) +
                        ", \"vcpus\": " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) +
                        ", \"cpu\": " + JsonString(CpuModel()) +
                        ", \"load_before\": " + JsonString(LoadAverage()) +
                        ", \"server\": " + JsonString(server) + ", \"uri\": " +
                        JsonString(options.uri) + ", \"docs\": " + std::to_string(options.docs) +
                        ", \"avg_doc_bytes\": " + std::to_string(avg_bytes) +
                        ", \"seconds\": " + std::to_string(options.seconds) + "}";

  if (!DropDatabase(main_client.get(), options, &error)) {
    std::cerr << "bench: dropDatabase " << options.db << ": " << error << "\n";
    return 2;
  }

  std::vector<Result> results;
  bool failed = false;
  auto emit = [&](Result r) {
    if (r.error) failed = true;
    std::cout << FormatLine(r) << "\n" << std::flush;
    results.push_back(std::move(r));
  };

  // The ceilings' own storage, opened when a workload needs it (not timed).
  std::unique_ptr<CeilingStore> store;
  auto open_store = [&](std::string* err) {
    if (!store) store = CeilingStore::Open(options.ceiling_dir, err);
    return store != nullptr;
  };

  // insert (or an untimed load when only the read workloads are selected).
  bool data_loaded = false;
  if (selected("insert") || needs_data) {
    Result r;
      r.name = "insert";
    r.unit = "docs/s";
    r.ceiling_unit = "docs/s";
    r.ceiling_what = "RocksDB WriteBatch " + std::to_string(kInsertBatch);
    r.target = 0.5;
    Progress(selected("insert") ? "insert: client" : "loading the collection (untimed)");
    double rate = InsertAll(main_client.get(), options, docs, kInsertBatch, &error);
    if (rate < 0) {
      r.error = error;
    } else {
      data_loaded = true;
      r.figure = rate;
      if (selected("insert")) {
        Progress("insert: ceiling");
        double ceiling = open_store(&error) ? store->Load(docs, kInsertBatch, &error) : -1;
        if (ceiling < 0) {
          r.error = "ceiling: " + error;
        } else {
          r.ceiling = ceiling;
        }
      }
    }
    if (selected("insert")) {
      emit(std::move(r));
    } else if (r.error) {
      std::cerr << "bench: loading the collection failed: " << *r.error << "\n";
      failed = true;
    }
  }

  auto not_loaded = [&](const char* name) {
    Result r;
      r.name = name;
    r.error = "the collection could not be loaded";
    emit(std::move(r));
  };

  if (selected("point-read")) {
    std::vector<Client> clients;
    for (int c = 0; data_loaded && c < std::max(1, options.connections) - 1; ++c) {
      Client client = Connect(options, &error);
      if (!client) break;
      clients.push_back(std::move(client));
    }
    std::vector<int> widths = {1};
    if (options.connections != 1) widths.push_back(options.connections);
    for (int n : widths) {
      std::string name = "point-read x" + std::to_string(n);
      if (!data_loaded) {
        not_loaded(name.c_str());
        continue;
      }
      Result r;
      r.name = name;
      r.unit = "ops/s";
      r.ceiling_unit = "ops/s";
      r.ceiling_what = "ping";
      r.target = 0.8;
      if (static_cast<int>(clients.size()) < n - 1) {
        r.error = "cannot open " + std::to_string(n) + " connections: " + error;
        emit(std::move(r));
        continue;
      }
      std::vector<std::unique_ptr<Op>> find_ops, ping_ops;
      std::vector<Op*> find_raw, ping_raw;
      for (int t = 0; t < n; ++t) {
        mongoc_client_t* client = t == 0 ? main_client.get() : clients[t - 1].get();
        find_ops.push_back(FindByIdOp(client, options, 1000 + 7919ull * t + n));
        ping_ops.push_back(PingOp(client, options));
        find_raw.push_back(find_ops.back().get());
        ping_raw.push_back(ping_ops.back().get());
      }
      Progress(name + ": client and ping, alternating");
      Measured work, ceiling;
      RunPaired(find_raw, ping_raw, options.seconds, &work, &ceiling);
      FromPaired(work, ceiling, true, &r);
      emit(std::move(r));
    }
  }

  if (selected("update")) {
    if (!data_loaded) {
      not_loaded("update");
    } else {
      Result r;
      r.name = "update";
      r.unit = "ops/s";
      r.ceiling_unit = "ops/s";
      r.ceiling_what = "ping";
      std::unique_ptr<Op> inc = IncByIdOp(main_client.get(), options, 4242);
      std::unique_ptr<Op> ping = PingOp(main_client.get(), options);
      Progress("update: client and ping, alternating");
      Measured work, ceiling;
      RunPaired({inc.get()}, {ping.get()}, options.seconds, &work, &ceiling);
      FromPaired(work, ceiling, true, &r);
      emit(std::move(r));
    }
  }

  if (selected("scan")) {
    if (!data_loaded) {
      not_loaded("scan");
    } else {
      Result r;
      r.name = "scan";
      r.unit = "docs/s";
      r.ceiling_unit = "docs/s";
      r.ceiling_what = "RocksDB iterator";
      r.target = 0.5;
      bool ready = open_store(&error);
      if (ready && !store->loaded()) {
        Progress("loading the ceiling's storage (untimed)");
        ready = store->Load(docs, kInsertBatch, &error) >= 0;
      }
      if (!ready) {
        r.error = "ceiling: " + error;
      } else {
        std::unique_ptr<Op> pass = ScanOp(main_client.get(), options);
        std::unique_ptr<Op> ceiling_pass = store->ScanOp();
        Progress("scan: client and RocksDB iterator, alternating");
        Measured work, ceiling;
        RunPaired({pass.get()}, {ceiling_pass.get()}, options.seconds, &work, &ceiling);
        FromPaired(work, ceiling, false, &r);
        if (!r.error && work.ops > 0 && work.units != work.ops * options.docs) {
          r.error = "scan returned " + std::to_string(work.units / work.ops) +
                    " docs per pass, expected " + std::to_string(options.docs);
        }
      }
      emit(std::move(r));
    }
  }

  if (selected("indexed-read")) {
    if (!data_loaded) {
      not_loaded("indexed-read");
    } else {
      Result r;
      r.name = "indexed-read";
      r.unit = "ops/s";
      r.ceiling_unit = "ops/s";
      r.ceiling_what = "ping";
      r.target = 0.8;
      Progress("indexed-read: building {ts: 1} (untimed)");
      if (!CreateTsIndex(main_client.get(), options, &error)) {
        r.error = "createIndexes: " + error;
      } else {
        std::unique_ptr<Op> find = FindByIndexedFieldOp(main_client.get(), options, docs, 5150);
        std::unique_ptr<Op> ping = PingOp(main_client.get(), options);
        Progress("indexed-read: client and ping, alternating");
        Measured work, ceiling;
        RunPaired({find.get()}, {ping.get()}, options.seconds, &work, &ceiling);
        FromPaired(work, ceiling, true, &r);
      }
      emit(std::move(r));
    }
  }

  for (const Workload& w : kWorkloads) {
    if (w.needs && selected(w.name)) {
      Result r;
      r.name = w.name;
      r.skipped = std::string("needs ") + w.needs;
      emit(std::move(r));
    }
  }

  Progress("done");
  if (!DropDatabase(main_client.get(), options, &error)) {
    std::cerr << "bench: dropDatabase at the end: " << error << "\n";
    failed = true;
  }
  std::cout << "load " << LoadAverage() << " at the end\n";
  if (!options.json_path.empty() && !WriteJson(options.json_path, results, context)) {
    std::cerr << "bench: cannot write " << options.json_path << "\n";
    failed = true;
  }
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace cairn::bench

int main(int argc, char** argv) {
  cairn::bench::Options options;
  int exit_code = 0;
  if (!cairn::bench::ParseFlags(argc, argv, &options, &exit_code)) return exit_code;
  // The client must cost little CPU. libmongoc reads every reply into a freshly allocated
  // buffer (up to 16 MiB for a getMore) and frees it; with glibc's default thresholds each such
  // buffer is a new mmap or a heap grow-then-trim, so the client spent most of a scan in page
  // faults (measured 280-360 ns of client CPU per document; 80 ns with these settings). Keep
  // freed memory for reuse instead. This tunes only the benchmark's own process.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mongoc_init();
  int rc = cairn::bench::Run(options);
  mongoc_cleanup();
  return rc;
}
