// Test helpers for wire/: hex fixtures, libbson-built documents, and a builder for raw (often
// deliberately malformed) message bytes. Documents always come from libbson; only the framing
// around them is written by hand here.
#pragma once

#include <bson/bson.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "common/bson_doc.h"
#include "common/bson_validate.h"
#include "wire/message.h"

namespace cairn::wire::testing {

inline std::string FromHex(std::string_view hex) {
  std::string out;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  int high = -1;
  for (char c : hex) {
    const int v = nibble(c);
    if (v < 0) continue;  // whitespace, newline
    if (high < 0) {
      high = v;
    } else {
      out.push_back(static_cast<char>(high << 4 | v));
      high = -1;
    }
  }
  EXPECT_EQ(high, -1) << "odd number of hex digits";
  return out;
}

inline std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(WIRE_TESTDATA_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << "missing fixture " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return FromHex(ss.str());
}

inline const uint8_t* Bytes(const std::string& s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

// Appends little-endian integers and raw bytes, then patches the header's messageLength.
class RawMessage {
 public:
  RawMessage(int32_t op_code, int32_t request_id = 7, int32_t response_to = 0) {
    I32(0);
    I32(request_id);
    I32(response_to);
    I32(op_code);
  }
  RawMessage& U8(uint8_t v) {
    bytes_.push_back(static_cast<char>(v));
    return *this;
  }
  RawMessage& I32(int32_t v) {
    for (int i = 0; i < 4; ++i)
      bytes_.push_back(static_cast<char>(static_cast<uint32_t>(v) >> (8 * i)));
    return *this;
  }
  RawMessage& U32(uint32_t v) { return I32(static_cast<int32_t>(v)); }
  RawMessage& CString(std::string_view s) {
    bytes_.append(s);
    bytes_.push_back('\0');
    return *this;
  }
  RawMessage& Doc(BsonView doc) {
    bytes_.append(reinterpret_cast<const char*>(doc.data()), doc.size());
    return *this;
  }
  RawMessage& Raw(std::string_view s) {
    bytes_.append(s);
    return *this;
  }
  size_t size() const { return bytes_.size(); }
  // The bytes with messageLength set to their size (or `length` when given).
  std::string Finish(std::optional<int64_t> length = std::nullopt) const {
    std::string out = bytes_;
    const uint32_t len = static_cast<uint32_t>(length.value_or(static_cast<int64_t>(out.size())));
    for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(len >> (8 * i));
    return out;
  }

 private:
  std::string bytes_;
};

// A kind-1 section: kind byte, int32 size, identifier, documents.
inline std::string Sequence(std::string_view identifier, std::initializer_list<BsonView> docs,
                            int32_t size_delta = 0) {
  std::string body(identifier);
  body.push_back('\0');
  for (const BsonView& d : docs) body.append(reinterpret_cast<const char*>(d.data()), d.size());
  RawMessage tmp(0);  // reuse the integer writer; strip its header below
  tmp.U8(1).I32(static_cast<int32_t>(body.size() + 4) + size_delta).Raw(body);
  return tmp.Finish().substr(kHeaderSize);
}

// Sets messageLength in `frame` to `length`.
inline void PatchLength(std::string& frame, uint32_t length) {
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>(length >> (8 * i));
}

// The first key of a document, e.g. the command name.
inline std::string FirstKey(BsonView doc) {
  bson_iter_t it;
  if (!doc.Init(&it) || !bson_iter_next(&it)) return "";
  return bson_iter_key(&it);
}

inline std::string Utf8Field(BsonView doc, std::string_view key) {
  bson_iter_t it;
  if (!doc.Find(key, &it) || !BSON_ITER_HOLDS_UTF8(&it)) return "<missing>";
  return std::string(IterUtf8(&it));
}

}  // namespace cairn::wire::testing
