// $min and $max: set the field to the operand when the operand is smaller ($min) or larger
// ($max) in MongoDB's canonical order (so equal values of different numeric types are a
// no-op), strings compared under the statement's collation; a missing field is created with
// the operand. MongoDB: compare_node.cpp.
#include "common/bson_compare.h"
#include "query/update/update_internal.h"

namespace cairn::query::update_internal {
namespace {

class CompareModifier final : public Modifier {
 public:
  CompareModifier(bool is_max, const bson_iter_t& value,
                  std::shared_ptr<const StringComparator> collator)
      : is_max_(is_max), value_(value), collator_(std::move(collator)) {}

  bool AllowCreation() const override { return true; }

  Result<bool> UpdateExisting(ApplyContext& ctx, ElementRef element,
                              std::string_view path) const override {
    bson_iter_t current = ctx.IterOf(element.node());
    int compare = CompareValues(&current, &value_, collator_.get());
    if (compare == 0 || (is_max_ && compare > 0) || (!is_max_ && compare < 0)) return false;
    element.node() = Node::FromIter(&value_);
    return true;
  }

  Result<Node> NewValue(ApplyContext& ctx) const override { return Node::FromIter(&value_); }

 private:
  bool is_max_;
  bson_iter_t value_;
  std::shared_ptr<const StringComparator> collator_;  // null: binary
};

}  // namespace

Result<std::unique_ptr<Modifier>> MakeMin(const ModifierArg& arg) {
  return std::unique_ptr<Modifier>(
      new CompareModifier(/*is_max=*/false, arg.value, arg.collator()));
}

Result<std::unique_ptr<Modifier>> MakeMax(const ModifierArg& arg) {
  return std::unique_ptr<Modifier>(new CompareModifier(/*is_max=*/true, arg.value, arg.collator()));
}

}  // namespace cairn::query::update_internal
