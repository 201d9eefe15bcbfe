// arrayFilters: parsing the filters an update's "$[<identifier>]" path components name, and
// matching one array element against a filter. MongoDB: parsed_update.cpp
// (parsedUpdateArrayFilters) and expression_with_placeholder.cpp. A filter is an ordinary query
// whose top-level field names all start with one identifier ({"i.b": {$gt: 1}}, {i: 2},
// {$or: [{i: 1}, {"i.c": 2}]}); an element matches when the document {<identifier>: <element>}
// matches the query, so {i: 1} also matches an element that is an array containing 1.
#include <optional>
#include <string>

#include "query/update/update_internal.h"

namespace cairn::query::update_internal {
namespace {

constexpr std::string_view kContext = "Error parsing array filter";

bool IsLogicalOperator(std::string_view key) {
  return key == "$and" || key == "$or" || key == "$nor";
}

// Operators that the array filter parser bans (MatchExpressionParser::kBanAllSpecialFeatures),
// looked for where they may stand: at the top level and inside $and/$or/$nor clauses.
Status RejectSpecialFeatures(BsonView filter) {
  bson_iter_t it;
  if (!filter.Init(&it)) return Status::OK();
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "$expr") {
      return Status(ErrorCode::kQueryFeatureNotAllowed, "$expr is not allowed in this context")
          .WithContext(kContext);
    }
    if (key == "$where" || key == "$text") {
      return Status(ErrorCode::kBadValue, std::string(key) + " is not allowed in this context")
          .WithContext(kContext);
    }
    if (IsLogicalOperator(key) && BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_iter_t clause;
      bson_iter_recurse(&it, &clause);
      while (bson_iter_next(&clause)) {
        if (BSON_ITER_HOLDS_DOCUMENT(&clause)) {
          CAIRN_RETURN_IF_ERROR(RejectSpecialFeatures(IterDocument(&clause)));
        }
      }
    }
  }
  return Status::OK();
}

// Merges one more top-level name into *name (parseTopLevelFieldName's rule for logical nodes).
Status Combine(std::optional<std::string>* name, const std::optional<std::string>& more) {
  if (!more) return Status::OK();
  if (!*name) {
    *name = more;
    return Status::OK();
  }
  if (**name != *more) {
    return Status(ErrorCode::kFailedToParse, "Expected a single top-level field name, found '" +
                                                 **name + "' and '" + *more + "'")
        .WithContext(kContext);
  }
  return Status::OK();
}

// The identifier a filter document names: the first component of its paths, looked for
// through $and/$or/$nor (which combine their clauses' names); other operators name none.
Status TopLevelFieldName(BsonView filter, std::optional<std::string>* name) {
  bson_iter_t it;
  if (!filter.Init(&it)) return Status::OK();
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    std::optional<std::string> found;
    if (!key.empty() && key[0] == '$') {
      if (!IsLogicalOperator(key) || !BSON_ITER_HOLDS_ARRAY(&it)) continue;
      bson_iter_t clause;
      bson_iter_recurse(&it, &clause);
      while (bson_iter_next(&clause)) {
        if (!BSON_ITER_HOLDS_DOCUMENT(&clause)) continue;
        std::optional<std::string> clause_name;
        CAIRN_RETURN_IF_ERROR(TopLevelFieldName(IterDocument(&clause), &clause_name));
        CAIRN_RETURN_IF_ERROR(Combine(&found, clause_name));
      }
    } else {
      found = std::string(key.substr(0, key.find('.')));
    }
    CAIRN_RETURN_IF_ERROR(Combine(name, found));
  }
  return Status::OK();
}

// ExpressionWithPlaceholder's placeholder pattern: ^[a-z][a-zA-Z0-9]*$.
bool IsValidIdentifier(std::string_view name) {
  if (name.empty() || name[0] < 'a' || name[0] > 'z') return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
      return false;
    }
  }
  return true;
}

}  // namespace

Result<ArrayFilterMap> ParseArrayFilters(BsonView filters,
                                         const std::shared_ptr<const ExpressionContext>& context) {
  ArrayFilterMap out;
  bson_iter_t it;
  if (!filters.Init(&it)) return out;
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field 'arrayFilters." + std::string(IterKey(&it)) +
                        "' is the wrong type '" + std::string(BsonTypeName(bson_iter_type(&it))) +
                        "', expected type 'object'");
    }
    BsonView filter = IterDocument(&it);
    CAIRN_RETURN_IF_ERROR(RejectSpecialFeatures(filter));
    Result<Matcher> matcher = Matcher::Parse(filter, context);
    if (!matcher.ok()) return matcher.status().WithContext(kContext);
    std::optional<std::string> identifier;
    CAIRN_RETURN_IF_ERROR(TopLevelFieldName(filter, &identifier));
    if (identifier && !IsValidIdentifier(*identifier)) {
      return Status(ErrorCode::kBadValue,
                    "The top-level field name must be an alphanumeric string beginning with a "
                    "lowercase letter, found '" +
                        *identifier + "'")
          .WithContext(kContext);
    }
    if (!identifier) {
      return Status(ErrorCode::kFailedToParse,
                    "Cannot use an expression without a top-level field name in arrayFilters");
    }
    if (out.count(*identifier) != 0) {
      return Status(
          ErrorCode::kFailedToParse,
          "Found multiple array filters with the same top-level field name " + *identifier);
    }
    out.emplace(std::move(*identifier), std::move(matcher).value());
  }
  return out;
}

Result<bool> ArrayFilterMatches(const Matcher& filter, std::string_view identifier,
                                const bson_iter_t* element) {
  bson_t wrapped = BSON_INITIALIZER;
  bson_append_iter(&wrapped, identifier.data(), static_cast<int>(identifier.size()), element);
  Result<bool> matches = filter.Matches(BsonView(&wrapped));
  bson_destroy(&wrapped);
  return matches;
}

}  // namespace cairn::query::update_internal
