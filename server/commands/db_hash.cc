// dbHash: {dbHash: 1, collections: [<name>...]}: an md5 per collection of its documents' BSON in
// _id index order, and the database's md5 over those hex digests in collection-name order, in
// mongod's reply (host, collections, capped, uuids, md5, timeMillis), so servers holding the same
// documents answer the same hashes (mongod's test suites compare members with it). The
// collections mongod does not replicate are left out as it leaves them out: everything in
// `local`, system.profile, and map-reduce's tmp.mr.* collections. MD5 is OpenSSL's.
#include <openssl/evp.h>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "server/admin/current_op.h"
#include "server/capped/capped_options.h"
#include "server/catalog/collection_indexes.h"
#include "server/command.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

// An md5 digest in progress, printed as mongod's digestToString does (lowercase hex).
class Md5 {
 public:
  Md5() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    EVP_DigestInit_ex(ctx_.get(), EVP_md5(), nullptr);
  }
  void Add(const void* data, size_t size) { EVP_DigestUpdate(ctx_.get(), data, size); }
  std::string Hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    EVP_DigestFinal_ex(ctx_.get(), digest, &size);
    static const char* kHex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < size; ++i) {
      out += kHex[digest[i] >> 4];
      out += kHex[digest[i] & 15];
    }
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_;
};

// mongod's isOplogDisabledForNS and its tmp.mr. rule: what dbHash leaves out.
bool Skipped(std::string_view db, std::string_view collection) {
  return db == "local" || collection == "system.profile" || collection.starts_with("tmp.mr.");
}

// The collection's documents in _id order, under its write lock so no writer changes it midway
// (mongod holds the database in MODE_S for the whole command).
Result<std::string> HashCollection(ServerState& state, const std::string& ns,
                                   storage::CollectionHandle handle, bool* gone,
                                   const InterruptSlot* interrupt) {
  storage::Engine& engine = state.engine();
  MutexLock lock(&state.writes().CollectionLock(handle->prefix));
  handle = engine.catalog().Find(ns);
  if (!handle) {
    *gone = true;
    return std::string();
  }
  Md5 md5;
  const storage::IndexEntry& id_index = handle->indexes.front();
  auto cursor = engine.ScanIndex(id_index.prefix, {}, {});
  std::string document;
  while (cursor->Next()) {
    CAIRN_RETURN_IF_ERROR(CheckInterrupt(interrupt));
    const storage::RecordId id = IndexEntryRecordId(true, cursor->key(), cursor->value());
    bool found = false;
    CAIRN_RETURN_IF_ERROR(engine.GetRecord(handle->prefix, id, &document, &found));
    if (found) md5.Add(document.data(), document.size());
  }
  CAIRN_RETURN_IF_ERROR(cursor->status());
  return md5.Hex();
}

// mongod's prettyHostName: the host name, with ":<port>" unless the port is the default one.
std::string PrettyHostName(const ServerState& state) {
  std::string host = ServerHostAndPort(state);
  if (state.options().port == 27017) host.resize(host.rfind(':'));
  return host;
}

bool IsCapped(const storage::CollectionEntry& entry) {
  bson_iter_t it;
  return entry.options.view().Find("capped", &it) && bson_iter_as_bool(&it);
}

}  // namespace

CommandOutcome HandleDbHash(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  const auto start = std::chrono::steady_clock::now();
  std::set<std::string, std::less<>> wanted;
  bson_iter_t it;
  if (request.body.Find("collections", &it) && BSON_ITER_HOLDS_ARRAY(&it)) {
    bson_iter_t entry;
    bson_iter_recurse(&it, &entry);
    while (bson_iter_next(&entry)) {
      if (!BSON_ITER_HOLDS_UTF8(&entry)) {
        return Status(ErrorCode::kBadValue, "collections entries have to be strings");
      }
      wanted.emplace(IterUtf8(&entry));
    }
  }
  // parseNs: a string names a collection, and "<db>.<name>" is no database name.
  if (request.body.Init(&it) && bson_iter_next(&it) && BSON_ITER_HOLDS_UTF8(&it)) {
    return Status(ErrorCode::kInvalidNamespace,
                  "Invalid db name: " + std::string(request.db) + "." + std::string(IterUtf8(&it)));
  }

  std::map<std::string, std::string> hashes;  // collection name → md5, in name order
  std::map<std::string, storage::CollectionHandle> collections;
  for (storage::CollectionHandle& handle :
       ctx.state.engine().catalog().ListCollections(request.db)) {
    std::string name(handle->collection());
    if (Skipped(request.db, name)) continue;
    if (!wanted.empty() && !wanted.contains(name)) continue;
    collections.emplace(std::move(name), std::move(handle));
  }
  std::set<std::string> capped;
  for (auto& [name, handle] : collections) {
    bool gone = false;
    const bool is_capped = IsCapped(*handle);
    CAIRN_ASSIGN_OR_RETURN(std::string hash, HashCollection(ctx.state, handle->ns, handle, &gone,
                                                            ctx.interrupt.get()));
    if (gone) continue;  // dropped meanwhile
    if (is_capped) capped.insert(name);
    hashes.emplace(name, std::move(hash));
  }

  AppendUtf8(reply, "host", PrettyHostName(ctx.state));
  Md5 database;
  bson_t doc;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "collections", &doc);
  for (const auto& [name, hash] : hashes) {
    AppendUtf8(&doc, name, hash);
    database.Add(hash.data(), hash.size());
  }
  bson_append_document_end(reply, &doc);
  bson_t array;
  BSON_APPEND_ARRAY_BEGIN(reply, "capped", &array);
  int index = 0;
  for (const std::string& name : capped) AppendUtf8(&array, std::to_string(index++), name);
  bson_append_array_end(reply, &array);
  BSON_APPEND_DOCUMENT_BEGIN(reply, "uuids", &doc);
  for (const auto& [name, hash] : hashes) {
    const storage::CollectionHandle& handle = collections.at(name);
    bson_append_binary(&doc, name.data(), static_cast<int>(name.size()), BSON_SUBTYPE_UUID,
                       handle->uuid, 16);
  }
  bson_append_document_end(reply, &doc);
  AppendUtf8(reply, "md5", database.Hex());
  const int64_t millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  AppendNumberAsMongoDB(reply, "timeMillis", millis);
  return Status::OK();
}

}  // namespace cairn::server
