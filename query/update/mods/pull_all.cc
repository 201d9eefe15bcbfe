// $pullAll: removes every array element equal (canonical comparison: numbers by value, strings
// under the statement's collation) to one of the operand array's values. MongoDB: pullall_node.cpp
// (an ArrayCullingNode, hence the
// "$pull" in its non-array error).
#include "common/bson_compare.h"
#include "query/update/update_internal.h"

namespace cairn::query::update_internal {
namespace {

class PullAllModifier final : public Modifier {
 public:
  PullAllModifier(std::vector<BsonElement> values, std::shared_ptr<const StringComparator> collator)
      : values_(std::move(values)), collator_(std::move(collator)) {}

  bool AllowCreation() const override { return false; }

  Result<bool> UpdateExisting(ApplyContext& ctx, ElementRef element,
                              std::string_view path) const override {
    return RemoveArrayElements(ctx, element, [this](const bson_iter_t* it) {
      for (const BsonElement& element : values_) {
        bson_iter_t value = element.iter();
        if (CompareValues(it, &value, collator_.get()) == 0) return true;
      }
      return false;
    });
  }

 private:
  std::vector<BsonElement> values_;
  std::shared_ptr<const StringComparator> collator_;  // null: binary
};

}  // namespace

Result<std::unique_ptr<Modifier>> MakePullAll(const ModifierArg& arg) {
  if (!BSON_ITER_HOLDS_ARRAY(&arg.value)) {
    return Status(ErrorCode::kBadValue, "$pullAll requires an array argument but was given a " +
                                            std::string(BsonTypeName(bson_iter_type(&arg.value))));
  }
  std::vector<BsonElement> values;
  bson_iter_t item;
  bson_iter_recurse(&arg.value, &item);
  while (bson_iter_next(&item)) values.emplace_back(&item);
  return std::unique_ptr<Modifier>(new PullAllModifier(std::move(values), arg.collator()));
}

}  // namespace cairn::query::update_internal
