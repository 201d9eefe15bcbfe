// libcairn's C API (server/embedded/cairn.h) as an application uses it: only the public header
// and libbson, linked against libcairn.so. Opening :memory: and a directory, commands and their
// error replies, cursors across calls, concurrent callers, serving the wire protocol, close.
#include <bson/bson.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cairn.h"
#include "cairn.hpp"

namespace {

// An owned bson_t* (std::unique_ptr<bson_t> would drop bson_t's alignment attribute).
class Doc {
 public:
  explicit Doc(bson_t* doc) : doc_(doc) {}
  Doc(Doc&& other) noexcept : doc_(other.doc_) { other.doc_ = nullptr; }
  Doc(const Doc&) = delete;
  Doc& operator=(const Doc&) = delete;
  ~Doc() {
    if (doc_) bson_destroy(doc_);
  }
  bson_t* get() const { return doc_; }
  bson_t* operator->() const { return doc_; }
  bool operator==(std::nullptr_t) const { return doc_ == nullptr; }

 private:
  bson_t* doc_;
};

Doc FromJson(const std::string& json) {
  bson_error_t error;
  bson_t* doc = bson_new_from_json(reinterpret_cast<const uint8_t*>(json.data()),
                                   static_cast<ssize_t>(json.size()), &error);
  EXPECT_FALSE(doc == nullptr) << error.message << ": " << json;
  return Doc(doc);
}

// Runs `command` (BSON bytes) and returns the reply as an owned document.
Doc RunBytes(cairn_db* db, const char* dbname, const uint8_t* bytes, size_t len) {
  uint8_t* reply = nullptr;
  size_t reply_len = 0;
  EXPECT_EQ(cairn_command(db, dbname, bytes, len, &reply, &reply_len), CAIRN_OK);
  Doc doc(bson_new_from_data(reply, reply_len));
  EXPECT_FALSE(doc == nullptr) << "the reply is not one BSON document";
  cairn_free(reply);
  return doc;
}

Doc Command(cairn_db* db, const char* dbname, const std::string& json) {
  Doc command = FromJson(json);
  return RunBytes(db, dbname, bson_get_data(command.get()), command->len);
}

double Number(const bson_t* doc, const char* path) {
  bson_iter_t it, found;
  if (!bson_iter_init(&it, doc) || !bson_iter_find_descendant(&it, path, &found)) return -1;
  return bson_iter_as_double(&found);
}

int64_t CursorId(const bson_t* reply) {
  bson_iter_t it, found;
  if (!bson_iter_init(&it, reply) || !bson_iter_find_descendant(&it, "cursor.id", &found)) {
    return -1;
  }
  return bson_iter_as_int64(&found);
}

uint32_t BatchLength(const bson_t* reply, const char* which) {
  bson_iter_t it, found, batch;
  const std::string path = std::string("cursor.") + which;
  if (!bson_iter_init(&it, reply) || !bson_iter_find_descendant(&it, path.c_str(), &found) ||
      !bson_iter_recurse(&found, &batch)) {
    return 0;
  }
  uint32_t n = 0;
  while (bson_iter_next(&batch)) ++n;
  return n;
}

std::string Json(const bson_t* doc) {
  char* json = bson_as_relaxed_extended_json(doc, nullptr);
  std::string out = json ? json : "<invalid>";
  bson_free(json);
  return out;
}

class Memory : public ::testing::Test {
 protected:
  void SetUp() override {
    char* error = nullptr;
    ASSERT_EQ(cairn_open(":memory:", nullptr, &db_, &error), CAIRN_OK) << error;
  }
  void TearDown() override { cairn_close(db_); }
  cairn_db* db_ = nullptr;
};

TEST_F(Memory, InsertThenFindWithGetMoreAcrossCalls) {
  std::string documents;
  for (int i = 0; i < 10; ++i) {
    documents += (i ? "," : "") + std::string("{\"_id\":") + std::to_string(i) + "}";
  }
  Doc inserted = Command(db_, "app", R"({"insert":"things","documents":[)" + documents + "]}");
  EXPECT_EQ(Number(inserted.get(), "n"), 10) << Json(inserted.get());

  Doc first = Command(db_, "app", R"({"find":"things","sort":{"_id":1},"batchSize":3})");
  EXPECT_EQ(Number(first.get(), "ok"), 1) << Json(first.get());
  EXPECT_EQ(BatchLength(first.get(), "firstBatch"), 3u);
  const int64_t id = CursorId(first.get());
  ASSERT_GT(id, 0);
  uint32_t seen = 3;
  int64_t cursor = id;
  while (cursor != 0) {
    Doc more = Command(db_, "app",
                       R"({"getMore":{"$numberLong":")" + std::to_string(cursor) +
                           R"("},"collection":"things","batchSize":4})");
    ASSERT_EQ(Number(more.get(), "ok"), 1) << Json(more.get());
    seen += BatchLength(more.get(), "nextBatch");
    cursor = CursorId(more.get());
  }
  EXPECT_EQ(seen, 10u);
}

TEST_F(Memory, DbFromTheDocument) {
  Doc reply = Command(db_, nullptr, R"({"ping":1,"$db":"admin"})");
  EXPECT_EQ(Number(reply.get(), "ok"), 1) << Json(reply.get());
  Doc missing = Command(db_, nullptr, R"({"ping":1})");
  EXPECT_EQ(Number(missing.get(), "ok"), 0);
  EXPECT_EQ(Number(missing.get(), "code"), 40571) << Json(missing.get());
}

TEST_F(Memory, UnknownCommandIsMongoDbsErrorReply) {
  Doc reply = Command(db_, "app", R"({"noSuchCommand":1})");
  EXPECT_EQ(Number(reply.get(), "ok"), 0);
  EXPECT_EQ(Number(reply.get(), "code"), 59) << Json(reply.get());
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, reply.get(), "codeName"));
  EXPECT_STREQ(bson_iter_utf8(&it, nullptr), "CommandNotFound");
}

TEST_F(Memory, OversizeDocumentIsRefusedAsOnTheWire) {
  // A 17 MiB string: the document is over MongoDB's 16 MiB limit.
  const std::string big(17u << 20, 'x');
  Doc command(bson_new());
  BSON_APPEND_UTF8(command.get(), "insert", "things");
  bson_t documents, document;
  BSON_APPEND_ARRAY_BEGIN(command.get(), "documents", &documents);
  BSON_APPEND_DOCUMENT_BEGIN(&documents, "0", &document);
  BSON_APPEND_UTF8(&document, "big", big.c_str());
  bson_append_document_end(&documents, &document);
  bson_append_array_end(command.get(), &documents);
  Doc reply = RunBytes(db_, "app", bson_get_data(command.get()), command->len);
  EXPECT_EQ(Number(reply.get(), "ok"), 0) << Json(reply.get());
  EXPECT_EQ(Number(reply.get(), "code"), 10334) << Json(reply.get());  // BSONObjectTooLarge
  Doc count = Command(db_, "app", R"({"count":"things"})");
  EXPECT_EQ(Number(count.get(), "n"), 0);
}

TEST_F(Memory, MalformedBsonIsAnErrorReply) {
  const uint8_t garbage[] = {12, 0, 0, 0, 16, 'a', 0, 1, 0, 0, 0, 7};  // bad terminator
  Doc reply = RunBytes(db_, "app", garbage, sizeof garbage);
  EXPECT_EQ(Number(reply.get(), "ok"), 0) << Json(reply.get());
  EXPECT_GT(Number(reply.get(), "code"), 0);
}

TEST_F(Memory, ConcurrentCallersFromManyThreads) {
  constexpr int kThreads = 8;
  constexpr int kEach = 150;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        Doc reply = Command(db_, "app",
                            R"({"insert":"shared","documents":[{"t":)" + std::to_string(t) +
                                R"(,"i":)" + std::to_string(i) + "}]}");
        if (Number(reply.get(), "n") != 1) ++failures;
        Doc found = Command(
            db_, "app",
            R"({"find":"shared","filter":{"t":)" + std::to_string(t) + R"(},"batchSize":2})");
        if (Number(found.get(), "ok") != 1) ++failures;
        const int64_t cursor = CursorId(found.get());
        if (cursor > 0) {
          Doc killed = Command(db_, "app",
                               R"({"killCursors":"shared","cursors":[{"$numberLong":")" +
                                   std::to_string(cursor) + R"("}]})");
          if (Number(killed.get(), "ok") != 1) ++failures;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  Doc count = Command(db_, "app", R"({"count":"shared"})");
  EXPECT_EQ(Number(count.get(), "n"), kThreads * kEach);
}

TEST_F(Memory, ServeOnAnEphemeralPortAndAUnixSocket) {
  char* uri = nullptr;
  char* error = nullptr;
  ASSERT_EQ(cairn_serve(db_, "127.0.0.1", 0, &uri, &error), CAIRN_OK) << error;
  const std::string tcp = uri;
  cairn_free(uri);
  EXPECT_EQ(tcp.rfind("mongodb://127.0.0.1:", 0), 0u) << tcp;
  EXPECT_EQ(tcp.find(":0/"), std::string::npos) << tcp;

  const std::string path = (std::filesystem::temp_directory_path() /
                            ("cairn-test-" + std::to_string(getpid()) + ".sock"))
                               .string();
  ASSERT_EQ(cairn_serve(db_, path.c_str(), 0, &uri, &error), CAIRN_OK) << error;
  const std::string local = uri;
  cairn_free(uri);
  EXPECT_NE(local.find("%2F"), std::string::npos) << local;
  EXPECT_TRUE(std::filesystem::exists(path));
  cairn_close(db_);
  db_ = nullptr;
  EXPECT_FALSE(std::filesystem::exists(path));  // removed at shutdown, as cairnd removes it
}

TEST_F(Memory, ServeLeavesAFileThatIsNoSocketAlone) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("cairn-not-a-socket-" + std::to_string(getpid()));
  FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fputs("keep me", file);
  std::fclose(file);
  char* uri = nullptr;
  char* error = nullptr;
  EXPECT_EQ(cairn_serve(db_, path.c_str(), 0, &uri, &error), CAIRN_ERROR);
  EXPECT_EQ(uri, nullptr);
  ASSERT_NE(error, nullptr);
  cairn_free(error);
  EXPECT_TRUE(std::filesystem::is_regular_file(path));
  std::filesystem::remove(path);
}

TEST_F(Memory, ShutdownCommandStopsTheDatabase) {
  Doc reply = Command(db_, "admin", R"({"shutdown":1})");
  EXPECT_EQ(Number(reply.get(), "ok"), 0);  // the connection ended: no reply
  // The server stops on its own thread; then every command answers ShutdownInProgress.
  for (int i = 0; i < 200; ++i) {
    Doc ping = Command(db_, "admin", R"({"ping":1})");
    if (Number(ping.get(), "code") == 91) return;
    usleep(10'000);
  }
  ADD_FAILURE() << "commands still run after shutdown";
}

TEST(Open, BadOptionsAreRefused) {
  cairn_db* db = nullptr;
  char* error = nullptr;
  EXPECT_EQ(cairn_open(":memory:", R"({"port": 1234})", &db, &error), CAIRN_ERROR);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("port"), std::string::npos) << error;
  cairn_free(error);
  error = nullptr;
  EXPECT_EQ(cairn_open(":memory:", R"({"setParameter": {"noSuchParameter": 1}})", &db, &error),
            CAIRN_ERROR);
  ASSERT_NE(error, nullptr);
  cairn_free(error);
  EXPECT_EQ(cairn_open(":memory:", "not json", &db, nullptr), CAIRN_ERROR);
  EXPECT_EQ(db, nullptr);
}

TEST(Open, OptionsReachTheServer) {
  cairn_db* db = nullptr;
  char* error = nullptr;
  ASSERT_EQ(cairn_open(":memory:", R"({"setParameter": {"enableTestCommands": 1}})", &db, &error),
            CAIRN_OK)
      << error;
  Doc reply = Command(db, "admin", R"({"getParameter":1,"enableTestCommands":1})");
  EXPECT_EQ(Number(reply.get(), "enableTestCommands"), 1) << Json(reply.get());
  cairn_close(db);
}

TEST(Open, MisuseIsReported) {
  uint8_t* reply = nullptr;
  size_t len = 0;
  const uint8_t empty[] = {5, 0, 0, 0, 0};
  EXPECT_EQ(cairn_command(nullptr, "x", empty, sizeof empty, &reply, &len), CAIRN_MISUSE);
  EXPECT_EQ(cairn_open(nullptr, nullptr, nullptr, nullptr), CAIRN_MISUSE);
  cairn_close(nullptr);
  cairn_free(nullptr);
  EXPECT_STRNE(cairn_version(), "");
}

TEST(Open, DirectoryKeepsDataAcrossCloseAndReopen) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("cairn-embedded-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  {
    std::string error;
    cairn::Database db = cairn::Database::Open(dir.string(), "", &error);
    ASSERT_TRUE(db) << error;
    Doc reply = Command(db.get(), "app", R"({"insert":"kept","documents":[{"_id":1,"v":"x"}]})");
    EXPECT_EQ(Number(reply.get(), "n"), 1) << Json(reply.get());
  }  // closed: RocksDB flushed and closed
  EXPECT_TRUE(std::filesystem::exists(dir));
  {
    std::string error;
    cairn::Database db = cairn::Database::Open(dir.string(), "", &error);
    ASSERT_TRUE(db) << error;
    Doc reply = Command(db.get(), "app", R"({"count":"kept"})");
    EXPECT_EQ(Number(reply.get(), "n"), 1) << Json(reply.get());
  }
  std::filesystem::remove_all(dir);
}

TEST(Open, CppWrapperRunsCommands) {
  std::string error;
  cairn::Database db = cairn::Database::Open(":memory:", "", &error);
  ASSERT_TRUE(db) << error;
  Doc ping = FromJson(R"({"ping":1})");
  cairn::Reply reply = db.Command("admin", bson_get_data(ping.get()), ping->len);
  ASSERT_FALSE(reply.empty());
  bson_t doc;
  ASSERT_TRUE(bson_init_static(&doc, reply.data(), reply.size()));
  EXPECT_EQ(Number(&doc, "ok"), 1);
  const std::string uri = db.Serve();
  EXPECT_EQ(uri.rfind("mongodb://127.0.0.1:", 0), 0u) << uri;
  std::string serve_error;
  EXPECT_EQ(db.Serve("256.0.0.1", 0, &serve_error), "");
  EXPECT_FALSE(serve_error.empty());
}

}  // namespace
