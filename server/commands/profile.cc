// profile: {profile: <level>, slowms, sampleRate, filter} (mongosh db.setProfilingLevel and
// db.getProfilingStatus). Level -1 reads the settings, 0 sets slowms and sampleRate, which are
// server-wide as in mongod and decide which commands the "Slow query" line logs
// (admin/op_registry.h). The reply holds the settings as they were. Levels 1 and 2 write
// <db>.system.profile, which Cairn does not have yet: refused with CommandNotSupported rather
// than accepted and ignored, as is a profiling filter.
#include <string>

#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleProfile(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"slowms", kArgNumber},
                                                      {"sampleRate", kArgNumber},
                                                      {"filter", kArgDocument | kArgString}}));
  if (!BSON_ITER_HOLDS_NUMBER(&args.first())) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'profile' is the wrong type '" +
                      std::string(BsonTypeName(bson_iter_type(&args.first()))) +
                      "', expected types '[long, int, decimal, double]'");
  }
  const int64_t level = bson_iter_as_int64(&args.first());
  if (level < -1 || level > 2) {
    return Status(ErrorCode::kBadValue, "Invalid profiling level: " + std::to_string(level) +
                                            " (expected -1, 0, 1 or 2)");
  }
  OpRegistry& ops = ctx.state.ops();
  const int old_slow_ms = ops.slow_ms();
  const double old_rate = ops.slow_op_sample_rate();
  if (level > 0) {
    return Status(ErrorCode::kCommandNotSupported,
                  "profiling level " + std::to_string(level) +
                      " is not available: Cairn has no profiler (system.profile) yet; slow "
                      "operations are logged (profile: 0 with slowms)");
  }
  bson_iter_t filter;
  if (args.Get("filter", &filter)) {
    if (BSON_ITER_HOLDS_UTF8(&filter) && IterUtf8(&filter) != "unset") {
      return Status(ErrorCode::kBadValue, "the only accepted string for filter is 'unset'");
    }
    if (!BSON_ITER_HOLDS_UTF8(&filter)) {
      return Status(ErrorCode::kCommandNotSupported,
                    "a profiling filter is not available: Cairn has no profiler yet");
    }
  }
  int slow_ms = old_slow_ms;
  double rate = old_rate;
  if (args.Has("slowms")) slow_ms = static_cast<int>(args.GetInt("slowms", old_slow_ms));
  bson_iter_t sample;
  if (args.Get("sampleRate", &sample)) {
    rate = bson_iter_as_double(&sample);
    if (!(rate >= 0.0 && rate <= 1.0)) {
      return Status(ErrorCode::kBadValue, "'sampleRate' must be between 0.0 and 1.0 inclusive");
    }
  }
  if (level == 0) ops.SetSlowOpThreshold(slow_ms, rate);
  BSON_APPEND_INT32(reply, "was", 0);
  BSON_APPEND_INT32(reply, "slowms", old_slow_ms);
  BSON_APPEND_DOUBLE(reply, "sampleRate", old_rate);
  return Status::OK();
}

}  // namespace cairn::server
