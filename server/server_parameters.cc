// ServerParameters: MongoDB's coercion and validation rules for the parameters Cairn honours.
#include "server/server_parameters.h"

#include <charconv>
#include <string>

#include "common/bson_doc.h"
#include "common/bson_validate.h"

namespace cairn::server {

namespace {

enum class ParameterType { kBool, kInt };

// One settable parameter: its name, type and storage; `gt` is the IDL validator "gt" (int only).
// A startup-only parameter (setAt: startup) is marked `startup`, or lives outside
// ServerParameters behind `get`/`set`.
struct ParameterDef {
  std::string_view name;
  ParameterType type;
  std::atomic<bool> ServerParameters::*bool_field = nullptr;
  std::atomic<int32_t> ServerParameters::*int_field = nullptr;
  int32_t gt = INT32_MIN;
  int32_t (*get)() = nullptr;
  Status (*set)(int32_t) = nullptr;
  bool startup = false;
  bool startup_only() const { return startup || set != nullptr; }
};

// Sorted by name.
const ParameterDef kParameters[] = {
    {"enableTestCommands", ParameterType::kBool, &ServerParameters::enable_test_commands, nullptr,
     INT32_MIN, nullptr, nullptr, /*startup=*/true},
    {"internalDocumentSourceGroupMaxMemoryBytes", ParameterType::kInt, nullptr,
     &ServerParameters::internal_document_source_group_max_memory_bytes, 0},
    {"internalQueryCollectionMaxDataSizeBytesToChooseHashJoin", ParameterType::kInt, nullptr,
     &ServerParameters::internal_query_collection_max_data_size_bytes_to_choose_hash_join, 0},
    {"internalQueryMaxBlockingSortMemoryUsageBytes", ParameterType::kInt, nullptr,
     &ServerParameters::internal_query_max_blocking_sort_memory_usage_bytes, -1},
    {"maxBSONDepth", ParameterType::kInt, nullptr, nullptr, INT32_MIN, &MaxBsonDepth,
     &SetMaxBsonDepth},
    {"transactionLifetimeLimitSeconds", ParameterType::kInt, nullptr,
     &ServerParameters::transaction_lifetime_limit_seconds, 0},
    {"ttlMonitorEnabled", ParameterType::kBool, &ServerParameters::ttl_monitor_enabled, nullptr},
    {"ttlMonitorSleepSecs", ParameterType::kInt, nullptr, &ServerParameters::ttl_monitor_sleep_secs,
     0},
};

const ParameterDef* Find(std::string_view name) {
  for (const ParameterDef& def : kParameters) {
    if (def.name == name) return &def;
  }
  return nullptr;
}

Status SetInt(ServerParameters* parameters, const ParameterDef& def, int32_t value) {
  if (def.set != nullptr) return def.set(value);
  if (!(value > def.gt)) {
    return Status(ErrorCode::kBadValue, "Invalid value for parameter " + std::string(def.name) +
                                            ": " + std::to_string(value) + " is not greater than " +
                                            std::to_string(def.gt));
  }
  (parameters->*def.int_field).store(value);
  return Status::OK();
}

}  // namespace

const std::vector<std::string_view>& SettableParameterNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const ParameterDef& def : kParameters) out.push_back(def.name);
    return out;
  }();
  return names;
}

bool IsSettableParameter(std::string_view name) { return Find(name) != nullptr; }

bool AppendParameterValue(const ServerParameters& parameters, std::string_view name,
                          std::string_view field, bson_t* out) {
  const ParameterDef* def = Find(name);
  if (def == nullptr) return false;
  const int length = static_cast<int>(field.size());
  if (def->type == ParameterType::kBool) {
    bson_append_bool(out, field.data(), length, (parameters.*def->bool_field).load());
  } else {
    bson_append_int32(out, field.data(), length,
                      def->get != nullptr ? def->get() : (parameters.*def->int_field).load());
  }
  return true;
}

Status SetParameterValue(ServerParameters* parameters, std::string_view name,
                         const bson_iter_t* value) {
  const ParameterDef* def = Find(name);
  if (def == nullptr) {
    return Status(ErrorCode::kInvalidOptions, "attempted to set unrecognized parameter [" +
                                                  std::string(name) +
                                                  "], use help:true to see options ");
  }
  if (def->startup_only()) {
    return Status(ErrorCode::kIllegalOperation,
                  "not allowed to change [" + std::string(name) + "] at runtime");
  }
  if (def->type == ParameterType::kBool) {
    (parameters->*def->bool_field).store(bson_iter_as_bool(value));
    return Status::OK();
  }
  if (!BSON_ITER_HOLDS_NUMBER(value)) return Status(ErrorCode::kBadValue, "Can't coerce value");
  double number = bson_iter_as_double(value);
  int32_t coerced;
  if (BSON_ITER_HOLDS_DOUBLE(value)) {
    // BSONElement::numberInt: a double is truncated, saturating at the int range.
    coerced = number >= 2147483647.0    ? INT32_MAX
              : number <= -2147483648.0 ? INT32_MIN
              : number != number        ? 0
                                        : static_cast<int32_t>(number);
  } else {
    coerced = static_cast<int32_t>(bson_iter_as_int64(value));
  }
  return SetInt(parameters, *def, coerced);
}

Status SetParameterFromString(ServerParameters* parameters, std::string_view assignment) {
  size_t eq = assignment.find('=');
  std::string_view name = assignment.substr(0, eq);
  std::string_view text =
      eq == std::string_view::npos ? std::string_view() : assignment.substr(eq + 1);
  const ParameterDef* def = Find(name);
  if (def == nullptr) {
    return Status(ErrorCode::kBadValue,
                  "Illegal --setParameter parameter: \"" + std::string(name) + "\"");
  }
  if (def->type == ParameterType::kBool) {
    if (text == "true" || text == "1") {
      (parameters->*def->bool_field).store(true);
    } else if (text == "false" || text == "0") {
      (parameters->*def->bool_field).store(false);
    } else {
      return Status(ErrorCode::kBadValue, "Value is not a valid boolean");
    }
    return Status::OK();
  }
  int32_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    return Status(ErrorCode::kFailedToParse, "Failed to parse number '" + std::string(text) +
                                                 "' in --setParameter " + std::string(name));
  }
  return SetInt(parameters, *def, value);
}

}  // namespace cairn::server
