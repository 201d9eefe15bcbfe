// $lookup's IndexedLoopJoin (lookup_join.h), chosen when `from` has a usable index on
// foreignField: one filtered read per input document (ReadEqualityMatches), which the server's
// planner turns into an index probe. On the foreign _id with one local value it is a point
// lookup of the _id index (and of the server's document cache) instead, with no filter to parse
// and no plan to make per input document (those cost ~15k instructions per probe; the lookup
// ~2k).
#include "query/pipeline/foreign_collections.h"
#include "query/pipeline/stages/lookup_join.h"

namespace cairn::query::stages::lookup_internal {

namespace {

class IndexedLoopJoin final : public EqualityJoin {
 public:
  explicit IndexedLoopJoin(std::shared_ptr<const LookupSpec> spec) : spec_(std::move(spec)) {}

  Status Probe(const LocalValues& local, std::vector<BsonDoc>* owned,
               std::vector<BsonView>*) override {
    if (!local.missing && local.values.size() == 1 && spec_->foreign_field == "_id" &&
        spec_->options.foreign != nullptr && spec_->options.foreign->SupportsReadById()) {
      bson_iter_t value = local.values[0].iter();
      if (IsIdPointLookupValue(&value, Collator(*spec_))) {
        CAIRN_ASSIGN_OR_RETURN(bool found,
                               spec_->options.foreign->ReadById(spec_->from, &value, &probed_));
        CountForeignRead(*spec_, nullptr, /*keys=*/1, /*docs=*/found ? 1 : 0);
        BsonView probed(reinterpret_cast<const uint8_t*>(probed_.data()), probed_.size());
        if (found && spec_->foreign_matcher != nullptr) {
          CAIRN_ASSIGN_OR_RETURN(found, spec_->foreign_matcher->Matches(probed));
        }
        if (found) owned->emplace_back(probed);
        return Status::OK();
      }
    }
    return ReadEqualityMatches(*spec_, local, owned);
  }

 private:
  std::shared_ptr<const LookupSpec> spec_;
  std::string probed_;  // the document read by _id (reused across input documents)
};

}  // namespace

std::unique_ptr<EqualityJoin> MakeIndexedLoopJoin(std::shared_ptr<const LookupSpec> spec) {
  return std::make_unique<IndexedLoopJoin>(std::move(spec));
}

}  // namespace cairn::query::stages::lookup_internal
