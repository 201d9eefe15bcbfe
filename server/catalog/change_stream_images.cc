// changeStreamPreAndPostImages: parsing and the stored flag (see change_stream_images.h).
#include "server/catalog/change_stream_images.h"

#include <string>

namespace cairn::server {

Result<bool> ParsePreAndPostImagesOption(const bson_iter_t* value, std::string_view command) {
  const std::string path = std::string(command) + "." + std::string(kPreAndPostImagesOption);
  if (!BSON_ITER_HOLDS_DOCUMENT(value)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field '" + path + "' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(value))) +
                                                "', expected type 'object'");
  }
  bool has_enabled = false, enabled = false;
  bson_iter_t it;
  IterDocument(value).Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    const std::string field = std::string(kPreAndPostImagesOption) + "." + std::string(key);
    if (key != "enabled") {
      return Status(ErrorCode::kLocation40415, "BSON field '" + field + "' is an unknown field.");
    }
    if (!BSON_ITER_HOLDS_BOOL(&it)) {
      return Status(ErrorCode::kTypeMismatch, "BSON field '" + field + "' is the wrong type '" +
                                                  std::string(BsonTypeName(bson_iter_type(&it))) +
                                                  "', expected type 'bool'");
    }
    has_enabled = true;
    enabled = bson_iter_bool(&it);
  }
  if (!has_enabled) {
    return Status(ErrorCode::kLocation40414, "BSON field '" + std::string(kPreAndPostImagesOption) +
                                                 ".enabled' is missing but a required field");
  }
  return enabled;
}

bool PreAndPostImagesEnabled(BsonView options) {
  bson_iter_t option, enabled;
  return options.Find(kPreAndPostImagesOption, &option) && BSON_ITER_HOLDS_DOCUMENT(&option) &&
         IterDocument(&option).Find("enabled", &enabled) && BSON_ITER_HOLDS_BOOL(&enabled) &&
         bson_iter_bool(&enabled);
}

}  // namespace cairn::server
