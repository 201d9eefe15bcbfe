// Catalog: which collections exist, under which key prefixes, with which options and indexes.
// Persisted in the "catalog" column family and cached in memory. Prefixes (uint32, one per
// collection and one per index) are allocated monotonically from a persisted high-water mark
// and never reused. Entries are immutable snapshots (CollectionHandle): a change replaces the
// entry, so readers holding a handle are never disturbed. Thread-safe (one mutex).
//
// Namespace rules (InvalidNamespace) are MongoDB semantics and are checked by the server, not
// here: the catalog stores whatever names it is given.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/bson_doc.h"
#include "common/mutex.h"
#include "common/status.h"

namespace cairn::storage {

class Engine;
class WriteUnit;

using Prefix = uint32_t;

struct IndexEntry {
  std::string name;  // "_id_", "a_1", ...
  Prefix prefix = 0;
  BsonDoc spec;   // as listIndexes prints it: {v: 2, key: {...}, name: "...", unique: ...}
  BsonDoc state;  // the server's state of the index (build finished, multikey paths), opaque
                  // here (index/index_descriptor.h owns its fields); {} when it has none
};

struct CollectionEntry {
  std::string ns;  // "db.collection"
  Prefix prefix = 0;
  uint8_t uuid[16] = {};  // random, fixed at creation (listCollections info.uuid)
  BsonDoc options;        // create options as given (capped, validator, ...); {} by default
  std::vector<IndexEntry> indexes;  // indexes[0] is always the _id index "_id_"

  std::string_view db() const { return std::string_view(ns).substr(0, ns.find('.')); }
  std::string_view collection() const { return std::string_view(ns).substr(ns.find('.') + 1); }
};

using CollectionHandle = std::shared_ptr<const CollectionEntry>;

// The _id index's spec every collection is created with: {v: 2, key: {_id: 1}, name: "_id_"}.
BsonDoc IdIndexSpec();
// A random (version 4) UUID, as a new collection gets (callers that log it before creating the
// collection choose it with this and pass it to CreateCollection).
void NewCollectionUuid(uint8_t out[16]);

class Catalog {
 public:
  // The entry for "db.coll", or null.
  CollectionHandle Find(std::string_view ns) const;
  // Every collection of a database, sorted by name.
  std::vector<CollectionHandle> ListCollections(std::string_view db) const;
  // Names of databases with at least one collection, sorted.
  std::vector<std::string> ListDatabases() const;

  // Creates a collection with its _id index ({v: 2, key: {_id: 1}, name: "_id_"}) in one atomic
  // write. NamespaceExists if it exists.
  // `uuid` (16 bytes): the collection's UUID when the caller chose it (a replica set logs it in
  // the create entry); null: a random one.
  Result<CollectionHandle> CreateCollection(std::string_view ns, BsonView options,
                                            WriteUnit* also = nullptr,
                                            const uint8_t* uuid = nullptr);
  // Drops a collection: its catalog entry and DeleteRange over its documents and every index's
  // entries, in one atomic write. NamespaceNotFound if absent.
  // `also` (here and for CreateCollection, CreateIndex, DropIndex, DropDatabase and
  // RenameCollection): a unit committed in the same atomic write (the oplog entry that records
  // the change); nothing of it is written when the change fails.
  Status DropCollection(std::string_view ns, WriteUnit* also = nullptr);
  // Drops every collection of a database in one atomic write (OK when there are none).
  Status DropDatabase(std::string_view db, WriteUnit* also = nullptr);
  // Renames (prefixes are kept, so no data moves). NamespaceNotFound if `from` is absent;
  // NamespaceExists if `to` exists and !drop_target; with drop_target the old target is dropped
  // in the same write.
  Status RenameCollection(std::string_view from, std::string_view to, bool drop_target,
                          WriteUnit* also = nullptr);

  // Adds an index under a new prefix, `spec` stored as given (as listIndexes prints it), in one
  // atomic write, and returns the new handle (the index is its indexes.back()). The index starts
  // empty: the caller fills it from the existing documents, and writers that take the new handle
  // maintain it meanwhile. NamespaceNotFound if the collection is absent; NamespaceExists if it
  // has an index of that name (spec conflicts are the server's to detect before calling).
  // `state` is stored beside the spec as given.
  Result<CollectionHandle> CreateIndex(std::string_view ns, std::string_view name, BsonView spec,
                                       BsonView state = BsonView(), WriteUnit* also = nullptr);
  // Replaces an index's spec and state (a finished build, newly multikey paths)
  // in one atomic write of the collection entry, and returns the new handle. NamespaceNotFound if
  // the collection is absent; IndexNotFound if it has no index of that name.
  Result<CollectionHandle> UpdateIndex(std::string_view ns, std::string_view name, BsonView spec,
                                       BsonView state);
  // collMod's change: the collection's options and the specs of the indexes named in
  // `index_specs` (their states kept), in one atomic write of the collection entry (with `also`),
  // and returns the new handle. NamespaceNotFound if absent; IndexNotFound for an unknown name.
  Result<CollectionHandle> ModifyCollection(
      std::string_view ns, BsonView options,
      const std::vector<std::pair<std::string, BsonDoc>>& index_specs, WriteUnit* also = nullptr);
  // Removes an index: its catalog entry and a DeleteRange over its entries, in one atomic write.
  // NamespaceNotFound if the collection is absent; IndexNotFound if it has no index of that
  // name; InvalidOptions ("cannot drop _id index") for indexes[0].
  Status DropIndex(std::string_view ns, std::string_view name, WriteUnit* also = nullptr);

 private:
  friend class Engine;
  class ChangeBatch;  // catalog.cc: a change's own batch, or the unit it commits with
  explicit Catalog(Engine* engine) : engine_(engine) {}
  Status Load();  // at open

  Engine* engine_;
  mutable Mutex mu_;
  std::unordered_map<std::string, CollectionHandle> entries_ GUARDED_BY(mu_);
  Prefix next_prefix_ GUARDED_BY(mu_) = 1;
};

}  // namespace cairn::storage
