// $bitsAllSet, $bitsAllClear, $bitsAnySet, $bitsAnyClear: parsing the bitmask (a non-negative
// integral number, an array of bit positions, or BinData) and BitTestMatchExpression's test,
// after MongoDB's parseBitTest and BitTestMatchExpression (expression_leaf.cpp). Numbers are
// tested as two's complement int64 (so positions past 63 read the sign bit), BinData byte by
// byte (positions past its end read 0). Other types never match.
#include <algorithm>
#include <cmath>
#include <string>

#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query {

namespace {

// MongoDB's BSONElement::numberLong() for a decimal: nearest, ties to even; NaN and values out
// of range read as INT64_MIN (the Intel library's invalid result).
int64_t DecimalToLong(const bson_iter_t* value) {
  double d = 0;
  IterAsDouble(value, &d);
  if (std::isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
    return INT64_MIN;
  }
  return static_cast<int64_t>(std::nearbyint(d));
}

}  // namespace

bool BitTestMatchExpression::TestNumber(int64_t value) const {
  const uint64_t v = static_cast<uint64_t>(value);
  switch (kind()) {
    case MatchKind::kBitsAllSet:
      return (v & mask_) == mask_;
    case MatchKind::kBitsAllClear:
      return (~v & mask_) == mask_;
    case MatchKind::kBitsAnySet:
      return (v & mask_) != 0;
    default:
      return (~v & mask_) != 0;  // kBitsAnyClear
  }
}

bool BitTestMatchExpression::TestBinary(const uint8_t* data, uint32_t length) const {
  const bool want_set = kind() == MatchKind::kBitsAllSet || kind() == MatchKind::kBitsAnySet;
  const bool any = kind() == MatchKind::kBitsAnySet || kind() == MatchKind::kBitsAnyClear;
  for (uint32_t position : positions_) {
    bool set = position / 8 < length && (data[position / 8] >> (position % 8)) & 1;
    if (set == want_set) {
      if (any) return true;
    } else if (!any) {
      return false;
    }
  }
  return !any;
}

bool BitTestMatchExpression::MatchesSingleElement(const bson_iter_t* value, Status*) const {
  if (value == nullptr) return false;
  switch (bson_iter_type(value)) {
    case BSON_TYPE_BINARY: {
      bson_subtype_t subtype;
      uint32_t length = 0;
      const uint8_t* data = nullptr;
      bson_iter_binary(value, &subtype, &length, &data);
      return TestBinary(data, length);
    }
    case BSON_TYPE_INT32:
      return TestNumber(bson_iter_int32(value));
    case BSON_TYPE_INT64:
      return TestNumber(bson_iter_int64(value));
    case BSON_TYPE_DOUBLE: {
      // Only integral doubles that fit an int64 are tested; NaN, fractions and huge values
      // never match.
      double d = bson_iter_double(value);
      if (std::isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
        return false;
      }
      if (d != static_cast<double>(static_cast<int64_t>(d))) return false;
      return TestNumber(static_cast<int64_t>(d));
    }
    case BSON_TYPE_DECIMAL128:
      return TestNumber(DecimalToLong(value));
    default:
      return false;
  }
}

namespace internal {

namespace {

Result<MatchExpressionPtr> ParseBitTest(MatchKind kind, const OperatorArgs& args) {
  std::vector<uint32_t> positions;
  uint64_t mask = 0;
  const bson_iter_t* op = args.op;
  if (BSON_ITER_HOLDS_ARRAY(op)) {
    bson_iter_t it;
    bson_iter_recurse(op, &it);
    while (bson_iter_next(&it)) {
      Result<int> position = ParseNonNegativeInt(&it);
      if (!position.ok()) {
        return Status(ErrorCode::kBadValue,
                      "Failed to parse bit position. " + position.status().reason());
      }
      positions.push_back(static_cast<uint32_t>(*position));
      mask |= uint64_t{1} << std::min(*position, 63);
    }
  } else if (IterIsNumber(op)) {
    CAIRN_ASSIGN_OR_RETURN(int64_t number, ParseNonNegativeLong(op));
    mask = static_cast<uint64_t>(number);
    for (uint32_t bit = 0; bit < 64; ++bit) {
      if (mask & (uint64_t{1} << bit)) positions.push_back(bit);
    }
  } else if (BSON_ITER_HOLDS_BINARY(op)) {
    bson_subtype_t subtype;
    uint32_t length = 0;
    const uint8_t* data = nullptr;
    bson_iter_binary(op, &subtype, &length, &data);
    for (uint32_t byte = 0; byte < length; ++byte) {
      if (data[byte] == 0) continue;
      if (byte < 8) {
        // MongoDB widens the byte through a signed char, so a byte with its top bit set also
        // sets every higher bit of the numeric mask; kept for identical answers on numbers.
        mask |= static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(data[byte])))
                << (byte * 8);
      } else {
        mask |= uint64_t{1} << 63;
      }
      for (uint32_t bit = 0; bit < 8; ++bit) {
        if (data[byte] & (1u << bit)) positions.push_back(8 * byte + bit);
      }
    }
  } else {
    return Status(
        ErrorCode::kBadValue,
        std::string(args.path) +
            " takes an Array, a number, or a BinData but received: " + ElementToString(op));
  }
  return MatchExpressionPtr(
      std::make_unique<BitTestMatchExpression>(kind, args.path, std::move(positions), mask));
}

}  // namespace

Result<MatchExpressionPtr> ParseBitsAllSet(const OperatorArgs& args) {
  return ParseBitTest(MatchKind::kBitsAllSet, args);
}

Result<MatchExpressionPtr> ParseBitsAllClear(const OperatorArgs& args) {
  return ParseBitTest(MatchKind::kBitsAllClear, args);
}

Result<MatchExpressionPtr> ParseBitsAnySet(const OperatorArgs& args) {
  return ParseBitTest(MatchKind::kBitsAnySet, args);
}

Result<MatchExpressionPtr> ParseBitsAnyClear(const OperatorArgs& args) {
  return ParseBitTest(MatchKind::kBitsAnyClear, args);
}

}  // namespace internal
}  // namespace cairn::query
