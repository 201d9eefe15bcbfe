// insert: mongoc_collection_insert_many over pre-built documents, 1,000 per call, ordered, w:1,
// client-side validation off (the documents are libbson-built).
#include <chrono>

#include "tools/bench/workloads.h"

namespace cairn::bench {

double InsertAll(mongoc_client_t* client, const Options& options, const std::string& collection,
                 const DocumentSet& docs, size_t batch, std::string* error) {
  mongoc_collection_t* coll =
      mongoc_client_get_collection(client, options.db.c_str(), collection.c_str());
  mongoc_write_concern_t* wc = mongoc_write_concern_new();
  mongoc_write_concern_set_w(wc, 1);
  mongoc_collection_set_write_concern(coll, wc);
  mongoc_write_concern_destroy(wc);
  bson_t opts = BSON_INITIALIZER;
  BSON_APPEND_BOOL(&opts, "ordered", true);
  BSON_APPEND_BOOL(&opts, "validate", false);

  double result = -1;
  auto start = std::chrono::steady_clock::now();
  size_t first = 0;
  for (; first < docs.size(); first += batch) {
    size_t n = std::min(batch, docs.size() - first);
    bson_t reply;
    bson_error_t err;
    bool ok = mongoc_collection_insert_many(coll, const_cast<const bson_t**>(docs.data() + first),
                                            n, &opts, &reply, &err);
    bson_iter_t it;
    int64_t inserted = -1;
    if (ok && bson_iter_init_find(&it, &reply, "insertedCount")) inserted = bson_iter_as_int64(&it);
    bson_destroy(&reply);
    if (!ok) {
      *error = std::string("insertMany: ") + err.message;
      break;
    }
    if (inserted != static_cast<int64_t>(n)) {
      *error = "insertMany: insertedCount " + std::to_string(inserted) + ", expected " +
               std::to_string(n);
      break;
    }
  }
  if (first >= docs.size()) {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result = seconds > 0 ? static_cast<double>(docs.size()) / seconds : 0;
  }
  bson_destroy(&opts);
  mongoc_collection_destroy(coll);
  return result;
}

bool DropDatabase(mongoc_client_t* client, const Options& options, std::string* error) {
  bson_t cmd = BSON_INITIALIZER;
  BSON_APPEND_INT32(&cmd, "dropDatabase", 1);
  bool ok = RunCommand(client, options.db, &cmd, nullptr, error);
  bson_destroy(&cmd);
  return ok;
}

}  // namespace cairn::bench
