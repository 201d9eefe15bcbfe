// aggregate-group and aggregate-lookup: pipelines over the benchdata shop, the documents
// ../shared/benchdata/gen_data.py writes byte for byte on any machine (the project's own
// tools/bench/shop_data.py writes the same), so Cairn's figures stand beside the reference
// figures measured on other systems with the same data. The generator runs as a child process
// (python3) and its Extended JSON lines are parsed by libbson.
#include <cstdio>

#include "tools/bench/workloads.h"

namespace cairn::bench {

namespace {

// A copy of the customer's _id in `cid`: the same join key in a field that has no index.
void AddCid(bson_t* customer) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, customer, "_id") && BSON_ITER_HOLDS_INT32(&it)) {
    BSON_APPEND_INT32(customer, "cid", bson_iter_int32(&it));
  }
}

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

class AggregatePass : public Op {
 public:
  AggregatePass(mongoc_client_t* client, const Options& options, const std::string& collection,
                bson_t* pipeline, int64_t units_per_pass, int64_t expected_results)
      : coll_(mongoc_client_get_collection(client, options.db.c_str(), collection.c_str())),
        pipeline_(pipeline),
        units_(units_per_pass),
        expected_(expected_results) {}
  ~AggregatePass() override {
    mongoc_collection_destroy(coll_);
    bson_destroy(pipeline_);
  }

  int64_t Run(std::string* error) override {
    mongoc_cursor_t* cursor =
        mongoc_collection_aggregate(coll_, MONGOC_QUERY_NONE, pipeline_, nullptr, nullptr);
    int64_t n = DrainCursor(cursor, "aggregate", error);
    if (n < 0) return -1;
    if (expected_ >= 0 && n != expected_) {
      *error = "aggregate returned " + std::to_string(n) + " documents, expected " +
               std::to_string(expected_);
      return -1;
    }
    return units_;
  }

 private:
  mongoc_collection_t* coll_;
  bson_t* pipeline_;
  int64_t units_;
  int64_t expected_;
};

}  // namespace

bool GenerateShop(const Options& options, int64_t orders, int64_t customers, ShopData* shop,
                  std::string* error) {
  std::string base = "python3 " + Quoted(options.shop_generator) + " ";
  shop->customers = DocumentSet::FromJsonLines(
      base + "customers --format ejson --count " + std::to_string(customers), customers, AddCid,
      error);
  if (!shop->customers) return false;
  shop->orders =
      DocumentSet::FromJsonLines(base + "orders --format ejson --count " + std::to_string(orders) +
                                     " --customers " + std::to_string(customers),
                                 orders, nullptr, error);
  return shop->orders != nullptr;
}

std::unique_ptr<Op> AggregateOp(mongoc_client_t* client, const Options& options,
                                const std::string& collection, const std::string& pipeline_json,
                                int64_t units_per_pass, int64_t expected_results,
                                std::string* error) {
  std::string json = "{\"pipeline\": " + pipeline_json + "}";
  bson_error_t err;
  bson_t* pipeline = bson_new_from_json(reinterpret_cast<const uint8_t*>(json.data()),
                                        static_cast<ssize_t>(json.size()), &err);
  if (pipeline == nullptr) {
    *error = std::string("bad pipeline ") + pipeline_json + ": " + err.message;
    return nullptr;
  }
  return std::make_unique<AggregatePass>(client, options, collection, pipeline, units_per_pass,
                                         expected_results);
}

}  // namespace cairn::bench
