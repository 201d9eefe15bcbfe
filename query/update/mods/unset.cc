// $unset: removes the field; an array element is set to null instead (array positions are
// kept). A missing path, or one through a non-container, is a no-op. MongoDB: unset_node.cpp.
#include "query/update/update_internal.h"

namespace cairn::query::update_internal {
namespace {

class UnsetModifier final : public Modifier {
 public:
  bool AllowCreation() const override { return false; }

  Result<bool> UpdateExisting(ApplyContext& ctx, ElementRef element,
                              std::string_view path) const override {
    if (element.parent->IsArray()) {
      element.node() = ctx.Null();
    } else {
      element.parent->kids.erase(element.parent->kids.begin() +
                                 static_cast<std::ptrdiff_t>(element.index));
    }
    return true;
  }
};

}  // namespace

Result<std::unique_ptr<Modifier>> MakeUnset(const ModifierArg& arg) {
  // The operand is ignored ({$unset: {a: ""}} and {$unset: {a: 1}} are the same).
  return std::unique_ptr<Modifier>(new UnsetModifier());
}

}  // namespace cairn::query::update_internal
