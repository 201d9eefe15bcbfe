// $bit: bitwise and / or / xor of an int32 or int64 field with int32 or int64 operands, applied
// in the order given ({$bit: {a: {and: 12, or: 1}}}). int32 with int32 stays int32, anything
// with an int64 becomes int64 (SafeNum's bit operations); a missing field starts from int32 0;
// any other type of field is BadValue. MongoDB: bit_node.cpp.
#include <vector>

#include "query/update/update_internal.h"

namespace cairn::query::update_internal {
namespace {

constexpr std::string_view kFormat = "{$bit: {field: {and/or/xor: #}}";

// An int32 or int64 value.
struct Integer {
  bool is_int64 = false;
  int64_t value = 0;  // an int32 is held sign-extended

  static Integer Of(const bson_iter_t* it) {
    if (BSON_ITER_HOLDS_INT32(it)) return {false, bson_iter_int32(it)};
    return {true, bson_iter_int64(it)};
  }
};

class BitModifier final : public Modifier {
 public:
  enum class Op { kAnd, kOr, kXor };
  struct Operation {
    Op op;
    BsonElement operand;  // int32 or int64; not a bson_iter_t (see common/bson_element.h)
  };

  explicit BitModifier(std::vector<Operation> operations) : operations_(std::move(operations)) {}

  bool AllowCreation() const override { return true; }

  Result<bool> UpdateExisting(ApplyContext& ctx, ElementRef element,
                              std::string_view path) const override {
    bson_iter_t current = ctx.IterOf(element.node());
    if (!BSON_ITER_HOLDS_INT32(&current) && !BSON_ITER_HOLDS_INT64(&current)) {
      // MongoDB prints the _id element, or an invalid element when there is none.
      std::string id =
          ctx.root()->Child("_id") != nullptr ? ctx.IdForMessage() : "INVALID-MUTABLE-ELEMENT";
      return Status(ErrorCode::kBadValue, "Cannot apply $bit to a value of non-integral type." +
                                              id + " has the field " + element.name() +
                                              " of non-integer type " +
                                              std::string(BsonTypeName(bson_iter_type(&current))));
    }
    Integer original = Integer::Of(&current);
    Integer result = Apply(original);
    if (result.is_int64 == original.is_int64 && result.value == original.value) return false;
    element.node() = Make(ctx, result);
    return true;
  }

  Result<Node> NewValue(ApplyContext& ctx) const override { return Make(ctx, Apply(Integer{})); }

 private:
  Integer Apply(Integer value) const {
    for (const Operation& operation : operations_) {
      bson_iter_t it = operation.operand.iter();
      Integer operand = Integer::Of(&it);
      value.is_int64 = value.is_int64 || operand.is_int64;
      switch (operation.op) {
        case Op::kAnd:
          value.value &= operand.value;
          break;
        case Op::kOr:
          value.value |= operand.value;
          break;
        case Op::kXor:
          value.value ^= operand.value;
          break;
      }
      // Sign-extended int32 operands keep an int32 result within int32's range.
      if (!value.is_int64) value.value = static_cast<int32_t>(value.value);
    }
    return value;
  }

  static Node Make(ApplyContext& ctx, const Integer& n) {
    return ctx.MakeValue([&](bson_t* doc, const char* key) {
      if (n.is_int64) {
        bson_append_int64(doc, key, -1, n.value);
      } else {
        bson_append_int32(doc, key, -1, static_cast<int32_t>(n.value));
      }
    });
  }

  std::vector<Operation> operations_;
};

}  // namespace

Result<std::unique_ptr<Modifier>> MakeBit(const ModifierArg& arg) {
  if (!BSON_ITER_HOLDS_DOCUMENT(&arg.value)) {
    return Status(ErrorCode::kBadValue,
                  "The $bit modifier is not compatible with a " +
                      std::string(BsonTypeName(bson_iter_type(&arg.value))) +
                      ". You must pass in an embedded document: " + std::string(kFormat));
  }
  std::vector<BitModifier::Operation> operations;
  bson_iter_t it;
  bson_iter_recurse(&arg.value, &it);
  while (bson_iter_next(&it)) {
    std::string_view name = IterKey(&it);
    BitModifier::Op op;
    if (name == "and") {
      op = BitModifier::Op::kAnd;
    } else if (name == "or") {
      op = BitModifier::Op::kOr;
    } else if (name == "xor") {
      op = BitModifier::Op::kXor;
    } else {
      return Status(ErrorCode::kBadValue,
                    "The $bit modifier only supports 'and', 'or', and 'xor', not '" +
                        std::string(name) + "' which is an unknown operator: {" +
                        ElementToString(name, &it) + "}");
    }
    if (!BSON_ITER_HOLDS_INT32(&it) && !BSON_ITER_HOLDS_INT64(&it)) {
      return Status(ErrorCode::kBadValue,
                    "The $bit modifier field must be an Integer(32/64 bit); a '" +
                        std::string(BsonTypeName(bson_iter_type(&it))) +
                        "' is not supported here: {" + ElementToString(name, &it) + "}");
    }
    operations.push_back({op, BsonElement(&it)});
  }
  if (operations.empty()) {
    return Status(
        ErrorCode::kBadValue,
        "You must pass in at least one bitwise operation. The format is: " + std::string(kFormat));
  }
  return std::unique_ptr<Modifier>(new BitModifier(std::move(operations)));
}

}  // namespace cairn::query::update_internal
