// $lookup's HashJoin (lookup_join.h): the foreign side — `from`, narrowed by a pushed-down
// $match — read once, while it fits spec.options.hash_join_max_bytes, and keyed by every
// foreignField value (arrays expanded; a null, undefined or missing field keys as null); each
// input document probes the table with its localField values. Chosen when `from` has no usable
// index on foreignField. The matches are views of the table's documents, in their foreign order.
#include <deque>
#include <map>
#include <set>

#include "query/pipeline/stages/lookup_join.h"
#include "query/pipeline/value.h"

namespace cairn::query::stages::lookup_internal {

namespace {

class HashJoin final : public EqualityJoin {
 public:
  HashJoin(std::shared_ptr<const LookupSpec> spec, std::deque<BsonDoc> foreign_docs)
      : spec_(std::move(spec)),
        foreign_docs_(std::move(foreign_docs)),
        table_(OwnedValueLess{Collator(*spec_)}) {
    std::vector<BsonElement> keys;
    for (uint32_t i = 0; i < foreign_docs_.size(); ++i) {
      keys.clear();
      CollectValues(foreign_docs_[i].view(), spec_->foreign_parts, &keys);
      bool any_null = keys.empty();
      for (const BsonElement& e : keys) {
        bson_iter_t v = e.iter();
        if (BSON_ITER_HOLDS_NULL(&v) || BSON_ITER_HOLDS_UNDEFINED(&v)) {
          any_null = true;
          continue;
        }
        key_store_.emplace_back(&v);
        table_.emplace(&key_store_.back(), i);
      }
      if (any_null) {
        key_store_.emplace_back(NullValue());
        table_.emplace(&key_store_.back(), i);
      }
    }
  }

  Status Probe(const LocalValues& local, std::vector<BsonDoc>*,
               std::vector<BsonView>* views) override {
    std::set<uint32_t> hits;  // ordered: the matches keep the foreign collection's order
    auto probe = [&](const bson_iter_t* value) {
      auto range = table_.equal_range(value);
      for (auto it = range.first; it != range.second; ++it) hits.insert(it->second);
    };
    if (local.missing) {
      probe(NullValue());
    } else {
      for (const BsonElement& e : local.values) {
        bson_iter_t v = e.iter();
        if (BSON_ITER_HOLDS_NULL(&v) || BSON_ITER_HOLDS_UNDEFINED(&v)) {
          probe(NullValue());
        } else {
          probe(&v);
        }
      }
    }
    int64_t bytes = 0;
    for (uint32_t i : hits) {
      views->push_back(foreign_docs_[i].view());
      bytes += static_cast<int64_t>(foreign_docs_[i].view().size());
      CAIRN_RETURN_IF_ERROR(CheckIntermediate(*spec_, bytes));
    }
    return Status::OK();
  }

 private:
  using Table = std::multimap<const OwnedValue*, uint32_t, OwnedValueLess>;

  std::shared_ptr<const LookupSpec> spec_;
  std::deque<BsonDoc> foreign_docs_;  // the foreign side
  std::deque<OwnedValue> key_store_;  // its keys
  Table table_;
};

}  // namespace

Result<std::unique_ptr<EqualityJoin>> BuildHashJoin(std::shared_ptr<const LookupSpec> spec) {
  // A pushed-down $match narrows the foreign read (through an index when one serves it).
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> all,
                         OpenForeign(*spec, spec->foreign_matcher));
  std::deque<BsonDoc> foreign_docs;
  int64_t bytes = 0;
  while (all->Next()) {
    bytes += static_cast<int64_t>(all->document().size()) + 64;
    if (bytes > spec->options.hash_join_max_bytes) {
      CountForeignRead(*spec, "NestedLoopJoin", all->keys_examined(), all->docs_examined());
      return std::unique_ptr<EqualityJoin>();
    }
    foreign_docs.emplace_back(all->document());
  }
  CAIRN_RETURN_IF_ERROR(all->status());
  auto join = std::make_unique<HashJoin>(spec, std::move(foreign_docs));
  CountForeignRead(*spec, "HashJoin", all->keys_examined(), all->docs_examined());
  return std::unique_ptr<EqualityJoin>(std::move(join));
}

}  // namespace cairn::query::stages::lookup_internal
