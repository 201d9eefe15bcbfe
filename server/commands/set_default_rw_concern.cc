// setDefaultRWConcern: {setDefaultRWConcern: 1, defaultReadConcern: {level}, defaultWriteConcern:
// {w, j, wtimeout}} (admin only, on the primary). Sets the replica set's cluster-wide defaults
// with mongod 7.0's rules: at least one of the two fields; a read concern of level local,
// majority or available only (no cluster or op times, no provenance); a write concern with a w
// other than 0 and no provenance; {} unsets the default read concern, and the default write
// concern while none is set. The settings document (config.settings {_id:
// "ReadWriteConcernDefaults"}) is replaced and the new defaults answered as getDefaultRWConcern
// answers them; the dispatcher applies them from the next command on. A standalone refuses with
// mongod's 51300.
#include <chrono>
#include <optional>
#include <string>

#include "common/wall_clock.h"
#include "server/commands/command_args.h"
#include "server/commands/read_concern.h"
#include "server/commands/write_concern.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

Status NotSuitable(std::string_view what) {
  return Status(ErrorCode::kBadValue,
                std::string(what) + " is not suitable for the default read concern");
}

// mongod's checkSuitabilityAsDefault for a read concern: only a level, and not one that needs
// each command's consent.
Status CheckSuitable(const ReadConcern& concern) {
  if (concern.level == ReadConcernLevel::kSnapshot ||
      concern.level == ReadConcernLevel::kLinearizable) {
    return NotSuitable("level: '" + std::string(LevelName(concern.level)) + "'");
  }
  if (concern.has_after_op_time) return NotSuitable("'afterOpTime'");
  if (concern.after_cluster_time) return NotSuitable("'afterClusterTime'");
  if (concern.at_cluster_time) return NotSuitable("'atClusterTime'");
  if (!concern.provenance.empty()) {
    return Status(ErrorCode::kBadValue, "'provenance' must be unset in default read concern");
  }
  return Status::OK();
}

Status CheckSuitable(const WriteConcern& concern) {
  if (concern.w_given && concern.w_nodes == 0) {
    return Status(ErrorCode::kBadValue,
                  "Unacknowledged write concern is not suitable for the default write concern");
  }
  if (concern.provenance_given) {
    return Status(ErrorCode::kBadValue, "'provenance' must be unset in default write concern");
  }
  return Status::OK();
}

bool BoolField(BsonView doc, std::string_view name) {
  bson_iter_t it;
  return doc.Find(name, &it) && bson_iter_as_bool(&it);
}

// The write concern as mongod stores it: w, then j or fsync when given, then wtimeout.
void AppendWriteConcern(const WriteConcern& concern, BsonView given, bson_t* out) {
  bson_t wc;
  BSON_APPEND_DOCUMENT_BEGIN(out, "defaultWriteConcern", &wc);
  bson_iter_t w;
  if (given.Find("w", &w) && BSON_ITER_HOLDS_UTF8(&w)) {
    AppendIter(&wc, "w", &w);
  } else {
    BSON_APPEND_INT32(&wc, "w", concern.w_nodes);
  }
  if (BoolField(given, "j")) {
    BSON_APPEND_BOOL(&wc, "j", true);
  } else if (BoolField(given, "fsync")) {
    BSON_APPEND_BOOL(&wc, "fsync", true);
  } else if (concern.j_given) {
    BSON_APPEND_BOOL(&wc, "j", false);
  }
  BSON_APPEND_INT64(&wc, "wtimeout", concern.wtimeout_ms);
  bson_append_document_end(out, &wc);
}

}  // namespace

CommandOutcome HandleSetDefaultRWConcern(CommandContext& ctx, const CommandRequest& request,
                                         bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"defaultReadConcern", kArgDocument},
                                                      {"defaultWriteConcern", kArgDocument}}));
  ReplicationCoordinator& repl = ctx.state.repl();
  if (!repl.enabled()) {
    return Status(ErrorCode::kLocation51300,
                  "'setDefaultRWConcern' is not supported on standalone nodes.");
  }
  bson_iter_t read_field, write_field;
  std::optional<ReadConcern> read_concern;
  std::optional<WriteConcern> write_concern;
  if (args.Get("defaultReadConcern", &read_field)) {
    CAIRN_ASSIGN_OR_RETURN(read_concern, ParseReadConcern(&read_field));
  }
  if (args.Get("defaultWriteConcern", &write_field)) {
    CAIRN_ASSIGN_OR_RETURN(write_concern, ParseWriteConcern(&write_field, /*replica_set=*/true));
  }
  if (!read_concern && !write_concern) {
    return Status(ErrorCode::kBadValue,
                  "At least one of the \"defaultReadConcern\" or \"defaultWriteConcern\" fields "
                  "must be present");
  }
  const bool set_write = write_concern && !write_concern->default_constructed();
  if (set_write && !write_concern->w_given) {
    return Status(ErrorCode::kBadValue, "Default write concern must have 'w' field.");
  }
  const bool set_read = read_concern && !read_concern->empty();
  if (set_read) CAIRN_RETURN_IF_ERROR(CheckSuitable(*read_concern));
  if (set_write) CAIRN_RETURN_IF_ERROR(CheckSuitable(*write_concern));

  auto make = [&](const RwConcernDefaultValues& current) -> Result<BsonDoc> {
    bson_iter_t kept_read, kept_write;
    const bool has_read = current.FindReadConcern(&kept_read);
    const bool has_write = current.FindWriteConcern(&kept_write);
    if (write_concern && !set_write && has_write) {
      return Status(ErrorCode::kIllegalOperation,
                    "The global default write concern cannot be unset once it is set.");
    }
    BsonDoc doc;
    bson_t* out = doc.get();
    AppendUtf8(out, "_id", kRwConcernDefaultsId);
    if (set_read) {
      bson_t rc;
      BSON_APPEND_DOCUMENT_BEGIN(out, "defaultReadConcern", &rc);
      AppendUtf8(&rc, "level", LevelName(read_concern->level));
      bson_append_document_end(out, &rc);
    } else if (!read_concern && has_read) {
      AppendIter(out, "defaultReadConcern", &kept_read);
    }
    if (set_write) {
      AppendWriteConcern(*write_concern, IterDocument(&write_field), out);
    } else if (!write_concern && has_write) {
      AppendIter(out, "defaultWriteConcern", &kept_write);
    }
    AppendTimestamp(out, "updateOpTime", repl.clock().Now());
    BSON_APPEND_DATE_TIME(out, "updateWallClockTime", WallClockMillis());
    return doc;
  };
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const RwConcernDefaultValues> updated,
                         repl.rw_concern_defaults().Update(ctx.state.writes(), make));
  RwConcernDefaults::AppendReply(*updated, repl.primary(), /*in_memory=*/false, reply);
  return Status::OK();
}

}  // namespace cairn::server
