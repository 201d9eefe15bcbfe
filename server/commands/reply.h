// Reply builders shared by the dispatcher and handlers: MongoDB's error reply
// ({ok: 0, errmsg, code, codeName, …extra}) and write-error arrays
// (writeErrors: [{index, code, errmsg, …extra}]).
#pragma once

#include <bson/bson.h>

#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::server {

// Appends ok: 0, errmsg, code, codeName and the status's extra fields.
void AppendErrorFields(bson_t* reply, const Status& status);

struct WriteError {
  int32_t index = 0;
  Status status;
};

// Appends writeErrors: [{index, code, errmsg, ...extra}] when `errors` is not empty.
void AppendWriteErrors(bson_t* reply, const std::vector<WriteError>& errors);

}  // namespace cairn::server
