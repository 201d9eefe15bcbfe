// $lookup's NestedLoopJoin (lookup_join.h), chosen when `from` has no usable index on
// foreignField and its documents pass the hash-join budget: one read of `from` per input
// document, filtered by {foreignField: {$in: [<local values>]}} ({$eq: null} when there are
// none, as MongoDB joins a missing localField) and by a pushed-down $match. The same read serves
// IndexedLoopJoin, where the server's planner answers the filter with an index scan.
#include "query/pipeline/stages/lookup_join.h"

namespace cairn::query::stages::lookup_internal {

namespace {

// The filter of one input document's read.
Result<std::shared_ptr<const Matcher>> EqualityFilter(const LookupSpec& spec,
                                                      const LocalValues& local) {
  BsonDoc filter;
  bson_t cond;
  const std::string& ff = spec.foreign_field;
  bson_append_document_begin(filter.get(), ff.data(), static_cast<int>(ff.size()), &cond);
  if (local.missing) {
    bson_append_null(&cond, "$eq", 3);
  } else {
    bson_t in;
    bson_append_array_begin(&cond, "$in", 3, &in);
    for (size_t i = 0; i < local.values.size(); ++i) {
      bson_iter_t v = local.values[i].iter();
      AppendIter(&in, std::to_string(i), &v);
    }
    bson_append_array_end(&cond, &in);
  }
  bson_append_document_end(filter.get(), &cond);
  if (spec.foreign_matcher != nullptr) {  // {$and: [<equality>, <pushed-down $match>]}
    BsonDoc both;
    bson_t clauses;
    BSON_APPEND_ARRAY_BEGIN(both.get(), "$and", &clauses);
    bson_t first = filter.view().AsBson(), second = spec.foreign_matcher->filter().AsBson();
    BSON_APPEND_DOCUMENT(&clauses, "0", &first);
    BSON_APPEND_DOCUMENT(&clauses, "1", &second);
    bson_append_array_end(both.get(), &clauses);
    filter = std::move(both);
  }
  CAIRN_ASSIGN_OR_RETURN(Matcher matcher,
                         Matcher::Parse(filter.view(), spec.options.expression_context));
  return std::make_shared<const Matcher>(std::move(matcher));
}

class NestedLoopJoin final : public EqualityJoin {
 public:
  explicit NestedLoopJoin(std::shared_ptr<const LookupSpec> spec) : spec_(std::move(spec)) {}

  Status Probe(const LocalValues& local, std::vector<BsonDoc>* owned,
               std::vector<BsonView>*) override {
    return ReadEqualityMatches(*spec_, local, owned);
  }

 private:
  std::shared_ptr<const LookupSpec> spec_;
};

}  // namespace

Status ReadEqualityMatches(const LookupSpec& spec, const LocalValues& local,
                           std::vector<BsonDoc>* owned) {
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const Matcher> filter, EqualityFilter(spec, local));
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> stream,
                         OpenForeign(spec, std::move(filter)));
  int64_t bytes = 0;
  while (stream->Next()) {
    bytes += static_cast<int64_t>(stream->document().size());
    CAIRN_RETURN_IF_ERROR(CheckIntermediate(spec, bytes));
    owned->emplace_back(stream->document());
  }
  CountForeignRead(spec, nullptr, stream->keys_examined(), stream->docs_examined());
  return stream->status();
}

std::unique_ptr<EqualityJoin> MakeNestedLoopJoin(std::shared_ptr<const LookupSpec> spec) {
  return std::make_unique<NestedLoopJoin>(std::move(spec));
}

}  // namespace cairn::query::stages::lookup_internal
