// buildInfo / buildinfo: the MongoDB version Cairn behaves as (7.0.0), versionArray, and a
// `cairn` sub-document with Cairn's own version (tools can tell Cairn from mongod by it).
#include "server/command.h"

namespace cairn::server {

CommandOutcome HandleBuildInfo(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  BSON_APPEND_UTF8(reply, "version", CAIRN_MONGODB_VERSION);
  BSON_APPEND_UTF8(reply, "gitVersion", "cairn");
  bson_t array;
  BSON_APPEND_ARRAY_BEGIN(reply, "versionArray", &array);
  BSON_APPEND_INT32(&array, "0", 7);
  BSON_APPEND_INT32(&array, "1", 0);
  BSON_APPEND_INT32(&array, "2", 0);
  BSON_APPEND_INT32(&array, "3", 0);
  bson_append_array_end(reply, &array);
  bson_t modules;
  BSON_APPEND_ARRAY_BEGIN(reply, "modules", &modules);
  bson_append_array_end(reply, &modules);
  BSON_APPEND_UTF8(reply, "allocator", "system");
  BSON_APPEND_UTF8(reply, "javascriptEngine", "none");
  BSON_APPEND_UTF8(reply, "sysInfo", "deprecated");
  bson_t openssl;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "openssl", &openssl);
  BSON_APPEND_UTF8(&openssl, "running", "disabled");
  BSON_APPEND_UTF8(&openssl, "compiled", "disabled");
  bson_append_document_end(reply, &openssl);
  bson_t environment;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "buildEnvironment", &environment);
  BSON_APPEND_UTF8(&environment, "distarch", "x86_64");
  BSON_APPEND_UTF8(&environment, "target_arch", "x86_64");
  BSON_APPEND_UTF8(&environment, "target_os", "linux");
  bson_append_document_end(reply, &environment);
  BSON_APPEND_INT32(reply, "bits", 64);
  BSON_APPEND_BOOL(reply, "debug", false);
  BSON_APPEND_INT32(reply, "maxBsonObjectSize", kMaxBsonObjectSize);
  bson_t storage_engines;
  BSON_APPEND_ARRAY_BEGIN(reply, "storageEngines", &storage_engines);
  BSON_APPEND_UTF8(&storage_engines, "0", "rocksdb");
  bson_append_array_end(reply, &storage_engines);
  bson_t cairn;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "cairn", &cairn);
  BSON_APPEND_UTF8(&cairn, "version", CAIRN_VERSION);
  bson_append_document_end(reply, &cairn);
  return Status::OK();
}

}  // namespace cairn::server
