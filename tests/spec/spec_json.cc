// The spec files' JSON reader: plain JSON parsed here, each Extended JSON value form handed to
// libbson's reader on its own.
#include "tests/spec/spec_json.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <vector>

namespace cairn::spec {

namespace {

// Extended JSON's value forms, by their first field: the number of fields each has.
int WrapperFields(std::string_view first_key) {
  static const std::set<std::string_view> kSingle = {
      "$oid",           "$symbol", "$numberInt", "$numberLong", "$numberDouble",
      "$numberDecimal", "$binary", "$code",      "$timestamp",  "$regularExpression",
      "$dbPointer",     "$date",   "$minKey",    "$maxKey",     "$undefined"};
  if (first_key == "$code") return -1;  // {"$code": ...} or {"$code": ..., "$scope": {...}}
  return kSingle.count(first_key) ? 1 : 0;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  bool Parse(BsonDoc* out, std::string* error) {
    SkipSpace();
    if (Peek() != '{') return Fail("a spec file is one JSON object", error);
    std::vector<std::string> keys;
    if (!ParseMembers(out->get(), &keys)) return Fail(message_, error);
    SkipSpace();
    if (pos_ != text_.size()) return Fail("text after the object", error);
    return true;
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Error(const std::string& message) {
    if (message_.empty()) {
      message_ = message;
      error_pos_ = pos_;
    }
    return false;
  }

  bool Fail(const std::string& message, std::string* error) {
    if (message_.empty()) {
      message_ = message;
      error_pos_ = pos_;
    }
    size_t line = 1, column = 1;
    for (size_t i = 0; i < error_pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    *error =
        "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + message_;
    return false;
  }

  static void AppendUtf8Char(std::string* out, uint32_t c) {
    if (c < 0x80) {
      out->push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (c >> 6)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (c >> 12)));
      out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (c >> 18)));
      out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }

  bool Hex4(uint32_t* out) {
    if (pos_ + 4 > text_.size()) return Error("a truncated \\u escape");
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      value <<= 4;
      if (c >= '0' && c <= '9') {
        value |= c - '0';
      } else if (c >= 'a' && c <= 'f') {
        value |= c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        value |= c - 'A' + 10;
      } else {
        return Error("a bad \\u escape");
      }
    }
    *out = value;
    return true;
  }

  bool ParseString(std::string* out) {
    if (Peek() != '"') return Error("expected a string");
    ++pos_;
    while (true) {
      if (pos_ >= text_.size()) return Error("an unterminated string");
      char c = text_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return Error("a control character in a string");
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return Error("an unterminated string");
      char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t c1 = 0;
          if (!Hex4(&c1)) return false;
          if (c1 >= 0xD800 && c1 < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            uint32_t c2 = 0;
            if (!Hex4(&c2)) return false;
            if (c2 < 0xDC00 || c2 >= 0xE000) return Error("an unpaired surrogate");
            c1 = 0x10000 + ((c1 - 0xD800) << 10) + (c2 - 0xDC00);
          }
          AppendUtf8Char(out, c1);
          break;
        }
        default:
          return Error("a bad escape in a string");
      }
    }
  }

  bool ParseNumber(bson_t* parent, const std::string& key) {
    size_t start = pos_;
    bool is_double = false;
    if (Peek() == '-') ++pos_;
    if (!(Peek() >= '0' && Peek() <= '9')) return Error("a bad number");
    if (Peek() == '0') {
      ++pos_;
    } else {
      while (Peek() >= '0' && Peek() <= '9') ++pos_;
    }
    if (Peek() == '.') {
      is_double = true;
      ++pos_;
      if (!(Peek() >= '0' && Peek() <= '9')) return Error("a bad number");
      while (Peek() >= '0' && Peek() <= '9') ++pos_;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      is_double = true;
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      if (!(Peek() >= '0' && Peek() <= '9')) return Error("a bad number");
      while (Peek() >= '0' && Peek() <= '9') ++pos_;
    }
    std::string token(text_.substr(start, pos_ - start));
    const int key_length = static_cast<int>(key.size());
    if (is_double) {
      return bson_append_double(parent, key.data(), key_length,
                                std::strtod(token.c_str(), nullptr));
    }
    errno = 0;
    long long value = std::strtoll(token.c_str(), nullptr, 10);
    if (errno == ERANGE) return Error("an integer beyond int64");
    if (value >= INT32_MIN && value <= INT32_MAX) {
      return bson_append_int32(parent, key.data(), key_length, static_cast<int32_t>(value));
    }
    return bson_append_int64(parent, key.data(), key_length, value);
  }

  // Members of the object at pos_ ('{'), appended to `doc`; their names in `keys`.
  bool ParseMembers(bson_t* doc, std::vector<std::string>* keys) {
    ++pos_;  // '{'
    SkipSpace();
    if (Peek() == '}') {
      ++pos_;
      return true;
    }
    std::set<std::string> seen;
    while (true) {
      SkipSpace();
      std::string key;
      if (!ParseString(&key)) return false;
      if (!seen.insert(key).second) return Error("the field \"" + key + "\" twice");
      SkipSpace();
      if (Peek() != ':') return Error("expected ':'");
      ++pos_;
      SkipSpace();
      if (!ParseValue(doc, key)) return false;
      keys->push_back(key);
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == '}') {
        ++pos_;
        return true;
      }
      return Error("expected ',' or '}'");
    }
  }

  bool ParseValue(bson_t* parent, const std::string& key) {
    const int key_length = static_cast<int>(key.size());
    char c = Peek();
    if (c == '{') {
      size_t start = pos_;
      BsonDoc child;
      std::vector<std::string> keys;
      if (!ParseMembers(child.get(), &keys)) return false;
      int fields = keys.empty() ? 0 : WrapperFields(keys[0]);
      bool wrapper =
          (fields == 1 && keys.size() == 1) ||
          (fields == -1 && (keys.size() == 1 || (keys.size() == 2 && keys[1] == "$scope")));
      if (!wrapper) return bson_append_document(parent, key.data(), key_length, child.get());
      // An Extended JSON value: libbson reads the text of this one value.
      std::string json = "{\"v\": " + std::string(text_.substr(start, pos_ - start)) + "}";
      bson_error_t error;
      bson_t* value = bson_new_from_json(reinterpret_cast<const uint8_t*>(json.data()),
                                         static_cast<ssize_t>(json.size()), &error);
      if (value == nullptr) {
        pos_ = start;
        return Error(std::string("a bad Extended JSON value: ") + error.message);
      }
      bson_iter_t it;
      bool ok = bson_iter_init_find(&it, value, "v") && AppendIter(parent, key, &it);
      bson_destroy(value);
      return ok;
    }
    if (c == '[') {
      ++pos_;
      bson_t array;
      bson_append_array_begin(parent, key.data(), key_length, &array);
      SkipSpace();
      if (Peek() == ']') {
        ++pos_;
        return bson_append_array_end(parent, &array);
      }
      for (uint32_t index = 0;; ++index) {
        SkipSpace();
        if (!ParseValue(&array, std::to_string(index))) return false;
        SkipSpace();
        if (Peek() == ',') {
          ++pos_;
          continue;
        }
        if (Peek() == ']') {
          ++pos_;
          return bson_append_array_end(parent, &array);
        }
        return Error("expected ',' or ']'");
      }
    }
    if (c == '"') {
      std::string value;
      if (!ParseString(&value)) return false;
      return bson_append_utf8(parent, key.data(), key_length, value.data(),
                              static_cast<int>(value.size()));
    }
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(parent, key);
    if (text_.substr(pos_, 4) == "true") {
      pos_ += 4;
      return bson_append_bool(parent, key.data(), key_length, true);
    }
    if (text_.substr(pos_, 5) == "false") {
      pos_ += 5;
      return bson_append_bool(parent, key.data(), key_length, false);
    }
    if (text_.substr(pos_, 4) == "null") {
      pos_ += 4;
      return bson_append_null(parent, key.data(), key_length);
    }
    return Error("expected a value");
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string message_;
  size_t error_pos_ = 0;
};

}  // namespace

bool ParseSpecJson(std::string_view text, BsonDoc* out, std::string* error) {
  *out = BsonDoc();
  return Parser(text).Parse(out, error);
}

}  // namespace cairn::spec
