// Error and write-error reply builders.
#include "server/commands/reply.h"

#include <string>

namespace cairn::server {

namespace {

void AppendExtra(bson_t* out, const Status& status) {
  if (const BsonDoc* extra = status.extra()) {
    bson_iter_t it;
    if (extra->view().Init(&it)) {
      while (bson_iter_next(&it)) AppendIter(out, IterKey(&it), &it);
    }
  }
}

}  // namespace

void AppendErrorFields(bson_t* reply, const Status& status) {
  BSON_APPEND_DOUBLE(reply, "ok", 0.0);
  AppendUtf8(reply, "errmsg", status.reason());
  BSON_APPEND_INT32(reply, "code", status.code_number());
  AppendUtf8(reply, "codeName", status.code_name());
  AppendExtra(reply, status);
}

void AppendWriteErrors(bson_t* reply, const std::vector<WriteError>& errors) {
  if (errors.empty()) return;
  bson_t array;
  BSON_APPEND_ARRAY_BEGIN(reply, "writeErrors", &array);
  char key_buf[16];
  for (size_t i = 0; i < errors.size(); ++i) {
    const char* key;
    bson_uint32_to_string(static_cast<uint32_t>(i), &key, key_buf, sizeof key_buf);
    bson_t entry;
    BSON_APPEND_DOCUMENT_BEGIN(&array, key, &entry);
    BSON_APPEND_INT32(&entry, "index", errors[i].index);
    BSON_APPEND_INT32(&entry, "code", errors[i].status.code_number());
    AppendExtra(&entry, errors[i].status);
    AppendUtf8(&entry, "errmsg", errors[i].status.reason());
    bson_append_document_end(&array, &entry);
  }
  bson_append_array_end(reply, &array);
}

}  // namespace cairn::server
