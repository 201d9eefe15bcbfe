// Shared by the libFuzzer targets in tests/fuzz/: how a fuzz input becomes BSON documents, the
// command-style options the targets read from their first document (`let`, `collation`), and
// how a target reports a broken invariant. Test code only; never linked into cairnd.
//
// An input is a sequence of BSON documents, in one of two forms:
//   - Extended JSON text (the input starts with '{'): one document after another, as the seed
//     corpus is written (readable, and libFuzzer's dictionary mutations of operator names keep
//     it well-formed);
//   - raw BSON: documents back to back, as they arrive on the wire.
// Every document goes through ValidateBson before a target sees it, as everything a client sends
// does in the server: the parsers under test never get bytes the server would have refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"

namespace cairn::query {
class ExpressionContext;
}

namespace cairn::fuzz {

// The documents of the input, at most `max_docs`; reading stops at the first malformed one.
std::vector<BsonDoc> ReadDocuments(const uint8_t* data, size_t size, size_t max_docs);

// The value of top-level field `name` when it is a document (or, with `array`, an array):
// a view of its bytes, or an empty view when missing or of another type.
BsonView SubDocument(BsonView doc, std::string_view name, bool array = false);
// Whether top-level field `name` is present and true in bson_iter_as_bool's sense.
bool Flag(BsonView doc, std::string_view name);

// A command-shaped input: the first document holds a command's arguments (its `let` and
// `collation` make `context`, with a fixed $$NOW so runs repeat), the others are the documents it
// runs over.
struct CommandInput {
  std::vector<BsonDoc> owned;
  BsonView command;
  std::shared_ptr<const query::ExpressionContext> context;
  std::vector<BsonView> docs;
};
// False when the input holds no document, or when the command's `let` or `collation` is refused
// (the command would have failed with that error).
bool ReadCommand(const uint8_t* data, size_t size, size_t max_docs, CommandInput* input);

// Whether `doc` is valid BSON by the server's own check (what the server accepts from clients).
bool IsValidBson(BsonView doc);
// The same for what the server builds (results, replies): nested deeper than maxBSONDepth is
// allowed, since the write path refuses such a document with its own error (CheckStorageDepth).
bool IsValidResult(BsonView doc);

// A broken invariant: prints `what` and the documents involved (Extended JSON), then aborts, so
// libFuzzer saves the input as a crash.
[[noreturn]] void Fail(std::string_view what, const std::vector<BsonView>& involved = {});

}  // namespace cairn::fuzz
