// Document validation on the server: the per-handle validator cache, the write-path check with
// its warning log, and the validation options of create and collMod.
#include "server/catalog/collection_validator.h"

#include <string>

#include "common/logging.h"
#include "server/catalog/handle_cache.h"

namespace cairn::server {

namespace {

PerHandleCache<query::DocumentValidator>& TheCache() {
  static auto* cache = new PerHandleCache<query::DocumentValidator>();  // used until exit
  return *cache;
}

Status WrongType(std::string_view field, const bson_iter_t* value, std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field 'collMod." + std::string(field) +
                                              "' is the wrong type '" +
                                              std::string(BsonTypeName(bson_iter_type(value))) +
                                              "', expected type '" + std::string(expected) + "'");
}

// MongoDB's checkValidatorCanBeUsedOnNs: no validators on system collections or in the
// internal databases.
Status CheckNamespaceTakesValidator(std::string_view ns) {
  std::string_view db = ns.substr(0, ns.find('.'));
  std::string_view collection = ns.substr(ns.find('.') + 1);
  if (collection.substr(0, 7) == "system.") {
    return Status(ErrorCode::kInvalidOptions,
                  "Document validators not allowed on system collection " + std::string(ns));
  }
  if (db == "admin" || db == "local" || db == "config") {
    return Status(ErrorCode::kInvalidOptions, "Document validators are not allowed on collection " +
                                                  std::string(ns) + " in the " + std::string(db) +
                                                  " internal database");
  }
  return Status::OK();
}

// Checks the three options as they stand in `options`; `command` names them in enum errors.
Status CheckOptions(std::string_view ns, BsonView options, std::string_view command) {
  bson_iter_t it;
  query::ValidationLevel level = query::ValidationLevel::kStrict;
  query::ValidationAction action = query::ValidationAction::kError;
  if (options.Find("validationLevel", &it)) {
    CAIRN_ASSIGN_OR_RETURN(level, query::ParseValidationLevel(IterUtf8(&it), command));
  }
  if (options.Find("validationAction", &it)) {
    CAIRN_ASSIGN_OR_RETURN(action, query::ParseValidationAction(IterUtf8(&it), command));
  }
  if (options.Find("validator", &it) && !IterDocument(&it).empty()) {
    CAIRN_RETURN_IF_ERROR(CheckNamespaceTakesValidator(ns));
    CAIRN_RETURN_IF_ERROR(
        query::DocumentValidator::Make(IterDocument(&it), level, action).status());
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<const query::DocumentValidator>> ValidatorOf(
    const storage::CollectionHandle& collection) {
  if (!collection) return std::shared_ptr<const query::DocumentValidator>();
  bson_iter_t it;
  // Most collections have no validator: answer without touching the cache.
  if (!collection->options.view().Find("validator", &it)) {
    return std::shared_ptr<const query::DocumentValidator>();
  }
  return TheCache().Get(collection, [](const storage::CollectionHandle& handle) {
    return query::DocumentValidator::FromCollectionOptions(handle->options.view());
  });
}

Status CheckDocumentValidation(const query::DocumentValidator& validator, std::string_view ns,
                               BsonView doc, const BsonView* old_doc) {
  if (validator.level() == query::ValidationLevel::kOff) return Status::OK();
  CAIRN_ASSIGN_OR_RETURN(bool valid, validator.Matches(doc));
  if (valid) return Status::OK();
  if (old_doc != nullptr && validator.level() == query::ValidationLevel::kModerate) {
    CAIRN_ASSIGN_OR_RETURN(bool was_valid, validator.Matches(*old_doc));
    if (!was_valid) return Status::OK();  // moderate: documents already invalid may stay so
  }
  if (validator.action() == query::ValidationAction::kWarn) {
    BsonDoc attr;
    AppendUtf8(attr.get(), "namespace", ns);
    bson_t document = doc.AsBson();
    BSON_APPEND_DOCUMENT(attr.get(), "document", &document);
    BsonDoc info = validator.ErrorInfo(doc);
    BSON_APPEND_DOCUMENT(attr.get(), "errInfo", info.get());
    logging::Log(logging::Severity::kWarning, "STORAGE", 20294, "conn",
                 "Document would fail validation", attr.get());
    return Status::OK();
  }
  return validator.FailureStatus(doc);
}

Status CheckCreateValidationOptions(std::string_view ns, BsonView options) {
  return CheckOptions(ns, options, "create");
}

Result<BsonDoc> WithValidationOption(std::string_view ns, BsonView options,
                                     const bson_iter_t* value) {
  const std::string_view field = IterKey(value);
  if (field == "validator") {
    if (!BSON_ITER_HOLDS_DOCUMENT(value)) return WrongType(field, value, "object");
  } else if (!BSON_ITER_HOLDS_UTF8(value)) {
    return WrongType(field, value, "string");
  }
  BsonDoc updated;
  bson_iter_t it;
  bool replaced = false;
  if (options.Init(&it)) {
    while (bson_iter_next(&it)) {
      if (IterKey(&it) == field) {
        AppendIter(updated.get(), field, value);
        replaced = true;
      } else {
        AppendIter(updated.get(), IterKey(&it), &it);
      }
    }
  }
  if (!replaced) AppendIter(updated.get(), field, value);
  Status checked = CheckOptions(ns, updated.view(), "collMod");
  if (!checked.ok()) {
    if (field == "validator" && checked.code() != ErrorCode::kInvalidOptions) {
      return checked.WithContext("Parsing of collection validator failed");
    }
    return checked;
  }
  return updated;
}

Status CheckCollModValidationOptions(std::string_view ns, BsonView options, BsonView body) {
  BsonDoc scratch(options);
  bson_iter_t it;
  if (!body.Init(&it)) return Status::OK();
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key != "validator" && key != "validationLevel" && key != "validationAction") continue;
    CAIRN_ASSIGN_OR_RETURN(scratch, WithValidationOption(ns, scratch.view(), &it));
  }
  return Status::OK();
}

}  // namespace cairn::server
