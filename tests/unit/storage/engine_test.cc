// Engine: opening and locking, RecordId allocation, sizes, and durability of committed write
// units across kill -9.
#include "storage/engine.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <thread>

#include "storage_test_util.h"

namespace cairn::storage {
namespace {

using testing::Doc;
using testing::IdOf;
using testing::InsertDocs;
using testing::OpenOrDie;
using testing::SmallOptions;
using testing::TempDir;

Prefix Create(Engine& engine, std::string_view ns) {
  auto r = engine.catalog().CreateCollection(ns, BsonView());
  EXPECT_TRUE(r.ok());
  return r.ok() ? (*r)->prefix : 0;
}

TEST(Engine, ShouldCreateADatabaseAndReopenIt) {
  TempDir dir;
  {
    auto engine = OpenOrDie(dir.db());
    Create(*engine, "db.c");
  }
  auto engine = OpenOrDie(dir.db());
  EXPECT_NE(engine->catalog().Find("db.c"), nullptr);
}

TEST(Engine, ShouldFailWithInternalErrorWhenAnotherEngineHasTheDatabaseOpen) {
  TempDir dir;
  auto first = OpenOrDie(dir.db());
  auto second = Engine::Open(SmallOptions(dir.db()));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), ErrorCode::kInternalError);
  std::string reason = second.status().reason();
  std::transform(reason.begin(), reason.end(), reason.begin(), ::tolower);
  EXPECT_NE(reason.find("lock"), std::string::npos) << second.status().reason();
  first.reset();
  EXPECT_TRUE(Engine::Open(SmallOptions(dir.db())).ok());
}

TEST(Engine, ShouldFailWithInternalErrorWhenTheDatabaseIsMissingAndNotToBeCreated) {
  TempDir dir;
  StorageOptions o = SmallOptions(dir.db());
  o.create_if_missing = false;
  auto r = Engine::Open(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInternalError);
  EXPECT_EQ(Engine::Open(SmallOptions("")).status().code(), ErrorCode::kInternalError);
}

TEST(Engine, ShouldHandOutIncreasingRecordIdsStartingAtOne) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  Prefix p = Create(*engine, "db.c");
  Prefix q = Create(*engine, "db.d");
  EXPECT_EQ(engine->NextRecordId(p), 1);
  EXPECT_EQ(engine->NextRecordId(p), 2);
  EXPECT_EQ(engine->NextRecordId(q), 1);  // per collection
  EXPECT_EQ(engine->NextRecordId(p), 3);
}

TEST(Engine, ShouldSeedRecordIdsAboveTheLargestStoredAfterReopen) {
  TempDir dir;
  Prefix a, b;
  {
    auto engine = OpenOrDie(dir.db());
    a = Create(*engine, "db.a");
    b = Create(*engine, "db.b");  // the next prefix: its ids must not leak into a's seed
    InsertDocs(*engine, a, 1, 10);
    WriteUnit unit = engine->BeginWrite();
    unit.PutRecord(a, 1000, Doc(1000).view());
    unit.PutRecord(b, 5000, Doc(5000).view());
    ASSERT_TRUE(unit.Commit().ok());
  }
  auto engine = OpenOrDie(dir.db());
  EXPECT_EQ(engine->NextRecordId(a), 1001);
  EXPECT_EQ(engine->NextRecordId(b), 5001);
  Prefix empty = Create(*engine, "db.empty");
  EXPECT_EQ(engine->NextRecordId(empty), 1);
}

TEST(Engine, ShouldNeverHandOutTheSameRecordIdTwiceUnderConcurrency) {
  TempDir dir;
  Prefix p;
  {
    auto engine = OpenOrDie(dir.db());
    p = Create(*engine, "db.c");
    InsertDocs(*engine, p, 1, 100);
  }
  auto engine = OpenOrDie(dir.db());  // the threads race to seed the allocator too
  constexpr int kThreads = 4, kPerThread = 20000;
  std::vector<std::vector<RecordId>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) got[t].push_back(engine->NextRecordId(p));
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<RecordId> all;
  for (const auto& ids : got) {
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
    all.insert(ids.begin(), ids.end());
  }
  EXPECT_EQ(all.size(), static_cast<size_t>(kThreads * kPerThread));
  EXPECT_EQ(*all.begin(), 101);
  EXPECT_EQ(*all.rbegin(), 100 + kThreads * kPerThread);
}

TEST(Engine, ShouldApproximateTheSizeOfACollectionAndItsIndexes) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  auto big = engine->catalog().CreateCollection("db.big", BsonView());
  auto small = engine->catalog().CreateCollection("db.small", BsonView());
  ASSERT_TRUE(big.ok() && small.ok());
  Prefix p = (*big)->prefix, ip = (*big)->indexes[0].prefix;
  for (int batch = 0; batch < 10; ++batch) {
    WriteUnit unit = engine->BeginWrite();
    for (int i = 0; i < 1000; ++i) {
      RecordId id = engine->NextRecordId(p);
      unit.PutRecord(p, id, Doc(id, 200).view());
      unit.PutIndexEntry(ip, EncodeRecordId(id * 7919), EncodeRecordId(id));
    }
    ASSERT_TRUE(unit.Commit().ok());
  }
  uint64_t in_memtable = engine->ApproximateSize(p, {ip});
  EXPECT_GT(in_memtable, 0u);
  ASSERT_TRUE(engine->Flush().ok());
  uint64_t docs_only = engine->ApproximateSize(p, {});
  uint64_t with_index = engine->ApproximateSize(p, {ip});
  EXPECT_GT(docs_only, 100u * 1000);  // 2 MB of documents, compressed
  EXPECT_GT(with_index, docs_only);
  EXPECT_LT(engine->ApproximateSize((*small)->prefix, {(*small)->indexes[0].prefix}),
            docs_only / 10);
}

// Runs in the forked child: commits units of three documents forever, writing "done" to `fd`
// once `units` have committed. Never returns.
[[noreturn]] void CrashChild(const std::string& path, int units, int fd) {
  StorageOptions o = SmallOptions(path);
  o.sync_writes = false;
  auto r = Engine::Open(o);
  if (!r.ok()) _exit(2);
  std::unique_ptr<Engine> engine = std::move(r).value();
  auto c = engine->catalog().CreateCollection("db.crash", BsonView());
  if (!c.ok()) _exit(3);
  Prefix p = (*c)->prefix;
  int64_t doc_id = 0;
  for (int u = 0;; ++u) {
    WriteUnit unit = engine->BeginWrite();
    for (int k = 0; k < 3; ++k) {
      BsonDoc d = Doc(doc_id, static_cast<size_t>(doc_id % 97));
      ++doc_id;
      unit.PutRecord(p, engine->NextRecordId(p), d.view());
      unit.AdjustCounts(p, 1, static_cast<int64_t>(d.view().size()));
    }
    if (!unit.Commit().ok()) _exit(4);
    if (u + 1 == units) {
      if (write(fd, "done", 4) != 4) _exit(5);
    }
  }
}

TEST(EngineDurability, ShouldKeepEveryCommittedWriteUnitAfterKill9) {
  TempDir dir;
  constexpr int kUnits = 2000;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    CrashChild(dir.db(), kUnits, fds[1]);
  }
  close(fds[1]);
  char buf[4] = {};
  size_t got = 0;
  while (got < sizeof buf) {
    pollfd pfd{fds[0], POLLIN, 0};
    if (poll(&pfd, 1, 120'000) <= 0) break;
    ssize_t n = read(fds[0], buf + got, sizeof buf - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(fds[0]);
  kill(pid, SIGKILL);
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  ASSERT_EQ(std::string(buf, got), "done") << "child exit status " << wstatus;
  ASSERT_TRUE(WIFSIGNALED(wstatus));
  EXPECT_EQ(WTERMSIG(wstatus), SIGKILL);

  auto engine = OpenOrDie(dir.db());
  CollectionHandle c = engine->catalog().Find("db.crash");
  ASSERT_NE(c, nullptr);
  int64_t n = 0, bytes = 0;
  auto cursor = engine->ScanRecords(c->prefix);
  while (cursor->Next()) {
    EXPECT_EQ(IdOf(cursor->value()), n);  // no gaps: units apply in order, whole
    EXPECT_EQ(cursor->id(), n + 1);
    bytes += static_cast<int64_t>(cursor->value().size());
    ++n;
  }
  ASSERT_TRUE(cursor->status().ok());
  EXPECT_GE(n, 3 * kUnits);
  EXPECT_EQ(n % 3, 0);  // only whole units
  EXPECT_EQ(engine->RecordCount(c->prefix), n);
  EXPECT_EQ(engine->DataSize(c->prefix), bytes);
  EXPECT_EQ(engine->NextRecordId(c->prefix), n + 1);
}

}  // namespace
}  // namespace cairn::storage
