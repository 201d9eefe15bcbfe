// Fuzz target `filter`: the query filter parser and the matcher evaluated on arbitrary documents.
// Input (fuzz_support.h): a first document {filter: <filter>, collation: <collation>,
// let: <variables>} as a find command gives them, then the documents to match. Checks that the
// matcher's two ways of matching agree (Matches, and Matches recording MatchDetails: the same
// answer, or the same error a $expr met),
// and, for documents that fail the filter, builds the errInfo.details a validator would report
// ($jsonSchema and query-operator validators explain their failures).
#include <memory>
#include <vector>

#include "query/expression/expression.h"
#include "query/matcher/document_validator.h"
#include "query/matcher/matcher.h"
#include "tests/fuzz/fuzz_support.h"

using namespace cairn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::CommandInput input;
  if (!fuzz::ReadCommand(data, size, 16, &input)) return 0;
  BsonView command = input.command;
  const auto& context = input.context;
  BsonView filter = fuzz::SubDocument(command, "filter");
  auto matcher = query::Matcher::Parse(filter, context);
  if (!matcher.ok()) return 0;

  bson_iter_t id;
  (void)matcher->IdEquality(&id);
  // A validator is parsed by the same parser, behind its own operator checks.
  std::shared_ptr<const query::DocumentValidator> validator;
  if (query::CheckValidatorOperators(filter).ok()) {
    auto made = query::DocumentValidator::Make(filter, query::ValidationLevel::kStrict,
                                               query::ValidationAction::kError);
    if (made.ok()) validator = std::move(made).value();
  }

  for (BsonView doc : input.docs) {
    Result<bool> plain = matcher->Matches(doc);
    query::MatchDetails details;
    Result<bool> recorded = matcher->Matches(doc, &details);
    if (plain.ok() != recorded.ok() || (plain.ok() && plain.value() != recorded.value()) ||
        (!plain.ok() && plain.status().code() != recorded.status().code())) {
      fuzz::Fail("Matches with and without MatchDetails disagree", {command, doc});
    }
    if (validator != nullptr) {
      Result<bool> valid = validator->Matches(doc);
      if (valid.ok() && !valid.value()) {
        BsonDoc info = validator->ErrorInfo(doc);
        if (!fuzz::IsValidResult(info.view())) {
          fuzz::Fail("a validator's errInfo is not valid BSON", {command, doc});
        }
      }
    }
  }
  return 0;
}
