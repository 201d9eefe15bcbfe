// Update application and upsert insertion.
#include "server/write/write_ops.h"

#include <string>

#include "common/bson_validate.h"

namespace cairn::server {

Result<bool> UpdateDocument(CollectionWriter& writer, const query::Update& update,
                            storage::RecordId id, BsonView doc, BsonDoc* new_doc,
                            const query::Matcher* query) {
  query::Update::ApplyOptions options;
  query::MatchDetails details;
  if (update.uses_positional() && query != nullptr) {
    CAIRN_ASSIGN_OR_RETURN(bool matched, query->Matches(doc, &details));
    if (matched && details.elem_match_key) options.positional_match = *details.elem_match_key;
  }
  BsonDoc out;
  CAIRN_ASSIGN_OR_RETURN(bool modified, update.Apply(doc, out.get(), options));
  if (!modified) {
    *new_doc = std::move(out);
    return false;
  }
  CAIRN_RETURN_IF_ERROR(writer.Replace(id, doc, out.view(), update.is_replacement()));
  *new_doc = std::move(out);
  return true;
}

Result<BsonDoc> UpsertDocument(CollectionWriter& writer, const query::Update& update,
                               BsonView filter) {
  CAIRN_ASSIGN_OR_RETURN(BsonDoc seed, query::Update::SeedFromFilter(filter));
  BsonDoc base;
  if (update.is_replacement()) {
    // A replacement keeps only the filter's _id.
    bson_iter_t id;
    if (seed.view().Find("_id", &id)) AppendIter(base.get(), "_id", &id);
  } else {
    base = std::move(seed);
  }
  BsonDoc applied;
  query::Update::ApplyOptions options;
  options.is_upsert_insert = true;
  CAIRN_ASSIGN_OR_RETURN(bool modified, update.Apply(base.view(), applied.get(), options));
  (void)modified;
  // As mongod's update driver: the upserted document is checked as an update's result first.
  CAIRN_RETURN_IF_ERROR(CheckStorageDepth(applied.view(), StorageDepthCheck::kUpdate));
  std::optional<BsonDoc> storage;
  CAIRN_ASSIGN_OR_RETURN(BsonView prepared, PrepareForInsert(applied.view(), &storage));
  CAIRN_RETURN_IF_ERROR(writer.Insert(prepared));
  return BsonDoc(prepared);
}

}  // namespace cairn::server
