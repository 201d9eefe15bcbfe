// Declarative command arguments (layout habit 6): each command lists the fields it accepts with
// their types; one shared extractor rejects unknown fields (40415 "BSON field 'find.foo' is an
// unknown field."), wrong types (TypeMismatch 14 "BSON field 'find.limit' is the wrong type
// 'string', expected types '[long, int, decimal, double]'") and missing required fields (40414
// "BSON field 'insert.documents' is missing but a required field"), as MongoDB's IDL does.
// Generic fields drivers attach ($db, lsid, $clusterTime, writeConcern, ...) are always accepted.
#pragma once

#include <bson/bson.h>

#include <array>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "server/command.h"

namespace cairn::server {

// Type sets a field accepts (bit flags).
enum ArgType : uint32_t {
  kArgAny = 0,  // no check
  kArgString = 1u << 0,
  kArgNumber = 1u << 1,  // int, long, double, decimal
  kArgBool = 1u << 2,    // bool; numbers accepted too (MongoDB's "safeBool")
  kArgDocument = 1u << 3,
  kArgArray = 1u << 4,
  kArgNull = 1u << 5,
  kArgObjectId = 1u << 6,
};

struct ArgSpec {
  std::string_view name;
  uint32_t types = kArgAny;
  bool required = false;
};

// The parsed arguments of one command: a view into the request (body fields and kind-1
// sequences). Valid while the request is.
class CommandArgs {
 public:
  // Checks `request` against `specs`. The command's own first field is not checked.
  static Result<CommandArgs> Parse(const CommandRequest& request,
                                   std::initializer_list<ArgSpec> specs);

  // The field, if present (body only; sequences are read with request.Sequence()).
  bool Get(std::string_view name, bson_iter_t* it) const;
  bool Has(std::string_view name) const;

  // Typed accessors with defaults. Numbers are converted (long/double/decimal → int64).
  int64_t GetInt(std::string_view name, int64_t default_value) const;
  bool GetBool(std::string_view name, bool default_value) const;
  BsonView GetDocument(std::string_view name) const;  // {} when absent
  std::string_view GetString(std::string_view name, std::string_view default_value = {}) const;

  // The command's first field (the collection name for most commands).
  const bson_iter_t& first() const { return first_; }

 private:
  // Where each present body field is, recorded by Parse's one pass over the body, so lookups
  // never rescan it (a find makes ~20 of them).
  struct FieldPosition {
    std::string_view name;
    uint32_t offset;
    uint32_t key_length;
  };
  static constexpr size_t kMaxRecordedFields = 48;

  BsonView body_;
  bson_iter_t first_{};
  std::array<FieldPosition, kMaxRecordedFields> fields_;
  size_t field_count_ = 0;
  bool overflow_ = false;  // more fields than recorded: fall back to scanning
};

// The collection name from the command's first field: a string, else InvalidNamespace
// "collection name has invalid type <type>" as MongoDB answers.
Result<std::string_view> CollectionNameArg(const CommandRequest& request);

// 51024 "BSON field '<field>' value must be >= 0, actual value '<v>'" for a negative count
// (skip, limit, batchSize), as MongoDB's IDL validators answer.
Status CheckNonNegative(std::string_view field, int64_t value);

// The list of generic arguments every command accepts (and ignores unless it uses them).
bool IsGenericArgument(std::string_view name);

}  // namespace cairn::server
