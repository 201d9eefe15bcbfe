// update: the update command {q: {_id: k}, u: {$inc: {score: 1}}} (what updateOne sends), built
// once; each operation overwrites k in place. The reply must say n: 1.
#include "tools/bench/keyed_command.h"
#include "tools/bench/workloads.h"

namespace cairn::bench {

std::unique_ptr<Op> IncByIdOp(mongoc_client_t* client, const Options& options, uint64_t seed) {
  bson_t cmd;
  bson_init(&cmd);
  BSON_APPEND_UTF8(&cmd, "update", options.collection.c_str());
  bson_t updates, statement, q, u, inc;
  BSON_APPEND_ARRAY_BEGIN(&cmd, "updates", &updates);
  BSON_APPEND_DOCUMENT_BEGIN(&updates, "0", &statement);
  BSON_APPEND_DOCUMENT_BEGIN(&statement, "q", &q);
  BSON_APPEND_INT32(&q, "_id", 0);
  bson_append_document_end(&statement, &q);
  BSON_APPEND_DOCUMENT_BEGIN(&statement, "u", &u);
  BSON_APPEND_DOCUMENT_BEGIN(&u, "$inc", &inc);
  BSON_APPEND_INT32(&inc, "score", 1);
  bson_append_document_end(&u, &inc);
  bson_append_document_end(&statement, &u);
  BSON_APPEND_BOOL(&statement, "multi", false);
  bson_append_document_end(&updates, &statement);
  bson_append_array_end(&cmd, &updates);
  BSON_APPEND_BOOL(&cmd, "ordered", true);
  return std::make_unique<KeyedCommand>(
      client, options, seed, &cmd, "updates.0.q._id", "update",
      [](const bson_t* reply, int32_t k, std::string* error) {
        bson_iter_t it;
        if (bson_iter_init_find(&it, reply, "writeErrors")) {
          *error = "update: writeErrors for _id " + std::to_string(k);
          return false;
        }
        if (!bson_iter_init_find(&it, reply, "n") || bson_iter_as_int64(&it) != 1) {
          *error = "update: n != 1 for _id " + std::to_string(k);
          return false;
        }
        return true;
      });
}

}  // namespace cairn::bench
