// profile: {profile: <level>, slowms, sampleRate, filter} (mongosh db.setProfilingLevel and
// db.getProfilingStatus). Level -1 reads the settings; 0, 1 and 2 set the database's profiling
// level (admin/profiler.h: 1 profiles the operations over slowms, or those the filter matches, 2
// every operation, into <db>.system.profile). slowms and sampleRate are server-wide, as in
// mongod, and also decide the "Slow query" line; `filter` is the database's, replacing them for
// both, and "unset" removes it. They apply with any level, -1 included. The reply holds the
// settings as they were, and mongod's line "Profiler settings changed" records the change.
#include <string>

#include "common/logging.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

void AppendSettings(bson_t* out, int level, int slow_ms, double rate,
                    const std::shared_ptr<const query::Matcher>& filter) {
  BSON_APPEND_INT32(out, "level", level);
  BSON_APPEND_INT32(out, "slowms", slow_ms);
  BSON_APPEND_DOUBLE(out, "sampleRate", rate);
  if (filter != nullptr) {
    const bson_t doc = filter->filter().AsBson();
    BSON_APPEND_DOCUMENT(out, "filter", &doc);
  }
}

}  // namespace

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
  const ProfileSettings::Settings old = ops.profile().For(request.db);
  const int old_slow_ms = ops.slow_ms();
  const double old_rate = ops.slow_op_sample_rate();

  // Everything is checked before anything changes.
  ProfileSettings::Settings updated = old;
  if (level >= 0) updated.level = static_cast<int>(level);
  bson_iter_t filter;
  if (args.Get("filter", &filter)) {
    if (BSON_ITER_HOLDS_UTF8(&filter)) {
      if (IterUtf8(&filter) != "unset") {
        return Status(ErrorCode::kBadValue, "the only accepted string for filter is 'unset'");
      }
      updated.filter.reset();
    } else {
      CAIRN_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(IterDocument(&filter)));
      updated.filter = std::make_shared<const query::Matcher>(std::move(matcher));
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

  const bool changed = updated.level != old.level || updated.filter != old.filter ||
                       slow_ms != old_slow_ms || rate != old_rate;
  if (changed) {
    ops.SetSlowOpThreshold(slow_ms, rate);
    ops.profile().Set(request.db, updated);
    BsonDoc attr;
    bson_t from, to;
    BSON_APPEND_DOCUMENT_BEGIN(attr.get(), "from", &from);
    AppendSettings(&from, old.level, old_slow_ms, old_rate, old.filter);
    bson_append_document_end(attr.get(), &from);
    BSON_APPEND_DOCUMENT_BEGIN(attr.get(), "to", &to);
    AppendSettings(&to, updated.level, slow_ms, rate, updated.filter);
    bson_append_document_end(attr.get(), &to);
    AppendUtf8(attr.get(), "db", request.db);
    logging::Log(logging::Severity::kInfo, "-", 48742, "conn" + std::to_string(ctx.connection.id),
                 "Profiler settings changed", attr.get());
  }
  BSON_APPEND_INT32(reply, "was", old.level);
  BSON_APPEND_INT32(reply, "slowms", old_slow_ms);
  BSON_APPEND_DOUBLE(reply, "sampleRate", old_rate);
  if (old.filter != nullptr) {
    const bson_t doc = old.filter->filter().AsBson();
    BSON_APPEND_DOCUMENT(reply, "filter", &doc);
    AppendUtf8(reply, "note",
               "When a filter expression is set, slowms and sampleRate are not used for "
               "profiling and slow-query log lines.");
  }
  return Status::OK();
}

}  // namespace cairn::server
