// String operators: $concat $substr/$substrBytes $substrCP $toLower $toUpper $split $trim
// $ltrim $rtrim $strLenBytes $strLenCP $indexOfBytes $indexOfCP $strcasecmp $replaceOne
// $replaceAll, with MongoDB's null handling, byte versus code-point (UTF-8) indexing and error
// codes; plus Value::coerceToString, which several of them (and $convert) share. Case mapping is
// ASCII-only, as MongoDB's (boost::to_lower/to_upper in the C locale).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <limits>

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

// The operand as a string for $indexOfBytes/$indexOfCP/$split-style checks.
Result<std::string_view> RequireString(const Value& v, ErrorCode code, std::string message) {
  if (!v.is_string()) return Status(code, std::move(message) + TypeOf(v));
  return v.string();
}

// The default characters $trim removes (ExpressionTrim's whitespace list, UTF-8 encoded).
const std::vector<std::string_view>& DefaultTrimCharacters() {
  static const std::vector<std::string_view> kChars = {
      std::string_view("\0", 1), " ",          "\t",           "\n",           "\v",
      "\f",                      "\r",         "\xC2\xA0",     "\xE1\x9A\x80", "\xE2\x80\x80",
      "\xE2\x80\x81",            "\xE2\x80\x82", "\xE2\x80\x83", "\xE2\x80\x84", "\xE2\x80\x85",
      "\xE2\x80\x86",            "\xE2\x80\x87", "\xE2\x80\x88", "\xE2\x80\x89", "\xE2\x80\x8A"};
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
  auto match_at = [&](size_t pos, std::string_view cp) {
    return pos + cp.size() <= s.size() && s.compare(pos, cp.size(), cp) == 0;
  };
  if (op.name() != "$rtrim") {
    size_t start = 0;
    while (start < s.size()) {
      auto found = std::find_if(chars->begin(), chars->end(),
                                [&](std::string_view cp) { return match_at(start, cp); });
      if (found == chars->end()) break;
      start += found->size();
    }
    s = s.substr(start);
  }
  if (op.name() != "$ltrim") {
    size_t end = s.size();
    while (end > 0) {
      auto found = std::find_if(chars->begin(), chars->end(), [&](std::string_view cp) {
        return cp.size() <= end && s.compare(end - cp.size(), cp.size(), cp) == 0;
      });
      if (found == chars->end()) break;
      end -= found->size();
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
  std::string out;
  if (op.name() == "$replaceOne") {
    size_t at = s.find(f);
    if (at == std::string_view::npos) return input;
    out.append(s.substr(0, at)).append(r).append(s.substr(at + f.size()));
    return Value::String(out);
  }
  if (f.empty()) {  // the empty string matches at every position
    for (char c : s) out.append(r).push_back(c);
    out.append(r);
    return Value::String(out);
  }
  while (true) {
    size_t at = s.find(f);
    if (at == std::string_view::npos) {
      out.append(s);
      break;
    }
    out.append(s.substr(0, at)).append(r);
    s = s.substr(at + f.size());
  }
  return Value::String(out);
}

}  // namespace

Result<std::string> CoerceToString(const Value& v) {
  switch (v.type()) {
    case BSON_TYPE_DOUBLE: return FormatDouble(v.dbl());
    case BSON_TYPE_INT32: return std::to_string(v.int32());
    case BSON_TYPE_INT64: return std::to_string(v.int64());
    case BSON_TYPE_DECIMAL128: return DecimalToString(v.decimal());
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL:
    case BSON_TYPE_CODE: return std::string(v.string());
    case BSON_TYPE_DATE_TIME: return FormatIsoDate(v.date());
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
    case BSON_TYPE_UNDEFINED: return std::string();
    default:
      return Status(ErrorCode::kLocation16007,
                    "can't convert from BSON type " + TypeOf(v) + " to String");
  }
}

Result<int32_t> NonNegativeIndex(const Value& v, std::string_view op, std::string_view what) {
  if (!IsIntegral32(v)) {
    return Status(ErrorCode::kLocation40096,
                  std::string(op) + "requires an integral " + std::string(what) +
                      ", found a value of type: " + TypeOf(v) +
                      ", with value: " + ValueToString(v));
  }
  CAIRN_ASSIGN_OR_RETURN(int32_t index, CoerceToInt(v));
  if (index < 0) {
    return Status(ErrorCode::kLocation40097, std::string(op) + " requires a nonnegative " +
                                                 std::string(what) +
                                                 ", found: " + ValueToString(v));
  }
  return index;
}

Result<Value> EvalConcat(const OperatorExpression& op, Variables* vars) {
  std::string out;
  for (size_t i = 0; i < op.size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(i, vars));
    if (v.nullish()) return Value::Null();
    if (!v.is_string()) {
      return Status(ErrorCode::kLocation16702, "$concat only supports strings, not " + TypeOf(v));
    }
    out.append(v.string());
  }
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
    return Status(ErrorCode::kLocation16035,
                  "$substrBytes:  length must be a numeric type (is BSON type " +
                      TypeOf(length_arg) + ")");
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
    return Status(ErrorCode::kLocation34452,
                  "$substrCP: length must be a numeric type (is BSON type " +
                      TypeOf(length_arg) + ")");
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
    size_t at = s.find(sep);
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
  size_t position = input.substr(0, end).find(token, start);
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
  size_t byte = start_byte;
  for (size_t cp = start_cp; cp < end_cp; ++cp) {
    if (byte + token.size() <= input.size() && input.compare(byte, token.size(), token) == 0) {
      return Value::Int32(static_cast<int32_t>(cp));
    }
    byte += CodePointLength(input[byte]);
  }
  return Value::Int32(-1);
}

Result<ExpressionPtr> ParseTrim(const bson_iter_t* arg, std::string_view name,
                                ParseContext& ctx) {
  bson_iter_t it;
  if (!RecurseObjectArgument(arg, &it)) {
    return Status(ErrorCode::kLocation50696,
                  std::string(name) + " only supports an object as an argument, found " +
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
    return Status(ErrorCode::kLocation51751,
                  std::string(name) + " requires an object as an argument, found: " +
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
    return Status(ErrorCode::kLocation51749, std::string(name) + " requires 'input' to be specified");
  }
  if (!operands[1]) {
    return Status(ErrorCode::kLocation51748, std::string(name) + " requires 'find' to be specified");
  }
  if (!operands[2]) {
    return Status(ErrorCode::kLocation51747,
                  std::string(name) + " requires 'replacement' to be specified");
  }
  return ExpressionPtr(std::make_unique<OperatorExpression>(name, std::move(operands),
                                                            EvalReplace, /*foldable=*/false));
}

}  // namespace cairn::query::ops
