// The regular-expression family: $regexMatch (bool), $regexFind ({match, idx, captures} or
// null) and $regexFindAll (an array of those), over query/matcher/regex.h (PCRE2 with MongoDB's
// option letters). Arguments {input, regex, options} as MongoDB's ExpressionRegex: an object
// (51103) with only those fields (31024), input (31022) and regex (31023) required; at run time
// input a string (51104), regex a string or regex (51105), options a string (51106) and not
// beside a regex's own flags (51107), no NUL in either (51109, 51110), a pattern that compiles
// (51111). A nullish input or regex gives false / null / []. idx counts code points; after an
// empty match $regexFindAll moves on by one code point. A constant regex and options compile
// once, at parse time. A search PCRE2 ends with an error (its match limit; a subject that is not
// UTF-8) fails with 51156 "Error occurred while executing the regular expression in <op>.
// Result code: <PCRE2's message>" (regex_util's execute). $regexFindAll's matches may take
// 64 MiB (MongoDB's BufferMaxSize; counted here as their BSON size, where MongoDB counts its
// Values' approximate size), else 51151; it runs in linear time: the subject's UTF-8 is checked
// by the first search only.
#include <optional>

#include "query/expression/operator.h"
#include "query/matcher/regex.h"

namespace cairn::query::ops {

namespace {

enum class RegexOp { kMatch, kFind, kFindAll };

class RegexExpression final : public Expression {
 public:
  RegexExpression(std::string_view name, RegexOp op, ExpressionPtr input, ExpressionPtr regex,
                  ExpressionPtr options)
      : name_(name),
        op_(op),
        input_(std::move(input)),
        regex_(std::move(regex)),
        options_(std::move(options)) {}

  // Compiles the pattern now when regex and options are constants (errors then surface at parse,
  // as MongoDB's constant-folding optimize() does).
  Status Precompile() {
    if (regex_->constant() == nullptr || (options_ && options_->constant() == nullptr)) {
      return Status::OK();
    }
    Value no_options;
    CAIRN_ASSIGN_OR_RETURN(
        std::optional<Regex> compiled,
        Compile(*regex_->constant(), options_ ? *options_->constant() : no_options));
    precompiled_ = std::move(compiled);
    constant_pattern_ = true;
    return Status::OK();
  }

  Result<Value> Evaluate(Variables* vars) const override {
    CAIRN_ASSIGN_OR_RETURN(Value input, input_->Evaluate(vars));
    if (!input.nullish() && !input.is_string()) {
      return Status(ErrorCode::kLocation51104,
                    std::string(name_) + " needs 'input' to be of type string");
    }
    std::optional<Regex> compiled_here;
    const std::optional<Regex>* regex = &precompiled_;
    if (!constant_pattern_) {
      CAIRN_ASSIGN_OR_RETURN(Value pattern, regex_->Evaluate(vars));
      Value options;
      if (options_) {
        CAIRN_ASSIGN_OR_RETURN(options, options_->Evaluate(vars));
      }
      CAIRN_ASSIGN_OR_RETURN(compiled_here, Compile(pattern, options));
      regex = &compiled_here;
    }
    if (input.nullish() || !regex->has_value()) return NoMatch();
    return Run(**regex, input.string());
  }

 private:
  Result<Value> NoMatch() const {
    switch (op_) {
      case RegexOp::kMatch:
        return Value::Bool(false);
      case RegexOp::kFind:
        return Value::Null();
      case RegexOp::kFindAll:
        return ArrayBuilder().Finish();
    }
    return Value::Null();
  }

  // 51156 for a search PCRE2 ended with an error.
  Status ExecutionError(const Status& error) const { return Regex::ExecutionError(name_, error); }

  // The compiled pattern; nullopt when the pattern is nullish (no match).
  Result<std::optional<Regex>> Compile(const Value& pattern, const Value& options) const {
    if (!options.nullish() && !options.is_string()) {
      return Status(ErrorCode::kLocation51106,
                    std::string(name_) + " needs 'options' to be of type string");
    }
    if (!pattern.nullish() && !pattern.is_string() && pattern.type() != BSON_TYPE_REGEX) {
      return Status(ErrorCode::kLocation51105,
                    std::string(name_) + " needs 'regex' to be of type string or regex");
    }
    if (pattern.nullish()) return std::optional<Regex>();
    std::string_view source, flags;
    if (pattern.type() == BSON_TYPE_REGEX) {
      bson_iter_t it = pattern.iter();
      const char* regex_flags = nullptr;
      source = bson_iter_regex(&it, &regex_flags);
      flags = regex_flags != nullptr ? regex_flags : "";
      if (!flags.empty() && !options.nullish()) {
        return Status(ErrorCode::kLocation51107,
                      std::string(name_) +
                          " found regex option(s) specified in both 'regex' and 'option' fields");
      }
    } else {
      source = pattern.string();
    }
    if (!options.nullish()) flags = options.string();
    if (source.find('\0') != std::string_view::npos) {
      return Status(ErrorCode::kLocation51109,
                    std::string(name_) +
                        ": regular expression cannot contain an embedded null "
                        "byte");
    }
    if (flags.find('\0') != std::string_view::npos) {
      return Status(ErrorCode::kLocation51110, std::string(name_) +
                                                   ": regular expression options cannot contain an "
                                                   "embedded null byte");
    }
    CAIRN_ASSIGN_OR_RETURN(RegexOptions parsed, Regex::ParseFlags(flags, name_));
    Result<Regex> compiled = Regex::Compile(source, parsed);
    if (!compiled.ok()) {
      return Status(ErrorCode::kLocation51111,
                    "Invalid Regex in " + std::string(name_) + ": " + compiled.status().reason());
    }
    return std::optional<Regex>(std::move(*compiled));
  }

  // {match, idx, captures} of one match; idx counts code points from the subject's start.
  static Result<Value> MatchDocument(std::string_view subject, const Regex::Captures& captures,
                                     size_t code_point_index) {
    DocumentBuilder doc;
    doc.Append("match", Value::String(subject.substr(captures[0].first,
                                                     captures[0].second - captures[0].first)));
    doc.Append("idx", Value::Int32(static_cast<int32_t>(code_point_index)));
    ArrayBuilder groups;
    for (size_t i = 1; i < captures.size(); ++i) {
      if (captures[i].first == Regex::npos) {
        groups.Append(Value::Null());
      } else {
        groups.Append(Value::String(
            subject.substr(captures[i].first, captures[i].second - captures[i].first)));
      }
    }
    CAIRN_ASSIGN_OR_RETURN(Value captured, groups.Finish());
    doc.Append("captures", captured);
    return doc.Finish();
  }

  Result<Value> Run(const Regex& regex, std::string_view subject) const {
    if (op_ == RegexOp::kMatch) {
      Result<bool> matched = regex.Search(subject);
      if (!matched.ok()) return ExecutionError(matched.status());
      return Value::Bool(*matched);
    }
    Regex::Captures captures;
    if (op_ == RegexOp::kFind) {
      Result<bool> found = regex.Find(subject, 0, &captures);
      if (!found.ok()) return ExecutionError(found.status());
      if (!*found) return Value::Null();
      return MatchDocument(subject, captures, CodePointCount(subject.substr(0, captures[0].first)));
    }
    // MongoDB's mongo::BufferMaxSize, the bound on the matches' total size.
    constexpr size_t kMaxMatchesBytes = 64 * 1024 * 1024;
    ArrayBuilder all;
    size_t start = 0;
    size_t counted_bytes = 0, code_points = 0;  // code points before byte counted_bytes
    size_t total = 0;
    while (start <= subject.size()) {
      // After the first search PCRE2 has accepted the subject as UTF-8: later ones skip the
      // check, which would read the whole subject each time.
      Result<bool> found = regex.Find(subject, start, &captures, /*subject_checked=*/start > 0);
      if (!found.ok()) return ExecutionError(found.status());
      if (!*found) break;
      size_t begin = captures[0].first, end = captures[0].second;
      code_points += CodePointCount(subject.substr(counted_bytes, begin - counted_bytes));
      counted_bytes = begin;
      CAIRN_ASSIGN_OR_RETURN(Value match, MatchDocument(subject, captures, code_points));
      total += match.EncodedSize();
      if (total > kMaxMatchesBytes) {
        return Status(
            ErrorCode::kLocation51151,
            std::string(name_) + ": the size of buffer to store output exceeded the 64MB limit");
      }
      all.Append(match);
      if (end == begin) {
        if (begin >= subject.size()) break;
        start = begin + std::min<size_t>(CodePointLength(subject[begin]), subject.size() - begin);
      } else {
        start = end;
      }
    }
    return all.Finish();
  }

  std::string_view name_;
  RegexOp op_;
  ExpressionPtr input_, regex_, options_;
  bool constant_pattern_ = false;
  std::optional<Regex> precompiled_;  // when constant_pattern_
};

}  // namespace

Result<ExpressionPtr> ParseRegex(const bson_iter_t* arg, std::string_view name, ParseContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(arg)) {
    return Status(ErrorCode::kLocation51103,
                  std::string(name) + " expects an object of named arguments but found: " +
                      std::string(BsonTypeName(bson_iter_type(arg))));
  }
  ExpressionPtr input, regex, options;
  bson_iter_t it;
  bson_iter_recurse(arg, &it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    ExpressionPtr* slot = key == "input"     ? &input
                          : key == "regex"   ? &regex
                          : key == "options" ? &options
                                             : nullptr;
    if (slot == nullptr) {
      return Status(ErrorCode::kLocation31024,
                    std::string(name) + " found an unknown argument: " + std::string(key));
    }
    CAIRN_ASSIGN_OR_RETURN(*slot, ParseOperand(&it, ctx));
  }
  if (!input) {
    return Status(ErrorCode::kLocation31022, std::string(name) + " requires 'input' parameter");
  }
  if (!regex) {
    return Status(ErrorCode::kLocation31023, std::string(name) + " requires 'regex' parameter");
  }
  RegexOp op = name == "$regexMatch"  ? RegexOp::kMatch
               : name == "$regexFind" ? RegexOp::kFind
                                      : RegexOp::kFindAll;
  auto expr = std::make_unique<RegexExpression>(name, op, std::move(input), std::move(regex),
                                                std::move(options));
  CAIRN_RETURN_IF_ERROR(expr->Precompile());
  return ExpressionPtr(std::move(expr));
}

}  // namespace cairn::query::ops
