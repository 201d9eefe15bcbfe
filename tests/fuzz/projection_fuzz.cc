// Fuzz target `projection`: find's projection (ParseFind: inclusion/exclusion, computed fields,
// $slice, $elemMatch, the positional `field.$`), aggregation's $project form (Parse), and find's
// sort, applied to arbitrary documents. Input (fuzz_support.h): a first document
// {filter: ..., projection: ..., sort: ..., collation: ..., let: ...} as a find command gives
// them, then the documents. As in find, the find-form projection applies to the documents the
// filter matches; the $project form applies to all. Checks: results are valid BSON, an identity
// projection returns the document unchanged, and the sort order is a strict weak order on the
// documents (std::sort is given only comparators that are).
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "common/string_comparator.h"
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "query/projection/projection.h"
#include "query/sort/sort_pattern.h"
#include "tests/fuzz/fuzz_support.h"

using namespace cairn;

namespace {

void ApplyChecked(const query::Projection& projection, BsonView command, BsonView doc) {
  bson_t out;
  bson_init(&out);
  Status status = projection.Apply(doc, &out);
  if (status.ok()) {
    BsonView result(&out);
    if (!fuzz::IsValidResult(result))
      fuzz::Fail("a projection's result is not valid BSON", {command, doc});
    if (projection.IsIdentity() &&
        (result.size() != doc.size() || std::memcmp(result.data(), doc.data(), doc.size()) != 0)) {
      fuzz::Fail("an identity projection changed the document", {command, doc, result});
    }
  }
  bson_destroy(&out);
}

// Sorts `docs` after checking that Compare is antisymmetric and transitive on them.
void CheckSort(const query::SortPattern& sort, BsonView command, std::vector<BsonView> docs) {
  auto sign = [](int c) { return (c > 0) - (c < 0); };
  for (BsonView a : docs) {
    if (sort.Compare(a, a) != 0)
      fuzz::Fail("sort: a document compares unequal to itself", {command, a});
    for (BsonView b : docs) {
      int ab = sign(sort.Compare(a, b));
      if (ab != -sign(sort.Compare(b, a)))
        fuzz::Fail("sort: Compare is not antisymmetric", {command, a, b});
      for (BsonView c : docs) {
        if (ab <= 0 && sign(sort.Compare(b, c)) <= 0 && sort.Compare(a, c) > 0) {
          fuzz::Fail("sort: Compare is not transitive", {command, a, b, c});
        }
      }
    }
  }
  std::sort(docs.begin(), docs.end(),
            [&](BsonView a, BsonView b) { return sort.Compare(a, b) < 0; });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::CommandInput input;
  if (!fuzz::ReadCommand(data, size, 12, &input)) return 0;
  BsonView command = input.command;
  const auto& context = input.context;
  BsonView spec = fuzz::SubDocument(command, "projection");

  auto aggregate_form = query::Projection::Parse(spec, context);
  if (aggregate_form.ok()) {
    for (BsonView doc : input.docs) ApplyChecked(aggregate_form.value(), command, doc);
  }

  auto matcher = query::Matcher::Parse(fuzz::SubDocument(command, "filter"), context);
  if (matcher.ok()) {
    auto shared = std::make_shared<const query::Matcher>(std::move(matcher).value());
    auto find_form = query::Projection::ParseFind(spec, shared, context);
    if (find_form.ok()) {
      for (BsonView doc : input.docs) {
        Result<bool> match = shared->Matches(doc);
        if (match.ok() && match.value()) ApplyChecked(find_form.value(), command, doc);
      }
    }
  }

  std::shared_ptr<const StringComparator> collator = context ? context->shared_collator() : nullptr;
  auto sort = query::SortPattern::Parse(fuzz::SubDocument(command, "sort"), collator);
  if (sort.ok() && !sort->needs_text_score()) {
    CheckSort(sort.value(), command, input.docs);
  }
  return 0;
}
