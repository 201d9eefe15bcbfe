// $addToSet: appends the operand (or each value of {$each: [...]}, duplicates in the list
// removed) unless an equal value is already in the array (strings equal under the statement's
// collation count as equal); creates the array when missing.
// A non-array field is BadValue. MongoDB: addtoset_node.cpp.
#include "common/bson_compare.h"
#include "query/update/update_internal.h"

namespace cairn::query::update_internal {
namespace {

class AddToSetModifier final : public Modifier {
 public:
  AddToSetModifier(std::vector<BsonElement> values,
                   std::shared_ptr<const StringComparator> collator)
      : values_(std::move(values)), collator_(std::move(collator)) {}

  bool AllowCreation() const override { return true; }

  Result<bool> UpdateExisting(ApplyContext& ctx, ElementRef element,
                              std::string_view path) const override {
    Node& node = element.node();
    if (!node.IsArray()) {
      return Status(ErrorCode::kBadValue,
                    "Cannot apply $addToSet to non-array field. Field named '" + element.name() +
                        "' has non-array type " + std::string(BsonTypeName(node.type)));
    }
    node.Expand();
    std::vector<BsonElement> existing;
    existing.reserve(node.kids.size());
    for (const auto& kid : node.kids) {
      bson_iter_t it = ctx.IterOf(kid.second);
      existing.emplace_back(&it);
    }
    bool changed = false;
    for (const BsonElement& wanted : values_) {
      bson_iter_t value = wanted.iter();
      bool present = false;
      for (const BsonElement& have : existing) {
        bson_iter_t e = have.iter();
        if (CompareValues(&e, &value, collator_.get()) == 0) {
          present = true;
          break;
        }
      }
      if (present) continue;
      node.kids.emplace_back(std::string(), Node::FromIter(&value));
      changed = true;
    }
    return changed;
  }

  Result<Node> NewValue(ApplyContext& ctx) const override {
    Node array = Node::NewArray();
    for (const BsonElement& element : values_) {
      bson_iter_t value = element.iter();
      array.kids.emplace_back(std::string(), Node::FromIter(&value));
    }
    return array;
  }

 private:
  std::vector<BsonElement> values_;                   // deduplicated, in operand order
  std::shared_ptr<const StringComparator> collator_;  // null: binary
};

}  // namespace

Result<std::unique_ptr<Modifier>> MakeAddToSet(const ModifierArg& arg) {
  std::shared_ptr<const StringComparator> collator = arg.collator();
  std::vector<BsonElement> values;
  bool is_each = false;
  if (BSON_ITER_HOLDS_DOCUMENT(&arg.value)) {
    BsonView operand = IterDocument(&arg.value);
    bson_iter_t first;
    if (operand.Init(&first) && bson_iter_next(&first) && IterKey(&first) == "$each") {
      is_each = true;
      if (!BSON_ITER_HOLDS_ARRAY(&first)) {
        return Status(ErrorCode::kTypeMismatch,
                      "The argument to $each in $addToSet must be an array but it was of type " +
                          std::string(BsonTypeName(bson_iter_type(&first))));
      }
      if (operand.CountKeys() > 1) {
        return Status(ErrorCode::kBadValue, "Found unexpected fields after $each in $addToSet: " +
                                                ToShellString(operand));
      }
      bson_iter_t item;
      bson_iter_recurse(&first, &item);
      while (bson_iter_next(&item)) {
        bool duplicate = false;
        for (const BsonElement& element : values) {
          bson_iter_t seen = element.iter();
          if (CompareValues(&seen, &item, collator.get()) == 0) {
            duplicate = true;
            break;
          }
        }
        if (!duplicate) values.emplace_back(&item);
      }
    }
  }
  if (!is_each) values.emplace_back(&arg.value);
  return std::unique_ptr<Modifier>(new AddToSetModifier(std::move(values), std::move(collator)));
}

}  // namespace cairn::query::update_internal
