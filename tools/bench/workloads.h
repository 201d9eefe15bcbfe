// The client side of each workload, through libmongoc. Each builds its commands once and patches
// only the key per operation, so the client spends little CPU on the shared 2-vCPU machine.
#pragma once

#include <memory>
#include <string>

#include "tools/bench/bench.h"
#include "tools/bench/client.h"
#include "tools/bench/stats.h"

namespace cairn::bench {

// insert.cc: insertMany of `docs` in batches of `batch`, ordered, w:1. Returns docs/s, or -1
// with *error.
double InsertAll(mongoc_client_t* client, const Options& options, const DocumentSet& docs,
                 size_t batch, std::string* error);

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

// indexed_read.cc: createIndexes {ts: 1} named ts_1 on the loaded collection (untimed).
bool CreateTsIndex(mongoc_client_t* client, const Options& options, std::string* error);
// indexed_read.cc: find {ts: t} (limit 1, singleBatch) for the ts of a random loaded document;
// a miss is an error. `seed` varies the key sequence.
std::unique_ptr<Op> FindByIndexedFieldOp(mongoc_client_t* client, const Options& options,
                                         const DocumentSet& docs, uint64_t seed);

// Drops the benchmark database (start and end of a run).
bool DropDatabase(mongoc_client_t* client, const Options& options, std::string* error);

}  // namespace cairn::bench
