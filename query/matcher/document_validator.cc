// DocumentValidator (document_validator.h): parsing a collection's validation options, the
// operators validators refuse, and the DocumentValidationFailure status with its errInfo.
#include "query/matcher/document_validator.h"

#include <string>

#include "query/matcher/special_features.h"

namespace cairn::query {

namespace {

Status BadEnum(std::string_view value, std::string_view command, std::string_view field) {
  return Status(ErrorCode::kBadValue, "Enumeration value '" + std::string(value) + "' for field '" +
                                          std::string(command) + "." + std::string(field) +
                                          "' is not a valid value.");
}

}  // namespace

Result<ValidationLevel> ParseValidationLevel(std::string_view value, std::string_view command) {
  if (value == "strict") return ValidationLevel::kStrict;
  if (value == "moderate") return ValidationLevel::kModerate;
  if (value == "off") return ValidationLevel::kOff;
  return BadEnum(value, command, "validationLevel");
}

Result<ValidationAction> ParseValidationAction(std::string_view value, std::string_view command) {
  if (value == "error") return ValidationAction::kError;
  if (value == "warn") return ValidationAction::kWarn;
  return BadEnum(value, command, "validationAction");
}

Status CheckValidatorOperators(BsonView validator) {
  return CheckSpecialFeatures(validator, kFeatureWhere | kFeatureText | kFeatureGeoNear);
}

Result<std::shared_ptr<const DocumentValidator>> DocumentValidator::Make(BsonView validator,
                                                                         ValidationLevel level,
                                                                         ValidationAction action) {
  CAIRN_RETURN_IF_ERROR(CheckValidatorOperators(validator));
  CAIRN_ASSIGN_OR_RETURN(Matcher matcher, Matcher::Parse(validator));
  return std::shared_ptr<const DocumentValidator>(
      new DocumentValidator(std::move(matcher), level, action));
}

Result<std::shared_ptr<const DocumentValidator>> DocumentValidator::FromCollectionOptions(
    BsonView options) {
  bson_iter_t it;
  ValidationLevel level = ValidationLevel::kStrict;
  ValidationAction action = ValidationAction::kError;
  if (options.Find("validationLevel", &it) && BSON_ITER_HOLDS_UTF8(&it)) {
    CAIRN_ASSIGN_OR_RETURN(level, ParseValidationLevel(IterUtf8(&it), "create"));
  }
  if (options.Find("validationAction", &it) && BSON_ITER_HOLDS_UTF8(&it)) {
    CAIRN_ASSIGN_OR_RETURN(action, ParseValidationAction(IterUtf8(&it), "create"));
  }
  if (!options.Find("validator", &it) || !BSON_ITER_HOLDS_DOCUMENT(&it) ||
      IterDocument(&it).empty() || level == ValidationLevel::kOff) {
    return std::shared_ptr<const DocumentValidator>();
  }
  return Make(IterDocument(&it), level, action);
}

Result<bool> DocumentValidator::Matches(BsonView doc) const { return matcher_.Matches(doc); }

BsonDoc DocumentValidator::ExplainFailure(BsonView doc) const {
  return ExplainValidationFailure(matcher_.filter(), doc);
}

BsonDoc DocumentValidator::ErrorInfo(BsonView doc) const {
  BsonDoc info;
  bson_iter_t id;
  if (doc.Find("_id", &id)) AppendIter(info.get(), "failingDocumentId", &id);
  BsonDoc details = ExplainFailure(doc);
  BSON_APPEND_DOCUMENT(info.get(), "details", details.get());
  return info;
}

Status DocumentValidator::FailureStatus(BsonView doc) const {
  BsonDoc extra;
  BsonDoc info = ErrorInfo(doc);
  BSON_APPEND_DOCUMENT(extra.get(), "errInfo", info.get());
  return Status(ErrorCode::kDocumentValidationFailure, "Document failed validation")
      .WithExtra(std::move(extra));
}

}  // namespace cairn::query
