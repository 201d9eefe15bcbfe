// DocumentValidator: a collection's schema validation rules as MongoDB 7.0 keeps them — the
// validator filter (query operators, $jsonSchema, or both), validationLevel and
// validationAction — parsed once with the restrictions MongoDB places on validators, plus the
// errInfo that explains why a document fails (the shape of MongoDB's doc_validation_error.cpp:
// {failingDocumentId, details: {operatorName, ...}}). Knows nothing of storage or commands: the
// server keeps one per collection handle and asks it about each document written.
// Immutable after Make; Matches and the explanations are thread-safe.
#pragma once

#include <memory>
#include <string_view>

#include "common/bson_doc.h"
#include "common/status.h"
#include "query/matcher/matcher.h"

namespace cairn::query {

// validationLevel: which writes are checked (strict: all; moderate: inserts, and updates of
// documents that were valid; off: none).
enum class ValidationLevel { kStrict, kModerate, kOff };
// validationAction: what a failing write does (error: refused with 121; warn: logged, written).
enum class ValidationAction { kError, kWarn };

// The enum values as the create/collMod IDL parses them: BadValue "Enumeration value 'x' for
// field '<command>.validationLevel' is not a valid value." otherwise.
Result<ValidationLevel> ParseValidationLevel(std::string_view value, std::string_view command);
Result<ValidationAction> ParseValidationAction(std::string_view value, std::string_view command);

// Refuses what MongoDB does not allow in a validator, before parsing it: $where and $text
// (BadValue "... is not allowed in this context") and $near / $nearSphere / $geoNear (5626500).
Status CheckValidatorOperators(BsonView validator);

class DocumentValidator {
 public:
  // Parses `validator` (copied) after CheckValidatorOperators, with the filter parser's errors.
  static Result<std::shared_ptr<const DocumentValidator>> Make(BsonView validator,
                                                               ValidationLevel level,
                                                               ValidationAction action);
  // The validator of a collection's stored options ({validator, validationLevel,
  // validationAction}); null when none applies (no validator, an empty one, or level "off").
  static Result<std::shared_ptr<const DocumentValidator>> FromCollectionOptions(BsonView options);

  ValidationLevel level() const { return level_; }
  ValidationAction action() const { return action_; }
  BsonView validator() const { return matcher_.filter(); }

  // True when `doc` satisfies the validator; or the error a $expr in it met (the write fails
  // with it).
  Result<bool> Matches(BsonView doc) const;
  // errInfo.details for a document that fails: {operatorName, ...}.
  BsonDoc ExplainFailure(BsonView doc) const;
  // errInfo: {failingDocumentId: <doc._id>, details: ExplainFailure(doc)}.
  BsonDoc ErrorInfo(BsonView doc) const;
  // DocumentValidationFailure 121 "Document failed validation" carrying {errInfo: ErrorInfo}.
  Status FailureStatus(BsonView doc) const;

 private:
  DocumentValidator(Matcher matcher, ValidationLevel level, ValidationAction action)
      : matcher_(std::move(matcher)), level_(level), action_(action) {}
  Matcher matcher_;
  ValidationLevel level_;
  ValidationAction action_;
};

// The errInfo.details of `document` failing the filter `validator` (validation_errors.cc).
BsonDoc ExplainValidationFailure(BsonView validator, BsonView document);

}  // namespace cairn::query
