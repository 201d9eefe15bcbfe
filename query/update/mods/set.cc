// $set and $setOnInsert: set the field to the operand, creating missing paths. $setOnInsert
// acts only when the document is being inserted by an upsert (a no-op on updates, but its
// paths still conflict with the other operators'). MongoDB: set_node.cpp.
#include "query/update/update_internal.h"

namespace cairn::query::update_internal {
namespace {

class SetModifier final : public Modifier {
 public:
  SetModifier(const bson_iter_t& value, bool on_insert_only)
      : value_(value), on_insert_only_(on_insert_only) {}

  bool AllowCreation() const override { return true; }

  bool Applies(const ApplyContext& ctx) const override {
    return !on_insert_only_ || ctx.is_upsert_insert();
  }

  Result<bool> UpdateExisting(ApplyContext& ctx, ElementRef element,
                              std::string_view path) const override {
    bson_iter_t current = ctx.IterOf(element.node());
    // Same type and identical bytes: a no-op (binaryEqualValues), so 1 → 1.0 is a change.
    if (BinaryEqualValues(&current, &value_)) return false;
    element.node() = Node::FromIter(&value_);
    return true;
  }

  Result<Node> NewValue(ApplyContext& ctx) const override { return Node::FromIter(&value_); }

 private:
  bson_iter_t value_;
  bool on_insert_only_;
};

}  // namespace

Result<std::unique_ptr<Modifier>> MakeSet(const ModifierArg& arg) {
  return std::unique_ptr<Modifier>(new SetModifier(arg.value, /*on_insert_only=*/false));
}

Result<std::unique_ptr<Modifier>> MakeSetOnInsert(const ModifierArg& arg) {
  return std::unique_ptr<Modifier>(new SetModifier(arg.value, /*on_insert_only=*/true));
}

}  // namespace cairn::query::update_internal
