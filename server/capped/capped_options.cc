// Capped limits: create's options checked and stored as MongoDB 7.0's CollectionOptions.
#include "server/capped/capped_options.h"

#include <algorithm>

#include <cmath>
#include <limits>
#include <string>

namespace cairn::server {

namespace {

// MongoDB's safeNumberLong: doubles truncated toward zero and clamped, NaN as 0.
int64_t SafeInt64(const bson_iter_t* it) {
  int64_t exact = 0;
  if (IterAsInt64(it, &exact)) return exact;
  double value = 0;
  if (!IterAsDouble(it, &value) || std::isnan(value)) return 0;
  if (value >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (value <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}

// A present, non-null field of the command.
bool Given(BsonView command, const char* field, bson_iter_t* it) {
  return command.Find(field, it) && bson_iter_type(it) != BSON_TYPE_NULL &&
         bson_iter_type(it) != BSON_TYPE_UNDEFINED;
}

Status CheckSizeRange(int64_t size) {
  if (size < 1) {
    return Status(
        ErrorCode::kLocation51024,
        "BSON field 'size' value must be >= 1, actual value '" + std::to_string(size) + "'");
  }
  if (size > kMaxCappedBytes) return Status(ErrorCode::kBadValue, "size cannot exceed 1 PB");
  return Status::OK();
}

// MongoDB 7.0 raises a capped size to a multiple of 256 bytes (7.1 stopped rounding: its
// compatibility notes); collMod's cappedSize also has a 4096-byte floor, create's does not
// (SERVER-67036, DOCS-15409).
int64_t RoundCappedSize(int64_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace

Result<std::optional<CappedLimits>> ParseCreateCappedOptions(BsonView command) {
  bson_iter_t it;
  const bool capped = command.Find("capped", &it) && bson_iter_as_bool(&it);
  bson_iter_t size_it, max_it;
  const bool has_size = Given(command, "size", &size_it);
  const bool has_max = Given(command, "max", &max_it);
  CappedLimits limits;
  if (has_size) {
    limits.max_bytes = SafeInt64(&size_it);
    CAIRN_RETURN_IF_ERROR(CheckSizeRange(limits.max_bytes));
    limits.max_bytes = RoundCappedSize(limits.max_bytes);
  }
  if (capped && !has_size) {
    return Status(ErrorCode::kInvalidOptions, "the 'size' field is required when 'capped' is true");
  }
  if ((has_size || has_max) && !capped) {
    return Status(ErrorCode::kInvalidOptions,
                  "the 'capped' field needs to be true when either the 'size' or 'max' fields "
                  "are present");
  }
  if (!capped) return std::optional<CappedLimits>();
  if (has_max) {
    int64_t max = SafeInt64(&max_it);
    if (max >= (int64_t{1} << 31)) {
      return Status(ErrorCode::kBadValue, "max in a capped collection has to be < 2^31 or not set");
    }
    // MongoDB stores a non-positive max as 0x7fffffff: in effect no limit.
    limits.max_docs = max <= 0 ? 0x7fffffff : max;
  }
  return std::optional<CappedLimits>(limits);
}

Result<int64_t> ParseCappedSize(const bson_iter_t* size, std::string_view command_name) {
  if (!IterIsNumber(size)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(command_name) +
                                                ".size' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(size))) +
                                                "', expected type 'double'");
  }
  double value = 0;
  IterAsDouble(size, &value);
  if (!(value > 0)) {
    return Status(ErrorCode::kLocation51024, "BSON field 'size' value must be > 0, actual value '" +
                                                 std::to_string(SafeInt64(size)) + "'");
  }
  int64_t bytes = SafeInt64(size);
  if (bytes < 1) bytes = 1;
  if (bytes > kMaxCappedBytes) return Status(ErrorCode::kBadValue, "size cannot exceed 1 PB");
  return bytes;
}

void AppendNumberAsMongoDB(bson_t* out, const char* key, int64_t value) {
  if (value > -(int64_t{1} << 30) && value < (int64_t{1} << 30)) {
    BSON_APPEND_INT32(out, key, static_cast<int32_t>(value));
  } else {
    BSON_APPEND_INT64(out, key, value);
  }
}

void AppendCappedOptions(bson_t* options, const CappedLimits& limits) {
  BSON_APPEND_BOOL(options, "capped", true);
  AppendNumberAsMongoDB(options, "size", limits.max_bytes);
  if (limits.max_docs > 0) AppendNumberAsMongoDB(options, "max", limits.max_docs);
}

std::optional<CappedLimits> CappedLimitsOf(const storage::CollectionEntry& collection) {
  return CappedLimitsOfOptions(collection.options.view());
}

Result<BsonDoc> WithCappedLimit(BsonView options, const bson_iter_t* value) {
  const std::string field(IterKey(value));
  if (!IterIsNumber(value)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'collMod." + field +
                                                "' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(value))) +
                                                "', expected types '[long, int, decimal, double]'");
  }
  std::optional<CappedLimits> limits = CappedLimitsOfOptions(options);
  if (!limits) return Status(ErrorCode::kInvalidOptions, "Collection must be capped.");
  const int64_t number = SafeInt64(value);
  if (field == "cappedSize") {
    if (number < 1) {
      return Status(ErrorCode::kLocation51024,
                    "BSON field 'cappedSize' value must be > 0, actual value '" +
                        std::to_string(number) + "'");
    }
    CAIRN_RETURN_IF_ERROR(CheckSizeRange(number));
    limits->max_bytes = std::max<int64_t>(4096, RoundCappedSize(number));
  } else {
    if (number >= (int64_t{1} << 31)) {
      return Status(ErrorCode::kBadValue, "max in a capped collection has to be < 2^31 or not set");
    }
    limits->max_docs = number <= 0 ? 0x7fffffff : number;
  }
  BsonDoc updated;
  AppendCappedOptions(updated.get(), *limits);
  bson_iter_t it;
  options.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key != "capped" && key != "size" && key != "max") AppendIter(updated.get(), key, &it);
  }
  return updated;
}

std::optional<CappedLimits> CappedLimitsOfOptions(BsonView options) {
  bson_iter_t it;
  if (!options.Find("capped", &it) || !bson_iter_as_bool(&it)) return std::nullopt;
  CappedLimits limits;
  if (options.Find("size", &it)) limits.max_bytes = SafeInt64(&it);
  if (options.Find("max", &it)) limits.max_docs = SafeInt64(&it);
  return limits;
}

}  // namespace cairn::server
