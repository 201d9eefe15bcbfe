// Regex: a compiled PCRE2 pattern with MongoDB's option letters (i m s x, u accepted and
// ignored), shared by the filter's $regex, $jsonSchema's pattern/patternProperties and the
// expression language's $regexMatch/$regexFind/$regexFindAll. Owns only the compiled code; each
// caller words its compile errors ("Regular expression is invalid: ..."), while the run-time
// error (51156) is shared (ExecutionError).
//
// A Regex is immutable once compiled and cheap to copy (copies share the code). Matching is
// thread-safe: each thread reuses its own PCRE2 match data, so matching allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace cairn::query {

// PCRE2 compile options, as MongoDB's pcre_util::flagsToOptions sets them.
struct RegexOptions {
  bool caseless = false;   // i
  bool multiline = false;  // m: ^ and $ match at line breaks
  bool dotall = false;     // s: . matches newlines
  bool extended = false;   // x: whitespace and # comments in the pattern are ignored
  bool utf = true;         // UTF-8 pattern and subjects (MongoDB always sets it for $regex)
};

class Regex {
 public:
  // MongoDB's option letters to options. An unknown letter is Location51108
  // "<op_name> invalid flag in regex options: <letter>" (MongoDB prints op_name even when it is
  // empty, so $regex's message starts with a space).
  static Result<RegexOptions> ParseFlags(std::string_view flags, std::string_view op_name);

  // Compiles `pattern` (which may hold any byte but is limited to MongoDB's 32764 bytes). On a
  // PCRE2 error the Status is BadValue whose reason is PCRE2's own message ("missing closing
  // parenthesis"); callers re-wrap it with MongoDB's code and prefix.
  static Result<Regex> Compile(std::string_view pattern, const RegexOptions& options);

  // True when the pattern matches somewhere in `subject` (an unanchored search), false when it
  // does not; or the error PCRE2 ended the search with (its match limit, a subject that is not
  // valid UTF-8 under a UTF pattern), never taken as "no match". The Status is BadValue with
  // PCRE2's message ("match limit exceeded"); callers answer ExecutionError(...) of it.
  Result<bool> Search(std::string_view subject) const;
  // The same for a filter's hot loop (no Result to build per document): false with *error set
  // (from OK) when PCRE2 fails.
  bool Search(std::string_view subject, Status* error) const;

  // What a search that PCRE2 ended with `error` (Search's or Find's) answers in the operator
  // `op_name` ("$regex" for a filter, "$regexMatch", ...): MongoDB's Location51156 "Error
  // occurred while executing the regular expression in <op_name>. Result code: <PCRE2's
  // message>".
  static Status ExecutionError(std::string_view op_name, const Status& error);

  // One match: the byte ranges [begin, end) of the whole match (captures[0]) and of each
  // capture group; an unset group is {npos, npos}.
  static constexpr size_t npos = static_cast<size_t>(-1);
  using Captures = std::vector<std::pair<size_t, size_t>>;
  // Finds the first match at or after byte `start`: true when found, false when there is none,
  // or PCRE2's error as Search. `subject_checked`: the subject was already accepted as UTF-8 by
  // an earlier Find on it, so PCRE2 skips re-validating it (it would otherwise read the whole
  // subject on every call, making a loop over matches quadratic).
  Result<bool> Find(std::string_view subject, size_t start, Captures* captures,
                    bool subject_checked = false) const;

  // Number of capture groups in the pattern.
  uint32_t capture_count() const;

 private:
  struct Code;
  explicit Regex(std::shared_ptr<const Code> code) : code_(std::move(code)) {}

  std::shared_ptr<const Code> code_;
};

}  // namespace cairn::query
