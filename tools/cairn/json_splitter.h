// Splits mongoimport's JSON input into one text per document, each with the line it starts on:
// a stream of documents (one per line, as mongoexport writes them, or spread over several
// lines), or with --jsonArray one top-level array of documents. Only the nesting of braces and
// brackets outside strings is tracked; each document's text is then parsed by libbson, so a bad
// document is reported by its line and the next one is read normally.
#pragma once

#include <string>

#include "common/status.h"
#include "tools/cairn/line_reader.h"

namespace cairn::tools {

class JsonSplitter {
 public:
  JsonSplitter(LineReader* in, bool array) : in_(in), array_(array) {}

  enum class Kind {
    kDocument,  // *text: one document's JSON
    kBad,       // *text: why the input at *line is not a document; reading can go on
    kEnd,
  };
  // An error Status only for what ends the input (I/O, or a --jsonArray that is not an array).
  Result<Kind> Next(std::string* text, int64_t* line);

 private:
  Result<bool> SkipSpace();  // false at the end
  // Reads one value that starts with `first` (already consumed) up to where its nesting closes
  // (or, for a scalar in an array, up to the next ',' or ']').
  Result<bool> Capture(char first, std::string* text);
  Status SkipLine();

  LineReader* in_;
  bool array_;
  bool started_ = false;  // the array's '[' was read
  bool finished_ = false;
};

}  // namespace cairn::tools
