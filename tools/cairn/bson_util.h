// Owning libbson handles and the Extended JSON conversions every subcommand uses. All BSON and
// Extended JSON goes through libbson (bson_new_from_json reads canonical and relaxed alike).
#pragma once

#include <bson/bson.h>

#include <string>
#include <string_view>

#include "common/status.h"

namespace cairn::tools {

// An owned bson_t* (a class rather than unique_ptr<bson_t>: bson_t's alignment attribute is
// dropped in template arguments, which g++ warns about).
class BsonPtr {
 public:
  BsonPtr() = default;
  explicit BsonPtr(bson_t* doc) : doc_(doc) {}
  BsonPtr(BsonPtr&& other) noexcept : doc_(other.doc_) { other.doc_ = nullptr; }
  BsonPtr& operator=(BsonPtr&& other) noexcept {
    if (this != &other) {
      if (doc_) bson_destroy(doc_);
      doc_ = other.doc_;
      other.doc_ = nullptr;
    }
    return *this;
  }
  BsonPtr(const BsonPtr&) = delete;
  BsonPtr& operator=(const BsonPtr&) = delete;
  ~BsonPtr() {
    if (doc_) bson_destroy(doc_);
  }
  bson_t* get() const { return doc_; }
  bson_t* operator->() const { return doc_; }
  explicit operator bool() const { return doc_ != nullptr; }

 private:
  bson_t* doc_ = nullptr;
};

inline BsonPtr NewBson() { return BsonPtr(bson_new()); }

// One Extended JSON document (canonical or relaxed); `what` names the input in the error.
Result<BsonPtr> BsonFromJson(std::string_view json, std::string_view what);

// Canonical or relaxed Extended JSON v2 of `doc`.
std::string BsonToJson(const bson_t* doc, bool canonical);

// The UTF-8 string at top-level `key`, or "" when absent or not a string.
std::string GetString(const bson_t* doc, const char* key);

// A copy of the document (or array) at `key` into *out (left empty when absent); false when the
// field is there but holds another type.
bool GetSubdocument(const bson_t* doc, const char* key, bson_t* out);

}  // namespace cairn::tools
