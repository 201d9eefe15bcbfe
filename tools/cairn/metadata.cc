// Building and reading metadata.json documents.
#include "tools/cairn/metadata.h"

#include <cstdio>
#include <cstdlib>

namespace cairn::tools {

namespace {

// The UUID from listCollections' info.uuid (binary subtype 4) as 32 hex digits, or "".
std::string UuidHex(const bson_t* entry) {
  bson_iter_t it;
  if (!bson_iter_init(&it, entry) || !bson_iter_find_descendant(&it, "info.uuid", &it) ||
      !BSON_ITER_HOLDS_BINARY(&it)) {
    return "";
  }
  bson_subtype_t subtype;
  uint32_t length = 0;
  const uint8_t* data = nullptr;
  bson_iter_binary(&it, &subtype, &length, &data);
  std::string hex;
  char byte[3];
  for (uint32_t i = 0; i < length; ++i) {
    std::snprintf(byte, sizeof byte, "%02x", data[i]);
    hex += byte;
  }
  return hex;
}

}  // namespace

std::string MetadataJson(const bson_t* entry, const std::vector<BsonPtr>& indexes) {
  BsonPtr meta = NewBson();
  bson_t options;
  if (!GetSubdocument(entry, "options", &options)) bson_init(&options);
  BSON_APPEND_DOCUMENT(meta.get(), "options", &options);
  bson_destroy(&options);
  bson_t array;
  BSON_APPEND_ARRAY_BEGIN(meta.get(), "indexes", &array);
  for (size_t i = 0; i < indexes.size(); ++i) {
    std::string key = std::to_string(i);
    bson_append_document(&array, key.c_str(), -1, indexes[i].get());
  }
  bson_append_array_end(meta.get(), &array);
  std::string uuid = UuidHex(entry);
  if (!uuid.empty()) BSON_APPEND_UTF8(meta.get(), "uuid", uuid.c_str());
  BSON_APPEND_UTF8(meta.get(), "collectionName", GetString(entry, "name").c_str());
  std::string type = GetString(entry, "type");
  BSON_APPEND_UTF8(meta.get(), "type", type.empty() ? "collection" : type.c_str());
  return BsonToJson(meta.get(), /*canonical=*/true);
}

Result<CollectionMetadata> ParseMetadata(const std::string& json, const std::string& what) {
  CAIRN_ASSIGN_OR_RETURN(BsonPtr doc, BsonFromJson(json, what));
  CollectionMetadata meta;
  meta.name = GetString(doc.get(), "collectionName");
  meta.type = GetString(doc.get(), "type");
  meta.options = NewBson();
  if (!GetSubdocument(doc.get(), "options", meta.options.get())) {
    return Status(ErrorCode::kFailedToParse, what + ": options is not a document");
  }
  // Older mongodumps wrote no type: a view is recognised by its viewOn option.
  if (meta.type.empty())
    meta.type = bson_has_field(meta.options.get(), "viewOn") ? "view" : "collection";
  bson_iter_t it, child;
  if (bson_iter_init_find(&it, doc.get(), "indexes")) {
    if (!BSON_ITER_HOLDS_ARRAY(&it) || !bson_iter_recurse(&it, &child)) {
      return Status(ErrorCode::kFailedToParse, what + ": indexes is not an array");
    }
    while (bson_iter_next(&child)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&child)) {
        return Status(ErrorCode::kFailedToParse, what + ": an index is not a document");
      }
      uint32_t length = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&child, &length, &data);
      meta.indexes.emplace_back(bson_new_from_data(data, length));
    }
  }
  return meta;
}

std::string EscapeCollectionName(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '/') {
      out += "%2f";
    } else if (c == '%') {
      out += "%25";
    } else {
      out += c;
    }
  }
  return out;
}

std::string UnescapeCollectionName(const std::string& file_name) {
  std::string out;
  for (size_t i = 0; i < file_name.size(); ++i) {
    if (file_name[i] == '%' && i + 2 < file_name.size()) {
      std::string hex = file_name.substr(i + 1, 2);
      char* end = nullptr;
      long value = std::strtol(hex.c_str(), &end, 16);
      if (end == hex.c_str() + 2) {
        out += static_cast<char>(value);
        i += 2;
        continue;
      }
    }
    out += file_name[i];
  }
  return out;
}

}  // namespace cairn::tools
