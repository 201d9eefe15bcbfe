// The statements of a write command (insert "documents", update "updates", delete "deletes"):
// read from the body's array or from the OP_MSG kind-1 sequence of the same name, with
// MongoDB's batch size rule (1 to 100,000 statements, InvalidLength 16 otherwise).
#pragma once

#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/bson_element.h"
#include "common/status.h"
#include "server/command.h"

namespace cairn::server {

// Views of the statements (valid while the request is). TypeMismatch when an element is not a
// document. When `allowed` is given, every statement's field names are checked against it first
// (CheckStatementFields): as with MongoDB's IDL parse, an unknown field anywhere fails the whole
// command before any statement runs (e.g. update's `sort`, which only MongoDB 8.0 accepts).
Result<std::vector<BsonView>> WriteStatements(const CommandRequest& request, std::string_view field,
                                              std::initializer_list<std::string_view> allowed = {});

// Checks a statement's fields against the allowed names: 40415 "BSON field
// 'update.updates.foo' is an unknown field." otherwise.
Status CheckStatementFields(std::string_view command, std::string_view field, BsonView statement,
                            std::initializer_list<std::string_view> allowed);

// The document-valued field `name` of a statement (e.g. update's "q"): 40414 "BSON field
// 'update.updates.q' is missing but a required field" when absent, TypeMismatch when not a
// document (`also_array` admits arrays too, for pipeline updates).
Result<BsonElement> StatementDocumentField(std::string_view command, std::string_view field,
                                           BsonView statement, std::string_view name,
                                           bool also_array = false);

// The optional `collation` document of an update or delete statement: empty when absent or
// null; TypeMismatch "BSON field 'update.updates.collation' is the wrong type 'string', expected
// type 'object'" otherwise. What it holds is checked when the statement runs (a writeError).
Result<BsonView> StatementCollationField(std::string_view command, std::string_view field,
                                         BsonView statement);

// The arrayFilters of an update statement or a findAndModify (`path` names the field as
// MongoDB's IDL does, e.g. "update.updates.arrayFilters"): an array of documents, returned as
// the array's bytes viewed as a document; empty when `value` is null (absent). TypeMismatch
// "BSON field '<path>' is the wrong type 'int', expected type 'array'", or "BSON field
// '<path>.1' is the wrong type 'int', expected type 'object'" for an element.
Result<BsonView> ArrayFiltersField(std::string_view path, const bson_iter_t* value);

}  // namespace cairn::server
