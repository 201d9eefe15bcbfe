// scan: find {} through a driver cursor (first batch of 101, then getMores as large as the server
// makes them), touching every document.
#include "tools/bench/workloads.h"

namespace cairn::bench {

namespace {

class ScanPass : public Op {
 public:
  ScanPass(mongoc_client_t* client, const Options& options)
      : coll_(mongoc_client_get_collection(client, options.db.c_str(),
                                           options.collection.c_str())) {}
  ~ScanPass() override { mongoc_collection_destroy(coll_); }

  int64_t Run(std::string* error) override {
    bson_t filter = BSON_INITIALIZER;
    mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(coll_, &filter, nullptr, nullptr);
    const bson_t* doc;
    int64_t n = 0;
    uint64_t touched = 0;
    while (mongoc_cursor_next(cursor, &doc)) {
      touched += doc->len + bson_get_data(doc)[doc->len - 1];
      ++n;
    }
    bson_error_t err;
    bool failed = mongoc_cursor_error(cursor, &err);
    if (failed) *error = std::string("scan: ") + err.message;
    mongoc_cursor_destroy(cursor);
    bson_destroy(&filter);
    sink_ = sink_ + touched;
    return failed ? -1 : n;
  }

 private:
  mongoc_collection_t* coll_;
  volatile uint64_t sink_ = 0;
};

}  // namespace

std::unique_ptr<Op> ScanOp(mongoc_client_t* client, const Options& options) {
  return std::make_unique<ScanPass>(client, options);
}

}  // namespace cairn::bench
