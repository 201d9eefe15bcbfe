// point-read: the find command for {_id: k}, built once; each operation overwrites k in place and
// runs it (mongoc_client_command_simple, the same client path as the ping it is set against).
#include "tools/bench/keyed_command.h"
#include "tools/bench/workloads.h"

namespace cairn::bench {

namespace {

class Ping : public Op {
 public:
  Ping(mongoc_client_t* client, const Options& options) : client_(client), db_(options.db) {
    bson_init(&cmd_);
    BSON_APPEND_INT32(&cmd_, "ping", 1);
  }
  ~Ping() override { bson_destroy(&cmd_); }
  int64_t Run(std::string* error) override {
    return RunCommand(client_, db_, &cmd_, nullptr, error) ? 1 : -1;
  }

 private:
  mongoc_client_t* client_;
  std::string db_;
  bson_t cmd_;
};

}  // namespace

std::unique_ptr<Op> FindByIdOp(mongoc_client_t* client, const Options& options, uint64_t seed) {
  bson_t cmd;
  bson_init(&cmd);
  BSON_APPEND_UTF8(&cmd, "find", options.collection.c_str());
  bson_t filter;
  BSON_APPEND_DOCUMENT_BEGIN(&cmd, "filter", &filter);
  BSON_APPEND_INT32(&filter, "_id", 0);
  bson_append_document_end(&cmd, &filter);
  BSON_APPEND_INT32(&cmd, "limit", 1);
  BSON_APPEND_BOOL(&cmd, "singleBatch", true);
  return std::make_unique<KeyedCommand>(
      client, options, seed, &cmd, "filter._id", "point-read",
      [](const bson_t* reply, int32_t k, std::string* error) {
        bson_iter_t root, batch, doc;
        bool found = bson_iter_init(&root, reply) &&
                     bson_iter_find_descendant(&root, "cursor.firstBatch", &batch) &&
                     BSON_ITER_HOLDS_ARRAY(&batch) && bson_iter_recurse(&batch, &doc) &&
                     bson_iter_next(&doc);
        if (!found) *error = "point-read: _id " + std::to_string(k) + " not found";
        return found;
      });
}

std::unique_ptr<Op> PingOp(mongoc_client_t* client, const Options& options) {
  return std::make_unique<Ping>(client, options);
}

}  // namespace cairn::bench
