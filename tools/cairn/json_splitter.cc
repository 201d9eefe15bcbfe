// The document splitter for import's JSON input.
#include "tools/cairn/json_splitter.h"

namespace cairn::tools {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace

Result<bool> JsonSplitter::SkipSpace() {
  char c;
  for (;;) {
    CAIRN_ASSIGN_OR_RETURN(bool more, in_->Peek(&c));
    if (!more) return false;
    if (!IsSpace(c)) return true;
    CAIRN_RETURN_IF_ERROR(in_->Get(&c).status());
  }
}

Status JsonSplitter::SkipLine() {
  char c;
  for (;;) {
    CAIRN_ASSIGN_OR_RETURN(bool more, in_->Get(&c));
    if (!more || c == '\n') return Status::OK();
  }
}

Result<bool> JsonSplitter::Capture(char first, std::string* text) {
  text->assign(1, first);
  int depth = (first == '{' || first == '[') ? 1 : 0;
  bool in_string = first == '"', escaped = false;
  char c;
  for (;;) {
    if (depth == 0 && !in_string) {
      // A scalar array element ends before the ',' or ']' that follows it.
      CAIRN_ASSIGN_OR_RETURN(bool more, in_->Peek(&c));
      if (!more || c == ',' || c == ']') return true;
    }
    CAIRN_ASSIGN_OR_RETURN(bool more, in_->Get(&c));
    if (!more) return false;
    *text += c;
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0 && (first == '{' || first == '[')) return true;
    }
  }
}

Result<JsonSplitter::Kind> JsonSplitter::Next(std::string* text, int64_t* line) {
  if (finished_) return Kind::kEnd;
  CAIRN_ASSIGN_OR_RETURN(bool any, SkipSpace());
  char c;
  if (array_ && !started_) {
    if (!any || !in_->Get(&c).ok() || c != '[') {
      return Status(ErrorCode::kFailedToParse, "line " + std::to_string(in_->line()) +
                                                   ": --jsonArray input must be a JSON array");
    }
    started_ = true;
    CAIRN_ASSIGN_OR_RETURN(any, SkipSpace());
  }
  if (array_) {
    // Between elements: commas, then a value or the closing bracket.
    for (;;) {
      if (!any) {
        return Status(ErrorCode::kFailedToParse,
                      "line " + std::to_string(in_->line()) + ": the JSON array is not closed");
      }
      CAIRN_RETURN_IF_ERROR(in_->Peek(&c).status());
      if (c != ',') break;
      CAIRN_RETURN_IF_ERROR(in_->Get(&c).status());
      CAIRN_ASSIGN_OR_RETURN(any, SkipSpace());
    }
    if (c == ']') {
      CAIRN_RETURN_IF_ERROR(in_->Get(&c).status());
      finished_ = true;
      CAIRN_ASSIGN_OR_RETURN(bool trailing, SkipSpace());
      if (trailing) {
        *line = in_->line();
        *text = "unexpected text after the JSON array";
        return Kind::kBad;
      }
      return Kind::kEnd;
    }
  } else if (!any) {
    return Kind::kEnd;
  }
  *line = in_->line();
  CAIRN_RETURN_IF_ERROR(in_->Get(&c).status());
  if (c != '{') {
    if (array_) {
      CAIRN_ASSIGN_OR_RETURN(bool closed, Capture(c, text));
      if (!closed) finished_ = true;
      *text = "an element of the array is not a document: " + text->substr(0, 40);
    } else {
      CAIRN_RETURN_IF_ERROR(SkipLine());
      *text = std::string("expected a JSON document, found '") + c + "'" +
              (c == '[' ? " (a JSON array needs --jsonArray)" : "");
    }
    return Kind::kBad;
  }
  CAIRN_ASSIGN_OR_RETURN(bool closed, Capture(c, text));
  if (!closed) {
    finished_ = true;
    *text = "the input ends inside the document that starts here";
    return Kind::kBad;
  }
  return Kind::kDocument;
}

}  // namespace cairn::tools
