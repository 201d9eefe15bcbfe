// $pull: removes every array element that matches the operand. The operand is (pull_node.cpp):
//  - a document whose first field is not a query operator ({score: 8}, {a: {$gt: 1}}): a
//    filter each document element is matched against (non-documents never match);
//  - a document of operators ({$gte: 6}) or a regex: a condition on the element itself,
//    matched as {v: <element>} against the filter {v: <condition>};
//  - anything else: elements equal to it (numbers by value, documents field-order sensitive).
// Conditions and equality compare strings under the statement's collation.
// A missing field is a no-op; a non-array is BadValue "Cannot apply $pull to a non-array value".
#include <optional>

#include "common/bson_compare.h"
#include "query/matcher/matcher.h"
#include "query/update/update_internal.h"

namespace cairn::query::update_internal {
namespace {

// MatchExpressionParser::parsePathAcceptingKeyword: the operators that may follow a path.
bool IsPathAcceptingKeyword(std::string_view name) {
  static constexpr std::string_view kKeywords[] = {
      "$eq",          "$lt",
      "$lte",         "$gte",
      "$gt",          "$in",
      "$ne",          "$size",
      "$all",         "$nin",
      "$exists",      "$mod",
      "$type",        "$regex",
      "$options",     "$elemMatch",
      "$near",        "$nearSphere",
      "$geoNear",     "$within",
      "$geoWithin",   "$geoIntersects",
      "$maxDistance", "$minDistance",
      "$bitsAllSet",  "$bitsAllClear",
      "$bitsAnySet",  "$bitsAnyClear",
      "$not",
  };
  for (std::string_view keyword : kKeywords) {
    if (keyword == name) return true;
  }
  return false;
}

constexpr char kWrapKey[] = "v";

class PullModifier final : public Modifier {
 public:
  enum class Kind { kObject, kWrapped, kEquality };

  PullModifier(Kind kind, const bson_iter_t& value, std::optional<Matcher> matcher,
               std::shared_ptr<const StringComparator> collator = nullptr)
      : kind_(kind), value_(value), matcher_(std::move(matcher)), collator_(std::move(collator)) {}

  bool AllowCreation() const override { return false; }

  Result<bool> UpdateExisting(ApplyContext& ctx, ElementRef element,
                              std::string_view path) const override {
    // A condition's $expr that fails fails the update (the first error is kept).
    Status error;
    Result<bool> removed = RemoveArrayElements(ctx, element, [&](const bson_iter_t* it) {
      if (!error.ok()) return false;
      Result<bool> matches = Matches(it);
      if (!matches.ok()) error = matches.status();
      return matches.ok() && *matches;
    });
    if (!error.ok()) return error;
    return removed;
  }

 private:
  Result<bool> Matches(const bson_iter_t* element) const {
    switch (kind_) {
      case Kind::kObject:
        if (!BSON_ITER_HOLDS_DOCUMENT(element)) return false;
        return matcher_->Matches(IterDocument(element));
      case Kind::kWrapped: {
        bson_t wrapped = BSON_INITIALIZER;
        bson_append_iter(&wrapped, kWrapKey, -1, element);
        Result<bool> matches = matcher_->Matches(BsonView(&wrapped));
        bson_destroy(&wrapped);
        return matches;
      }
      case Kind::kEquality:
        return CompareValues(element, &value_, collator_.get()) == 0;
    }
    return false;
  }

  Kind kind_;
  bson_iter_t value_;
  std::optional<Matcher> matcher_;
  std::shared_ptr<const StringComparator> collator_;  // kEquality; null: binary
};

}  // namespace

Result<std::unique_ptr<Modifier>> MakePull(const ModifierArg& arg) {
  const bson_iter_t& value = arg.value;
  if (BSON_ITER_HOLDS_DOCUMENT(&value)) {
    BsonView condition = IterDocument(&value);
    bson_iter_t first;
    bool operator_first =
        condition.Init(&first) && bson_iter_next(&first) && IsPathAcceptingKeyword(IterKey(&first));
    if (!operator_first) {
      CAIRN_ASSIGN_OR_RETURN(Matcher matcher, Matcher::Parse(condition, arg.context));
      return std::unique_ptr<Modifier>(
          new PullModifier(PullModifier::Kind::kObject, value, std::move(matcher)));
    }
  }
  if (BSON_ITER_HOLDS_DOCUMENT(&value) || BSON_ITER_HOLDS_REGEX(&value)) {
    bson_t filter = BSON_INITIALIZER;
    bson_append_iter(&filter, kWrapKey, -1, &value);
    Result<Matcher> matcher = Matcher::Parse(BsonView(&filter), arg.context);
    bson_destroy(&filter);
    if (!matcher.ok()) return matcher.status();
    return std::unique_ptr<Modifier>(
        new PullModifier(PullModifier::Kind::kWrapped, value, std::move(matcher).value()));
  }
  return std::unique_ptr<Modifier>(
      new PullModifier(PullModifier::Kind::kEquality, value, std::nullopt, arg.collator()));
}

}  // namespace cairn::query::update_internal
