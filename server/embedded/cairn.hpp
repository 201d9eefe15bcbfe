// libcairn's thin C++ wrapper over cairn.h, header-only: RAII for the database handle and for
// replies, std::string for text. No exceptions, as in the rest of Cairn: a failed open leaves
// the Database empty (false) with the reason in `error`; a command's failure is its reply
// document ({ok: 0, ...}). Reply bytes are BSON: read them with any BSON library (libbson's
// bson_init_static, for one).
#ifndef CAIRN_EMBEDDED_CAIRN_HPP_
#define CAIRN_EMBEDDED_CAIRN_HPP_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "cairn.h"

namespace cairn {

// A reply document, owned (cairn_free'd when it goes).
class Reply {
 public:
  Reply() = default;
  Reply(uint8_t* data, size_t size) : data_(data), size_(size) {}
  Reply(Reply&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  Reply& operator=(Reply&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }
  Reply(const Reply&) = delete;
  Reply& operator=(const Reply&) = delete;
  ~Reply() { cairn_free(data_); }

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // No reply: the call was misused (a closed database).
  bool empty() const { return data_ == nullptr; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// An open embedded database; closed when it goes.
class Database {
 public:
  Database() = default;
  // `path`: a data directory or ":memory:"; `options_json`: as cairn_open's (empty: none).
  static Database Open(const std::string& path, const std::string& options_json = "",
                       std::string* error = nullptr) {
    Database db;
    char* message = nullptr;
    if (cairn_open(path.c_str(), options_json.empty() ? nullptr : options_json.c_str(), &db.db_,
                   &message) != CAIRN_OK &&
        error) {
      *error = message ? message : "cairn_open failed";
    }
    cairn_free(message);
    return db;
  }
  Database(Database&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}
  Database& operator=(Database&& other) noexcept {
    std::swap(db_, other.db_);
    return *this;
  }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database() { cairn_close(db_); }

  explicit operator bool() const { return db_ != nullptr; }
  cairn_db* get() const { return db_; }

  // Runs one command document against `dbname` (empty: the document's own $db).
  Reply Command(const std::string& dbname, const uint8_t* bson, size_t len) const {
    uint8_t* reply = nullptr;
    size_t reply_len = 0;
    if (cairn_command(db_, dbname.empty() ? nullptr : dbname.c_str(), bson, len, &reply,
                      &reply_len) != CAIRN_OK) {
      return Reply();
    }
    return Reply(reply, reply_len);
  }

  // Serves the wire protocol on `host` and `port` (0: ephemeral) or a unix socket path; returns
  // the mongodb:// URI for a driver, or "" with the reason in `error`.
  std::string Serve(const std::string& host = "127.0.0.1", int port = 0,
                    std::string* error = nullptr) const {
    char* uri = nullptr;
    char* message = nullptr;
    std::string out;
    if (cairn_serve(db_, host.c_str(), port, &uri, &message) == CAIRN_OK) {
      out = uri;
    } else if (error) {
      *error = message ? message : "cairn_serve failed";
    }
    cairn_free(uri);
    cairn_free(message);
    return out;
  }

 private:
  cairn_db* db_ = nullptr;
};

}  // namespace cairn

#endif  // CAIRN_EMBEDDED_CAIRN_HPP_
