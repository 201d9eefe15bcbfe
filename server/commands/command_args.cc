// The shared argument extractor: unknown fields, wrong types and missing required fields are
// refused with the codes and wording of MongoDB's IDL-generated parsers.
#include "server/commands/command_args.h"

#include <algorithm>
#include <array>

namespace cairn::server {

namespace {

// Fields drivers and mongosh attach to any command (MongoDB's generic arguments).
constexpr std::array<std::string_view, 23> kGenericArguments = {"$db",
                                                                "lsid",
                                                                "$clusterTime",
                                                                "$readPreference",
                                                                "apiVersion",
                                                                "apiStrict",
                                                                "apiDeprecationErrors",
                                                                "comment",
                                                                "writeConcern",
                                                                "readConcern",
                                                                "maxTimeMS",
                                                                "txnNumber",
                                                                "autocommit",
                                                                "startTransaction",
                                                                "$audit",
                                                                "$client",
                                                                "$configServerState",
                                                                "$queryOptions",
                                                                "clientOperationKey",
                                                                "mayBypassWriteBlocking",
                                                                "databaseVersion",
                                                                "shardVersion",
                                                                "$topologyTime"};

bool Matches(uint32_t types, bson_type_t t) {
  if (types == kArgAny) return true;
  switch (t) {
    case BSON_TYPE_UTF8:
      return types & kArgString;
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128:
      return types & (kArgNumber | kArgBool);
    case BSON_TYPE_BOOL:
      return types & kArgBool;
    case BSON_TYPE_DOCUMENT:
      return types & kArgDocument;
    case BSON_TYPE_ARRAY:
      return types & kArgArray;
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED:
      return types & kArgNull;
    case BSON_TYPE_OID:
      return types & kArgObjectId;
    default:
      return false;
  }
}

std::string ExpectedTypes(uint32_t types) {
  std::vector<std::string_view> names;
  if (types & kArgString) names.push_back("string");
  if (types & kArgNumber) {
    names.insert(names.end(), {"long", "int", "decimal", "double"});
  }
  if (types & kArgBool) {
    if (!(types & kArgNumber)) names.insert(names.end(), {"long", "int", "decimal", "double"});
    names.push_back("bool");
  }
  if (types & kArgDocument) names.push_back("object");
  if (types & kArgArray) names.push_back("array");
  if (types & kArgNull) names.push_back("null");
  if (types & kArgObjectId) names.push_back("objectId");
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ", ";
    out += names[i];
  }
  out += "]";
  return out;
}

}  // namespace

bool IsGenericArgument(std::string_view name) {
  return std::find(kGenericArguments.begin(), kGenericArguments.end(), name) !=
         kGenericArguments.end();
}

Result<CommandArgs> CommandArgs::Parse(const CommandRequest& request,
                                       std::initializer_list<ArgSpec> specs) {
  CommandArgs args;
  args.body_ = request.body;
  bson_iter_t it;
  if (!request.body.Init(&it) || !bson_iter_next(&it)) {
    return Status(ErrorCode::kFailedToParse, "empty command document");
  }
  args.first_ = it;
  // Which specs were given, as bits (no allocation per command: this runs on every request).
  uint64_t seen = 0;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (args.field_count_ < kMaxRecordedFields) {
      args.fields_[args.field_count_++] = {key, bson_iter_offset(&it), bson_iter_key_len(&it)};
    } else {
      args.overflow_ = true;
    }
    const ArgSpec* spec = nullptr;
    size_t index = 0;
    for (const ArgSpec& candidate : specs) {
      if (candidate.name == key) {
        spec = &candidate;
        break;
      }
      ++index;
    }
    if (spec == nullptr) {
      if (IsGenericArgument(key)) continue;
      return Status(ErrorCode::kLocation40415, "BSON field '" + std::string(request.name) + "." +
                                                   std::string(key) + "' is an unknown field.");
    }
    if (index < 64) seen |= uint64_t{1} << index;
    if (!Matches(spec->types, bson_iter_type(&it))) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field '" + std::string(request.name) + "." + std::string(key) +
                        "' is the wrong type '" + std::string(BsonTypeName(bson_iter_type(&it))) +
                        "', expected types '" + ExpectedTypes(spec->types) + "'");
    }
  }
  // A document sequence is a field too (the write commands read theirs in place; the dispatcher
  // folds any other command's into its body).
  if (request.sequences != nullptr) {
    for (const wire::DocumentSequence& sequence : *request.sequences) {
      bool known = false;
      for (const ArgSpec& spec : specs) known = known || spec.name == sequence.identifier;
      if (!known) {
        return Status(ErrorCode::kLocation40415, "BSON field '" + std::string(request.name) + "." +
                                                     std::string(sequence.identifier) +
                                                     "' is an unknown field.");
      }
    }
  }
  size_t index = 0;
  for (const ArgSpec& spec : specs) {
    bool given = index < 64 && (seen >> index & 1);
    if (spec.required && !given && request.Sequence(spec.name) == nullptr) {
      return Status(ErrorCode::kLocation40414, "BSON field '" + std::string(request.name) + "." +
                                                   std::string(spec.name) +
                                                   "' is missing but a required field");
    }
    ++index;
  }
  return args;
}

bool CommandArgs::Get(std::string_view name, bson_iter_t* it) const {
  for (size_t i = 0; i < field_count_; ++i) {
    if (fields_[i].name == name) {
      return bson_iter_init_from_data_at_offset(it, body_.data(), body_.size(), fields_[i].offset,
                                                fields_[i].key_length);
    }
  }
  return overflow_ && body_.Find(name, it);
}

bool CommandArgs::Has(std::string_view name) const {
  bson_iter_t it;
  return Get(name, &it);
}

int64_t CommandArgs::GetInt(std::string_view name, int64_t default_value) const {
  bson_iter_t it;
  if (!Get(name, &it)) return default_value;
  int64_t v;
  if (IterAsInt64(&it, &v)) return v;
  double d;
  if (IterAsDouble(&it, &d)) {
    if (d != d) return 0;
    if (d >= 9.2e18) return INT64_MAX;
    if (d <= -9.2e18) return INT64_MIN;
    return static_cast<int64_t>(d);
  }
  return default_value;
}

bool CommandArgs::GetBool(std::string_view name, bool default_value) const {
  bson_iter_t it;
  if (!Get(name, &it)) return default_value;
  if (bson_iter_type(&it) == BSON_TYPE_NULL) return default_value;
  return bson_iter_as_bool(&it);
}

BsonView CommandArgs::GetDocument(std::string_view name) const {
  bson_iter_t it;
  if (!Get(name, &it) || !BSON_ITER_HOLDS_DOCUMENT(&it)) return BsonView();
  return IterDocument(&it);
}

std::string_view CommandArgs::GetString(std::string_view name,
                                        std::string_view default_value) const {
  bson_iter_t it;
  if (!Get(name, &it) || !BSON_ITER_HOLDS_UTF8(&it)) return default_value;
  return IterUtf8(&it);
}

Status CheckNonNegative(std::string_view field, int64_t value) {
  if (value >= 0) return Status::OK();
  return Status(ErrorCode::kLocation51024, "BSON field '" + std::string(field) +
                                               "' value must be >= 0, actual value '" +
                                               std::to_string(value) + "'");
}

Result<std::string_view> CollectionNameArg(const CommandRequest& request) {
  bson_iter_t it;
  if (!request.body.Init(&it) || !bson_iter_next(&it)) {
    return Status(ErrorCode::kFailedToParse, "empty command document");
  }
  if (!BSON_ITER_HOLDS_UTF8(&it)) {
    return Status(ErrorCode::kInvalidNamespace, "collection name has invalid type " +
                                                    std::string(BsonTypeName(bson_iter_type(&it))));
  }
  return IterUtf8(&it);
}

const wire::DocumentSequence* CommandRequest::Sequence(std::string_view identifier) const {
  if (sequences == nullptr) return nullptr;
  for (const auto& seq : *sequences) {
    if (seq.identifier == identifier) return &seq;
  }
  return nullptr;
}

}  // namespace cairn::server
