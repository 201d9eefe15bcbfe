// configureFailPoint (a test command: only with --setParameter enableTestCommands=1): sets a
// failpoint's mode and data (server/admin/fail_points.h) and answers {count: <times it was
// entered so far>}, as mongod's. A failpoint Cairn does not implement answers FailPointSetFailed,
// as mongod answers a name it does not know: nothing is accepted and ignored.
#include <string>
#include <utility>

#include "common/logging.h"
#include "server/admin/fail_points.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleConfigureFailPoint(CommandContext& ctx, const CommandRequest& request,
                                        bson_t* reply) {
  bson_iter_t it;
  std::string name;  // mongod reads the first field as a string, "" when it is none
  if (request.body.Init(&it) && bson_iter_next(&it) && BSON_ITER_HOLDS_UTF8(&it)) {
    name = std::string(IterUtf8(&it));
  }
  FailPoint* point = ctx.state.fail_points().Find(name);
  if (point == nullptr) return Status(ErrorCode::kFailPointSetFailed, name + " not found");
  CAIRN_ASSIGN_OR_RETURN(FailPointSettings settings, ParseFailPointSettings(request.body));
  const int64_t count = point->Configure(std::move(settings));
  BsonDoc attr;
  AppendUtf8(attr.get(), "failPointName", name);
  const BsonDoc state = point->Describe();
  bson_t described = state.view().AsBson();
  BSON_APPEND_DOCUMENT(attr.get(), "failPoint", &described);
  logging::Log(logging::Severity::kWarning, "CONTROL", 23829,
               "conn" + std::to_string(ctx.connection.id), "Set failpoint", attr.get());
  // BSONObjBuilder::appendNumber: an int while it fits comfortably, else a long.
  if (count < (int64_t{1} << 30)) {
    BSON_APPEND_INT32(reply, "count", static_cast<int32_t>(count));
  } else {
    BSON_APPEND_INT64(reply, "count", count);
  }
  return Status::OK();
}

}  // namespace cairn::server
