// Write-command statement lists from the body or a kind-1 document sequence.
#include "server/commands/write_statements.h"

#include <string>

namespace cairn::server {

Result<std::vector<BsonView>> WriteStatements(const CommandRequest& request, std::string_view field,
                                              std::initializer_list<std::string_view> allowed) {
  std::vector<BsonView> statements;
  bson_iter_t it;
  // A field in both the body and a sequence never gets here: wire/ refuses it (40433).
  const wire::DocumentSequence* sequence = request.Sequence(field);
  if (sequence != nullptr) {
    statements = sequence->documents;
  } else if (request.body.Find(field, &it)) {
    if (!BSON_ITER_HOLDS_ARRAY(&it)) {
      return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(request.name) + "." +
                                                  std::string(field) + "' is the wrong type '" +
                                                  std::string(BsonTypeName(bson_iter_type(&it))) +
                                                  "', expected type 'array'");
    }
    bson_iter_t element;
    bson_iter_recurse(&it, &element);
    while (bson_iter_next(&element)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&element)) {
        return Status(ErrorCode::kTypeMismatch,
                      "BSON field '" + std::string(request.name) + "." + std::string(field) + "." +
                          std::string(IterKey(&element)) + "' is the wrong type '" +
                          std::string(BsonTypeName(bson_iter_type(&element))) +
                          "', expected type 'object'");
      }
      statements.push_back(IterDocument(&element));
    }
  } else {
    return Status(ErrorCode::kLocation40414, "BSON field '" + std::string(request.name) + "." +
                                                 std::string(field) +
                                                 "' is missing but a required field");
  }
  if (statements.empty() || statements.size() > static_cast<size_t>(kMaxWriteBatchSize)) {
    return Status(ErrorCode::kInvalidLength,
                  "Write batch sizes must be between 1 and " + std::to_string(kMaxWriteBatchSize) +
                      ". Got " + std::to_string(statements.size()) + " operations.");
  }
  if (allowed.size() != 0) {
    for (BsonView statement : statements) {
      CAIRN_RETURN_IF_ERROR(CheckStatementFields(request.name, field, statement, allowed));
    }
  }
  return statements;
}

Status CheckStatementFields(std::string_view command, std::string_view field, BsonView statement,
                            std::initializer_list<std::string_view> allowed) {
  bson_iter_t it;
  if (!statement.Init(&it)) return Status::OK();
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    bool known = false;
    for (std::string_view name : allowed) {
      if (name == key) {
        known = true;
        break;
      }
    }
    if (!known) {
      return Status(ErrorCode::kLocation40415, "BSON field '" + std::string(command) + "." +
                                                   std::string(field) + "." + std::string(key) +
                                                   "' is an unknown field.");
    }
  }
  return Status::OK();
}

Result<BsonElement> StatementDocumentField(std::string_view command, std::string_view field,
                                           BsonView statement, std::string_view name,
                                           bool also_array) {
  std::string path = std::string(command) + "." + std::string(field) + "." + std::string(name);
  bson_iter_t it;
  if (!statement.Find(name, &it)) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field '" + path + "' is missing but a required field");
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(&it) && !(also_array && BSON_ITER_HOLDS_ARRAY(&it))) {
    return Status(ErrorCode::kTypeMismatch, "BSON field '" + path + "' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(&it))) +
                                                "', expected type" +
                                                (also_array ? "s '[array, object]'" : " 'object'"));
  }
  return BsonElement(&it);
}

Result<BsonView> StatementCollationField(std::string_view command, std::string_view field,
                                         BsonView statement) {
  bson_iter_t it;
  if (!statement.Find("collation", &it) || BSON_ITER_HOLDS_NULL(&it)) return BsonView();
  CAIRN_ASSIGN_OR_RETURN(BsonElement collation,
                         StatementDocumentField(command, field, statement, "collation"));
  bson_iter_t value = collation.iter();
  return IterDocument(&value);
}

Result<BsonView> ArrayFiltersField(std::string_view path, const bson_iter_t* value) {
  if (value == nullptr) return BsonView();
  if (!BSON_ITER_HOLDS_ARRAY(value)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(path) +
                                                "' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(value))) +
                                                "', expected type 'array'");
  }
  BsonView filters = IterDocument(value);
  bson_iter_t it;
  filters.Init(&it);
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field '" + std::string(path) + "." + std::string(IterKey(&it)) +
                        "' is the wrong type '" + std::string(BsonTypeName(bson_iter_type(&it))) +
                        "', expected type 'object'");
    }
  }
  return filters;
}

}  // namespace cairn::server
