// writeConcern parsing and its standalone rules (see write_concern.h).
#include "server/commands/write_concern.h"

#include <cmath>
#include <string>

namespace cairn::server {

namespace {

Status WrongType(std::string_view field, const bson_iter_t* it, std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field 'writeConcern." + std::string(field) +
                                              "' is the wrong type '" +
                                              std::string(BsonTypeName(bson_iter_type(it))) +
                                              "', expected types '" + std::string(expected) + "'");
}

bool IsNumber(const bson_iter_t* it) {
  return BSON_ITER_HOLDS_INT32(it) || BSON_ITER_HOLDS_INT64(it) || BSON_ITER_HOLDS_DOUBLE(it) ||
         BSON_ITER_HOLDS_DECIMAL128(it);
}

}  // namespace

Result<WriteConcern> ParseWriteConcern(const bson_iter_t* field, bool replica_set) {
  WriteConcern concern;
  if (field == nullptr) return concern;
  bson_iter_t wc = *field;
  if (BSON_ITER_HOLDS_NULL(&wc)) return concern;
  if (!BSON_ITER_HOLDS_DOCUMENT(&wc)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'writeConcern' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(&wc))) +
                                                "', expected type 'object'");
  }
  bson_iter_t it;
  bson_iter_recurse(&wc, &it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "w") {
      concern.w_given = true;
      if (IsNumber(&it)) {
        double w = bson_iter_as_double(&it);
        if (!(w >= 0) || w > 50 || std::floor(w) != w) {
          return Status(ErrorCode::kFailedToParse,
                        "w has to be a non-negative number and not greater than 50; found: " +
                            std::to_string(bson_iter_as_int64(&it)));
        }
        if (w > 1 && !replica_set) {
          return Status(ErrorCode::kBadValue, "cannot use 'w' > 1 with a standalone");
        }
        concern.w_nodes = static_cast<int32_t>(w);
      } else if (BSON_ITER_HOLDS_UTF8(&it)) {
        std::string_view mode = IterUtf8(&it);
        if (mode != "majority") {
          return Status(ErrorCode::kUnknownReplWriteConcern,
                        "No write concern mode named '" + std::string(mode) +
                            "' found in replica set configuration");
        }
      } else if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
        // Tag sets need a replica set configuration to name.
        return Status(ErrorCode::kUnknownReplWriteConcern,
                      "Write concern tag sets need a replica set configuration; this is a "
                      "standalone server");
      } else {
        return WrongType(key, &it, "[string, int, decimal, double, long, object]");
      }
    } else if (key == "j" || key == "fsync") {
      if (!BSON_ITER_HOLDS_BOOL(&it) && !IsNumber(&it) && !BSON_ITER_HOLDS_NULL(&it)) {
        return WrongType(key, &it, "[bool, int, decimal, double, long]");
      }
      if (!BSON_ITER_HOLDS_NULL(&it)) (key == "j" ? concern.j_given : concern.fsync_given) = true;
      if (bson_iter_as_bool(&it)) concern.sync = true;
    } else if (key == "wtimeout" || key == "wtimeoutMS") {
      if (!IsNumber(&it) && !BSON_ITER_HOLDS_NULL(&it)) {
        return WrongType(key, &it, "[int, decimal, double, long]");
      }
      if (IsNumber(&it)) concern.wtimeout_ms = bson_iter_as_int64(&it);
    } else if (key == "provenance") {
      // Accepted as mongod does (set by mongos and internal clients).
      concern.provenance_given = true;
    } else if (key == "getLastError") {
    } else {
      return Status(ErrorCode::kLocation40415,
                    "BSON field 'writeConcern." + std::string(key) + "' is an unknown field.");
    }
  }
  return concern;
}

}  // namespace cairn::server
