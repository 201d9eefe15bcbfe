// Profiler (profiler.h): metrics, the slow-query line and system.profile entries at a command's
// end. Nothing is built unless the command is logged or profiled: the common path is a few
// atomic additions and one atomic load of the profile settings.
#include "server/admin/profiler.h"

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>

#include "common/logging.h"
#include "common/wall_clock.h"
#include "server/admin/client_metadata.h"
#include "server/capped/capped_options.h"
#include "server/server_state.h"
#include "server/write/collection_writer.h"

namespace cairn::server {

namespace {

// mongod shows a command larger than this as {$truncated: ...} in log lines and profile entries.
constexpr size_t kMaxShownCommandBytes = 50 * 1024;
constexpr size_t kTruncatedJsonChars = 1024;

void AddMetrics(ServerMetrics& metrics, const OpDebug& debug, const Status& status) {
  auto add = [](std::atomic<int64_t>& counter, int64_t n) {
    if (n > 0) counter.fetch_add(n, std::memory_order_relaxed);
  };
  add(metrics.docs_returned, debug.n_returned);
  add(metrics.docs_inserted, debug.n_inserted);
  add(metrics.docs_updated, debug.n_modified);
  add(metrics.docs_deleted, debug.n_deleted);
  add(metrics.keys_scanned, debug.keys_examined);
  add(metrics.objects_scanned, debug.docs_examined);
  if (debug.collection_scan) metrics.collection_scans.fetch_add(1, std::memory_order_relaxed);
  if (debug.scan_and_order) metrics.scan_and_order.fetch_add(1, std::memory_order_relaxed);
  if (!status.ok() && status.code() == ErrorCode::kWriteConflict) {
    metrics.write_conflicts.fetch_add(1, std::memory_order_relaxed);
  }
}

// The command as mongod shows it: whole, or its start as JSON when it is large.
void AppendCommand(bson_t* out, const char* key, BsonView command) {
  if (command.size() <= kMaxShownCommandBytes) {
    const bson_t doc = command.AsBson();
    BSON_APPEND_DOCUMENT(out, key, &doc);
    return;
  }
  const bson_t doc = command.AsBson();
  size_t length = 0;
  char* json = bson_as_relaxed_extended_json(&doc, &length);
  std::string start(json != nullptr ? json : "", std::min(length, kTruncatedJsonChars));
  bson_free(json);
  bson_t truncated;
  BSON_APPEND_DOCUMENT_BEGIN(out, key, &truncated);
  AppendUtf8(&truncated, "$truncated", start + "...");
  bson_append_document_end(out, &truncated);
}

// The client's application name (hello's client.application.name), empty when none.
std::string_view AppName(const ConnectionInfo& connection) {
  return connection.saw_hello ? ApplicationName(connection.client_metadata.view())
                              : std::string_view();
}

// The peer's address without its port ("127.0.0.1"), as the profiler's `client`.
std::string_view ClientHost(std::string_view remote) {
  const size_t colon = remote.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return remote;
  std::string_view host = remote.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return host;
}

// Counts as mongod's appendNumber writes them: int32 when small, int64 beyond.
void AppendCount(bson_t* out, const char* key, int64_t n) {
  if (n != OpDebug::kAbsent) AppendNumberAsMongoDB(out, key, n);
}

void AppendError(bson_t* out, const Status& status, const char* message_key) {
  BSON_APPEND_DOUBLE(out, "ok", 0.0);
  AppendUtf8(out, message_key, status.reason());
  AppendUtf8(out, "errName", status.code_name());
  BSON_APPEND_INT32(out, "errCode", static_cast<int32_t>(status.code()));
}

struct FinishedOp {
  const CommandContext& ctx;
  const CommandRequest& request;
  const Status& status;
  size_t reply_length;
  int64_t millis;
  std::string ns;
};

// What the operation did, from cursorid to its error, as the profile entry and the slow-query
// line both show it (they name the yield count differently).
void AppendOutcome(const FinishedOp& op, const char* yields_key, bson_t* out) {
  const OpDebug& debug = op.ctx.debug;
  if (debug.cursor_id > 0) AppendNumberAsMongoDB(out, "cursorid", debug.cursor_id);
  AppendCount(out, "keysExamined", debug.keys_examined);
  AppendCount(out, "docsExamined", debug.docs_examined);
  AppendCount(out, "nMatched", debug.n_matched);
  AppendCount(out, "nModified", debug.n_modified);
  AppendCount(out, "nUpserted", debug.n_upserted);
  AppendCount(out, "ninserted", debug.n_inserted);
  AppendCount(out, "ndeleted", debug.n_deleted);
  if (debug.cursor_id == 0) BSON_APPEND_BOOL(out, "cursorExhausted", true);
  BSON_APPEND_INT32(out, yields_key, 0);  // Cairn's operations never yield
  AppendCount(out, "nreturned", debug.n_returned);
  if (!op.status.ok()) AppendError(out, op.status, "errMsg");
}

// The system.profile entry, in mongod's field order.
BsonDoc ProfileEntry(const FinishedOp& op) {
  const OpDebug& debug = op.ctx.debug;
  BsonDoc entry;
  bson_t* out = entry.get();
  AppendUtf8(out, "op", OpType(op.request.name));
  AppendUtf8(out, "ns", op.ns);
  AppendCommand(out, "command", op.request.body);
  AppendOutcome(op, "numYield", out);
  AppendCount(out, "responseLength", static_cast<int64_t>(op.reply_length));
  AppendUtf8(out, "protocol", op.request.from_op_query ? "op_query" : "op_msg");
  AppendCount(out, "millis", op.millis);
  if (!debug.plan_summary.empty()) AppendUtf8(out, "planSummary", debug.plan_summary);
  BSON_APPEND_DATE_TIME(out, "ts", WallClockMillis());
  AppendUtf8(out, "client", ClientHost(op.ctx.connection.remote));
  const std::string_view app = AppName(op.ctx.connection);
  if (!app.empty()) AppendUtf8(out, "appName", app);
  bson_t users;
  BSON_APPEND_ARRAY_BEGIN(out, "allUsers", &users);
  bson_append_array_end(out, &users);
  AppendUtf8(out, "user", "");
  return entry;
}

// mongod's "Slow query" line.
void LogSlowQuery(const FinishedOp& op) {
  const OpDebug& debug = op.ctx.debug;
  BsonDoc attr;
  bson_t* out = attr.get();
  AppendUtf8(out, "type", "command");
  AppendUtf8(out, "ns", op.ns);
  const std::string_view app = AppName(op.ctx.connection);
  if (!app.empty()) AppendUtf8(out, "appName", app);
  AppendCommand(out, "command", op.request.body);
  if (!debug.plan_summary.empty()) AppendUtf8(out, "planSummary", debug.plan_summary);
  AppendOutcome(op, "numYields", out);
  AppendCount(out, "reslen", static_cast<int64_t>(op.reply_length));
  AppendUtf8(out, "remote", op.ctx.connection.remote);
  AppendUtf8(out, "protocol", op.request.from_op_query ? "op_query" : "op_msg");
  AppendCount(out, "durationMillis", op.millis);
  logging::Log(logging::Severity::kInfo, "COMMAND", 51803,
               "conn" + std::to_string(op.ctx.connection.id), "Slow query", out);
}

// Appends `entry` to <db>.system.profile, creating it capped when it is missing.
Status WriteProfileEntry(ServerState& state, std::string_view db, BsonView entry) {
  const std::string ns = std::string(db) + ".system.profile";
  WriteContext& writes = state.writes();
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<CollectionWriter> writer,
                         CollectionWriter::Open(writes, ns, /*create_if_missing=*/false));
  if (!writer->collection()) {
    writer.reset();
    BsonDoc options;
    AppendCappedOptions(options.get(), CappedLimits{kProfileCollectionBytes, 0});
    uint8_t uuid[16];
    storage::NewCollectionUuid(uuid);
    // Not through the oplog: profiling is each member's own (a concurrent creation is fine).
    Result<storage::CollectionHandle> created =
        writes.engine().catalog().CreateCollection(ns, options.view(), nullptr, uuid);
    if (!created.ok() && created.status().code() != ErrorCode::kNamespaceExists) {
      return created.status();
    }
    CAIRN_ASSIGN_OR_RETURN(writer, CollectionWriter::Open(writes, ns, false));
    if (!writer->collection()) return Status(ErrorCode::kNamespaceNotFound, ns + " vanished");
  }
  std::optional<BsonDoc> storage;
  CAIRN_ASSIGN_OR_RETURN(BsonView prepared, PrepareForInsert(entry, &storage));
  CAIRN_RETURN_IF_ERROR(writer->Insert(prepared));
  return writer->Commit();
}

}  // namespace

void FinishOperation(CommandContext& ctx, const CommandRequest& request, const Status& status,
                     size_t reply_length, const ProfileSettings::Settings& settings) {
  ServerState& state = ctx.state;
  AddMetrics(state.metrics(), ctx.debug, status);
  OpRegistry& ops = state.ops();
  const int64_t millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - ctx.debug.started)
                             .count();
  bool log = false;
  bool profile_at_level_1 = false;
  std::optional<BsonDoc> entry;
  FinishedOp op{ctx, request, status, reply_length, millis, std::string()};
  if (settings.filter == nullptr) {
    // slowms and sampleRate, as mongod's shouldLogSlowOpWithSampling.
    const bool slow = millis > ops.slow_ms() || logging::DebugEnabled(1, "command");
    if (slow) {
      const double rate = ops.slow_op_sample_rate();
      const bool sampled = rate >= 1.0 || (rate > 0.0 && std::rand() <= rate * RAND_MAX);
      log = sampled;
      profile_at_level_1 = sampled;
    }
  } else {
    op.ns = OpNamespace(request.db, request.name, request.body);
    entry = ProfileEntry(op);
    Result<bool> matched = settings.filter->Matches(entry->view());
    log = profile_at_level_1 = matched.ok() && *matched;
  }
  const bool profile = settings.level == 2 || (settings.level == 1 && profile_at_level_1);
  if (!log && !profile) return;
  if (op.ns.empty()) op.ns = OpNamespace(request.db, request.name, request.body);
  if (log) LogSlowQuery(op);
  if (!profile) return;
  if (!entry) entry = ProfileEntry(op);
  // While fsyncLock holds writes, the data files must not change: the entry is dropped.
  WriteGate::Entered passage(state.writes().gate());
  if (!passage) return;
  Status written = WriteProfileEntry(state, request.db, entry->view());
  if (!written.ok()) {
    BsonDoc attr;
    AppendUtf8(attr.get(), "db", request.db);
    AppendUtf8(attr.get(), "error", written.reason());
    logging::Log(logging::Severity::kWarning, "-", 20700,
                 "conn" + std::to_string(ctx.connection.id), "Failed to write the profile entry",
                 attr.get());
  }
}

}  // namespace cairn::server
