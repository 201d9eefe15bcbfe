// embedded_latency: libcairn's figures (issue 18). The time from cairn_open(":memory:") to the
// first command's reply, as an application or a test fixture sees it; then the latency of the
// same commands (ping, and a find by _id on a 1,000-document collection) called in process with
// cairn_command against over the in-process wire server with libmongoc, on loopback TCP and on
// a unix socket. Every side runs the identical command document, alternating rounds so noise
// on the shared machine hits all of them alike.
//
//   embedded_latency [--opens 50] [--ops 20000]
#include <bson/bson.h>
#include <mongoc/mongoc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cairn.h"
#include "tools/bench/stats.h"

namespace {

using Clock = std::chrono::steady_clock;
using cairn::bench::PercentileUs;

int64_t Nanos(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(to - from).count();
}

bool Ok(const uint8_t* data, size_t len) {
  bson_t doc;
  bson_iter_t it;
  return bson_init_static(&doc, data, len) && bson_iter_init_find(&it, &doc, "ok") &&
         bson_iter_as_double(&it) == 1.0;
}

// One in-process call; false when the reply is not ok: 1.
bool Direct(cairn_db* db, const char* dbname, const bson_t* command) {
  uint8_t* reply = nullptr;
  size_t len = 0;
  const bool ok =
      cairn_command(db, dbname, bson_get_data(command), command->len, &reply, &len) == CAIRN_OK &&
      Ok(reply, len);
  cairn_free(reply);
  return ok;
}

bool OverWire(mongoc_client_t* client, const char* dbname, const bson_t* command) {
  bson_t reply;
  bson_error_t error;
  const bool ok = mongoc_client_command_simple(client, dbname, command, nullptr, &reply, &error);
  if (!ok) std::fprintf(stderr, "wire: %s\n", error.message);
  bson_destroy(&reply);
  return ok;
}

void Print(const char* what, std::vector<int64_t>& samples) {
  std::sort(samples.begin(), samples.end());
  std::printf("  %-34s median %8.1f us   p90 %8.1f us   p99 %8.1f us   (n=%zu)\n", what,
              PercentileUs(samples, 0.5), PercentileUs(samples, 0.9), PercentileUs(samples, 0.99),
              samples.size());
}

// Open to first reply: cairn_open(":memory:") then ping; closing is not counted.
int MeasureOpen(int opens) {
  bson_t* ping = BCON_NEW("ping", BCON_INT32(1));
  std::vector<int64_t> open_ns, first_ns;
  for (int i = 0; i < opens; ++i) {
    cairn_db* db = nullptr;
    char* error = nullptr;
    const Clock::time_point start = Clock::now();
    if (cairn_open(":memory:", nullptr, &db, &error) != CAIRN_OK) {
      std::fprintf(stderr, "cairn_open: %s\n", error);
      return 1;
    }
    const Clock::time_point opened = Clock::now();
    if (!Direct(db, "admin", ping)) return 1;
    const Clock::time_point answered = Clock::now();
    open_ns.push_back(Nanos(start, opened));
    first_ns.push_back(Nanos(start, answered));
    cairn_close(db);
  }
  bson_destroy(ping);
  std::printf("open :memory: (%d opens)\n", opens);
  Print("cairn_open", open_ns);
  Print("cairn_open + first ping reply", first_ns);
  return 0;
}

int MeasureLatency(int ops) {
  cairn_db* db = nullptr;
  char* error = nullptr;
  if (cairn_open(":memory:", nullptr, &db, &error) != CAIRN_OK) {
    std::fprintf(stderr, "cairn_open: %s\n", error);
    return 1;
  }
  constexpr int kDocuments = 1000;
  bson_t insert = BSON_INITIALIZER;
  bson_t documents;
  BSON_APPEND_UTF8(&insert, "insert", "items");
  BSON_APPEND_ARRAY_BEGIN(&insert, "documents", &documents);
  for (int i = 0; i < kDocuments; ++i) {
    const std::string key = std::to_string(i);
    bson_t doc;
    BSON_APPEND_DOCUMENT_BEGIN(&documents, key.c_str(), &doc);
    BSON_APPEND_INT32(&doc, "_id", i);
    BSON_APPEND_UTF8(&doc, "name", ("item " + key).c_str());
    BSON_APPEND_INT32(&doc, "qty", i % 17);
    bson_append_document_end(&documents, &doc);
  }
  bson_append_array_end(&insert, &documents);
  if (!Direct(db, "bench", &insert)) return 1;
  bson_destroy(&insert);

  char* tcp_uri = nullptr;
  char* unix_uri = nullptr;
  const std::string socket_path = "/tmp/cairn-bench-" + std::to_string(getpid()) + ".sock";
  if (cairn_serve(db, "127.0.0.1", 0, &tcp_uri, &error) != CAIRN_OK ||
      cairn_serve(db, socket_path.c_str(), 0, &unix_uri, &error) != CAIRN_OK) {
    std::fprintf(stderr, "cairn_serve: %s\n", error);
    return 1;
  }
  mongoc_init();
  mongoc_client_t* tcp = mongoc_client_new(tcp_uri);
  mongoc_client_t* local = mongoc_client_new(unix_uri);
  std::printf("served on %s and %s\n", tcp_uri, unix_uri);

  bson_t* ping = BCON_NEW("ping", BCON_INT32(1));
  bson_t* find = BCON_NEW("find", BCON_UTF8("items"), "filter", "{", "_id", BCON_INT32(0), "}",
                          "limit", BCON_INT32(1), "singleBatch", BCON_BOOL(true));
  bson_iter_t key;
  bson_iter_init(&key, find);
  bson_iter_find_descendant(&key, "filter._id", &key);

  struct Side {
    const char* name;
    mongoc_client_t* client;  // null: in process
    std::vector<int64_t> ping_ns = {};
    std::vector<int64_t> find_ns = {};
  };
  auto call = [db](const Side& side, const char* dbname, const bson_t* command) {
    return side.client ? OverWire(side.client, dbname, command) : Direct(db, dbname, command);
  };
  std::vector<Side> sides = {{"in process (cairn_command)", nullptr},
                             {"loopback TCP (libmongoc)", tcp},
                             {"unix socket (libmongoc)", local}};
  constexpr int kRounds = 10;
  const int per_round = std::max(1, ops / kRounds);
  for (Side& side : sides) {  // warm-up: connections, handshakes, caches
    for (int i = 0; i < 200; ++i) {
      if (!call(side, "admin", ping) || !call(side, "bench", find)) return 1;
    }
  }
  for (int round = 0; round < kRounds; ++round) {
    for (Side& side : sides) {
      for (int i = 0; i < per_round; ++i) {
        Clock::time_point start = Clock::now();
        if (!call(side, "admin", ping)) return 1;
        side.ping_ns.push_back(Nanos(start, Clock::now()));
        bson_iter_overwrite_int32(&key, i % kDocuments);
        start = Clock::now();
        if (!call(side, "bench", find)) return 1;
        side.find_ns.push_back(Nanos(start, Clock::now()));
      }
    }
  }
  std::printf("latency, one caller (%d of each command per side)\n", per_round * kRounds);
  for (Side& side : sides) {
    std::printf(" %s\n", side.name);
    Print("ping", side.ping_ns);
    Print("find by _id (1,000 documents)", side.find_ns);
  }
  bson_destroy(ping);
  bson_destroy(find);
  mongoc_client_destroy(tcp);
  mongoc_client_destroy(local);
  mongoc_cleanup();
  cairn_free(tcp_uri);
  cairn_free(unix_uri);
  cairn_close(db);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int opens = 50;
  int ops = 20000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--opens") == 0) {
      opens = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--ops") == 0) {
      ops = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: embedded_latency [--opens 50] [--ops 20000]\n");
      return 2;
    }
  }
  std::printf("libcairn %s\n", cairn_version());
  if (int rc = MeasureOpen(opens); rc != 0) return rc;
  return MeasureLatency(ops);
}
