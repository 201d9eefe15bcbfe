// $regex and $options, and regex values used as predicates ({a: /x/i}, $not: /x/, inside $in
// and $all): parsing with MongoDB's rules and errors (parseRegexDocument, RegexMatchExpression)
// and RegexMatchExpression's test. Patterns compile once here, at parse time. A search PCRE2
// ends with an error (its match limit, a subject that is not UTF-8) is the match's error, 51156
// "Error occurred while executing the regular expression in $regex. Result code: <PCRE2's
// message>", never a non-match.
#include <string>

#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query {

bool RegexMatchExpression::MatchesSingleElement(const bson_iter_t* value, Status* error) const {
  if (value == nullptr) return false;
  switch (bson_iter_type(value)) {
    case BSON_TYPE_UTF8:
      return internal::FilterRegexSearch(regex_, IterUtf8(value), error);
    case BSON_TYPE_SYMBOL: {
      uint32_t length = 0;
      const char* symbol = bson_iter_symbol(value, &length);
      return internal::FilterRegexSearch(regex_, std::string_view(symbol, length), error);
    }
    case BSON_TYPE_REGEX: {
      const char* options = nullptr;
      const char* pattern = bson_iter_regex(value, &options);
      return pattern_ == pattern && flags_ == options;
    }
    default:
      return false;
  }
}

namespace internal {

namespace {

constexpr std::string_view kRegexOp = "$regex";
constexpr std::string_view kOptionsOp = "$options";

}  // namespace

bool FilterRegexSearch(const Regex& regex, std::string_view subject, Status* error) {
  if (regex.Search(subject, error)) return true;
  if (error->ok()) return false;
  *error = Regex::ExecutionError(kRegexOp, *error);
  return true;
}

Result<std::unique_ptr<RegexMatchExpression>> MakeRegex(std::string_view path,
                                                        std::string_view pattern,
                                                        std::string_view flags) {
  // MongoDB's order: option letters (while building the PCRE2 options), then the null byte,
  // then the compile error.
  CAIRN_ASSIGN_OR_RETURN(RegexOptions options, Regex::ParseFlags(flags, ""));
  if (pattern.find('\0') != std::string_view::npos) {
    return Status(ErrorCode::kBadValue, "Regular expression cannot contain an embedded null byte");
  }
  Result<Regex> regex = Regex::Compile(pattern, options);
  if (!regex.ok()) {
    return Status(ErrorCode::kLocation51091,
                  "Regular expression is invalid: " + regex.status().reason());
  }
  return std::make_unique<RegexMatchExpression>(path, pattern, flags, std::move(regex).value());
}

Result<std::unique_ptr<RegexMatchExpression>> MakeRegex(std::string_view path,
                                                        const bson_iter_t* regex_value) {
  const char* flags = nullptr;
  const char* pattern = bson_iter_regex(regex_value, &flags);
  return MakeRegex(path, pattern, flags);
}

Result<MatchExpressionPtr> ParseRegex(const OperatorArgs& args) {
  // The whole operator document is read: $options may stand before or after $regex. Options
  // given both in a regex value and in $options are an error whichever comes first.
  std::string_view pattern, flags;
  bson_iter_t it;
  if (args.context.Init(&it)) {
    while (bson_iter_next(&it)) {
      std::string_view key = IterKey(&it);
      if (key == kRegexOp) {
        if (BSON_ITER_HOLDS_UTF8(&it)) {
          pattern = IterUtf8(&it);
        } else if (BSON_ITER_HOLDS_REGEX(&it)) {
          const char* regex_flags = nullptr;
          pattern = bson_iter_regex(&it, &regex_flags);
          if (*regex_flags != '\0') {
            if (!flags.empty()) {
              return Status(ErrorCode::kLocation51074, "options set in both $regex and $options");
            }
            flags = regex_flags;
          }
        } else {
          return Status(ErrorCode::kBadValue, "$regex has to be a string");
        }
      } else if (key == kOptionsOp) {
        if (!BSON_ITER_HOLDS_UTF8(&it)) {
          return Status(ErrorCode::kBadValue, "$options has to be a string");
        }
        if (!flags.empty()) {
          return Status(ErrorCode::kLocation51075, "options set in both $regex and $options");
        }
        flags = IterUtf8(&it);
      }
    }
  }
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<RegexMatchExpression> regex,
                         MakeRegex(args.path, pattern, flags));
  return MatchExpressionPtr(std::move(regex));
}

Result<MatchExpressionPtr> ParseOptions(const OperatorArgs& args) {
  bson_iter_t it;
  if (args.context.Init(&it)) {
    while (bson_iter_next(&it)) {
      if (IterKey(&it) == kRegexOp) return MatchExpressionPtr();
    }
  }
  return Status(ErrorCode::kBadValue, "$options needs a $regex");
}

}  // namespace internal
}  // namespace cairn::query
