// Private to the validation error builders (validation_errors.cc, json_schema/schema_errors.cc):
// the arrays of an errInfo.details document under construction (clausesNotSatisfied,
// schemaRulesNotSatisfied, missingProperties, ...). Built only when a write fails validation.
#pragma once

#include <bson/bson.h>

#include <string>
#include <string_view>

#include "common/bson_doc.h"

namespace cairn::query {

// An array built element by element ("0", "1", ... supplied), then appended under a key.
class DetailsArray {
 public:
  void AppendDocument(const BsonDoc& doc) {
    bson_append_document(body_.get(), Key(), -1, doc.get());
  }
  void AppendValue(const bson_iter_t* value) { AppendIter(body_.get(), Key(), value); }
  void AppendString(std::string_view s) { AppendUtf8(body_.get(), Key(), s); }
  void AppendInt(int32_t n) { bson_append_int32(body_.get(), Key(), -1, n); }
  // Appends every element of `other` (a subschema's rules absorbed into its parent's list).
  void AppendAll(const DetailsArray& other) {
    bson_iter_t it;
    if (!other.body_.view().Init(&it)) return;
    while (bson_iter_next(&it)) AppendValue(&it);
  }
  uint32_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  void AppendTo(bson_t* out, std::string_view key) const {
    bson_append_array(out, key.data(), static_cast<int>(key.size()), body_.get());
  }

 private:
  const char* Key() {
    key_ = std::to_string(count_++);
    return key_.c_str();
  }
  BsonDoc body_;
  std::string key_;
  uint32_t count_ = 0;
};

}  // namespace cairn::query
