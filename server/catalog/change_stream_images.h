// The collection option changeStreamPreAndPostImages: {enabled: bool} (create and collMod), as
// MongoDB 6.0+ takes it. With it enabled a replica set records the document before each update,
// replacement and delete (repl/oplog.h: a no-op entry the change's entry points to by
// preImageOpTime), which change streams turn into fullDocumentBeforeChange and, applying the
// update's diff, into fullDocument: "whenAvailable"/"required".
#pragma once

#include <string_view>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::server {

inline constexpr std::string_view kPreAndPostImagesOption = "changeStreamPreAndPostImages";

// The option's value as `command` ("create", "collMod") received it: whether it enables the
// images. TypeMismatch for a non-object or a non-bool enabled, 40414 when enabled is missing,
// 40415 for another field.
Result<bool> ParsePreAndPostImagesOption(const bson_iter_t* value, std::string_view command);

// Whether a collection's stored options enable the images.
bool PreAndPostImagesEnabled(BsonView options);

}  // namespace cairn::server
