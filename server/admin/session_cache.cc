// SessionCache (session_cache.h).
#include "server/admin/session_cache.h"

#include <cstring>

#include "common/mutex.h"

namespace cairn::server {

namespace {

constexpr auto kSessionTimeout = std::chrono::minutes(30);

// SHA-256 of the empty string: the uid of every session without authentication, as MongoDB
// computes it from the (absent) user name.
constexpr uint8_t kUnauthenticatedUid[32] = {
    0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
    0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55};

}  // namespace

std::optional<SessionId> ParseSessionId(const bson_iter_t* lsid) {
  if (!BSON_ITER_HOLDS_DOCUMENT(lsid)) return std::nullopt;
  // Every command of a session carries it, as drivers send it: {id: UUID} and nothing else.
  // Read that layout in place (a search through the document cost ~350 instructions a command).
  static constexpr uint8_t kIdUuidPrefix[] = {0x05, 'i', 'd', 0, 16, 0, 0, 0, BSON_SUBTYPE_UUID};
  uint32_t doc_length = 0;
  const uint8_t* doc = nullptr;
  bson_iter_document(lsid, &doc_length, &doc);
  if (doc_length == 4 + sizeof kIdUuidPrefix + 16 + 1 &&
      std::memcmp(doc + 4, kIdUuidPrefix, sizeof kIdUuidPrefix) == 0) {
    SessionId out;
    std::memcpy(out.data(), doc + 4 + sizeof kIdUuidPrefix, 16);
    return out;
  }
  bson_iter_t id;
  if (!IterDocument(lsid).Find("id", &id) || !BSON_ITER_HOLDS_BINARY(&id)) return std::nullopt;
  bson_subtype_t subtype;
  uint32_t length = 0;
  const uint8_t* data = nullptr;
  bson_iter_binary(&id, &subtype, &length, &data);
  if (subtype != BSON_SUBTYPE_UUID || length != 16) return std::nullopt;
  SessionId out;
  std::memcpy(out.data(), data, 16);
  return out;
}

size_t SessionCache::Hash::operator()(const SessionId& id) const {
  uint64_t a, b;
  std::memcpy(&a, id.data(), 8);
  std::memcpy(&b, id.data() + 8, 8);
  return static_cast<size_t>(a ^ (b * 0x9E3779B97F4A7C15ull));
}

void SessionCache::Touch(const SessionId& id) {
  auto now = std::chrono::system_clock::now();
  MutexLock lock(&mu_);
  sessions_[id] = now;
  if (++touches_since_prune_ >= 4096) DropExpiredLocked(now);
}

void SessionCache::End(const SessionId& id) {
  MutexLock lock(&mu_);
  sessions_.erase(id);
}

void SessionCache::DropExpiredLocked(std::chrono::system_clock::time_point now) {
  touches_since_prune_ = 0;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    it = now - it->second > kSessionTimeout ? sessions_.erase(it) : std::next(it);
  }
}

std::vector<BsonDoc> SessionCache::List() {
  MutexLock lock(&mu_);
  DropExpiredLocked(std::chrono::system_clock::now());
  std::vector<BsonDoc> out;
  out.reserve(sessions_.size());
  for (const auto& [id, last_use] : sessions_) {
    BsonDoc doc;
    bson_t key;
    BSON_APPEND_DOCUMENT_BEGIN(doc.get(), "_id", &key);
    bson_append_binary(&key, "id", 2, BSON_SUBTYPE_UUID, id.data(), 16);
    bson_append_binary(&key, "uid", 3, BSON_SUBTYPE_BINARY, kUnauthenticatedUid, 32);
    bson_append_document_end(doc.get(), &key);
    BSON_APPEND_DATE_TIME(
        doc.get(), "lastUse",
        std::chrono::duration_cast<std::chrono::milliseconds>(last_use.time_since_epoch()).count());
    out.push_back(std::move(doc));
  }
  return out;
}

}  // namespace cairn::server
