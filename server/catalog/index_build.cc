// Index builds over existing documents, and the startup clean-up of unfinished ones.
#include "server/catalog/index_build.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "common/interrupt.h"
#include "common/logging.h"
#include "server/catalog/collection_indexes.h"

namespace cairn::server {

namespace {

// A build commits every this many documents (or bytes), and checks unique keys per batch.
constexpr size_t kBatchDocuments = 10'000;
constexpr size_t kBatchBytes = 16u << 20;
// Collections at least this large log their scan progress, every this many documents.
constexpr int64_t kProgressEvery = 500'000;

std::string RandomUuid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint8_t bytes[16];
  uint64_t hi = rng(), lo = rng();
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
    bytes[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
  }
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0f) | 0x40);
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3f) | 0x80);
  return UuidString(bytes);
}

void LogBuild(std::string_view ctx, int id, std::string_view msg, const std::string& build_uuid,
              const std::string& ns, std::initializer_list<std::pair<const char*, int64_t>> extra) {
  BsonDoc attr;
  AppendUtf8(attr.get(), "buildUUID", build_uuid);
  AppendUtf8(attr.get(), "namespace", ns);
  for (const auto& [key, value] : extra) BSON_APPEND_INT64(attr.get(), key, value);
  logging::Log(logging::Severity::kInfo, "INDEX", id, ctx, msg, attr.get());
}

// One index being built.
struct Target {
  const IndexHandle* index;
  index::MultikeyPaths multikey;
  // Unique indexes: this batch's keys with their records, checked before the batch commits.
  std::vector<std::pair<std::string, storage::RecordId>> batch_keys;
  int64_t keys_inserted = 0;
};

// Fails on a key duplicated inside the batch or already stored by an earlier batch.
Status CheckUniqueBatch(storage::Engine& engine, const std::string& ns, Target* t) {
  if (t->batch_keys.empty()) return Status::OK();
  std::sort(t->batch_keys.begin(), t->batch_keys.end());
  for (size_t i = 1; i < t->batch_keys.size(); ++i) {
    if (t->batch_keys[i].first == t->batch_keys[i - 1].first) {
      return IndexDuplicateKeyError(ns, *t->index->descriptor, t->batch_keys[i].first);
    }
  }
  std::vector<std::string_view> keys;
  keys.reserve(t->batch_keys.size());
  for (const auto& [key, id] : t->batch_keys) keys.push_back(key);
  std::vector<bool> exist;
  CAIRN_RETURN_IF_ERROR(engine.IndexEntriesExist(t->index->prefix, keys, &exist));
  for (size_t i = 0; i < exist.size(); ++i) {
    if (exist[i]) return IndexDuplicateKeyError(ns, *t->index->descriptor, keys[i]);
  }
  t->batch_keys.clear();
  return Status::OK();
}

Status Fill(WriteContext& state, const std::string& ns, const CollectionIndexes& indexes,
            std::vector<Target>* targets, const std::string& build_uuid, std::string_view ctx,
            const InterruptSlot* interrupt) {
  storage::Engine& engine = state.engine();
  const storage::CollectionHandle& collection = indexes.collection();
  const int64_t total = engine.RecordCount(collection->prefix);
  auto cursor = engine.ScanRecords(collection->prefix);
  storage::WriteUnit unit = engine.BeginWrite();
  size_t in_batch = 0;
  int64_t scanned = 0;
  index::KeySet keys;
  index::MultikeyPaths paths;
  auto flush = [&]() -> Status {
    for (Target& t : *targets) {
      if (t.index->descriptor->unique()) CAIRN_RETURN_IF_ERROR(CheckUniqueBatch(engine, ns, &t));
    }
    in_batch = 0;
    return unit.Commit();
  };
  while (cursor->Next()) {
    // A safe point: a killed or timed-out build stops here and its index is dropped.
    CAIRN_RETURN_IF_ERROR(CheckInterrupt(interrupt));
    BsonView doc = cursor->value();
    storage::RecordId id = cursor->id();
    for (Target& t : *targets) {
      paths.clear();
      CAIRN_RETURN_IF_ERROR(t.index->descriptor->GetKeys(doc, &keys, &paths));
      t.multikey.resize(paths.size(), 0);
      for (size_t f = 0; f < paths.size(); ++f) t.multikey[f] |= paths[f];
      const bool unique = t.index->descriptor->unique();
      for (std::string& key : keys) {
        unit.PutIndexEntry(t.index->prefix, IndexEntryKey(unique, key, id),
                           IndexEntryValue(unique, id));
        if (unique) t.batch_keys.emplace_back(std::move(key), id);
        ++t.keys_inserted;
      }
    }
    ++scanned;
    if (++in_batch >= kBatchDocuments || unit.ApproximateBytes() >= kBatchBytes) {
      CAIRN_RETURN_IF_ERROR(flush());
    }
    if (total >= kProgressEvery && scanned % kProgressEvery == 0) {
      LogBuild(ctx, 51773, "Index build: collection scan progress", build_uuid, ns,
               {{"done", scanned}, {"total", total}});
    }
  }
  CAIRN_RETURN_IF_ERROR(cursor->status());
  return flush();
}

}  // namespace

std::string UuidString(const uint8_t uuid[16]) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[uuid[i] >> 4];
    out += kHex[uuid[i] & 15];
  }
  return out;
}

Status BuildIndexes(WriteContext& state, const std::string& ns,
                    const std::vector<std::string>& names, std::string_view log_context,
                    const InterruptSlot* interrupt) {
  storage::Catalog& catalog = state.engine().catalog();
  storage::CollectionHandle collection = catalog.Find(ns);
  if (!collection) return Status(ErrorCode::kNamespaceNotFound, "ns not found " + ns);
  const std::string build_uuid = RandomUuid();
  const std::string collection_uuid = UuidString(collection->uuid);
  auto started = std::chrono::steady_clock::now();
  LogBuild(log_context, 20384, "Index build: starting", build_uuid, ns,
           {{"indexes", static_cast<int64_t>(names.size())}});

  Status status;
  std::shared_ptr<const CollectionIndexes> indexes;
  std::vector<Target> targets;
  Result<std::shared_ptr<const CollectionIndexes>> compiled = IndexesOf(collection);
  status = compiled.status();
  if (status.ok()) {
    indexes = compiled.value();
    for (const std::string& name : names) {
      int position = indexes->Find(name);
      if (position < 0) {
        status = Status(ErrorCode::kIndexNotFound, "index not found with name [" + name + "]");
        break;
      }
      targets.push_back({&indexes->all()[position], {}, {}, 0});
    }
  }
  if (status.ok()) status = Fill(state, ns, *indexes, &targets, build_uuid, log_context, interrupt);
  if (status.ok()) {
    // Ready, with the multikey paths the documents showed.
    storage::CollectionHandle handle = collection;
    for (Target& t : targets) {
      index::IndexState ready;
      ready.multikey = t.multikey;
      ready.multikey.resize(t.index->descriptor->num_fields(), 0);
      int position = indexes->Find(t.index->name);
      Result<storage::CollectionHandle> updated =
          catalog.UpdateIndex(ns, t.index->name, handle->indexes[position].spec.view(),
                              index::EncodeIndexState(ready).view());
      if (!updated.ok()) {
        status = updated.status();
        break;
      }
      handle = updated.value();
    }
  }
  if (!status.ok()) {
    for (const std::string& name : names) catalog.DropIndex(ns, name).IgnoreError();
    LogBuild(log_context, 20649, "Index build: failed", build_uuid, ns, {});
    return status.WithContext("Index build failed: " + build_uuid + ": Collection " + ns + " ( " +
                              collection_uuid + " )");
  }
  int64_t keys = 0;
  for (const Target& t : targets) keys += t.keys_inserted;
  auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - started)
                    .count();
  LogBuild(log_context, 20663, "Index build: done building", build_uuid, ns,
           {{"keysInserted", keys}, {"durationMillis", static_cast<int64_t>(millis)}});
  return Status::OK();
}

Status DropUnfinishedIndexes(storage::Engine& engine) {
  storage::Catalog& catalog = engine.catalog();
  for (const std::string& db : catalog.ListDatabases()) {
    for (const storage::CollectionHandle& collection : catalog.ListCollections(db)) {
      for (const storage::IndexEntry& entry : collection->indexes) {
        if (index::DecodeIndexState(entry.state.view(), 0).ready) continue;
        CAIRN_RETURN_IF_ERROR(catalog.DropIndex(collection->ns, entry.name));
        BsonDoc attr;
        AppendUtf8(attr.get(), "namespace", collection->ns);
        AppendUtf8(attr.get(), "index", entry.name);
        logging::Log(logging::Severity::kWarning, "INDEX", 22206, "initandlisten",
                     "Dropping an index whose build did not finish", attr.get());
      }
    }
  }
  return Status::OK();
}

}  // namespace cairn::server
