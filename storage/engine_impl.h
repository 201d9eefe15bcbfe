// Private to storage/: Engine::Impl (the RocksDB handles, per-collection counters and RecordId
// allocators) and the key encodings every storage file shares. Includes RocksDB; never include
// it from a public header. The byte layouts are documented in storage/README.md.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/status.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "storage/catalog.h"
#include "storage/engine.h"
#include "storage/options.h"
#include "storage/overlay_iterator.h"

namespace cairn::storage {

// ---- status_mapping.cc: the only place a rocksdb::Status is read. ----

// OK → OK; NotFound → NoSuchKey; anything else → InternalError with RocksDB's message.
// `context` ("open", "write", ...) is prefixed to the reason.
Status FromRocks(const rocksdb::Status& s, std::string_view context);

// ---- Key encodings (storage/README.md). ----

// Column family names. DO NOT RENAME: on disk.
inline constexpr const char* kCatalogCf = "catalog";
inline constexpr const char* kDocumentsCf = "documents";
inline constexpr const char* kIndexCf = "index";

// Prefix 0 is never allocated; 0xFFFFFFFF is never allocated either (so PrefixEnd(p) = p+1
// always exists as a 4-byte upper bound).
inline constexpr Prefix kFirstPrefix = 1;
inline constexpr Prefix kMaxPrefix = 0xFFFFFFFEu;

inline void AppendBigEndian32(std::string* out, uint32_t v) {
  char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
               static_cast<char>(v)};
  out->append(b, 4);
}
inline void AppendBigEndian64(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 7; i >= 0; --i) {
    b[i] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
  out->append(b, 8);
}
inline uint32_t ReadBigEndian32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | uint32_t{u[3]};
}
inline uint64_t ReadBigEndian64(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | u[i];
  return v;
}

// 4 bytes big-endian: the first bytes of every documents/index key.
inline constexpr size_t kPrefixSize = 4;
inline std::string EncodePrefix(Prefix p) {
  std::string s;
  AppendBigEndian32(&s, p);
  return s;
}
// The exclusive upper bound of everything under `p`.
inline std::string PrefixEnd(Prefix p) { return EncodePrefix(p + 1); }

// documents CF: prefix (4 BE) + RecordId (8 BE).
inline std::string RecordKey(Prefix p, RecordId id) {
  std::string s;
  s.reserve(12);
  AppendBigEndian32(&s, p);
  AppendBigEndian64(&s, static_cast<uint64_t>(id));
  return s;
}
inline constexpr size_t kRecordKeySize = 12;

// index CF: prefix (4 BE) + opaque key bytes.
inline std::string IndexKey(Prefix p, std::string_view key) {
  std::string s;
  s.reserve(4 + key.size());
  AppendBigEndian32(&s, p);
  s.append(key);
  return s;
}

// catalog CF keys.
inline constexpr std::string_view kFormatVersionKey = "meta/format_version";
inline constexpr std::string_view kNextPrefixKey = "meta/next_prefix";
inline constexpr std::string_view kCollectionKeyPrefix = "coll/";
inline constexpr std::string_view kCountsKeyPrefix = "count/";
inline constexpr uint32_t kFormatVersion = 1;

inline std::string CollectionKey(std::string_view ns) {
  std::string s(kCollectionKeyPrefix);
  s.append(ns);
  return s;
}
inline std::string CountsKey(Prefix p) {
  std::string s(kCountsKeyPrefix);
  AppendBigEndian32(&s, p);
  return s;
}
// counts value: record count (8 BE, two's complement) + data size (8 BE, two's complement).
inline std::string EncodeCounts(int64_t count, int64_t size) {
  std::string s;
  AppendBigEndian64(&s, static_cast<uint64_t>(count));
  AppendBigEndian64(&s, static_cast<uint64_t>(size));
  return s;
}

// ---- Engine::Impl ----

// In-memory state of one collection prefix. Created at open for every catalogued collection, at
// CreateCollection, or lazily by NextRecordId; never freed while the Engine lives (a dropped
// collection's state stays, marked dropped, so a late WriteUnit cannot resurrect its counters).
struct CollectionState {
  std::atomic<int64_t> count{0};      // written under Impl::commit_mu, read lock-free
  std::atomic<int64_t> data_size{0};  // written under Impl::commit_mu, read lock-free
  bool dropped = false;  // guarded by Impl::commit_mu (declared below: not annotatable)

  std::atomic<bool> id_seeded{false};
  Mutex seed_mu;                    // serialises seeding
  std::atomic<int64_t> last_id{0};  // the largest RecordId handed out or stored
};

struct Engine::Impl {
  StorageOptions options;
  std::unique_ptr<rocksdb::Env> memory_env;  // in-memory mode's Env; outlives `db`
  rocksdb::DB* db = nullptr;
  rocksdb::ColumnFamilyHandle* default_cf = nullptr;
  rocksdb::ColumnFamilyHandle* catalog_cf = nullptr;
  rocksdb::ColumnFamilyHandle* documents_cf = nullptr;
  rocksdb::ColumnFamilyHandle* index_cf = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;  // every open CF (incl. unknown ones)
  rocksdb::WriteOptions write_options;
  std::unique_ptr<Catalog> catalog;

  // BeginBackup paused background work (EndBackup, or closing, resumes it).
  std::atomic<bool> backup_paused{false};

  // Serialises commits that adjust counters and catalog writes that drop collections, so a
  // counter's new absolute value is computed, written and published in order.
  // Lock order: Catalog::mu_ before commit_mu.
  Mutex commit_mu;

  mutable SharedMutex states_mu;
  std::unordered_map<Prefix, std::unique_ptr<CollectionState>> states GUARDED_BY(states_mu);

  // The state of `p`, or null.
  CollectionState* FindState(Prefix p) const;
  // The state of `p`, created when absent.
  CollectionState* GetOrCreateState(Prefix p);

  // The largest RecordId stored under `p` (0 when none) by one SeekForPrev.
  Result<RecordId> LargestStoredId(Prefix p) const;
  // The last key (with its prefix) of prefix `p` in `cf`; *found false when `p` has none.
  Status LastKeyInPrefix(rocksdb::ColumnFamilyHandle* cf, Prefix p, std::string* key,
                         bool* found) const;

  // Read options for cursors: fill_cache on (collection scans are the main read path).
  rocksdb::ReadOptions ScanReadOptions() const;

  // An iterator over [lower, upper) of `cf` as `ro` reads it (its snapshot, if any), with
  // `overlay` (a transaction's writes; may be null) laid over it.
  std::unique_ptr<rocksdb::Iterator> NewBoundedIterator(rocksdb::ColumnFamilyHandle* cf,
                                                        rocksdb::ReadOptions ro,
                                                        rocksdb::Slice* lower,
                                                        rocksdb::Slice* upper,
                                                        const Overlay* overlay) const;
  // The cursors of Engine and Transaction (record_store.cc, index_store.cc).
  std::unique_ptr<RecordCursor> MakeRecordCursor(const rocksdb::ReadOptions& ro,
                                                 const Overlay* overlay, Prefix collection,
                                                 RecordId from, bool reverse) const;
  std::unique_ptr<IndexCursor> MakeIndexCursor(const rocksdb::ReadOptions& ro,
                                               const Overlay* overlay, Prefix index,
                                               std::string_view start, std::string_view end,
                                               bool reverse) const;
  // A batched existence check of full index keys (IndexEntriesExist's work), read as `ro` reads.
  Status MultiExist(const rocksdb::ReadOptions& ro, const std::vector<std::string>& full_keys,
                    std::vector<bool>* exist) const;

  // Which transaction holds each key it wrote (column family id byte + key), so a second
  // transaction writing the same key fails with WriteConflict (first writer wins). Entries go
  // when their transaction ends.
  Mutex txn_locks_mu;
  std::unordered_map<std::string, const Transaction*> txn_locks GUARDED_BY(txn_locks_mu);

  ~Impl();
};

// ---- WriteUnit::Impl (write_unit.cc; a Transaction takes a unit's writes: transaction.cc) ----

struct WriteUnit::Impl {
  struct CountDelta {
    Prefix prefix;
    int64_t count;
    int64_t size;
  };
  // An index entry put or delete, its key and value held in `index_bytes`. Index entries are
  // added to the batch in key order at commit: RocksDB's memtable skiplist reuses its last
  // insert position for a following nearby key, so a sorted run of keys (random secondary-index
  // keys above all) costs a fraction of the same keys in document order. Measured with
  // tools/bench insert and one index on a random field: most of the write time was the
  // memtable's search for each key's position.
  struct IndexOp {
    uint32_t key_offset, key_size, value_offset, value_size;
    bool is_delete;
  };

  Engine::Impl* engine = nullptr;
  rocksdb::WriteBatch batch;
  std::vector<CountDelta> deltas;  // one per collection; a unit rarely touches more than one
  std::string index_bytes;
  std::vector<IndexOp> index_ops;

  std::string_view Bytes(uint32_t offset, uint32_t size) const {
    return std::string_view(index_bytes).substr(offset, size);
  }
  void AddIndexOp(const std::string& key, std::string_view value, bool is_delete) {
    IndexOp op;
    op.key_offset = static_cast<uint32_t>(index_bytes.size());
    op.key_size = static_cast<uint32_t>(key.size());
    index_bytes.append(key);
    op.value_offset = static_cast<uint32_t>(index_bytes.size());
    op.value_size = static_cast<uint32_t>(value.size());
    index_bytes.append(value);
    op.is_delete = is_delete;
    index_ops.push_back(op);
  }
  // Moves the index operations into the batch in key order (stable: operations on one key keep
  // their order, so the batch's outcome is the same as in document order).
  void FlushIndexOps() {
    if (index_ops.empty()) return;
    std::stable_sort(index_ops.begin(), index_ops.end(),
                     [this](const IndexOp& a, const IndexOp& b) {
                       return Bytes(a.key_offset, a.key_size) < Bytes(b.key_offset, b.key_size);
                     });
    for (const IndexOp& op : index_ops) {
      std::string_view key = Bytes(op.key_offset, op.key_size);
      rocksdb::Slice k(key.data(), key.size());
      if (op.is_delete) {
        batch.Delete(engine->index_cf, k).PermitUncheckedError();
      } else {
        std::string_view value = Bytes(op.value_offset, op.value_size);
        batch.Put(engine->index_cf, k, rocksdb::Slice(value.data(), value.size()))
            .PermitUncheckedError();
      }
    }
    index_ops.clear();
    index_bytes.clear();
  }
};

}  // namespace cairn::storage
