// op_registry.h: registering connections, marking their commands, and building $currentOp's
// documents in MongoDB's field order (standalone mongod 7.0).
#include "server/admin/op_registry.h"
#include "common/mutex.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "common/logging.h"
#include "server/admin/client_metadata.h"

namespace cairn::server {

std::string_view OpType(std::string_view command_name) {
  if (command_name == "find") return "query";
  if (command_name == "getMore") return "getmore";
  if (command_name == "insert") return "insert";
  if (command_name == "update") return "update";
  if (command_name == "delete") return "remove";
  return "command";
}

std::string OpNamespace(std::string_view db, std::string_view command_name, BsonView command) {
  bson_iter_t first;
  if (command.Init(&first) && bson_iter_next(&first) && BSON_ITER_HOLDS_UTF8(&first) &&
      command_name != "getMore") {
    return std::string(db) + "." + std::string(IterUtf8(&first));
  }
  if (command_name == "getMore") {
    bson_iter_t coll;
    if (command.Find("collection", &coll) && BSON_ITER_HOLDS_UTF8(&coll)) {
      return std::string(db) + "." + std::string(IterUtf8(&coll));
    }
  }
  if (command_name == "aggregate") return std::string(db) + ".$cmd.aggregate";
  return std::string(db) + ".$cmd";
}

namespace {

// MongoDB's currentOpTime: local time in ISO-8601 with milliseconds and offset.
std::string IsoTime(std::chrono::system_clock::time_point when) {
  auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch());
  std::time_t seconds = static_cast<std::time_t>(millis.count() / 1000);
  std::tm local{};
  localtime_r(&seconds, &local);
  char date[32], offset[8], out[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &local);
  std::strftime(offset, sizeof offset, "%z", &local);  // "+0000"
  std::snprintf(out, sizeof out, "%s.%03d%.3s:%s", date, static_cast<int>(millis.count() % 1000),
                offset, offset + 3);
  return out;
}

// The fields every report of a connection starts with.
void AppendConnection(const OpEntry& entry, const std::string& host, bson_t* out)
    REQUIRES(entry.mu) {
  AppendUtf8(out, "type", "op");
  AppendUtf8(out, "host", host);
  AppendUtf8(out, "desc", "conn" + std::to_string(entry.connection_id));
  BSON_APPEND_INT64(out, "connectionId", entry.connection_id);
  AppendUtf8(out, "client", entry.client);
  if (entry.has_metadata) {
    const std::string_view app = ApplicationName(entry.client_metadata.view());
    if (!app.empty()) AppendUtf8(out, "appName", app);
    bson_t metadata = entry.client_metadata.view().AsBson();
    BSON_APPEND_DOCUMENT(out, "clientMetadata", &metadata);
  }
}

}  // namespace

std::shared_ptr<OpEntry> OpRegistry::Register(const ConnectionInfo& connection) {
  auto entry = std::make_shared<OpEntry>();
  entry->connection_id = connection.id;
  entry->client = connection.remote;
  MutexLock lock(&mu_);
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [](const std::weak_ptr<OpEntry>& e) { return e.expired(); }),
                 entries_.end());
  entries_.push_back(entry);
  return entry;
}

std::vector<BsonDoc> OpRegistry::Report(const ReportOptions& options) {
  std::vector<std::shared_ptr<OpEntry>> live = Live();
  std::sort(live.begin(), live.end(),
            [](const auto& a, const auto& b) { return a->connection_id < b->connection_id; });
  const auto now = std::chrono::steady_clock::now();
  const auto now_wall = std::chrono::system_clock::now();
  std::vector<BsonDoc> out;
  for (const auto& entry : live) {
    MutexLock lock(&entry->mu);
    if (!entry->active && !options.idle_connections) continue;
    BsonDoc doc;
    bson_t* d = doc.get();
    AppendConnection(*entry, options.host, d);
    BSON_APPEND_BOOL(d, "active", entry->active);
    AppendUtf8(d, "currentOpTime", IsoTime(now_wall));
    BSON_APPEND_BOOL(d, "threaded", true);
    if (entry->active) {
      BSON_APPEND_INT32(d, "opid", static_cast<int32_t>(entry->opid));
      bson_iter_t lsid;
      if (entry->command.Find("lsid", &lsid)) AppendIter(d, "lsid", &lsid);
      auto micros =
          std::chrono::duration_cast<std::chrono::microseconds>(now - entry->started).count();
      BSON_APPEND_INT64(d, "secs_running", micros / 1000000);
      BSON_APPEND_INT64(d, "microsecs_running", micros);
      AppendUtf8(d, "op", OpType(entry->command_name));
      AppendUtf8(d, "ns", OpNamespace(entry->db, entry->command_name, entry->command));
      BSON_APPEND_BOOL(d, "redacted", false);
      bson_t command = entry->command.AsBson();
      BSON_APPEND_DOCUMENT(d, "command", &command);
      BSON_APPEND_INT32(d, "numYields", 0);
      bson_t empty = BSON_INITIALIZER;
      BSON_APPEND_DOCUMENT(d, "locks", &empty);
      BSON_APPEND_BOOL(d, "waitingForLock", false);
      BSON_APPEND_DOCUMENT(d, "lockStats", &empty);
      BSON_APPEND_BOOL(d, "waitingForFlowControl", false);
      BSON_APPEND_DOCUMENT(d, "flowControlStats", &empty);
    }
    out.push_back(std::move(doc));
  }
  return out;
}

bool OpRegistry::Kill(int64_t opid, ErrorCode code) {
  std::vector<std::shared_ptr<OpEntry>> live = Live();
  for (const auto& entry : live) {
    MutexLock lock(&entry->mu);
    if (entry->active && entry->opid == opid && entry->interrupt != nullptr) {
      entry->interrupt->Kill(code);
      return true;
    }
  }
  return false;
}

void OpRegistry::KillAll(ErrorCode code) {
  for (const auto& entry : Live()) {
    MutexLock lock(&entry->mu);
    if (entry->active && entry->interrupt != nullptr) entry->interrupt->Kill(code);
  }
}

void OpRegistry::KillSessions(const std::vector<SessionId>& sessions, ErrorCode code) {
  for (const auto& entry : Live()) {
    MutexLock lock(&entry->mu);
    if (!entry->active || entry->interrupt == nullptr) continue;
    bson_iter_t lsid;
    if (!entry->command.Find("lsid", &lsid)) continue;
    std::optional<SessionId> id = ParseSessionId(&lsid);
    if (id && std::find(sessions.begin(), sessions.end(), *id) != sessions.end()) {
      entry->interrupt->Kill(code);
    }
  }
}

std::vector<std::shared_ptr<OpEntry>> OpRegistry::Live() {
  std::vector<std::shared_ptr<OpEntry>> live;
  MutexLock lock(&mu_);
  for (const auto& weak : entries_) {
    if (auto entry = weak.lock()) live.push_back(std::move(entry));
  }
  return live;
}

OpScope::OpScope(OpRegistry& registry, ConnectionInfo& connection, const CommandRequest& request,
                 Interruptible* interrupt)
    : registry_(registry), connection_(connection) {
  if (connection.op_entry == nullptr) connection.op_entry = registry.Register(connection);
  entry_ = connection.op_entry.get();
  const int64_t opid = registry.NextOpId();
  MutexLock lock(&entry_->mu);
  if (!entry_->has_metadata && connection.saw_hello) {
    entry_->client_metadata = connection.client_metadata.Clone();
    entry_->has_metadata = !entry_->client_metadata.view().empty();
  }
  entry_->active = true;
  entry_->opid = opid;
  entry_->db = request.db;
  entry_->command_name = request.name;
  entry_->command = request.body;
  entry_->started = std::chrono::steady_clock::now();
  entry_->interrupt = interrupt;
}

namespace {

// The collection a command names ({<name>: "<coll>"}, getMore's `collection`); empty for one
// naming none.
std::string_view CommandCollection(std::string_view name, BsonView command) {
  bson_iter_t it;
  if (name == "getMore") {
    if (!command.Find("collection", &it)) return {};
  } else if (!command.Init(&it) || !bson_iter_next(&it)) {
    return {};
  }
  return BSON_ITER_HOLDS_UTF8(&it) ? IterUtf8(&it) : std::string_view();
}

// Counts the command in Top under "db.coll", built on the stack (no allocation per command);
// drops of collections and databases take their counters with them, as mongod's do.
void RecordTop(Top& top, std::string_view db, std::string_view name, BsonView command,
               std::chrono::steady_clock::duration elapsed) {
  if (name == "dropDatabase") {
    top.DatabaseDropped(db);
    return;
  }
  if (name == "renameCollection") {
    top.CollectionDropped(CommandCollection(name, command));  // the source's full name
    return;
  }
  Top::Lock lock = Top::Lock::kRead;
  const Top::Op op = name == "drop" ? Top::Op::kNone : Top::Classify(name, &lock);
  if (op == Top::Op::kNone && name != "drop") return;
  const std::string_view collection = CommandCollection(name, command);
  char buffer[512];
  if (collection.empty() || db.size() + 1 + collection.size() > sizeof buffer) return;
  std::memcpy(buffer, db.data(), db.size());
  buffer[db.size()] = '.';
  std::memcpy(buffer + db.size() + 1, collection.data(), collection.size());
  const std::string_view ns(buffer, db.size() + 1 + collection.size());
  if (name == "drop") {
    top.CollectionDropped(ns);
    return;
  }
  top.Record(ns, op, lock, std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count());
}

}  // namespace

OpScope::~OpScope() {
  MutexLock lock(&entry_->mu);
  RecordTop(registry_.top(), entry_->db, entry_->command_name, entry_->command,
            std::chrono::steady_clock::now() - entry_->started);
  entry_->active = false;
  entry_->interrupt = nullptr;
  entry_->command = BsonView();
  entry_->db = {};
  entry_->command_name = {};
}

}  // namespace cairn::server
