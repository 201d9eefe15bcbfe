// libcairn's C API (cairn.h): a cairn_db is a Server that listens nowhere until cairn_serve,
// run on a thread of its own (its loop runs the idle-cursor reaper, the transaction reaper,
// the TTL monitor and, once served, the wire connections), and a DirectCaller for
// cairn_command, both over the Server's one ServerState. Opening follows cairnd's start
// (server/main.cc) except for what belongs to the application: its umask, its signals, its
// descriptor limit, its standard output.
#define CAIRN_BUILDING_LIBRARY
#include "server/embedded/cairn.h"

#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <future>
#include <memory>
#include <new>
#include <string>
#include <thread>

#include "common/logging.h"
#include "common/mutex.h"
#include "server/catalog/index_build.h"
#include "server/embedded/direct_call.h"
#include "server/embedded/embedded_options.h"
#include "server/exec/sort_stream.h"
#include "server/net/server.h"
#include "storage/engine.h"

struct cairn_db {
  std::unique_ptr<cairn::server::Server> server;
  std::thread runner;  // Server::Run
  std::unique_ptr<cairn::embedded::DirectCaller> caller;
  // Direct calls hold it shared; the server takes it exclusively before its engine closes
  // (Run's before_close), so no call runs on a closed engine.
  cairn::SharedMutex calls_mu;
  bool closed GUARDED_BY(calls_mu) = false;
  std::string temp_dir;  // an in-memory database's spill directory, removed at close
};

namespace {

using cairn::ErrorCode;
using cairn::Result;
using cairn::Status;

// A malloc'd copy, which cairn_free frees; null when out of memory.
char* CopyString(const std::string& text) {
  char* copy = static_cast<char*>(malloc(text.size() + 1));
  if (copy) std::memcpy(copy, text.data(), text.size() + 1);
  return copy;
}

int Fail(const Status& status, char** errmsg) {
  if (errmsg) *errmsg = CopyString(status.reason());
  return CAIRN_ERROR;
}

// A private directory under $TMPDIR (else /tmp) for an in-memory database's spill files.
Result<std::string> MakeTempDir() {
  const char* tmp = getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/cairn-memory-XXXXXX";
  if (!mkdtemp(pattern.data())) {
    return Status(ErrorCode::kInternalError,
                  "cannot create a temporary directory: " + std::string(std::strerror(errno)));
  }
  return pattern;
}

// Opens the engine as cairnd does, and starts the server's loop on db->runner.
Status Open(cairn_db* db, const std::string& path, const std::string& options_json) {
  const bool in_memory = path == cairn::embedded::kMemoryPath;
  if (in_memory) {
    Result<std::string> dir = MakeTempDir();
    if (!dir.ok()) return dir.status();
    db->temp_dir = std::move(dir).value();
  }
  Result<cairn::server::StartupConfig> config =
      cairn::embedded::EmbeddedConfig(path, db->temp_dir, options_json);
  if (!config.ok()) return config.status();
  std::string error;
  if (!cairn::logging::Init(config->log, &error)) return Status(ErrorCode::kBadValue, error);
  const std::string dbpath = config->server.dbpath;
  std::error_code fs_error;
  std::filesystem::create_directories(dbpath, fs_error);
  if (fs_error) {
    return Status(ErrorCode::kInternalError,
                  "cannot create the data directory " + dbpath + ": " + fs_error.message());
  }
  auto engine = cairn::storage::Engine::Open(config->storage);
  if (!engine.ok()) {
    return Status(engine.status().code(),
                  "cannot open the storage engine at " + dbpath + ": " + engine.status().reason());
  }
  // What a killed process left behind: sort runs, and index builds never answered.
  cairn::server::RemoveStaleSpillFiles(cairn::server::SpillDirectory(dbpath));
  cairn::server::DropUnfinishedIndexes(*engine.value()).IgnoreError();
  db->server =
      std::make_unique<cairn::server::Server>(std::move(config->server), std::move(engine).value());

  // Run's outcome until it listens: OK then, or the error that stopped it first.
  auto started = std::make_shared<std::promise<Status>>();
  std::future<Status> listening = started->get_future();
  db->runner = std::thread([db, started] {
    bool told = false;
    Status status = db->server->Run(
        [&] {
          told = true;
          started->set_value(Status::OK());
        },
        [db] {
          cairn::WriterLock lock(&db->calls_mu);
          db->closed = true;
        });
    if (!told) started->set_value(status);
  });
  Status status = listening.get();
  if (!status.ok()) {
    db->runner.join();
    return status;
  }
  db->caller = std::make_unique<cairn::embedded::DirectCaller>(db->server->state());
  return Status::OK();
}

// Percent-encodes a unix socket path for a mongodb:// URI, as drivers expect it.
std::string EncodeSocketPath(const std::string& path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace

extern "C" {

const char* cairn_version(void) { return CAIRN_VERSION; }

int cairn_open(const char* path, const char* options_json, cairn_db** out, char** errmsg) {
  if (errmsg) *errmsg = nullptr;
  if (!path || !out) return CAIRN_MISUSE;
  *out = nullptr;
  auto db = std::make_unique<cairn_db>();
  Status status = Open(db.get(), path, options_json ? options_json : "");
  if (!status.ok()) {
    db->server.reset();
    if (!db->temp_dir.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(db->temp_dir, ignored);
    }
    return Fail(status, errmsg);
  }
  *out = db.release();
  return CAIRN_OK;
}

int cairn_command(cairn_db* db, const char* dbname, const uint8_t* bson, size_t len,
                  uint8_t** reply, size_t* reply_len) {
  if (!db || !bson || !reply || !reply_len) return CAIRN_MISUSE;
  *reply = nullptr;
  *reply_len = 0;
  std::string answer;
  {
    cairn::ReaderLock lock(&db->calls_mu);
    if (db->closed) {
      answer = cairn::embedded::ErrorReply(
          Status(ErrorCode::kShutdownInProgress, "The embedded database has shut down"));
    } else {
      answer = db->caller->Call(dbname ? dbname : "", bson, len);
    }
  }
  auto* copy = static_cast<uint8_t*>(malloc(answer.size()));
  if (!copy) return CAIRN_NO_MEMORY;
  std::memcpy(copy, answer.data(), answer.size());
  *reply = copy;
  *reply_len = answer.size();
  return CAIRN_OK;
}

int cairn_serve(cairn_db* db, const char* host, int port, char** uri_out, char** errmsg) {
  if (uri_out) *uri_out = nullptr;
  if (errmsg) *errmsg = nullptr;
  if (!db || !host || port < 0 || port > 65535) return CAIRN_MISUSE;
  const std::string address = host;
  Result<int> bound = db->server->Listen(address, port);
  if (!bound.ok()) return Fail(bound.status(), errmsg);
  std::string uri;
  if (address.find('/') != std::string::npos) {
    uri = "mongodb://" + EncodeSocketPath(address) + "/?directConnection=true";
  } else if (address.find(':') != std::string::npos) {
    uri = "mongodb://[" + address + "]:" + std::to_string(*bound) + "/?directConnection=true";
  } else {
    uri = "mongodb://" + address + ":" + std::to_string(*bound) + "/?directConnection=true";
  }
  if (uri_out) {
    *uri_out = CopyString(uri);
    if (!*uri_out) return CAIRN_NO_MEMORY;
  }
  return CAIRN_OK;
}

void cairn_close(cairn_db* db) {
  if (!db) return;
  db->server->Stop();
  db->runner.join();  // Run returns once connections and direct calls are done, engine closed
  db->caller.reset();
  db->server.reset();
  if (!db->temp_dir.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(db->temp_dir, ignored);
  }
  delete db;
}

void cairn_free(void* p) { free(p); }

}  // extern "C"
