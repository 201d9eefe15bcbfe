// $inc and $mul: arithmetic on a numeric field with MongoDB's SafeNum rules: int32 results
// that overflow widen to int64, int64 overflow is an error (BadValue "Failed to apply $inc
// operations ..."), any double operand makes a double. A missing field is created ($inc: the
// operand; $mul: zero of the operand's type). A decimal128 on either side makes a decimal (the
// other side widens as SafeNum::getDecimal does: doubles to 15 significant digits).
// MongoDB: arithmetic_node.cpp, safe_num.cpp.
#include <cmath>
#include <cstdio>

#include "common/decimal128.h"
#include "query/expression/number.h"
#include "query/update/update_internal.h"

namespace cairn::query::update_internal {
namespace {

// A number as SafeNum holds it; kInvalid is the result of an int64 overflow.
struct Num {
  enum Type { kInvalid, kInt32, kInt64, kDouble, kDecimal } type = kInvalid;
  int64_t i = 0;            // kInt32 and kInt64
  double d = 0;             // kDouble
  bson_decimal128_t dec{};  // kDecimal

  static Num Of(const bson_iter_t* it) {
    Num n;
    switch (bson_iter_type(it)) {
      case BSON_TYPE_INT32:
        n.type = kInt32;
        n.i = bson_iter_int32(it);
        break;
      case BSON_TYPE_INT64:
        n.type = kInt64;
        n.i = bson_iter_int64(it);
        break;
      case BSON_TYPE_DOUBLE:
        n.type = kDouble;
        n.d = bson_iter_double(it);
        break;
      case BSON_TYPE_DECIMAL128:
        n.type = kDecimal;
        bson_iter_decimal128(it, &n.dec);
        break;
      default:
        break;
    }
    return n;
  }
  double AsDouble() const { return type == kDouble ? d : static_cast<double>(i); }
  bson_decimal128_t AsDecimal() const {
    switch (type) {
      case kDecimal:
        return dec;
      case kDouble:
        return DecimalFromDouble(d);
      default:
        return dec128::FromInt64(i);
    }
  }

  bool IdenticalTo(const Num& other) const {
    if (type != other.type) return false;
    if (type == kDecimal) return dec128::Identical(dec, other.dec);
    return type == kDouble ? d == other.d : i == other.i;
  }

  std::string DebugString() const {
    switch (type) {
      case kInt32:
        return "(NumberInt)" + std::to_string(i);
      case kInt64:
        return "(NumberLong)" + std::to_string(i);
      case kDouble: {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", d);
        return std::string("(NumberDouble)") + buf;
      }
      case kDecimal:
        return "(NumberDecimal)" + DecimalToString(dec);
      default:
        return "(EOO)";
    }
  }
};

Num Int64Result(int64_t value) {
  Num n;
  n.type = Num::kInt64;
  n.i = value;
  return n;
}

enum class Op { kAdd, kMultiply };

Num Compute(Op op, const Num& a, const Num& b) {
  Num r;
  if (a.type == Num::kDecimal || b.type == Num::kDecimal) {
    r.type = Num::kDecimal;
    r.dec = op == Op::kAdd ? dec128::Add(a.AsDecimal(), b.AsDecimal())
                           : dec128::Multiply(a.AsDecimal(), b.AsDecimal());
    return r;
  }
  if (a.type == Num::kDouble || b.type == Num::kDouble) {
    r.type = Num::kDouble;
    r.d = op == Op::kAdd ? a.AsDouble() + b.AsDouble() : a.AsDouble() * b.AsDouble();
    return r;
  }
  int64_t out;
  bool overflow = op == Op::kAdd ? __builtin_add_overflow(a.i, b.i, &out)
                                 : __builtin_mul_overflow(a.i, b.i, &out);
  if (a.type == Num::kInt32 && b.type == Num::kInt32) {
    // int32 op int32 always fits in int64; narrow back when it fits in int32.
    if (out >= INT32_MIN && out <= INT32_MAX) {
      r.type = Num::kInt32;
      r.i = out;
      return r;
    }
    return Int64Result(out);
  }
  if (overflow) return Num{};  // invalid
  return Int64Result(out);
}

class ArithmeticModifier final : public Modifier {
 public:
  ArithmeticModifier(Op op, const bson_iter_t& value) : op_(op), value_(value) {}

  bool AllowCreation() const override { return true; }

  Result<bool> UpdateExisting(ApplyContext& ctx, ElementRef element,
                              std::string_view path) const override {
    bson_iter_t current = ctx.IterOf(element.node());
    if (!IterIsNumber(&current)) {
      return Status(ErrorCode::kTypeMismatch,
                    "Cannot apply " + std::string(Name()) + " to a value of non-numeric type. {" +
                        ctx.IdForMessage() + "} has the field '" + element.name() +
                        "' of non-numeric type " +
                        std::string(BsonTypeName(bson_iter_type(&current))));
    }
    Num original = Num::Of(&current);
    Num result = Compute(op_, Num::Of(&value_), original);
    if (result.IdenticalTo(original)) return false;
    if (result.type == Num::kInvalid) {
      return Status(ErrorCode::kBadValue,
                    "Failed to apply " + std::string(Name()) + " operations to current value (" +
                        original.DebugString() + ") for document {" + ctx.IdForMessage() + "}");
    }
    element.node() = Make(ctx, result);
    return true;
  }

  Result<Node> NewValue(ApplyContext& ctx) const override {
    Num operand = Num::Of(&value_);
    if (op_ == Op::kAdd) return Node::FromIter(&value_);
    Num zero;
    zero.type = Num::kInt32;
    zero.i = 0;
    return Make(ctx, Compute(Op::kMultiply, operand, zero));
  }

 private:
  std::string_view Name() const { return op_ == Op::kAdd ? "$inc" : "$mul"; }

  static Node Make(ApplyContext& ctx, const Num& n) {
    return ctx.MakeValue([&](bson_t* doc, const char* key) {
      switch (n.type) {
        case Num::kInt32:
          bson_append_int32(doc, key, -1, static_cast<int32_t>(n.i));
          break;
        case Num::kInt64:
          bson_append_int64(doc, key, -1, n.i);
          break;
        case Num::kDecimal:
          bson_append_decimal128(doc, key, -1, &n.dec);
          break;
        default:
          bson_append_double(doc, key, -1, n.d);
          break;
      }
    });
  }

  Op op_;
  bson_iter_t value_;
};

Result<std::unique_ptr<Modifier>> MakeArithmetic(Op op, const ModifierArg& arg) {
  if (!IterIsNumber(&arg.value)) {
    return Status(ErrorCode::kTypeMismatch, std::string("Cannot ") +
                                                (op == Op::kAdd ? "increment" : "multiply") +
                                                " with non-numeric argument: {" +
                                                ElementToString(arg.path, &arg.value) + "}");
  }
  return std::unique_ptr<Modifier>(new ArithmeticModifier(op, arg.value));
}

}  // namespace

Result<std::unique_ptr<Modifier>> MakeInc(const ModifierArg& arg) {
  return MakeArithmetic(Op::kAdd, arg);
}

Result<std::unique_ptr<Modifier>> MakeMul(const ModifierArg& arg) {
  return MakeArithmetic(Op::kMultiply, arg);
}

}  // namespace cairn::query::update_internal
