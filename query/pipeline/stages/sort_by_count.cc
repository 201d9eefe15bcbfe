// $sortByCount: {$sortByCount: <expression>} counts the documents per value of the expression,
// most frequent first — MongoDB desugars it into $group {_id: <expression>, count: {$sum: 1}}
// followed by $sort {count: -1}, and so does Cairn (desugared.cc). Parse: a $-prefixed path
// string (40148) or an object whose first field is an operator (40147); any other type is 40149.
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

constexpr const char* kInvalid =
    "the sortByCount field must be defined as a $-prefixed path or an expression inside an "
    "object";

}  // namespace

Result<StagePtr> ParseSortByCount(const bson_iter_t* spec, const PipelineOptions& options) {
  if (BSON_ITER_HOLDS_DOCUMENT(spec)) {
    bson_iter_t inner;
    if (!bson_iter_recurse(spec, &inner) || !bson_iter_next(&inner) ||
        IterKey(&inner).substr(0, 1) != "$") {
      return Status(ErrorCode::kLocation40147, kInvalid);
    }
  } else if (BSON_ITER_HOLDS_UTF8(spec)) {
    if (IterUtf8(spec).substr(0, 1) != "$") return Status(ErrorCode::kLocation40148, kInvalid);
  } else {
    return Status(ErrorCode::kLocation40149,
                  "the sortByCount field must be specified as a string or as an object");
  }
  BsonDoc group;
  bson_t body;
  bson_append_document_begin(group.get(), "$group", 6, &body);
  bson_append_iter(&body, "_id", 3, spec);
  AppendCountOfOne(&body);
  bson_append_document_end(group.get(), &body);
  return MakeGroupThenSort("$sortByCount", group, R"({"$sort": {"count": -1}})", options);
}

}  // namespace cairn::query::stages
