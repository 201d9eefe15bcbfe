// The client side of each workload, through libmongoc. Each builds its commands once and patches
// only the key per operation, so the client spends little CPU on the shared 2-vCPU machine.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tools/bench/bench.h"
#include "tools/bench/client.h"
#include "tools/bench/stats.h"

namespace cairn::bench {

// insert.cc: insertMany of `docs` into `collection` in batches of `batch`, ordered, w:1.
// Returns docs/s, or -1 with *error.
double InsertAll(mongoc_client_t* client, const Options& options, const std::string& collection,
                 const DocumentSet& docs, size_t batch, std::string* error);

// point_read.cc: find {_id: k} (limit 1, singleBatch) for random k in [0, docs); a miss is an
// error. `seed` varies the key sequence per thread.
std::unique_ptr<Op> FindByIdOp(mongoc_client_t* client, const Options& options, uint64_t seed);
// point_read.cc: {ping: 1}, the wire + scheduling floor of one command on this connection.
std::unique_ptr<Op> PingOp(mongoc_client_t* client, const Options& options);

// update.cc: update {_id: k} with {$inc: {score: 1}} (updateOne), random k; n != 1 is an error.
std::unique_ptr<Op> IncByIdOp(mongoc_client_t* client, const Options& options, uint64_t seed);

// scan.cc: one pass of find {} through a cursor (first batch and getMores) over the whole
// collection; returns the number of documents.
std::unique_ptr<Op> ScanOp(mongoc_client_t* client, const Options& options);

// indexed_read.cc: createIndexes {<field>: 1} named <field>_1 on the benchmark collection.
bool CreateIndexOn(mongoc_client_t* client, const Options& options, const char* field,
                   std::string* error);
// indexed_read.cc: createIndexes {ts: 1} named ts_1 on the loaded collection (untimed).
bool CreateTsIndex(mongoc_client_t* client, const Options& options, std::string* error);
// indexed_read.cc: find {ts: t} (limit 1, singleBatch) for the ts of a random loaded document;
// a miss is an error. `seed` varies the key sequence.
std::unique_ptr<Op> FindByIndexedFieldOp(mongoc_client_t* client, const Options& options,
                                         const DocumentSet& docs, uint64_t seed);

// change_stream.cc: the collection the change-stream workload writes and watches.
constexpr const char* kChangeStreamCollection = "change_events";
// change_stream.cc: insert one document, then wait until a client watching the collection (its
// own connection and thread) receives the event: latency is insert sent → event received. Needs
// a replica set; null with *error when the stream cannot be opened.
std::unique_ptr<Op> ChangeEventLatencyOp(mongoc_client_t* writer, const Options& options,
                                         std::string* error);
// change_stream.cc: the same insert alone (the ceiling).
std::unique_ptr<Op> InsertOneOp(mongoc_client_t* writer, const Options& options);

// transaction.cc: one two-document transaction per pass (insert with startTransaction, insert,
// commitTransaction) on one session; its commits' latencies are kept apart. Needs a replica set.
class TransactionOp : public Op {
 public:
  virtual const std::vector<int64_t>& commit_latencies_ns() const = 0;
};
std::unique_ptr<TransactionOp> TwoDocumentTransaction(mongoc_client_t* client,
                                                      const Options& options);
// transaction.cc: the same two inserts, each alone (the ceiling).
std::unique_ptr<Op> TwoInserts(mongoc_client_t* client, const Options& options);

// aggregate.cc: the benchdata shop (../shared/benchdata/gen_data.py), the data of aggregate-group
// and aggregate-lookup: `orders` orders over `customers` customers, each customer with a copy of
// its _id in `cid` (a join key with no index, for HashJoin).
struct ShopData {
  std::unique_ptr<DocumentSet> orders, customers;
};
constexpr const char* kOrders = "shop_orders";
constexpr const char* kCustomers = "shop_customers";
bool GenerateShop(const Options& options, int64_t orders, int64_t customers, ShopData* shop,
                  std::string* error);
// aggregate.cc: one aggregate over `collection` with `pipeline_json` (an Extended JSON array),
// every result read through the cursor; a pass counts `units_per_pass` (the documents the
// pipeline consumes or produces, as its figure says) and fails when the result count differs
// from `expected_results` (unless it is negative). Null with *error for a malformed pipeline.
std::unique_ptr<Op> AggregateOp(mongoc_client_t* client, const Options& options,
                                const std::string& collection, const std::string& pipeline_json,
                                int64_t units_per_pass, int64_t expected_results,
                                std::string* error);

// Drops the benchmark database (start and end of a run).
bool DropDatabase(mongoc_client_t* client, const Options& options, std::string* error);

}  // namespace cairn::bench
