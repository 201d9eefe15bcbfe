// $pop: removes the last (1) or first (-1) element of an array; a missing field or an empty
// array is a no-op, a non-array TypeMismatch. MongoDB: pop_node.cpp.
#include "query/update/update_internal.h"

namespace cairn::query::update_internal {
namespace {

class PopModifier final : public Modifier {
 public:
  explicit PopModifier(bool from_front) : from_front_(from_front) {}

  bool AllowCreation() const override { return false; }

  Result<bool> UpdateExisting(ApplyContext& ctx, ElementRef element,
                              std::string_view path) const override {
    Node& node = element.node();
    if (!node.IsArray()) {
      return Status(ErrorCode::kTypeMismatch, "Path '" + std::string(path) +
                                                  "' contains an element of non-array type '" +
                                                  std::string(BsonTypeName(node.type)) + "'");
    }
    node.Expand();
    if (node.kids.empty()) return false;
    if (from_front_) {
      node.kids.erase(node.kids.begin());
    } else {
      node.kids.pop_back();
    }
    return true;
  }

 private:
  bool from_front_;
};

}  // namespace

Result<std::unique_ptr<Modifier>> MakePop(const ModifierArg& arg) {
  // MatchExpressionParser::parseIntegerElementToLong, then 1 or -1.
  if (!IterIsNumber(&arg.value)) {
    return Status(ErrorCode::kFailedToParse,
                  "Expected a number in: " + ElementToString(arg.path, &arg.value));
  }
  int64_t value = 0;
  if (!IterAsInt64(&arg.value, &value)) {
    double d = 0;
    IterAsDouble(&arg.value, &d);
    if (BSON_ITER_HOLDS_DECIMAL128(&arg.value) &&
        d == static_cast<double>(static_cast<int64_t>(d))) {
      value = static_cast<int64_t>(d);
    } else {
      return Status(ErrorCode::kFailedToParse,
                    "Expected an integer: " + ElementToString(arg.path, &arg.value));
    }
  }
  if (value != 1 && value != -1) {
    return Status(ErrorCode::kFailedToParse,
                  "$pop expects 1 or -1, found: " + std::to_string(value));
  }
  return std::unique_ptr<Modifier>(new PopModifier(value == -1));
}

}  // namespace cairn::query::update_internal
