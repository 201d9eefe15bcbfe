// String operators: $concat $substr/$substrBytes $substrCP $toLower $toUpper $split $trim
// $ltrim $rtrim $strLenBytes $strLenCP $indexOfBytes $indexOfCP $strcasecmp $replaceOne
// $replaceAll, with MongoDB's null handling, byte versus code-point (UTF-8) indexing and error
// codes; plus Value::coerceToString, which several of them (and $convert) share. Case mapping is
// ASCII-only, as MongoDB's (boost::to_lower/to_upper in the C locale).
//
// Large strings: a result built piece by piece ($concat, $replaceOne, $replaceAll) is sized
// before anything is allocated and refused past 64 MiB with MongoDB's StringBuilder error
// (13548, value.h); every substring search is glibc's memmem (two-way: linear in the haystack
// whatever the needle), so no operator is quadratic in its input, and $trim with a long `chars`
// list looks code points up in a hash set.
#include <string.h>  // memmem

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <limits>
#include <unordered_map>

#include "query/expression/operator.h"

namespace cairn::query::ops {

size_t CodePointLength(char lead) {
  unsigned char c = static_cast<unsigned char>(lead);
  if ((c & 0x80) == 0) return 1;
  if ((c & 0xE0) == 0xC0) return 2;
  if ((c & 0xF0) == 0xE0) return 3;
  if ((c & 0xF8) == 0xF0) return 4;
  return 5;  // not a valid leading byte: callers reject more than 4
}

size_t CodePointCount(std::string_view s) {
  size_t n = 0;
  for (char c : s) {
    if (!IsContinuationByte(c)) ++n;
  }
  return n;
}

namespace {

std::string TypeOf(const Value& v) { return TypeNameOf(v); }

// The first occurrence of `needle` in `haystack` at or after `from`, or npos. Linear time.
size_t FindBytes(std::string_view haystack, std::string_view needle, size_t from = 0) {
  if (from > haystack.size()) return std::string_view::npos;
  if (needle.empty()) return from;
  const void* found =
      memmem(haystack.data() + from, haystack.size() - from, needle.data(), needle.size());
  if (found == nullptr) return std::string_view::npos;
  return static_cast<size_t>(static_cast<const char*>(found) - haystack.data());
}

// The length of a string MongoDB builds piece by piece in a StringBuilder, checked as its
// BufBuilder grows: 13548 at the first piece that takes it past 64 MiB.
class BuiltLength {
 public:
  Status Add(size_t piece) {
    length_ += piece;
    return CheckBuiltSize(length_);
  }
  size_t length() const { return length_; }

 private:
  size_t length_ = 0;
};

// The operand as a string for $indexOfBytes/$indexOfCP/$split-style checks.
Result<std::string_view> RequireString(const Value& v, ErrorCode code, std::string message) {
  if (!v.is_string()) return Status(code, std::move(message) + TypeOf(v));
  return v.string();
}

// The default characters $trim removes (ExpressionTrim's whitespace list, UTF-8 encoded).
const std::vector<std::string_view>& DefaultTrimCharacters() {
  static const std::vector<std::string_view> kChars = {std::string_view("\0", 1),
                                                       " ",
                                                       "\t",
                                                       "\n",
                                                       "\v",
                                                       "\f",
                                                       "\r",
                                                       "\xC2\xA0",
                                                       "\xE1\x9A\x80",
                                                       "\xE2\x80\x80",
                                                       "\xE2\x80\x81",
                                                       "\xE2\x80\x82",
                                                       "\xE2\x80\x83",
                                                       "\xE2\x80\x84",
                                                       "\xE2\x80\x85",
                                                       "\xE2\x80\x86",
                                                       "\xE2\x80\x87",
                                                       "\xE2\x80\x88",
                                                       "\xE2\x80\x89",
                                                       "\xE2\x80\x8A"};
  return kChars;
}

Result<Value> EvalTrim(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value input, op.Eval(0, vars));
  if (input.nullish()) return Value::Null();
  std::string name(op.name());
  if (!input.is_string()) {
    return Status(ErrorCode::kLocation50699, name + " requires its input to be a string, got " +
                                                 ValueToString(input) + " (of type " +
                                                 TypeOf(input) + ") instead.");
  }
  std::vector<std::string_view> user_chars;
  const std::vector<std::string_view>* chars = &DefaultTrimCharacters();
  Value chars_value;
  if (op.has(1)) {
    CAIRN_ASSIGN_OR_RETURN(chars_value, op.Eval(1, vars));
    if (chars_value.nullish()) return Value::Null();
    if (!chars_value.is_string()) {
      return Status(ErrorCode::kLocation50700, name + " requires 'chars' to be a string, got " +
                                                   ValueToString(chars_value) + " (of type " +
                                                   TypeOf(chars_value) + ") instead.");
    }
    std::string_view text = chars_value.string();
    size_t i = 0;
    while (i < text.size()) {
      if (IsContinuationByte(text[i])) {
        return Status(ErrorCode::kLocation50698,
                      "Failed to parse \"chars\" argument to " + name +
                          ": Detected invalid UTF-8. Got continuation byte when expecting the "
                          "start of a new code point.");
      }
      size_t len = std::min<size_t>(CodePointLength(text[i]), 4);
      user_chars.push_back(text.substr(i, len));
      i += len;
    }
    if (i > text.size()) {
      return Status(ErrorCode::kLocation50697,
                    "Failed to parse \"chars\" argument to " + name +
                        ": Detected invalid UTF-8. Missing expected continuation byte at end of "
                        "string.");
    }
    chars = &user_chars;
  }
  std::string_view s = input.string();
  // The first entry of `chars` (in its order, as MongoDB scans it) equal to one of the
  // candidates (the 1- to 4-byte strings starting or ending at a position); a long list is
  // looked up in a hash map of first positions, so trimming is linear however long `chars` is.
  constexpr size_t kLinearScanMax = 32;
  std::unordered_map<std::string_view, size_t> positions;
  if (chars->size() > kLinearScanMax) {
    for (size_t i = 0; i < chars->size(); ++i) positions.emplace((*chars)[i], i);
  }
  auto first_entry = [&](auto candidate_at) -> size_t {  // the matched entry's size, or 0
    size_t best = chars->size(), best_size = 0;
    if (chars->size() <= kLinearScanMax) {
      for (size_t i = 0; i < chars->size(); ++i) {
        std::string_view cp = (*chars)[i];
        if (candidate_at(cp.size()) == cp) return cp.size();
      }
      return 0;
    }
    for (size_t length = 1; length <= 4; ++length) {
      auto found = positions.find(candidate_at(length));
      if (found != positions.end() && found->second < best) {
        best = found->second;
        best_size = length;
      }
    }
    return best_size;
  };
  constexpr std::string_view kNone("\xFF\xFF\xFF\xFF\xFF", 5);  // longer than any entry
  if (op.name() != "$rtrim") {
    size_t start = 0;
    while (start < s.size()) {
      size_t matched = first_entry([&](size_t length) {
        return start + length <= s.size() ? s.substr(start, length) : kNone;
      });
      if (matched == 0) break;
      start += matched;
    }
    s = s.substr(start);
  }
  if (op.name() != "$ltrim") {
    size_t end = s.size();
    while (end > 0) {
      size_t matched = first_entry(
          [&](size_t length) { return length <= end ? s.substr(end - length, length) : kNone; });
      if (matched == 0) break;
      end -= matched;
    }
    s = s.substr(0, end);
  }
  return Value::String(s);
}

// $replaceOne / $replaceAll over operands [input, find, replacement].
Result<Value> EvalReplace(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value input, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value find, op.Eval(1, vars));
  CAIRN_ASSIGN_OR_RETURN(Value replacement, op.Eval(2, vars));
  std::string name(op.name());
  if (!input.is_string() && !input.nullish()) {
    return Status(ErrorCode::kLocation51746,
                  name + " requires that 'input' be a string, found: " + ValueToString(input));
  }
  if (!find.is_string() && !find.nullish()) {
    return Status(ErrorCode::kLocation51745,
                  name + " requires that 'find' be a string, found: " + ValueToString(find));
  }
  if (!replacement.is_string() && !replacement.nullish()) {
    return Status(ErrorCode::kLocation51744, name +
                                                 " requires that 'replacement' be a string, "
                                                 "found: " +
                                                 ValueToString(replacement));
  }
  if (input.nullish() || find.nullish() || replacement.nullish()) return Value::Null();
  std::string_view s = input.string();
  std::string_view f = find.string();
  std::string_view r = replacement.string();
  // The occurrences first, with the result's length checked as MongoDB's StringBuilder grows
  // (the pieces in its order: the text before each occurrence, the replacement, the rest); the
  // result is allocated only once it is known to fit.
  std::vector<size_t> occurrences;
  BuiltLength length;
  size_t from = 0;
  if (f.empty()) {  // the empty string matches before every byte and at the end
    for (size_t i = 0; i < s.size(); ++i) {
      CAIRN_RETURN_IF_ERROR(length.Add(r.size()));
      CAIRN_RETURN_IF_ERROR(length.Add(1));
    }
    CAIRN_RETURN_IF_ERROR(length.Add(r.size()));
    std::string out;
    out.reserve(length.length());
    for (char c : s) out.append(r).push_back(c);
    out.append(r);
    return Value::String(out);
  }
  while (true) {
    size_t at = FindBytes(s, f, from);
    if (at == std::string_view::npos) break;
    occurrences.push_back(at);
    CAIRN_RETURN_IF_ERROR(length.Add(at - from));
    CAIRN_RETURN_IF_ERROR(length.Add(r.size()));
    from = at + f.size();
    if (op.name() == "$replaceOne") break;
  }
  if (occurrences.empty()) return input;
  CAIRN_RETURN_IF_ERROR(length.Add(s.size() - from));
  std::string out;
  out.reserve(length.length());
  size_t copied = 0;
  for (size_t at : occurrences) {
    out.append(s.substr(copied, at - copied)).append(r);
    copied = at + f.size();
  }
  out.append(s.substr(copied));
  return Value::String(out);
}

}  // namespace

Result<std::string> CoerceToString(const Value& v) {
  switch (v.type()) {
    case BSON_TYPE_DOUBLE:
      return FormatDouble(v.dbl());
    case BSON_TYPE_INT32:
      return std::to_string(v.int32());
    case BSON_TYPE_INT64:
      return std::to_string(v.int64());
    case BSON_TYPE_DECIMAL128:
      return DecimalToString(v.decimal());
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL:
    case BSON_TYPE_CODE:
      return std::string(v.string());
    case BSON_TYPE_DATE_TIME:
      return FormatIsoDate(v.date());
    case BSON_TYPE_TIMESTAMP: {
      // Timestamp::toStringPretty: the seconds as a short local-style date, then the increment.
      bson_iter_t it = v.iter();
      uint32_t seconds = 0, increment = 0;
      bson_iter_timestamp(&it, &seconds, &increment);
      std::time_t t = seconds;
      std::tm tm{};
      gmtime_r(&t, &tm);
      char buf[64];
      std::strftime(buf, sizeof buf, "%b %e %H:%M:%S", &tm);
      return std::string(buf) + ":" + std::to_string(increment);
    }
    case BSON_TYPE_EOD:
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED:
      return std::string();
    default:
      return Status(ErrorCode::kLocation16007,
                    "can't convert from BSON type " + TypeOf(v) + " to String");
  }
}

Result<int32_t> NonNegativeIndex(const Value& v, std::string_view op, std::string_view what) {
  if (!IsIntegral32(v)) {
    return Status(ErrorCode::kLocation40096, std::string(op) + "requires an integral " +
                                                 std::string(what) + ", found a value of type: " +
                                                 TypeOf(v) + ", with value: " + ValueToString(v));
  }
  CAIRN_ASSIGN_OR_RETURN(int32_t index, CoerceToInt(v));
  if (index < 0) {
    return Status(ErrorCode::kLocation40097, std::string(op) + " requires a nonnegative " +
                                                 std::string(what) +
                                                 ", found: " + ValueToString(v));
  }
  return index;
}

// The operands are evaluated in order (a null one answers null, a non-string one 16702), each
// appended length checked as MongoDB's StringBuilder checks it; the result is allocated once,
// after it is known to fit.
Result<Value> EvalConcat(const OperatorExpression& op, Variables* vars) {
  std::vector<Value> parts;
  parts.reserve(op.size());
  BuiltLength length;
  for (size_t i = 0; i < op.size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(i, vars));
    if (v.nullish()) return Value::Null();
    if (!v.is_string()) {
      return Status(ErrorCode::kLocation16702, "$concat only supports strings, not " + TypeOf(v));
    }
    CAIRN_RETURN_IF_ERROR(length.Add(v.string().size()));
    parts.push_back(std::move(v));
  }
  std::string out;
  out.reserve(length.length());
  for (const Value& part : parts) out.append(part.string());
  return Value::String(out);
}

Result<Value> EvalToLower(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(std::string s, CoerceToString(v));
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return Value::String(s);
}

Result<Value> EvalToUpper(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(std::string s, CoerceToString(v));
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return Value::String(s);
}

Result<Value> EvalStrcasecmp(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value a, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value b, op.Eval(1, vars));
  CAIRN_ASSIGN_OR_RETURN(std::string x, CoerceToString(a));
  CAIRN_ASSIGN_OR_RETURN(std::string y, CoerceToString(b));
  auto upper = [](std::string& s) {
    for (char& c : s) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
  };
  upper(x);
  upper(y);
  int c = x.compare(y);
  return Value::Int32(c < 0 ? -1 : (c > 0 ? 1 : 0));
}

Result<ExpressionPtr> ParseSubstr(const bson_iter_t* arg, std::string_view name,
                                  ParseContext& ctx) {
  return ParsePositional(arg, "$substrBytes", ctx, EvalSubstrBytes, 3, 3);
}

Result<Value> EvalSubstrBytes(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value string_arg, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value lower_arg, op.Eval(1, vars));
  CAIRN_ASSIGN_OR_RETURN(Value length_arg, op.Eval(2, vars));
  CAIRN_ASSIGN_OR_RETURN(std::string s, CoerceToString(string_arg));
  if (!lower_arg.numeric()) {
    return Status(ErrorCode::kLocation16034,
                  "$substrBytes:  starting index must be a numeric type (is BSON type " +
                      TypeOf(lower_arg) + ")");
  }
  if (!length_arg.numeric()) {
    return Status(
        ErrorCode::kLocation16035,
        "$substrBytes:  length must be a numeric type (is BSON type " + TypeOf(length_arg) + ")");
  }
  CAIRN_ASSIGN_OR_RETURN(int64_t signed_lower, CoerceToLong(lower_arg));
  if (signed_lower < 0) {
    return Status(ErrorCode::kLocation50752,
                  "$substrBytes:  starting index must be non-negative (got: " +
                      std::to_string(signed_lower) + ")");
  }
  size_t lower = static_cast<size_t>(signed_lower);
  CAIRN_ASSIGN_OR_RETURN(int64_t signed_length, CoerceToLong(length_arg));
  size_t length = signed_length < 0 ? s.size() : static_cast<size_t>(signed_length);
  if (lower < s.size() && IsContinuationByte(s[lower])) {
    return Status(ErrorCode::kLocation28656,
                  "$substrBytes:  Invalid range, starting index is a UTF-8 continuation byte.");
  }
  if (lower + length < s.size() && lower + length >= lower &&
      IsContinuationByte(s[lower + length])) {
    return Status(ErrorCode::kLocation28657,
                  "$substrBytes:  Invalid range, ending index is in the middle of a UTF-8 "
                  "character.");
  }
  if (lower >= s.size()) return Value::String("");
  return Value::String(std::string_view(s).substr(lower, length));
}

Result<Value> EvalSubstrCP(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value input, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value lower_arg, op.Eval(1, vars));
  CAIRN_ASSIGN_OR_RETURN(Value length_arg, op.Eval(2, vars));
  CAIRN_ASSIGN_OR_RETURN(std::string s, CoerceToString(input));
  if (!lower_arg.numeric()) {
    return Status(ErrorCode::kLocation34450,
                  "$substrCP: starting index must be a numeric type (is BSON type " +
                      TypeOf(lower_arg) + ")");
  }
  if (!IsIntegral32(lower_arg)) {
    return Status(ErrorCode::kLocation34451,
                  "$substrCP: starting index cannot be represented as a 32-bit integral value: " +
                      ValueToString(lower_arg));
  }
  if (!length_arg.numeric()) {
    return Status(
        ErrorCode::kLocation34452,
        "$substrCP: length must be a numeric type (is BSON type " + TypeOf(length_arg) + ")");
  }
  if (!IsIntegral32(length_arg)) {
    return Status(ErrorCode::kLocation34453,
                  "$substrCP: length cannot be represented as a 32-bit integral value: " +
                      ValueToString(length_arg));
  }
  CAIRN_ASSIGN_OR_RETURN(int32_t start_cp, CoerceToInt(lower_arg));
  CAIRN_ASSIGN_OR_RETURN(int32_t length, CoerceToInt(length_arg));
  if (length < 0) {
    return Status(ErrorCode::kLocation34454, "$substrCP: length must be a nonnegative integer.");
  }
  if (start_cp < 0) {
    return Status(ErrorCode::kLocation34455,
                  "$substrCP: the starting index must be nonnegative integer.");
  }
  size_t start = 0;
  for (int32_t i = 0; i < start_cp; ++i) {
    if (start >= s.size()) return Value::String("");
    if (IsContinuationByte(s[start])) {
      return Status(ErrorCode::kLocation34456, "$substrCP: invalid UTF-8 string");
    }
    size_t len = CodePointLength(s[start]);
    if (len > 4) return Status(ErrorCode::kLocation34457, "$substrCP: invalid UTF-8 string");
    start += len;
  }
  size_t end = start;
  for (int32_t i = 0; i < length && end < s.size(); ++i) {
    if (IsContinuationByte(s[end])) {
      return Status(ErrorCode::kLocation34458, "$substrCP: invalid UTF-8 string");
    }
    size_t len = CodePointLength(s[end]);
    if (len > 4) return Status(ErrorCode::kLocation34459, "$substrCP: invalid UTF-8 string");
    end += len;
  }
  end = std::min(end, s.size());
  if (start > s.size()) return Value::String("");
  return Value::String(std::string_view(s).substr(start, end - start));
}

Result<Value> EvalStrLenBytes(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(0, vars));
  if (!v.is_string()) {
    return Status(ErrorCode::kLocation34473,
                  "$strLenBytes requires a string argument, found: " + TypeOf(v));
  }
  return Value::Int32(static_cast<int32_t>(v.string().size()));
}

Result<Value> EvalStrLenCP(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(0, vars));
  if (!v.is_string()) {
    return Status(ErrorCode::kLocation34471,
                  "$strLenCP requires a string argument, found: " + TypeOf(v));
  }
  return Value::Int32(static_cast<int32_t>(CodePointCount(v.string())));
}

Result<Value> EvalSplit(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value input, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value separator, op.Eval(1, vars));
  if (input.nullish() || separator.nullish()) return Value::Null();
  CAIRN_ASSIGN_OR_RETURN(std::string_view s,
                         RequireString(input, ErrorCode::kLocation40085,
                                       "$split requires an expression that evaluates to a string "
                                       "as a first argument, found: "));
  CAIRN_ASSIGN_OR_RETURN(std::string_view sep,
                         RequireString(separator, ErrorCode::kLocation40086,
                                       "$split requires an expression that evaluates to a string "
                                       "as a second argument, found: "));
  if (sep.empty()) {
    return Status(ErrorCode::kLocation40087, "$split requires a non-empty separator");
  }
  ArrayBuilder out;
  while (true) {
    size_t at = FindBytes(s, sep);
    if (at == std::string_view::npos) break;
    out.Append(Value::String(s.substr(0, at)));
    s = s.substr(at + sep.size());
  }
  out.Append(Value::String(s));
  return out.Finish();
}

Result<Value> EvalIndexOfBytes(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value input_arg, op.Eval(0, vars));
  if (input_arg.nullish()) return Value::Null();
  CAIRN_ASSIGN_OR_RETURN(
      std::string_view input,
      RequireString(input_arg, ErrorCode::kLocation40091,
                    "$indexOfBytes requires a string as the first argument, found: "));
  CAIRN_ASSIGN_OR_RETURN(Value token_arg, op.Eval(1, vars));
  CAIRN_ASSIGN_OR_RETURN(
      std::string_view token,
      RequireString(token_arg, ErrorCode::kLocation40092,
                    "$indexOfBytes requires a string as the second argument, found: "));
  size_t start = 0;
  if (op.size() > 2) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(2, vars));
    CAIRN_ASSIGN_OR_RETURN(int32_t i, NonNegativeIndex(v, op.name(), "starting index"));
    start = static_cast<size_t>(i);
  }
  size_t end = input.size();
  if (op.size() > 3) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(3, vars));
    CAIRN_ASSIGN_OR_RETURN(int32_t i, NonNegativeIndex(v, op.name(), "ending index"));
    end = std::min(input.size(), static_cast<size_t>(i));
  }
  if (start > input.size() || end < start) return Value::Int32(-1);
  size_t position = FindBytes(input.substr(0, end), token, start);
  if (position == std::string_view::npos) return Value::Int32(-1);
  return Value::Int32(static_cast<int32_t>(position));
}

Result<Value> EvalIndexOfCP(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value input_arg, op.Eval(0, vars));
  if (input_arg.nullish()) return Value::Null();
  CAIRN_ASSIGN_OR_RETURN(
      std::string_view input,
      RequireString(input_arg, ErrorCode::kLocation40093,
                    "$indexOfCP requires a string as the first argument, found: "));
  CAIRN_ASSIGN_OR_RETURN(Value token_arg, op.Eval(1, vars));
  CAIRN_ASSIGN_OR_RETURN(
      std::string_view token,
      RequireString(token_arg, ErrorCode::kLocation40094,
                    "$indexOfCP requires a string as the second argument, found: "));
  size_t start_cp = 0;
  if (op.size() > 2) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(2, vars));
    CAIRN_ASSIGN_OR_RETURN(int32_t i, NonNegativeIndex(v, op.name(), "starting index"));
    start_cp = static_cast<size_t>(i);
  }
  // The code-point length, and the byte where the search starts.
  size_t cp_length = 0;
  size_t start_byte = 0;
  for (size_t byte = 0; byte < input.size(); ++cp_length) {
    if (cp_length == start_cp) start_byte = byte;
    if (IsContinuationByte(input[byte])) {
      return Status(ErrorCode::kLocation40095, "$indexOfCP found bad UTF-8 in the input");
    }
    byte += CodePointLength(input[byte]);
  }
  size_t end_cp = cp_length;
  if (op.size() > 3) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(3, vars));
    CAIRN_ASSIGN_OR_RETURN(int32_t i, NonNegativeIndex(v, op.name(), "ending index"));
    end_cp = std::min(cp_length, static_cast<size_t>(i));
  }
  if (end_cp < start_cp) return Value::Int32(-1);
  if (start_byte == 0 && input.empty() && token.empty()) return Value::Int32(0);
  if (start_cp >= end_cp) return Value::Int32(-1);
  // MongoDB tests the token at each code point in [start_cp, end_cp) (it may run past end_cp);
  // one linear search from start_byte finds the same first one: an occurrence that starts
  // inside a code point is skipped.
  size_t from = start_byte;
  while (true) {
    size_t at = FindBytes(input, token, from);
    if (at == std::string_view::npos) return Value::Int32(-1);
    if (at < input.size() && IsContinuationByte(input[at])) {
      from = at + 1;
      continue;
    }
    size_t cp = start_cp + CodePointCount(input.substr(start_byte, at - start_byte));
    if (cp >= end_cp) return Value::Int32(-1);
    return Value::Int32(static_cast<int32_t>(cp));
  }
}

Result<ExpressionPtr> ParseTrim(const bson_iter_t* arg, std::string_view name, ParseContext& ctx) {
  bson_iter_t it;
  if (!RecurseObjectArgument(arg, &it)) {
    return Status(ErrorCode::kLocation50696, std::string(name) +
                                                 " only supports an object as an argument, found " +
                                                 std::string(BsonTypeName(bson_iter_type(arg))));
  }
  std::vector<ExpressionPtr> operands(2);  // input, chars
  while (bson_iter_next(&it)) {
    std::string_view field = IterKey(&it);
    size_t slot = field == "input" ? 0 : field == "chars" ? 1 : 2;
    if (slot == 2) {
      return Status(ErrorCode::kLocation50694,
                    std::string(name) + " found an unknown argument: " + std::string(field));
    }
    CAIRN_ASSIGN_OR_RETURN(operands[slot], ParseOperand(&it, ctx));
  }
  if (!operands[0]) {
    return Status(ErrorCode::kLocation50695, std::string(name) + " requires an 'input' field");
  }
  return ExpressionPtr(std::make_unique<OperatorExpression>(name, std::move(operands), EvalTrim));
}

Result<ExpressionPtr> ParseReplace(const bson_iter_t* arg, std::string_view name,
                                   ParseContext& ctx) {
  bson_iter_t it;
  if (!RecurseObjectArgument(arg, &it)) {
    return Status(ErrorCode::kLocation51751, std::string(name) +
                                                 " requires an object as an argument, found: " +
                                                 std::string(BsonTypeName(bson_iter_type(arg))));
  }
  std::vector<ExpressionPtr> operands(3);  // input, find, replacement
  while (bson_iter_next(&it)) {
    std::string_view field = IterKey(&it);
    size_t slot = field == "input" ? 0 : field == "find" ? 1 : field == "replacement" ? 2 : 3;
    if (slot == 3) {
      return Status(ErrorCode::kLocation51750,
                    std::string(name) + " found an unknown argument: " + std::string(field));
    }
    CAIRN_ASSIGN_OR_RETURN(operands[slot], ParseOperand(&it, ctx));
  }
  if (!operands[0]) {
    return Status(ErrorCode::kLocation51749,
                  std::string(name) + " requires 'input' to be specified");
  }
  if (!operands[1]) {
    return Status(ErrorCode::kLocation51748,
                  std::string(name) + " requires 'find' to be specified");
  }
  if (!operands[2]) {
    return Status(ErrorCode::kLocation51747,
                  std::string(name) + " requires 'replacement' to be specified");
  }
  return ExpressionPtr(std::make_unique<OperatorExpression>(name, std::move(operands), EvalReplace,
                                                            /*foldable=*/false));
}

}  // namespace cairn::query::ops
