// Regex (regex.h): PCRE2 8-bit wrapper. The compiled code is shared read-only between threads;
// match data (PCRE2's scratch space) is per thread, grown on demand and reused, so matching a
// document allocates nothing. Patterns are JIT-compiled when PCRE2 supports it; a match that
// exceeds the JIT stack is retried by the interpreter so JIT never changes an answer.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "query/matcher/regex.h"

#include <pcre2.h>

#include <string>

namespace cairn::query {

namespace {

// MongoDB's limit on a pattern's length in bytes (pcre.cpp kMaxPatternLength).
constexpr size_t kMaxPatternLength = 32764;

std::string Pcre2Message(int error_code) {
  PCRE2_UCHAR buffer[256];
  int length = pcre2_get_error_message(error_code, buffer, sizeof buffer);
  if (length < 0) return "PCRE2 error " + std::to_string(error_code);
  return std::string(reinterpret_cast<const char*>(buffer), static_cast<size_t>(length));
}

// The calling thread's match data, large enough for `pairs` offset pairs.
pcre2_match_data* ThreadMatchData(uint32_t pairs) {
  struct Holder {
    pcre2_match_data* data = nullptr;
    uint32_t pairs = 0;
    ~Holder() { pcre2_match_data_free(data); }
  };
  thread_local Holder holder;
  if (holder.pairs < pairs) {
    pcre2_match_data_free(holder.data);
    holder.data = pcre2_match_data_create(pairs, nullptr);
    holder.pairs = holder.data != nullptr ? pairs : 0;
  }
  return holder.data;
}

}  // namespace

struct Regex::Code {
  pcre2_code* code = nullptr;
  uint32_t captures = 0;
  ~Code() { pcre2_code_free(code); }
};

Result<RegexOptions> Regex::ParseFlags(std::string_view flags, std::string_view op_name) {
  RegexOptions options;
  for (char flag : flags) {
    switch (flag) {
      case 'i':
        options.caseless = true;
        break;
      case 'm':
        options.multiline = true;
        break;
      case 's':
        options.dotall = true;
        break;
      case 'x':
        options.extended = true;
        break;
      case 'u':
        break;  // accepted and ignored (UTF-8 is always on)
      default:
        return Status(
            ErrorCode::kLocation51108,
            std::string(op_name) + " invalid flag in regex options: " + std::string(1, flag));
    }
  }
  return options;
}

Result<Regex> Regex::Compile(std::string_view pattern, const RegexOptions& options) {
  uint32_t flags = 0;
  if (options.utf) flags |= PCRE2_UTF;
  if (options.caseless) flags |= PCRE2_CASELESS;
  if (options.multiline) flags |= PCRE2_MULTILINE;
  if (options.dotall) flags |= PCRE2_DOTALL;
  if (options.extended) flags |= PCRE2_EXTENDED;

  pcre2_compile_context* context = pcre2_compile_context_create(nullptr);
  if (context == nullptr) return Status(ErrorCode::kInternalError, "out of memory compiling regex");
  pcre2_set_max_pattern_length(context, kMaxPatternLength);
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  pcre2_code* compiled = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                       flags, &error_code, &error_offset, context);
  pcre2_compile_context_free(context);
  if (compiled == nullptr) return Status(ErrorCode::kBadValue, Pcre2Message(error_code));

  auto code = std::make_shared<Code>();
  code->code = compiled;
  pcre2_pattern_info(compiled, PCRE2_INFO_CAPTURECOUNT, &code->captures);
  pcre2_jit_compile(compiled, PCRE2_JIT_COMPLETE);  // best effort: the interpreter still works
  return Regex(std::move(code));
}

namespace {

int RunMatch(const pcre2_code* code, std::string_view subject, size_t start, pcre2_match_data* data,
             uint32_t options = 0) {
  auto run = [&](uint32_t extra) {
    return pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), start,
                       options | extra, data, nullptr);
  };
  int rc = run(0);
  if (rc == PCRE2_ERROR_JIT_STACKLIMIT) rc = run(PCRE2_NO_JIT);
  return rc;
}

Status MatchError(int rc) { return Status(ErrorCode::kBadValue, Pcre2Message(rc)); }

Status OutOfMemory() { return Status(ErrorCode::kInternalError, "out of memory matching regex"); }

}  // namespace

bool Regex::Search(std::string_view subject, Status* error) const {
  pcre2_match_data* data = ThreadMatchData(1);
  if (data == nullptr) {
    *error = OutOfMemory();
    return false;
  }
  int rc = RunMatch(code_->code, subject, 0, data);
  // 0 means "matched, but the offsets did not fit": still a match.
  if (rc >= 0) return true;
  // A subject that is not UTF-8 simply does not match, as in mongod's filters (a stored string
  // with a bad byte must not make every regex query on its collection fail); the engine's
  // limits (match limit, depth limit, memory) are errors.
  const bool not_utf8 = rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21;
  if (rc != PCRE2_ERROR_NOMATCH && !not_utf8) *error = MatchError(rc);
  return false;
}

Result<bool> Regex::Search(std::string_view subject) const {
  Status error;
  bool found = Search(subject, &error);
  if (!error.ok()) return error;
  return found;
}

Result<bool> Regex::Find(std::string_view subject, size_t start, Captures* captures,
                         bool subject_checked) const {
  captures->clear();
  if (start > subject.size()) return false;
  const uint32_t pairs = code_->captures + 1;
  pcre2_match_data* data = ThreadMatchData(pairs);
  if (data == nullptr) return OutOfMemory();
  int rc = RunMatch(code_->code, subject, start, data, subject_checked ? PCRE2_NO_UTF_CHECK : 0);
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  if (rc < 0) return MatchError(rc);
  const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
  captures->reserve(pairs);
  for (uint32_t i = 0; i < pairs; ++i) {
    PCRE2_SIZE begin = ovector[2 * i], end = ovector[2 * i + 1];
    if (begin == PCRE2_UNSET) {
      captures->emplace_back(npos, npos);
    } else {
      captures->emplace_back(begin, end);
    }
  }
  return true;
}

Status Regex::ExecutionError(std::string_view op_name, const Status& error) {
  return Status(ErrorCode::kLocation51156,
                "Error occurred while executing the regular expression in " + std::string(op_name) +
                    ". Result code: " + error.reason());
}

uint32_t Regex::capture_count() const { return code_->captures; }

}  // namespace cairn::query
