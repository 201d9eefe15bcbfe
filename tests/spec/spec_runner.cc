// The in-process spec runner (tests/spec/README.md): every tests/spec/<dir>/<name>.json is one
// GoogleTest test, suite <dir> and name <name> (CTest: spec.<dir>.<name>). A file runs against
// its own ServerState over a fresh RocksDB directory; its commands go through the dispatcher's
// RunCommand on one ConnectionInfo, as a connection's would, with no socket. Before each of its
// tests the databases the file names are dropped and its initialData is written again.
//
// The files are read from CAIRN_SPEC_DIR when set, else from the source tree; the list of tests
// is taken when the binary is built (a new file is picked up by the next build).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/logging.h"
#include "server/command.h"
#include "server/net/dispatcher.h"
#include "server/server_state.h"
#include "tests/spec/spec_json.h"
#include "tests/spec/spec_match.h"
#include "tests/unit/storage/storage_test_util.h"
#include "wire/message.h"
#include "wire/reply_buffer.h"

namespace cairn::spec {
namespace {

namespace fs = std::filesystem;

std::string SpecDirectory() {
  if (const char* dir = std::getenv("CAIRN_SPEC_DIR"); dir != nullptr && *dir != '\0') return dir;
  return CAIRN_SPEC_SOURCE_DIR;
}

// Spec file and folder names become CTest and gtest filter names: letters, digits, '_'.
bool ValidName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string Json(BsonView doc) { return doc.ToJson(); }

// A field's value, or false when absent.
bool Field(BsonView doc, std::string_view key, bson_iter_t* it) { return doc.Find(key, it); }

// The fields of `doc` not in `allowed` (typos in a spec file fail it, they are not ignored).
std::string UnknownFields(BsonView doc, std::initializer_list<std::string_view> allowed,
                          const std::string& where) {
  bson_iter_t it;
  doc.Init(&it);
  std::string unknown;
  while (bson_iter_next(&it)) {
    if (std::find(allowed.begin(), allowed.end(), IterKey(&it)) == allowed.end()) {
      unknown += (unknown.empty() ? "" : ", ") + std::string(IterKey(&it));
    }
  }
  return unknown.empty() ? "" : where + ": unknown field(s) " + unknown;
}

bool IsOk(BsonView reply) {
  bson_iter_t it;
  double ok = 0;
  return reply.Find("ok", &it) && IterAsDouble(&it, &ok) && ok == 1;
}

// ok: 1 with no writeErrors and no writeConcernError: what setup commands must answer.
bool Succeeded(BsonView reply) {
  bson_iter_t it;
  return IsOk(reply) && !reply.Find("writeErrors", &it) && !reply.Find("writeConcernError", &it);
}

// A fresh directory for one file's RocksDB, removed afterwards: under /dev/shm when there is one
// (RocksDB syncs its files as it opens and closes: on a disk that was most of a file's time).
class ScratchDir {
 public:
  ScratchDir() {
    std::error_code ec;
    std::string base = fs::is_directory("/dev/shm", ec) && access("/dev/shm", W_OK) == 0
                           ? "/dev/shm"
                           : fs::temp_directory_path(ec).string();
    std::string templ = base + "/cairn-spec-XXXXXX";
    if (mkdtemp(templ.data()) != nullptr) path_ = templ;
    EXPECT_FALSE(path_.empty()) << "cannot make a directory under " << base;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  std::string db() const { return path_ + "/db"; }

 private:
  std::string path_;
};

class SpecFileRunner {
 public:
  explicit SpecFileRunner(std::string path) : path_(std::move(path)) {}

  void Run() {
    std::ifstream in(path_, std::ios::binary);
    if (!in) {
      ADD_FAILURE() << path_ << ": cannot read";
      return;
    }
    std::stringstream text;
    text << in.rdbuf();
    std::string json = text.str();
    std::string error;
    if (!ParseSpecJson(json, &spec_, &error)) {
      ADD_FAILURE() << path_ << ": " << error;
      return;
    }
    if (std::string problem = CheckFile(); !problem.empty()) {
      ADD_FAILURE() << path_ << ": " << problem;
      return;
    }

    server::ServerOptions options;
    options.dbpath = dir_.path();
    state_ = std::make_unique<server::ServerState>(options, storage::testing::OpenOrDie(dir_.db()));
    connection_.id = state_->NextConnectionId();
    bson_iter_t tests, test;
    Field(spec_.view(), "tests", &tests);
    bson_iter_recurse(&tests, &test);
    while (bson_iter_next(&test)) RunTest(IterDocument(&test));
    connection_ = server::ConnectionInfo();  // its OpRegistry entry goes before the state
    state_->cursors().ReapIdle(std::chrono::steady_clock::duration::zero());
    state_->CloseEngine();
    state_.reset();
  }

 private:
  // The structure of the file (README "Format"); "" when it is well-formed.
  std::string CheckFile() {
    BsonView spec = spec_.view();
    if (std::string u = UnknownFields(
            spec, {"description", "comment", "database", "initialData", "tests"}, "file");
        !u.empty()) {
      return u;
    }
    bson_iter_t it;
    if (!Field(spec, "description", &it) || !BSON_ITER_HOLDS_UTF8(&it)) {
      return "\"description\" (a string) is required";
    }
    if (!Field(spec, "database", &it) || !BSON_ITER_HOLDS_UTF8(&it)) {
      return "\"database\" (a string) is required";
    }
    database_ = std::string(IterUtf8(&it));
    AddDatabase(database_);
    if (Field(spec, "initialData", &it)) {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) return "\"initialData\" must be an array";
      bson_iter_t entry;
      bson_iter_recurse(&it, &entry);
      while (bson_iter_next(&entry)) {
        if (!BSON_ITER_HOLDS_DOCUMENT(&entry)) return "initialData entries are documents";
        BsonView e = IterDocument(&entry);
        if (std::string u = UnknownFields(
                e, {"collection", "database", "documents", "createOptions", "createIndexes"},
                "initialData entry");
            !u.empty()) {
          return u;
        }
        bson_iter_t f;
        if (!Field(e, "collection", &f) || !BSON_ITER_HOLDS_UTF8(&f)) {
          return "an initialData entry needs \"collection\" (a string)";
        }
        if ((Field(e, "documents", &f) && !BSON_ITER_HOLDS_ARRAY(&f)) ||
            (Field(e, "createIndexes", &f) && !BSON_ITER_HOLDS_ARRAY(&f)) ||
            (Field(e, "createOptions", &f) && !BSON_ITER_HOLDS_DOCUMENT(&f))) {
          return "initialData: documents and createIndexes are arrays, createOptions a document";
        }
        if (std::string d = AddDatabaseField(e); !d.empty()) return d;
      }
    }
    if (!Field(spec, "tests", &it) || !BSON_ITER_HOLDS_ARRAY(&it)) {
      return "\"tests\" (an array) is required";
    }
    std::set<std::string> names;
    bson_iter_t test;
    bson_iter_recurse(&it, &test);
    while (bson_iter_next(&test)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&test)) return "tests are documents";
      BsonView t = IterDocument(&test);
      bson_iter_t f;
      if (!Field(t, "name", &f) || !BSON_ITER_HOLDS_UTF8(&f)) return "a test without a \"name\"";
      std::string name(IterUtf8(&f));
      if (!names.insert(name).second) return "two tests named \"" + name + "\"";
      if (std::string u = UnknownFields(t,
                                        {"name", "comment", "skipReason", "database", "setup",
                                         "command", "expectResult", "expectError", "outcome"},
                                        "test \"" + name + "\"");
          !u.empty()) {
        return u;
      }
      if (std::string d = AddDatabaseField(t); !d.empty()) return d;
      if (Field(t, "skipReason", &f) && !BSON_ITER_HOLDS_UTF8(&f)) {
        return "test \"" + name + "\": skipReason is a string";
      }
      if (!Field(t, "command", &f) || !BSON_ITER_HOLDS_DOCUMENT(&f) || IterDocument(&f).empty()) {
        return "test \"" + name + "\" needs a \"command\" document";
      }
      bool result = Field(t, "expectResult", &f);
      if (result && !BSON_ITER_HOLDS_DOCUMENT(&f)) {
        return "test \"" + name + "\": expectResult is a document";
      }
      bool error = Field(t, "expectError", &f);
      if (result == error) {
        return "test \"" + name + "\" needs exactly one of expectResult and expectError";
      }
      if (error) {
        if (!BSON_ITER_HOLDS_DOCUMENT(&f) || IterDocument(&f).empty()) {
          return "test \"" + name + "\": expectError is a non-empty document";
        }
        if (std::string u = UnknownFields(
                IterDocument(&f), {"code", "codeName", "errmsg", "errmsgContains", "errorResponse"},
                "test \"" + name + "\" expectError");
            !u.empty()) {
          return u;
        }
      }
      if (Field(t, "setup", &f) && !BSON_ITER_HOLDS_ARRAY(&f)) {
        return "test \"" + name + "\": setup is an array of commands";
      }
      if (Field(t, "outcome", &f)) {
        if (!BSON_ITER_HOLDS_ARRAY(&f)) return "test \"" + name + "\": outcome is an array";
        bson_iter_t entry;
        bson_iter_recurse(&f, &entry);
        while (bson_iter_next(&entry)) {
          if (!BSON_ITER_HOLDS_DOCUMENT(&entry)) return "outcome entries are documents";
          BsonView e = IterDocument(&entry);
          if (std::string u = UnknownFields(e, {"collection", "database", "documents"},
                                            "test \"" + name + "\" outcome entry");
              !u.empty()) {
            return u;
          }
          bson_iter_t g;
          if (!Field(e, "collection", &g) || !BSON_ITER_HOLDS_UTF8(&g) ||
              !Field(e, "documents", &g) || !BSON_ITER_HOLDS_ARRAY(&g)) {
            return "test \"" + name +
                   "\": an outcome entry needs collection (a string) and documents (an array)";
          }
          if (std::string d = AddDatabaseField(e); !d.empty()) return d;
        }
      }
      // Commands may name another database with $db.
      if (Field(t, "setup", &f)) {
        bson_iter_t command;
        bson_iter_recurse(&f, &command);
        while (bson_iter_next(&command)) {
          if (!BSON_ITER_HOLDS_DOCUMENT(&command)) {
            return "test \"" + name + "\": setup holds command documents";
          }
          AddCommandDatabase(IterDocument(&command));
        }
      }
      Field(t, "command", &f);
      AddCommandDatabase(IterDocument(&f));
    }
    return "";
  }

  void AddDatabase(const std::string& db) {
    if (db == "admin" || db == "config" || db == "local") return;
    if (std::find(databases_.begin(), databases_.end(), db) == databases_.end()) {
      databases_.push_back(db);
    }
  }

  // The `database` field of `doc`, when it has one; "" or what is wrong with it.
  std::string AddDatabaseField(BsonView doc) {
    bson_iter_t it;
    if (!doc.Find("database", &it)) return "";
    if (!BSON_ITER_HOLDS_UTF8(&it)) return "\"database\" is a string";
    AddDatabase(std::string(IterUtf8(&it)));
    return "";
  }

  void AddCommandDatabase(BsonView command) {
    bson_iter_t it;
    if (command.Find("$db", &it) && BSON_ITER_HOLDS_UTF8(&it)) {
      AddDatabase(std::string(IterUtf8(&it)));
    }
  }

  // Runs one command as a connection would: `$db` from the command, else `db`.
  BsonDoc Command(BsonView command, const std::string& db) {
    BsonDoc body;
    std::string target = db;
    bson_iter_t it;
    command.Init(&it);
    while (bson_iter_next(&it)) {
      if (IterKey(&it) == "$db" && BSON_ITER_HOLDS_UTF8(&it)) {
        target = std::string(IterUtf8(&it));
        continue;
      }
      AppendIter(body.get(), IterKey(&it), &it);
    }
    AppendUtf8(body.get(), "$db", target);
    body.view().Init(&it);
    bson_iter_next(&it);
    server::CommandRequest request;
    request.name = IterKey(&it);
    request.db = target;
    request.body = body.view();
    std::vector<wire::DocumentSequence> no_sequences;
    request.sequences = &no_sequences;
    wire::ReplyBuffer out;
    out.Begin(wire::kOpMsgBodyOffset);
    server::RunCommand(*state_, connection_, request, &out);
    out.End();
    return BsonDoc(
        BsonView(out.data() + wire::kOpMsgBodyOffset, out.size() - wire::kOpMsgBodyOffset));
  }

  // Runs a command that must succeed; false (and a failure reported) when it does not.
  bool MustSucceed(BsonView command, const std::string& db, const std::string& what) {
    BsonDoc reply = Command(command, db);
    if (Succeeded(reply.view())) return true;
    ADD_FAILURE() << path_ << ": " << what << " failed\n  command: " << Json(command)
                  << "\n  reply:   " << Json(reply.view());
    return false;
  }

  // Drops the databases the file names, then writes its initialData.
  bool Reset(const std::string& test) {
    for (const std::string& db : databases_) {
      BsonDoc drop = BsonDoc::FromJson(R"({"dropDatabase": 1})");
      if (!MustSucceed(drop.view(), db, "test \"" + test + "\": dropDatabase " + db)) return false;
    }
    bson_iter_t it, entry;
    if (!Field(spec_.view(), "initialData", &it)) return true;
    bson_iter_recurse(&it, &entry);
    while (bson_iter_next(&entry)) {
      BsonView e = IterDocument(&entry);
      bson_iter_t f;
      Field(e, "collection", &f);
      std::string collection(IterUtf8(&f));
      std::string db = Field(e, "database", &f) ? std::string(IterUtf8(&f)) : database_;
      std::string what = "test \"" + test + "\": initialData for " + db + "." + collection;
      bool has_documents = Field(e, "documents", &f) && !IterDocument(&f).empty();
      bool has_options = Field(e, "createOptions", &f);
      bool has_indexes = Field(e, "createIndexes", &f);
      if (has_options || (!has_documents && !has_indexes)) {
        BsonDoc create;
        AppendUtf8(create.get(), "create", collection);
        if (has_options) {
          Field(e, "createOptions", &f);
          bson_iter_t option;
          bson_iter_recurse(&f, &option);
          while (bson_iter_next(&option)) AppendIter(create.get(), IterKey(&option), &option);
        }
        if (!MustSucceed(create.view(), db, what + " (create)")) return false;
      }
      if (has_documents) {
        BsonDoc insert;
        AppendUtf8(insert.get(), "insert", collection);
        Field(e, "documents", &f);
        AppendIter(insert.get(), "documents", &f);
        if (!MustSucceed(insert.view(), db, what + " (insert)")) return false;
      }
      if (has_indexes) {
        BsonDoc create_indexes;
        AppendUtf8(create_indexes.get(), "createIndexes", collection);
        Field(e, "createIndexes", &f);
        AppendIter(create_indexes.get(), "indexes", &f);
        if (!MustSucceed(create_indexes.view(), db, what + " (createIndexes)")) return false;
      }
    }
    return true;
  }

  void RunTest(BsonView test) {
    bson_iter_t f;
    Field(test, "name", &f);
    const std::string name(IterUtf8(&f));
    if (Field(test, "skipReason", &f)) {
      std::printf("[  SKIP    ] %s > %s: %s\n", path_.c_str(), name.c_str(),
                  std::string(IterUtf8(&f)).c_str());
      return;
    }
    const std::string db = Field(test, "database", &f) ? std::string(IterUtf8(&f)) : database_;
    if (!Reset(name)) return;
    if (Field(test, "setup", &f)) {
      bson_iter_t command;
      bson_iter_recurse(&f, &command);
      int index = 0;
      while (bson_iter_next(&command)) {
        std::string what = "test \"" + name + "\": setup command " + std::to_string(index++);
        if (!MustSucceed(IterDocument(&command), db, what)) return;
      }
    }
    Field(test, "command", &f);
    BsonView command = IterDocument(&f);
    BsonDoc reply = Command(command, db);
    std::string problem;
    if (Field(test, "expectResult", &f)) {
      if (!IsOk(reply.view())) {
        problem = "the command failed";
      } else {
        problem = MatchRoot(IterDocument(&f), reply.view());
      }
    } else {
      Field(test, "expectError", &f);
      problem = MatchError(IterDocument(&f), reply.view());
    }
    if (problem.empty()) problem = MatchOutcome(test, db);
    if (!problem.empty()) {
      ADD_FAILURE() << path_ << "\n  test:    " << name << "\n  command: " << Json(command)
                    << "\n  reply:   " << Json(reply.view()) << "\n  " << problem;
    }
  }

  static std::string MatchError(BsonView expected, BsonView reply) {
    bson_iter_t want, got;
    double ok = 1;
    if (!reply.Find("ok", &got) || !IterAsDouble(&got, &ok) || ok != 0) {
      return "expected an error (ok: 0), the command succeeded";
    }
    if (expected.Find("code", &want)) {
      if (std::string r =
              MatchValue(&want, reply.Find("code", &got) ? &got : nullptr, false, "code");
          !r.empty()) {
        return r;
      }
    }
    if (expected.Find("codeName", &want)) {
      if (std::string r =
              MatchValue(&want, reply.Find("codeName", &got) ? &got : nullptr, false, "codeName");
          !r.empty()) {
        return r;
      }
    }
    if (expected.Find("errmsg", &want)) {
      if (std::string r =
              MatchValue(&want, reply.Find("errmsg", &got) ? &got : nullptr, false, "errmsg");
          !r.empty()) {
        return r;
      }
    }
    if (expected.Find("errmsgContains", &want)) {
      if (!BSON_ITER_HOLDS_UTF8(&want)) return "errmsgContains takes a string";
      if (!reply.Find("errmsg", &got) || !BSON_ITER_HOLDS_UTF8(&got) ||
          IterUtf8(&got).find(IterUtf8(&want)) == std::string_view::npos) {
        return "errmsg: expected it to contain \"" + std::string(IterUtf8(&want)) + "\"";
      }
    }
    if (expected.Find("errorResponse", &want)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&want)) return "errorResponse takes a document";
      return MatchRoot(IterDocument(&want), reply);
    }
    return "";
  }

  // The collections' documents (sorted by _id) against the test's outcome.
  std::string MatchOutcome(BsonView test, const std::string& db) {
    bson_iter_t f, entry;
    if (!Field(test, "outcome", &f)) return "";
    bson_iter_recurse(&f, &entry);
    while (bson_iter_next(&entry)) {
      BsonView e = IterDocument(&entry);
      bson_iter_t g;
      Field(e, "collection", &g);
      std::string collection(IterUtf8(&g));
      std::string target = Field(e, "database", &g) ? std::string(IterUtf8(&g)) : db;
      BsonDoc find;
      AppendUtf8(find.get(), "find", collection);
      BsonDoc sort = BsonDoc::FromJson(R"({"_id": 1})");
      bson_append_document(find.get(), "sort", 4, sort.get());
      BSON_APPEND_INT32(find.get(), "batchSize", 10000);
      BsonDoc reply = Command(find.view(), target);
      bson_iter_t top, batch, id;
      if (!IsOk(reply.view()) || !bson_iter_init(&top, reply.get()) ||
          !bson_iter_find_descendant(&top, "cursor.firstBatch", &batch) ||
          !bson_iter_init(&top, reply.get()) ||
          !bson_iter_find_descendant(&top, "cursor.id", &id)) {
        return "outcome: the find of " + target + "." + collection +
               " failed: " + Json(reply.view());
      }
      if (bson_iter_as_int64(&id) != 0) return "outcome: more than 10000 documents";
      Field(e, "documents", &g);
      std::string r = MatchValue(&g, &batch, false, "outcome " + target + "." + collection);
      if (!r.empty()) return r + "\n  found:   " + ValueJson(&batch);
    }
    return "";
  }

  const std::string path_;
  BsonDoc spec_;
  std::string database_;
  std::vector<std::string> databases_;  // dropped before each test
  ScratchDir dir_;
  std::unique_ptr<server::ServerState> state_;
  server::ConnectionInfo connection_;
};

class SpecFileTest : public ::testing::Test {
 public:
  explicit SpecFileTest(std::string path) : path_(std::move(path)) {}
  void TestBody() override { SpecFileRunner(path_).Run(); }

 private:
  std::string path_;
};

class BadSpecNameTest : public ::testing::Test {
 public:
  explicit BadSpecNameTest(std::string path) : path_(std::move(path)) {}
  void TestBody() override {
    ADD_FAILURE() << path_ << ": spec folders and files are named with [A-Za-z0-9_] only "
                  << "(the name becomes a CTest and gtest filter name)";
  }

 private:
  std::string path_;
};

// One test per tests/spec/<dir>/<name>.json, in name order.
void RegisterSpecFiles() {
  const fs::path root = SpecDirectory();
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& dir : fs::directory_iterator(root, ec)) {
    if (!dir.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(dir.path(), ec)) {
      if (file.is_regular_file() && file.path().extension() == ".json") {
        files.push_back(file.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  int bad = 0;
  for (const fs::path& file : files) {
    std::string suite = file.parent_path().filename().string();
    std::string name = file.stem().string();
    std::string path = file.string();
    if (!ValidName(suite) || !ValidName(name)) {
      std::string bad_name = "bad_name_" + std::to_string(++bad);
      ::testing::RegisterTest("spec_files", bad_name.c_str(), nullptr, nullptr, path.c_str(), 1,
                              [path]() -> BadSpecNameTest* { return new BadSpecNameTest(path); });
      continue;
    }
    ::testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, path.c_str(), 1,
                            [path]() -> SpecFileTest* { return new SpecFileTest(path); });
  }
  if (files.empty()) {
    std::string where = root.string();
    ::testing::RegisterTest("spec_files", "none_found", nullptr, nullptr, __FILE__, __LINE__,
                            [where]() -> BadSpecNameTest* {
                              return new BadSpecNameTest(where + ": no spec files found");
                            });
  }
}

}  // namespace
}  // namespace cairn::spec

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::string log_error;
  cairn::logging::Init({"/dev/null", /*quiet=*/true}, &log_error);
  cairn::spec::RegisterSpecFiles();
  return RUN_ALL_TESTS();
}
