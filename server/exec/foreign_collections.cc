// ForeignCollections over the catalog (foreign_collections.h): Open is BuildQueryStream with the
// filter as its matcher; ReadById is find's _id point lookup (with the document cache);
// HasIndexOn / IndexNameOn read the catalog's index specs (first key field; not partial, sparse
// or hidden), the indexes IndexedLoopJoin may probe.
#include "server/exec/foreign_collections.h"

#include "query/matcher/matcher.h"
#include "server/catalog/namespace.h"
#include "server/exec/stream_builder.h"

namespace cairn::server {

namespace {

class CatalogForeignCollections final : public query::ForeignCollections {
 public:
  CatalogForeignCollections(ServerState& state, const storage::Reader& reader, IdCache* id_cache,
                            std::string db, std::shared_ptr<const InterruptSlot> interrupt)
      : state_(state),
        reader_(reader),
        id_cache_(id_cache),
        db_(std::move(db)),
        interrupt_(std::move(interrupt)) {}

  Result<std::unique_ptr<query::DocumentSource>> Open(
      std::string_view collection, std::shared_ptr<const query::Matcher> filter) override {
    QuerySpec spec;
    if (filter == nullptr) {
      CAIRN_ASSIGN_OR_RETURN(query::Matcher all, query::Matcher::Parse(BsonView()));
      filter = std::make_shared<const query::Matcher>(std::move(all));
    }
    spec.matcher = std::move(filter);
    spec.interrupt = interrupt_;
    storage::CollectionHandle handle =
        state_.engine().catalog().Find(MakeNamespace(db_, collection));
    CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<DocumentStream> stream,
                           BuildQueryStream(reader_, handle, spec, id_cache_));
    return std::unique_ptr<query::DocumentSource>(std::move(stream));
  }

  bool SupportsReadById() const override { return true; }
  Result<bool> ReadById(std::string_view collection, const bson_iter_t* id,
                        std::string* document) override {
    storage::CollectionHandle handle =
        state_.engine().catalog().Find(MakeNamespace(db_, collection));
    if (handle == nullptr) return false;
    storage::RecordId record_id = 0;
    bool found = false;
    CAIRN_RETURN_IF_ERROR(
        server::ReadById(reader_, *handle, id, id_cache_, document, &record_id, &found));
    return found;
  }

  bool HasIndexOn(std::string_view collection, std::string_view field) override {
    return !IndexNameOn(collection, field).empty();
  }

  std::string IndexNameOn(std::string_view collection, std::string_view field) override {
    storage::CollectionHandle handle =
        state_.engine().catalog().Find(MakeNamespace(db_, collection));
    if (handle == nullptr) return std::string();
    for (const storage::IndexEntry& index : handle->indexes) {
      BsonView spec = index.spec.view();
      bson_iter_t it;
      if (spec.Find("partialFilterExpression", &it)) continue;
      if (spec.Find("sparse", &it) && bson_iter_as_bool(&it)) continue;
      if (spec.Find("hidden", &it) && bson_iter_as_bool(&it)) continue;  // the planner skips it
      if (!spec.Find("key", &it) || !BSON_ITER_HOLDS_DOCUMENT(&it)) continue;
      bson_iter_t key;
      if (IterDocument(&it).Init(&key) && bson_iter_next(&key) && IterKey(&key) == field &&
          IterIsNumber(&key)) {
        return index.name;
      }
    }
    return std::string();
  }

 private:
  ServerState& state_;
  const storage::Reader& reader_;
  IdCache* id_cache_;
  std::string db_;
  std::shared_ptr<const InterruptSlot> interrupt_;
};

}  // namespace

std::shared_ptr<query::ForeignCollections> MakeForeignCollections(
    ServerState& state, const storage::Reader& reader, IdCache* id_cache, std::string db,
    std::shared_ptr<const InterruptSlot> interrupt) {
  return std::make_shared<CatalogForeignCollections>(state, reader, id_cache, std::move(db),
                                                     std::move(interrupt));
}

}  // namespace cairn::server
