// ValidateBson and the BSON depth limits: one iterative pass over the bytes with an explicit
// stack of nesting frames (mongod's algorithm, src/mongo/bson/bson_validate.cpp, written anew).
#include "common/bson_validate.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace cairn {

namespace {

std::atomic<int32_t> g_max_bson_depth{kDefaultMaxBsonDepth};

// How an element's value is laid out after its type byte and field name.
enum Layout : uint8_t {
  kFixed0,     // no bytes (undefined, null, minKey, maxKey)
  kFixed4,     // int32
  kFixed8,     // double, date, timestamp, int64
  kFixed12,    // ObjectId
  kFixed16,    // decimal128
  kString,     // int32 length (counting the NUL) + bytes + NUL (string, code, symbol)
  kNested,     // an embedded document or array
  kBinary,     // int32 length + subtype + bytes
  kBool,       // one byte, 0 or 1
  kRegex,      // two cstrings
  kDbPointer,  // string + 12-byte ObjectId
  kCodeWScope,
  kInvalid,
};

Layout LayoutOf(uint8_t type) {
  switch (type) {
    case 0x01:
      return kFixed8;  // double
    case 0x02:
      return kString;  // string
    case 0x03:
      return kNested;  // document
    case 0x04:
      return kNested;  // array
    case 0x05:
      return kBinary;
    case 0x06:
      return kFixed0;  // undefined
    case 0x07:
      return kFixed12;  // ObjectId
    case 0x08:
      return kBool;
    case 0x09:
      return kFixed8;  // date
    case 0x0A:
      return kFixed0;  // null
    case 0x0B:
      return kRegex;
    case 0x0C:
      return kDbPointer;
    case 0x0D:
      return kString;  // code
    case 0x0E:
      return kString;  // symbol
    case 0x0F:
      return kCodeWScope;
    case 0x10:
      return kFixed4;  // int32
    case 0x11:
      return kFixed8;  // timestamp
    case 0x12:
      return kFixed8;  // int64
    case 0x13:
      return kFixed16;  // decimal128
    case 0x7F:
      return kFixed0;  // maxKey
    case 0xFF:
      return kFixed0;  // minKey
    default:
      return kInvalid;
  }
}

int32_t LoadI32(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return static_cast<int32_t>(BSON_UINT32_FROM_LE(static_cast<uint32_t>(v)));
}

// The size of a value of `type` at `value`, in BSON already known to be valid.
size_t ValueSize(uint8_t type, const uint8_t* value) {
  switch (LayoutOf(type)) {
    case kFixed0:
      return 0;
    case kFixed4:
      return 4;
    case kFixed8:
      return 8;
    case kFixed12:
      return 12;
    case kFixed16:
      return 16;
    case kBool:
      return 1;
    case kString:
      return 4 + static_cast<size_t>(LoadI32(value));
    case kNested:
    case kCodeWScope:
      return static_cast<size_t>(LoadI32(value));
    case kBinary:
      return 5 + static_cast<size_t>(LoadI32(value));
    case kDbPointer:
      return 4 + static_cast<size_t>(LoadI32(value)) + 12;
    case kRegex: {
      const char* pattern = reinterpret_cast<const char*>(value);
      const size_t first = std::strlen(pattern) + 1;
      return first + std::strlen(pattern + first) + 1;
    }
    case kInvalid:
      break;
  }
  return 0;
}

// One nesting level being walked: where it must end, and the element that opened it (for the
// error context). A code-with-scope opens two frames, as in mongod: one for its whole value,
// one for its scope document.
struct Frame {
  const uint8_t* end;
  const uint8_t* element;  // the type byte of the element that opened it; null at the top
  bool code_w_scope;       // the outer frame of a code-with-scope value
};

// The open frames: the first 32 inline (nearly every document), deeper ones on the heap, so
// validating a common document allocates nothing.
class FrameStack {
 public:
  void push_back(const Frame& frame) {
    if (size_ < kInline) {
      inline_[size_] = frame;
    } else {
      spilled_.push_back(frame);
    }
    ++size_;
  }
  void pop_back() {
    --size_;
    if (size_ >= kInline) spilled_.pop_back();
  }
  Frame& back() { return (*this)[size_ - 1]; }
  Frame& operator[](size_t i) { return i < kInline ? inline_[i] : spilled_[i - kInline]; }
  const Frame& operator[](size_t i) const {
    return i < kInline ? inline_[i] : spilled_[i - kInline];
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  static constexpr size_t kInline = 32;
  Frame inline_[kInline];
  std::vector<Frame> spilled_;
  size_t size_ = 0;
};

// Why validation failed; the context is rendered only then.
struct Failure {
  ErrorCode code;
  const char* reason;
};

class Validator {
 public:
  Validator(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  Status Run() {
    if (size_ < 5) return Fail({ErrorCode::kInvalidBSON, "BSON data has to be at least 5 bytes"});
    const int32_t declared = LoadI32(data_);
    if (declared < 5)
      return Fail({ErrorCode::kInvalidBSON, "BSON data has to be at least 5 bytes"});
    if (static_cast<size_t>(declared) != size_) {
      return Fail({ErrorCode::kInvalidBSON, "Incorrect BSON length"});
    }
    end_ = data_ + size_;
    if (end_[-1] != 0)
      return Fail({ErrorCode::kInvalidBSON, "BSON object not terminated with EOO"});
    max_frames_ = static_cast<size_t>(MaxBsonDepth()) + 1;  // a flat document is one frame
    frames_.push_back({end_, nullptr, false});
    const uint8_t* p = data_ + 4;
    // Every cursor position below is < end_, and end_[-1] is 0: a field name scan (strlen) stops
    // at the latest on that byte.
    for (;;) {
      const uint8_t type = *p;
      if (type == 0) {  // the EOO of the innermost frame
        ++p;
        if (p != frames_.back().end)
          return Fail({ErrorCode::kInvalidBSON, "incorrect BSON length"});
        frames_.pop_back();
        if (frames_.empty()) return Status::OK();
        if (frames_.back().code_w_scope) {
          // The scope document must end exactly where the code-with-scope value does.
          if (p != frames_.back().end)
            return Fail({ErrorCode::kInvalidBSON, "incorrect BSON length"});
          frames_.pop_back();
        }
        if (p >= end_)
          return Fail({ErrorCode::kInvalidBSON, "BSON size is larger than buffer size"});
        continue;
      }
      element_ = p;
      p += 1 + std::strlen(reinterpret_cast<const char*>(p + 1)) + 1;  // type, name, NUL
      Failure failure{ErrorCode::kOK, nullptr};
      p = Value(p, type, &failure);
      if (p == nullptr) return Fail(failure);
    }
  }

 private:
  // Checks that `n` more bytes fit before the document's last byte (its EOO).
  bool Skip(const uint8_t*& p, size_t n) const {
    if (static_cast<size_t>(end_ - p) <= n) return false;
    p += n;
    return true;
  }

  // Skips a length-prefixed string (length counts its NUL, which must be there).
  bool SkipString(const uint8_t*& p) const {
    if (end_ - p <= 4) return false;
    const int32_t length = LoadI32(p);
    if (length <= 0) return false;
    p += 4;
    if (!Skip(p, static_cast<size_t>(length))) return false;
    return p[-1] == 0;
  }

  // Skips a cstring (NUL included).
  bool SkipCString(const uint8_t*& p) const {
    if (p >= end_) return false;
    return Skip(p, std::strlen(reinterpret_cast<const char*>(p)) + 1);
  }

  // Opens a nested document at `p` (its int32 length). Returns the position of its first
  // element, or null with `failure` set.
  const uint8_t* Push(const uint8_t* p, bool code_w_scope, Failure* failure) {
    if (frames_.size() >= max_frames_) {
      *failure = {ErrorCode::kOverflow, "BSONObj exceeds maximum nested object depth"};
      return nullptr;
    }
    if (end_ - p <= 4) {
      *failure = {ErrorCode::kInvalidBSON, "BSON size is larger than buffer size"};
      return nullptr;
    }
    const int32_t length = LoadI32(p);
    if (length < 5) {
      *failure = {ErrorCode::kInvalidBSON, "Nested BSON object has to be at least 5 bytes"};
      return nullptr;
    }
    if (static_cast<size_t>(length) > static_cast<size_t>(end_ - p)) {
      *failure = {ErrorCode::kInvalidBSON, "BSON size is larger than buffer size"};
      return nullptr;
    }
    frames_.push_back({p + length, element_, code_w_scope});
    return p + 4;
  }

  // Validates the value of the element whose type is `type`, starting at `p`; returns the
  // position after it (for a nested document: its first element), or null.
  const uint8_t* Value(const uint8_t* p, uint8_t type, Failure* failure) {
    static constexpr Failure kTooLong{ErrorCode::kInvalidBSON,
                                      "BSON size is larger than buffer size"};
    switch (LayoutOf(type)) {
      case kFixed0:
        if (p >= end_) break;
        return p;
      case kFixed4:
        if (!Skip(p, 4)) break;
        return p;
      case kFixed8:
        if (!Skip(p, 8)) break;
        return p;
      case kFixed12:
        if (!Skip(p, 12)) break;
        return p;
      case kFixed16:
        if (!Skip(p, 16)) break;
        return p;
      case kString:
        if (!SkipString(p)) {
          *failure = {ErrorCode::kInvalidBSON, "Not null terminated string"};
          return nullptr;
        }
        return p;
      case kNested:
        return Push(p, false, failure);
      case kBinary: {
        if (end_ - p <= 5) break;
        const int32_t length = LoadI32(p);
        if (length < 0) break;
        p += 5;  // length + subtype
        if (!Skip(p, static_cast<size_t>(length))) break;
        return p;
      }
      case kBool:
        if (!Skip(p, 1)) break;
        if (p[-1] > 1) {
          *failure = {ErrorCode::kInvalidBSON, "BSON bool is neither false nor true"};
          return nullptr;
        }
        return p;
      case kRegex:
        if (!SkipCString(p) || !SkipCString(p)) break;
        return p;
      case kDbPointer:
        if (!SkipString(p) || !Skip(p, 12)) break;
        return p;
      case kCodeWScope: {
        // int32 total length | string code | document scope, the total covering all three.
        const uint8_t* value = p;
        if (Push(p, true, failure) == nullptr) return nullptr;
        p += 4;
        if (!SkipString(p)) {
          *failure = {ErrorCode::kInvalidBSON, "Not null terminated string"};
          return nullptr;
        }
        const uint8_t* scope = Push(p, false, failure);
        if (scope == nullptr) return nullptr;
        // The scope must lie within the value.
        if (frames_.back().end > frames_[frames_.size() - 2].end || value >= scope) {
          *failure = {ErrorCode::kInvalidBSON, "incorrect BSON length"};
          return nullptr;
        }
        return scope;
      }
      case kInvalid:
        unrecognized_type_ = type;
        *failure = {ErrorCode::kInvalidBSON, nullptr};
        return nullptr;
    }
    *failure = kTooLong;
    return nullptr;
  }

  Status Fail(const Failure& failure) const {
    std::string message = failure.reason != nullptr
                              ? std::string(failure.reason)
                              : "Unrecognized BSON type " + std::to_string(unrecognized_type_);
    message += " " + Context();
    return Status(failure.code, std::move(message));
  }

  // mongod's context: "in element with field name 'a.b.c' in object with _id: 1" (the names
  // of the open frames' elements, then the element being read; the top-level _id if it was
  // read before the failure).
  std::string Context() const {
    std::string out = "in element with field name '";
    for (size_t i = 1; i < frames_.size(); ++i) {
      if (frames_[i].element == nullptr || frames_[i].code_w_scope) continue;
      out += reinterpret_cast<const char*>(frames_[i].element + 1);
      out += '.';
    }
    out += element_ != nullptr ? reinterpret_cast<const char*>(element_ + 1) : "?";
    out += "' in object with ";
    out += IdDescription();
    return out;
  }

  // "_id: <value>" when the top level's _id element lies wholly before the failure point,
  // else "unknown _id". Only called on failure, over bytes already checked up to there.
  std::string IdDescription() const {
    if (end_ == nullptr) return "unknown _id";
    // The top-level elements before the failing one were validated whole by this walk.
    const uint8_t* stop = frames_.size() > 1 ? frames_[1].element : element_;
    if (stop == nullptr) return "unknown _id";
    const uint8_t* p = data_ + 4;
    while (p < stop && *p != 0) {
      const char* name = reinterpret_cast<const char*>(p + 1);
      const uint8_t* value = p + 1 + std::strlen(name) + 1;
      const uint8_t* next = value + ValueSize(*p, value);
      if (next > stop) break;
      if (std::strcmp(name, "_id") == 0) {
        // Render it from a one-element copy: {_id: <value>}.
        std::string copy(4, '\0');
        copy.append(reinterpret_cast<const char*>(p), static_cast<size_t>(next - p));
        copy.push_back('\0');
        const uint32_t length = BSON_UINT32_TO_LE(static_cast<uint32_t>(copy.size()));
        std::memcpy(copy.data(), &length, 4);
        bson_iter_t it;
        if (!bson_iter_init_from_data(&it, reinterpret_cast<const uint8_t*>(copy.data()),
                                      copy.size()) ||
            !bson_iter_next(&it)) {
          break;
        }
        return "_id: " + ValueToShellString(&it);
      }
      p = next;
    }
    return "unknown _id";
  }

  const uint8_t* data_;
  size_t size_;
  const uint8_t* end_ = nullptr;
  size_t max_frames_ = 0;
  FrameStack frames_;
  const uint8_t* element_ = nullptr;  // the type byte of the element being read
  uint8_t unrecognized_type_ = 0;
};

}  // namespace

int32_t MaxBsonDepth() { return g_max_bson_depth.load(std::memory_order_relaxed); }

int32_t MaxStorageDepth() { return MaxBsonDepth() - kExtraSystemDepthLevels; }

Status SetMaxBsonDepth(int32_t depth) {
  if (depth < kMinBsonDepth || depth > kMaxBsonDepthCeiling) {
    return Status(ErrorCode::kBadValue, "maxBSONDepth must be between " +
                                            std::to_string(kMinBsonDepth) + " and " +
                                            std::to_string(kMaxBsonDepthCeiling) +
                                            ", but attempted to set to: " + std::to_string(depth));
  }
  g_max_bson_depth.store(depth, std::memory_order_relaxed);
  return Status::OK();
}

Status ValidateBson(const uint8_t* data, size_t size) { return Validator(data, size).Run(); }

Status ObjectTooLarge(size_t size, const uint8_t* data, size_t available) {
  char hex[24];
  std::snprintf(hex, sizeof hex, "%zX", size);
  std::string message = "BSONObj size: " + std::to_string(size) + " (0x" + hex +
                        ") is invalid. Size must be between 0 and " +
                        std::to_string(kMaxInternalBsonObjectSize) + "(16MB)";
  // The first element, copied into a document of its own and validated there: {<element>}.
  constexpr size_t kLongestShown = 4096;
  const size_t window = std::min(available, kLongestShown);
  if (data != nullptr && window > 5 && data[4] != 0) {
    const uint8_t* element = data + 4;
    const uint8_t* limit = data + window;
    const void* nul = std::memchr(element + 1, 0, static_cast<size_t>(limit - element - 1));
    if (nul != nullptr) {
      const uint8_t* value = static_cast<const uint8_t*>(nul) + 1;
      size_t value_size = 0;
      const Layout layout = LayoutOf(*element);
      const bool sized = layout == kString || layout == kNested || layout == kBinary ||
                         layout == kDbPointer || layout == kCodeWScope;
      bool fits = layout != kInvalid && layout != kRegex && value < limit;
      if (fits && sized) fits = limit - value >= 4 && LoadI32(value) >= 0;
      if (fits) value_size = ValueSize(*element, value);
      if (fits && value_size <= static_cast<size_t>(limit - value)) {
        const size_t element_size = static_cast<size_t>(value - element) + value_size;
        std::string copy(4, '\0');
        copy.append(reinterpret_cast<const char*>(element), element_size);
        copy.push_back('\0');
        const uint32_t length = BSON_UINT32_TO_LE(static_cast<uint32_t>(copy.size()));
        std::memcpy(copy.data(), &length, 4);
        const auto* bytes = reinterpret_cast<const uint8_t*>(copy.data());
        bson_iter_t it;
        if (ValidateBson(bytes, copy.size()).ok() &&
            bson_iter_init_from_data(&it, bytes, copy.size()) && bson_iter_next(&it)) {
          message +=
              " First element: " + std::string(IterKey(&it)) + ": " + ValueToShellString(&it);
        }
      }
    }
  }
  return Status(ErrorCode::kBSONObjectTooLarge, std::move(message));
}

int NestingDepth(BsonView document, int stop_above, EmptyLevels empty) {
  // Iterative walk over valid BSON (ValidateBson's or libbson's output): one end pointer per
  // open level, the first 32 in place.
  const uint8_t* inline_ends[32];
  std::vector<const uint8_t*> more_ends;
  size_t open = 0;
  auto push = [&](const uint8_t* end) {
    if (open < 32) {
      inline_ends[open] = end;
    } else {
      more_ends.push_back(end);
    }
    ++open;
  };
  auto pop = [&] {
    --open;
    if (open >= 32) more_ends.pop_back();
  };
  const uint8_t* p = document.data() + 4;
  push(document.data() + document.size());
  int deepest = 1;
  while (open > 0) {
    const uint8_t type = *p;
    if (type == 0) {
      ++p;
      pop();
      continue;
    }
    const uint8_t* value = p + 1 + std::strlen(reinterpret_cast<const char*>(p + 1)) + 1;
    if (type == 0x03 || type == 0x04) {
      const int32_t length = LoadI32(value);
      if (length > 5 || empty == EmptyLevels::kCounted) {
        if (static_cast<int>(open) + 1 > deepest) deepest = static_cast<int>(open) + 1;
        if (deepest > stop_above) return deepest;
        push(value + length);
        p = value + 4;
        continue;
      }
    }
    p = value + ValueSize(type, value);
  }
  return deepest;
}

Status CheckStorageDepth(BsonView document, StorageDepthCheck kind) {
  const int limit = MaxStorageDepth();
  // Each level of a non-empty nesting costs at least 7 bytes (type, name NUL, length, EOO) plus
  // an element inside: a document this small cannot be too deep, and most documents are.
  if (document.size() < 7 * static_cast<size_t>(limit + 1) + 5) return Status::OK();
  if (NestingDepth(document, limit, EmptyLevels::kNotCounted) <= limit) return Status::OK();
  const std::string depth = std::to_string(limit);
  return Status(ErrorCode::kOverflow,
                kind == StorageDepthCheck::kInsert
                    ? "cannot insert document because it exceeds " + depth + " levels of nesting"
                    : "Document exceeds maximum nesting depth of " + depth);
}

}  // namespace cairn
