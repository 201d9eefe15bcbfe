// Why a value fails a $jsonSchema, as collection validation reports it in errInfo.details
// (MongoDB 5.0+ doc_validation_error.cpp): {operatorName: "$jsonSchema", title?, description?,
// schemaRulesNotSatisfied: [<one entry per failing keyword>]}. Walks the parsed schema tree
// (json_schema.h); built only when a document already failed validation.
#pragma once

#include "common/bson_doc.h"
#include "query/matcher/json_schema/json_schema.h"

namespace cairn::query::json_schema {

// The details of `document` failing `schema` (call only when it does fail).
BsonDoc ExplainSchemaFailure(const Schema& schema, BsonView document);

}  // namespace cairn::query::json_schema
