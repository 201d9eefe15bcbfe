// shutdown: stops the server cleanly, as a SIGTERM does (running commands end with
// InterruptedAtShutdown, cursors and transactions are dropped, the engine closes), and, as with
// mongod, the client gets no reply: its connection closes. Without authentication mongod takes it
// only from a localhost connection; so does Cairn. On a one-member replica set there is no
// secondary to hand over to or wait for, so `force` and `timeoutSecs` are checked and change
// nothing.
#include "common/logging.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleShutdown(CommandContext& ctx, const CommandRequest& request,
                              bson_t* /*reply*/) {
  Result<CommandArgs> args = CommandArgs::Parse(
      request, {{"force", kArgBool}, {"timeoutSecs", kArgNumber}, {"comment", kArgAny}});
  if (!args.ok()) return args.status();
  if (!ctx.connection.from_loopback) {
    return Status(ErrorCode::kUnauthorized,
                  "shutdown must run from localhost when running db without auth");
  }
  BsonDoc attr;
  AppendUtf8(attr.get(), "remote", ctx.connection.remote);
  BSON_APPEND_BOOL(attr.get(), "force", args->GetBool("force", false));
  logging::Log(logging::Severity::kInfo, "COMMAND", 20475,
               "conn" + std::to_string(ctx.connection.id), "Terminating via shutdown command",
               attr.get());
  ctx.state.RequestShutdown();
  Continuation next;
  next.kind = Continuation::Kind::kCloseConnection;
  return next;
}

}  // namespace cairn::server
