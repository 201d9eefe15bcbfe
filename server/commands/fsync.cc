// fsync: {fsync: 1} makes every write durable in the data files (memtables flushed, WAL synced)
// and answers mongod's vestigial numFiles: 1; {fsync: 1, lock: true} (mongosh's db.fsyncLock())
// also closes the write gate (server/write/write_gate.h): every later write waits, off its
// thread, until as many fsyncUnlock commands as locks have run; the files stay frozen meanwhile
// for a file-copy backup, and reads go on. fsyncUnlock: {info, lockCount}, or IllegalOperation
// when not locked. mongod 7.0 src/mongo/db/commands/fsync.cpp.
#include <string>

#include "common/logging.h"
#include "server/command.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

constexpr std::string_view kSeeAlso = "http://dochub.mongodb.org/core/fsynccommand";

void Log(const CommandContext& ctx, int id, std::string_view msg, int64_t lock_count) {
  BsonDoc attr;
  BSON_APPEND_INT64(attr.get(), "lockCount", lock_count);
  logging::Log(logging::Severity::kInfo, "COMMAND", id, "conn" + std::to_string(ctx.connection.id),
               msg, attr.get());
}

}  // namespace

CommandOutcome HandleFsync(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  bson_iter_t it;
  const bool lock = request.body.Find("lock", &it) && bson_iter_as_bool(&it);
  storage::Engine& engine = ctx.state.engine();
  if (!lock) {
    CAIRN_RETURN_IF_ERROR(engine.Flush());
    CAIRN_RETURN_IF_ERROR(engine.SyncWal());
    BSON_APPEND_INT32(reply, "numFiles", 1);
    return Status::OK();
  }
  CAIRN_ASSIGN_OR_RETURN(int64_t lock_count,
                         ctx.state.writes().gate().Lock([&] { return engine.BeginBackup(); }));
  Log(ctx, 20462, "mongod is locked and no writes are allowed", lock_count);
  AppendUtf8(reply, "info", "now locked against writes, use db.fsyncUnlock() to unlock");
  BSON_APPEND_INT64(reply, "lockCount", lock_count);
  AppendUtf8(reply, "seeAlso", kSeeAlso);
  return Status::OK();
}

CommandOutcome HandleFsyncUnlock(CommandContext& ctx, const CommandRequest& request,
                                 bson_t* reply) {
  storage::Engine& engine = ctx.state.engine();
  CAIRN_ASSIGN_OR_RETURN(int64_t lock_count,
                         ctx.state.writes().gate().Unlock([&] { return engine.EndBackup(); }));
  Log(ctx, 20466, "fsyncUnlock complete", lock_count);
  AppendUtf8(reply, "info", "fsyncUnlock completed");
  BSON_APPEND_INT64(reply, "lockCount", lock_count);
  return Status::OK();
}

}  // namespace cairn::server
