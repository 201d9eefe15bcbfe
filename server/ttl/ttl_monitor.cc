// TtlMonitor: the sleep loop, the pass over every TTL index, and the batched index-range delete.
#include "server/ttl/ttl_monitor.h"

#include <limits>
#include <memory>
#include <vector>

#include "common/bson_doc.h"
#include "common/logging.h"
#include "common/mutex.h"
#include "index/index_bounds.h"
#include "query/matcher/matcher.h"
#include "server/catalog/collection_indexes.h"
#include "server/exec/index_scan.h"
#include "server/server_parameters.h"
#include "server/write/collection_writer.h"
#include "server/write/write_context.h"

namespace cairn::server {

namespace {

// Documents removed per atomic write. Between batches the collection lock is released, so writers
// to a collection with a large expired backlog wait one batch at most (MongoDB batches TTL deletes
// for the same reason: batchedDeletesTargetBatchDocs).
constexpr int64_t kBatchDocs = 1000;
constexpr size_t kBatchBytes = 16u << 20;

// MongoDB's "dawn of time": the lowest date, so dates before 1970 expire too.
constexpr int64_t kDawnOfTimeMillis = std::numeric_limits<int64_t>::min();

int64_t MillisSinceEpoch(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// now - expireAfterSeconds, in milliseconds, saturating instead of overflowing.
int64_t CutoffMillis(int64_t now_ms, int64_t expire_after_seconds) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (expire_after_seconds > kMax / 1000) return kMin;
  if (expire_after_seconds < kMin / 1000) return kMax;
  int64_t offset = expire_after_seconds * 1000;
  if (offset > 0 && now_ms < kMin + offset) return kMin;
  if (offset < 0 && now_ms > kMax + offset) return kMax;
  return now_ms - offset;
}

bool IsTtlSpec(const storage::IndexEntry& index) {
  bson_iter_t it;
  return index.spec.view().Find("expireAfterSeconds", &it);
}

bool IsCapped(const storage::CollectionEntry& collection) {
  bson_iter_t it;
  return collection.options.view().Find("capped", &it) && bson_iter_as_bool(&it);
}

void LogTtlError(const std::string& ns, const std::string& index_name, const Status& status) {
  BsonDoc attr;
  AppendUtf8(attr.get(), "namespace", ns);
  AppendUtf8(attr.get(), "index", index_name);
  AppendUtf8(attr.get(), "error", status.ToString());
  logging::Log(logging::Severity::kError, "INDEX", 5400703, "TTLMonitor",
               "Error running TTL job on collection", attr.get());
}

}  // namespace

void AppendTtlMetrics(const TtlMetrics& metrics, bson_t* out) {
  bson_t ttl;
  BSON_APPEND_DOCUMENT_BEGIN(out, "ttl", &ttl);
  BSON_APPEND_INT64(&ttl, "deletedDocuments", metrics.deleted_documents.load());
  BSON_APPEND_INT64(&ttl, "passes", metrics.passes.load());
  BSON_APPEND_INT64(&ttl, "subPasses", metrics.sub_passes.load());
  bson_append_document_end(out, &ttl);
}

void TtlMonitor::Start() {
  MutexLock lock(&mu_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { Loop(); });
}

void TtlMonitor::Stop() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    stop_requested_ = true;
  }
  cv_.SignalAll();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) {
    logging::Log(logging::Severity::kInfo, "INDEX", 3684100, "SignalHandler",
                 "Shutting down TTL collection monitor thread", nullptr);
    thread_.join();
    logging::Log(logging::Severity::kInfo, "INDEX", 3684101, "SignalHandler",
                 "Finished shutting down TTL collection monitor thread", nullptr);
  }
}

void TtlMonitor::Wake() {
  {
    MutexLock lock(&mu_);
    ++wakes_;
  }
  cv_.SignalAll();
}

void TtlMonitor::Loop() {
  MutexLock lock(&mu_);
  for (;;) {
    const auto sleep_start = std::chrono::steady_clock::now();
    for (;;) {
      if (stopping_) return;
      // Read on every wake: a setParameter of ttlMonitorSleepSecs applies to the current sleep.
      const auto deadline =
          sleep_start + std::chrono::seconds(parameters_.ttl_monitor_sleep_secs.load());
      const uint64_t wakes = wakes_;
      // Until stopped, woken by Wake(), or the deadline passes (then a pass runs).
      bool woken = stopping_ || wakes_ != wakes;
      while (!woken && cv_.WaitUntil(deadline)) woken = stopping_ || wakes_ != wakes;
      if (!woken) break;
    }
    if (!parameters_.ttl_monitor_enabled.load()) continue;
    lock.Unlock();
    {
      // While the server is fsyncLocked the pass waits for the next round, as mongod's does.
      WriteGate::Entered entered(writes_.gate());
      if (entered) RunPass(std::chrono::system_clock::now());
    }
    lock.Lock();
  }
}

void TtlMonitor::RunPass(std::chrono::system_clock::time_point now) {
  storage::Catalog& catalog = writes_.engine().catalog();
  for (const std::string& db : catalog.ListDatabases()) {
    for (const storage::CollectionHandle& collection : catalog.ListCollections(db)) {
      // MongoDB 7.0 refuses TTL indexes on capped collections; one made otherwise is skipped.
      if (IsCapped(*collection)) continue;
      for (const storage::IndexEntry& index : collection->indexes) {
        if (stop_requested_) return;
        if (!IsTtlSpec(index)) continue;
        Result<int64_t> deleted = ExpireWithIndex(collection->ns, index.name, now);
        if (!deleted.ok()) LogTtlError(collection->ns, index.name, deleted.status());
      }
    }
  }
  // Without batching limits, every pass is a single sub-pass that deletes all it can.
  ++metrics_.sub_passes;
  ++metrics_.passes;
}

Result<int64_t> TtlMonitor::ExpireWithIndex(const std::string& ns, const std::string& index_name,
                                            std::chrono::system_clock::time_point now) {
  int64_t deleted = 0;
  const int64_t now_ms = MillisSinceEpoch(now);
  while (!stop_requested_) {
    // The writer holds the collection lock for one batch, and reads the newest catalog entry
    // under it: an index dropped or changed (collMod expireAfterSeconds) since the pass listed
    // it is seen here.
    CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<CollectionWriter> writer,
                           CollectionWriter::Open(writes_, ns, /*create_if_missing=*/false));
    if (!writer->collection()) break;  // dropped
    CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const CollectionIndexes> indexes,
                           IndexesOf(writer->collection()));
    const int position = indexes->Find(index_name);
    if (position < 0) break;  // dropped
    const IndexHandle& index = indexes->all()[position];
    const index::IndexDescriptor& descriptor = *index.descriptor;
    std::optional<int64_t> expire = descriptor.expire_after_seconds();
    // As MongoDB's getValidTTLIndex: a finished, single-field btree index with a number.
    if (!expire.has_value() || !index.state.ready || descriptor.num_fields() != 1 ||
        descriptor.key_pattern().kind() != index::IndexKind::kBtree) {
      break;
    }
    const index::KeyField& field = descriptor.key_pattern().fields()[0];

    // The expired range [dawn of time, now - expireAfterSeconds], inclusive both ends, and the
    // same predicate for the matcher, which re-checks each fetched document.
    BsonDoc dates;
    BSON_APPEND_DATE_TIME(dates.get(), "low", kDawnOfTimeMillis);
    BSON_APPEND_DATE_TIME(dates.get(), "high", CutoffMillis(now_ms, *expire));
    bson_iter_t low, high;
    dates.view().Find("low", &low);
    dates.view().Find("high", &high);
    BsonDoc filter;
    bson_t range;
    bson_append_document_begin(filter.get(), field.path.data(), static_cast<int>(field.path.size()),
                               &range);
    AppendIter(&range, "$gte", &low);
    AppendIter(&range, "$lte", &high);
    bson_append_document_end(filter.get(), &range);
    CAIRN_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter.view()));

    index::IndexBounds bounds;
    index::Interval interval;
    interval.low = query::OwnedValue(&low);
    interval.high = query::OwnedValue(&high);
    bounds.fields.push_back({std::move(interval)});
    IndexScanSpec scan;
    scan.collection = writer->collection()->prefix;
    IndexScanBranch branch;
    branch.index = index.prefix;
    branch.unique = descriptor.unique();
    // Oldest dates first, whichever the key's direction (MongoDB scans a descending TTL index
    // backward).
    branch.reverse = field.descending;
    branch.ranges =
        index::IndexScanRanges::Make(bounds, descriptor.key_pattern().descending(), branch.reverse);
    scan.branches.push_back(std::move(branch));
    scan.dedup = !index.state.multikey.empty() && index.state.multikey[0] != 0;
    scan.matcher = std::make_shared<const query::Matcher>(std::move(matcher));
    std::unique_ptr<DocumentStream> stream = MakeIndexScanStream(writes_.engine(), std::move(scan));

    int64_t batch = 0;
    bool full = false;  // the batch stopped at its limit: more may remain
    while (!(full = batch >= kBatchDocs || writer->pending_bytes() >= kBatchBytes) &&
           stream->Next()) {
      CAIRN_RETURN_IF_ERROR(writer->Remove(stream->record_id(), stream->document()));
      ++batch;
    }
    CAIRN_RETURN_IF_ERROR(stream->status());
    stream.reset();
    CAIRN_RETURN_IF_ERROR(writer->Commit());
    deleted += batch;
    metrics_.deleted_documents += batch;
    if (!full) break;  // the expired range is empty now
  }
  return deleted;
}

}  // namespace cairn::server
