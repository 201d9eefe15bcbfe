// Engine: opening and closing RocksDB (options, column families), per-collection counters and
// RecordId allocation, Flush and ApproximateSize. Records, index entries, write units and the
// catalog live in their own files.
#include "storage/engine.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <cstring>

#include "common/mutex.h"
#include "storage/engine_impl.h"

namespace cairn::storage {

namespace {

rocksdb::CompressionType PickCompression() {
  std::vector<rocksdb::CompressionType> supported = rocksdb::GetSupportedCompressions();
  for (rocksdb::CompressionType c : {rocksdb::kLZ4Compression, rocksdb::kSnappyCompression}) {
    if (std::find(supported.begin(), supported.end(), c) != supported.end()) return c;
  }
  return rocksdb::kNoCompression;
}

rocksdb::ColumnFamilyOptions MakeCfOptions(const StorageOptions& options,
                                           const std::shared_ptr<rocksdb::Cache>& cache) {
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;  // one LRU cache shared by every column family
  if (options.bloom_bits_per_key > 0) {
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(options.bloom_bits_per_key, false));
  }
  table.whole_key_filtering = true;
  table.block_size = 16 * 1024;
  // A hash index inside each data block: a point read (find by _id, the duplicate-_id probe)
  // finds its key without a binary search over the block's restart points.
  table.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
  table.data_block_hash_table_util_ratio = 0.75;
  // XXH3 block checksums: Debian's RocksDB computes CRC-32C in software (5% of an insert's
  // flush in perf); XXH3 is several times cheaper and as strong for detecting corruption.
  table.checksum = rocksdb::kXXH3;

  rocksdb::ColumnFamilyOptions cf;
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  cf.write_buffer_size = options.write_buffer_bytes;
  // A bloom filter over whole keys in the memtable: the write path's duplicate-_id probe of a
  // new key (the common case) then answers "absent" without walking the skiplist.
  if (options.bloom_bits_per_key > 0) {
    cf.memtable_prefix_bloom_size_ratio = 0.02;
    cf.memtable_whole_key_filtering = true;
  }
  cf.level_compaction_dynamic_level_bytes = true;
  cf.compression = PickCompression();
  return cf;
}

}  // namespace

Result<std::unique_ptr<Engine>> Engine::Open(const StorageOptions& options) {
  if (options.path.empty()) {
    return Status(ErrorCode::kInternalError, "storage open: no database path given");
  }
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = options.create_if_missing;
  db_options.create_missing_column_families = true;
  db_options.IncreaseParallelism(2);
  // The catalog CF takes only small counter writes, so its memtable would pin old WAL files for
  // a long time; bound the WAL so such column families get flushed and recovery stays short.
  db_options.max_total_wal_size = 4 * static_cast<uint64_t>(options.write_buffer_bytes);
  db_options.keep_log_file_num = 5;
  std::unique_ptr<rocksdb::Env> memory_env;
  if (options.in_memory) {
    // Every file (tables, manifest, RocksDB's info log) in memory; nothing under the path.
    memory_env.reset(rocksdb::NewMemEnv(rocksdb::Env::Default()));
    db_options.env = memory_env.get();
    db_options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  }

  std::shared_ptr<rocksdb::Cache> cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  rocksdb::ColumnFamilyOptions cf_options = MakeCfOptions(options, cache);

  // Open every column family the database has (RocksDB requires it) plus the ones we need.
  std::vector<std::string> names;
  rocksdb::Status listed = rocksdb::DB::ListColumnFamilies(db_options, options.path, &names);
  if (!listed.ok()) names.clear();  // a new database; DB::Open reports real problems
  for (const char* needed :
       {rocksdb::kDefaultColumnFamilyName.c_str(), kCatalogCf, kDocumentsCf, kIndexCf}) {
    if (std::find(names.begin(), names.end(), needed) == names.end()) names.push_back(needed);
  }
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const std::string& name : names) descriptors.emplace_back(name, cf_options);

  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->write_options.sync = options.sync_writes;
  // In memory a WAL would only hold a second copy of every write until the next flush.
  impl->write_options.disableWAL = options.in_memory;
  impl->memory_env = std::move(memory_env);
  rocksdb::Status s =
      rocksdb::DB::Open(db_options, options.path, descriptors, &impl->handles, &impl->db);
  if (!s.ok()) return FromRocks(s, "open");
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == rocksdb::kDefaultColumnFamilyName) impl->default_cf = impl->handles[i];
    if (names[i] == kCatalogCf) impl->catalog_cf = impl->handles[i];
    if (names[i] == kDocumentsCf) impl->documents_cf = impl->handles[i];
    if (names[i] == kIndexCf) impl->index_cf = impl->handles[i];
  }

  std::unique_ptr<Engine> engine(new Engine(std::move(impl)));
  engine->impl_->catalog.reset(new Catalog(engine.get()));
  CAIRN_RETURN_IF_ERROR(engine->impl_->catalog->Load());
  return engine;
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Engine::~Engine() = default;

Engine::Impl::~Impl() {
  catalog.reset();
  if (db == nullptr) return;
  // A server stopped while fsyncLocked: RocksDB's close waits for background work it paused.
  if (backup_paused.exchange(false)) db->ContinueBackgroundWork().PermitUncheckedError();
  if (!options.in_memory) db->FlushWAL(/*sync=*/true).PermitUncheckedError();
  for (rocksdb::ColumnFamilyHandle* h : handles)
    db->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  handles.clear();
  db->Close().PermitUncheckedError();
  delete db;
  db = nullptr;
}

Catalog& Engine::catalog() { return *impl_->catalog; }
const Catalog& Engine::catalog() const { return *impl_->catalog; }

CollectionState* Engine::Impl::FindState(Prefix p) const {
  ReaderLock lock(&states_mu);
  auto it = states.find(p);
  return it == states.end() ? nullptr : it->second.get();
}

CollectionState* Engine::Impl::GetOrCreateState(Prefix p) {
  if (CollectionState* st = FindState(p)) return st;
  WriterLock lock(&states_mu);
  std::unique_ptr<CollectionState>& slot = states[p];
  if (!slot) slot = std::make_unique<CollectionState>();
  return slot.get();
}

rocksdb::ReadOptions Engine::Impl::ScanReadOptions() const {
  rocksdb::ReadOptions ro;
  ro.fill_cache = true;
  return ro;
}

std::unique_ptr<rocksdb::Iterator> Engine::Impl::NewBoundedIterator(rocksdb::ColumnFamilyHandle* cf,
                                                                    rocksdb::ReadOptions ro,
                                                                    rocksdb::Slice* lower,
                                                                    rocksdb::Slice* upper,
                                                                    const Overlay* overlay) const {
  ro.iterate_lower_bound = lower;
  ro.iterate_upper_bound = upper;
  // The iterator pins its state now, not at the first Next().
  std::unique_ptr<rocksdb::Iterator> base(db->NewIterator(ro, cf));
  if (overlay == nullptr || overlay->empty()) return base;
  return std::make_unique<OverlayIterator>(std::move(base), *overlay, lower->ToString(),
                                           upper->ToString());
}

Status Engine::Impl::LastKeyInPrefix(rocksdb::ColumnFamilyHandle* cf, Prefix p, std::string* key,
                                     bool* found) const {
  *found = false;
  std::string lower = EncodePrefix(p);
  std::string upper = PrefixEnd(p);
  rocksdb::Slice lower_slice(lower);
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lower_slice;
  ro.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, cf));
  it->SeekForPrev(upper);
  // A key equal to `upper` is the next prefix's.
  if (it->Valid() && it->key().compare(rocksdb::Slice(upper)) == 0) it->Prev();
  if (!it->Valid()) return FromRocks(it->status(), "seek the last key of a prefix");
  rocksdb::Slice k = it->key();
  if (k.size() < lower.size() || std::memcmp(k.data(), lower.data(), lower.size()) != 0) {
    return Status::OK();
  }
  key->assign(k.data(), k.size());
  *found = true;
  return Status::OK();
}

Result<RecordId> Engine::Impl::LargestStoredId(Prefix p) const {
  std::string key;
  bool found = false;
  CAIRN_RETURN_IF_ERROR(LastKeyInPrefix(documents_cf, p, &key, &found));
  if (!found || key.size() != kRecordKeySize) return RecordId{0};
  return static_cast<RecordId>(ReadBigEndian64(key.data() + 4));
}

RecordId Engine::NextRecordId(Prefix collection) {
  CollectionState* st = impl_->GetOrCreateState(collection);
  if (!st->id_seeded.load(std::memory_order_acquire)) {
    MutexLock lock(&st->seed_mu);
    if (!st->id_seeded.load(std::memory_order_relaxed)) {
      Result<RecordId> largest = impl_->LargestStoredId(collection);
      if (!largest.ok()) return 0;  // cannot know which ids are free: refuse (documented)
      int64_t cur = st->last_id.load();
      while (*largest > cur && !st->last_id.compare_exchange_weak(cur, *largest)) {
      }
      st->id_seeded.store(true, std::memory_order_release);
    }
  }
  return st->last_id.fetch_add(1, std::memory_order_relaxed) + 1;
}

int64_t Engine::RecordCount(Prefix collection) const {
  CollectionState* st = impl_->FindState(collection);
  return st ? st->count.load(std::memory_order_acquire) : 0;
}

int64_t Engine::DataSize(Prefix collection) const {
  CollectionState* st = impl_->FindState(collection);
  return st ? st->data_size.load(std::memory_order_acquire) : 0;
}

uint64_t Engine::ApproximateSize(Prefix collection, const std::vector<Prefix>& indexes) const {
  rocksdb::SizeApproximationOptions o;
  o.include_memtables = true;
  o.include_files = true;
  uint64_t total = 0;

  std::string begin = EncodePrefix(collection), end = PrefixEnd(collection);
  rocksdb::Range range(begin, end);
  uint64_t size = 0;
  if (impl_->db->GetApproximateSizes(o, impl_->documents_cf, &range, 1, &size).ok()) total += size;

  if (!indexes.empty()) {
    std::vector<std::string> bounds;
    bounds.reserve(indexes.size() * 2);
    for (Prefix p : indexes) {
      bounds.push_back(EncodePrefix(p));
      bounds.push_back(PrefixEnd(p));
    }
    std::vector<rocksdb::Range> ranges;
    for (size_t i = 0; i < indexes.size(); ++i)
      ranges.emplace_back(bounds[2 * i], bounds[2 * i + 1]);
    std::vector<uint64_t> sizes(indexes.size(), 0);
    if (impl_->db
            ->GetApproximateSizes(o, impl_->index_cf, ranges.data(),
                                  static_cast<int>(ranges.size()), sizes.data())
            .ok()) {
      for (uint64_t s : sizes) total += s;
    }
  }
  return total;
}

Status Engine::Flush() {
  rocksdb::FlushOptions fo;
  fo.wait = true;
  return FromRocks(impl_->db->Flush(fo, {impl_->catalog_cf, impl_->documents_cf, impl_->index_cf}),
                   "flush");
}

Status Engine::SyncWal() {
  if (impl_->options.in_memory) return Status::OK();  // no WAL: nothing outlives the process
  return FromRocks(impl_->db->SyncWAL(), "sync WAL");
}

namespace {

// The on-disk bytes (files only, not memtables) of prefix ranges of one column family.
uint64_t FileBytes(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
                   const std::vector<std::string>& bounds) {
  std::vector<rocksdb::Range> ranges;
  for (size_t i = 0; i + 1 < bounds.size(); i += 2) ranges.emplace_back(bounds[i], bounds[i + 1]);
  if (ranges.empty()) return 0;
  rocksdb::SizeApproximationOptions o;
  o.include_memtables = false;
  o.include_files = true;
  std::vector<uint64_t> sizes(ranges.size(), 0);
  if (!db->GetApproximateSizes(o, cf, ranges.data(), static_cast<int>(ranges.size()), sizes.data())
           .ok()) {
    return 0;
  }
  uint64_t total = 0;
  for (uint64_t s : sizes) total += s;
  return total;
}

}  // namespace

Result<int64_t> Engine::CompactPrefixes(Prefix collection, const std::vector<Prefix>& indexes) {
  rocksdb::DB* db = impl_->db;
  const std::vector<std::string> documents = {EncodePrefix(collection), PrefixEnd(collection)};
  std::vector<std::string> entries;
  for (Prefix p : indexes) {
    entries.push_back(EncodePrefix(p));
    entries.push_back(PrefixEnd(p));
  }
  const uint64_t before =
      FileBytes(db, impl_->documents_cf, documents) + FileBytes(db, impl_->index_cf, entries);
  rocksdb::CompactRangeOptions options;
  // Down to the last level even when the range sits there already: that rewrite is what drops
  // the tombstones of deleted documents.
  options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  auto compact = [&](rocksdb::ColumnFamilyHandle* cf, const std::vector<std::string>& bounds) {
    for (size_t i = 0; i + 1 < bounds.size(); i += 2) {
      rocksdb::Slice begin(bounds[i]), end(bounds[i + 1]);
      CAIRN_RETURN_IF_ERROR(FromRocks(db->CompactRange(options, cf, &begin, &end), "compact"));
    }
    return Status::OK();
  };
  CAIRN_RETURN_IF_ERROR(compact(impl_->documents_cf, documents));
  CAIRN_RETURN_IF_ERROR(compact(impl_->index_cf, entries));
  const uint64_t after =
      FileBytes(db, impl_->documents_cf, documents) + FileBytes(db, impl_->index_cf, entries);
  return static_cast<int64_t>(before) - static_cast<int64_t>(after);
}

Status Engine::BeginBackup() {
  CAIRN_RETURN_IF_ERROR(Flush());
  CAIRN_RETURN_IF_ERROR(SyncWal());
  if (impl_->backup_paused.exchange(true)) return Status::OK();
  Status paused = FromRocks(impl_->db->PauseBackgroundWork(), "pause background work");
  if (!paused.ok()) impl_->backup_paused.store(false);
  return paused;
}

Status Engine::EndBackup() {
  if (!impl_->backup_paused.exchange(false)) return Status::OK();
  return FromRocks(impl_->db->ContinueBackgroundWork(), "continue background work");
}

}  // namespace cairn::storage
