// Fuzz target `update`: the update parser (operator documents, replacements, pipeline-style
// updates, arrayFilters) and its application to arbitrary documents, as one statement of the
// update command gives them. Input (fuzz_support.h): a first document {q: <filter>,
// u: <update or pipeline>, arrayFilters: [...], upsert: <bool>, collation: ..., let: ...}, then
// the documents to update. The filter is matched first, as the server does, so the positional
// `$` gets the element it matched. Checks: results are valid BSON, a no-op leaves the document
// byte for byte, _id never changes, and an upsert's insert starts from the filter's seed.
#include <cstring>
#include <memory>
#include <vector>

#include "common/bson_compare.h"
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "query/update/update.h"
#include "tests/fuzz/fuzz_support.h"

using namespace cairn;

namespace {

// The _id of `doc` compares equal in `after` (updates may not change it).
bool SameId(BsonView before, BsonView after) {
  bson_iter_t a, b;
  bool had = before.Find("_id", &a);
  if (!had) return true;  // an _id-less document (not stored that way) may gain none or one
  return after.Find("_id", &b) && CompareValues(&a, &b) == 0;
}

void ApplyChecked(const query::Update& update, BsonView command, BsonView doc,
                  const query::Update::ApplyOptions& options) {
  bson_t out;
  bson_init(&out);
  Result<bool> changed = update.Apply(doc, &out, options);
  if (changed.ok()) {
    BsonView result(&out);
    if (!fuzz::IsValidResult(result))
      fuzz::Fail("an update's result is not valid BSON", {command, doc});
    if (!changed.value() &&
        (result.size() != doc.size() || std::memcmp(result.data(), doc.data(), doc.size()) != 0)) {
      fuzz::Fail("an update reported a no-op but changed the document", {command, doc, result});
    }
    if (!SameId(doc, result)) {
      fuzz::Fail("an update changed _id", {command, doc, result});
    }
  }
  bson_destroy(&out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::CommandInput input;
  if (!fuzz::ReadCommand(data, size, 16, &input)) return 0;
  BsonView command = input.command;
  const auto& context = input.context;
  BsonView filter = fuzz::SubDocument(command, "q");
  auto matcher = query::Matcher::Parse(filter, context);
  if (!matcher.ok()) return 0;

  BsonView array_filters = fuzz::SubDocument(command, "arrayFilters", /*array=*/true);
  bson_iter_t u;
  Result<query::Update> update = Status(ErrorCode::kBadValue, "no u");
  if (command.Find("u", &u) && BSON_ITER_HOLDS_ARRAY(&u)) {
    update = query::Update::ParsePipeline(IterDocument(&u), array_filters, context);
  } else if (command.Find("u", &u) && BSON_ITER_HOLDS_DOCUMENT(&u)) {
    update = query::Update::Parse(IterDocument(&u), array_filters, context);
  }
  if (!update.ok()) return 0;
  (void)update->uses_positional();

  for (BsonView doc : input.docs) {
    query::MatchDetails details;
    Result<bool> match = matcher->Matches(doc, &details);
    if (!match.ok() || !match.value()) continue;
    query::Update::ApplyOptions options;
    if (details.elem_match_key) options.positional_match = *details.elem_match_key;
    ApplyChecked(update.value(), command, doc, options);
  }
  if (fuzz::Flag(command, "upsert")) {
    Result<BsonDoc> seed = query::Update::SeedFromFilter(filter);
    if (seed.ok()) {
      query::Update::ApplyOptions options;
      options.is_upsert_insert = true;
      ApplyChecked(update.value(), command, seed->view(), options);
    }
  }
  return 0;
}
