// Extended JSON conversions and small field readers over libbson.
#include "tools/cairn/bson_util.h"

namespace cairn::tools {

Result<BsonPtr> BsonFromJson(std::string_view json, std::string_view what) {
  bson_error_t error;
  bson_t* doc = bson_new_from_json(reinterpret_cast<const uint8_t*>(json.data()),
                                   static_cast<ssize_t>(json.size()), &error);
  if (!doc) {
    return Status(ErrorCode::kFailedToParse,
                  std::string(what) + " is not valid Extended JSON: " + error.message);
  }
  return BsonPtr(doc);
}

std::string BsonToJson(const bson_t* doc, bool canonical) {
  size_t length = 0;
  char* json = canonical ? bson_as_canonical_extended_json(doc, &length)
                         : bson_as_relaxed_extended_json(doc, &length);
  std::string out(json ? json : "", json ? length : 0);
  bson_free(json);
  return out;
}

std::string GetString(const bson_t* doc, const char* key) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, doc, key) || !BSON_ITER_HOLDS_UTF8(&it)) return "";
  uint32_t length = 0;
  const char* value = bson_iter_utf8(&it, &length);
  return std::string(value, length);
}

bool GetSubdocument(const bson_t* doc, const char* key, bson_t* out) {
  bson_init(out);
  bson_iter_t it;
  if (!bson_iter_init_find(&it, doc, key)) return true;
  if (!BSON_ITER_HOLDS_DOCUMENT(&it) && !BSON_ITER_HOLDS_ARRAY(&it)) return false;
  uint32_t length = 0;
  const uint8_t* data = nullptr;
  if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
    bson_iter_document(&it, &length, &data);
  } else {
    bson_iter_array(&it, &length, &data);
  }
  bson_t view;
  if (!bson_init_static(&view, data, length)) return false;
  bson_destroy(out);
  bson_copy_to(&view, out);
  return true;
}

}  // namespace cairn::tools
