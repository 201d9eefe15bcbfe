// The server's side of document validation (MongoDB 7.0 schema validation): a collection's
// validator parsed once per catalog handle, the check the write path runs on each document
// (levels, actions, the "Document would fail validation" warning), and the checks and option
// rewrites create and collMod apply to validator / validationLevel / validationAction. What a
// validator means and how its errInfo reads is query/matcher/document_validator.h's business.
// Thread-safe.
#pragma once

#include <memory>
#include <string_view>

#include "common/bson_doc.h"
#include "common/status.h"
#include "query/matcher/document_validator.h"
#include "storage/catalog.h"

namespace cairn::server {

// The validator of `collection` (null when none applies: no validator, {}, or level "off").
// Parsed once per catalog handle, then shared.
Result<std::shared_ptr<const query::DocumentValidator>> ValidatorOf(
    const storage::CollectionHandle& collection);

// Checks a document about to be written to `ns`. `old_doc` is the stored document an update
// replaces (nullptr for an insert): at level "moderate" an update of a document that already
// failed is not checked. A failing document answers DocumentValidationFailure 121 with errInfo,
// or with action "warn" is logged (mongod's warning 20294) and passes.
Status CheckDocumentValidation(const query::DocumentValidator& validator, std::string_view ns,
                               BsonView doc, const BsonView* old_doc);

// create: checks the validation options of the command body (`options` as they will be stored)
// with MongoDB's errors: the namespace may carry a validator, the enums are known values, and the
// validator parses (errors as the parser gives them).
Status CheckCreateValidationOptions(std::string_view ns, BsonView options);

// collMod: `options` with the option `value` (validator, validationLevel or validationAction)
// set, after the same checks; a validator that does not parse answers "Parsing of collection
// validator failed :: caused by :: ..." as MongoDB's collMod does.
Result<BsonDoc> WithValidationOption(std::string_view ns, BsonView options,
                                     const bson_iter_t* value);

// collMod: the checks WithValidationOption makes, for every validation option of the command
// `body` applied together to `options`, so that a bad one changes nothing.
Status CheckCollModValidationOptions(std::string_view ns, BsonView options, BsonView body);

}  // namespace cairn::server
