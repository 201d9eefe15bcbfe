// The fuzz targets' shared input decoding and reporting (fuzz_support.h).
#include "tests/fuzz/fuzz_support.h"

#include <bson/bson.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/bson_validate.h"
#include "query/collation/collator.h"
#include "query/expression/expression.h"

namespace cairn::fuzz {

namespace {

// A fixed $$NOW (2024-01-01T00:00:00Z): the same input evaluates the same way on every run.
constexpr int64_t kFixedNowMillis = 1704067200000;

void ReadJson(const uint8_t* data, size_t size, size_t max_docs, std::vector<BsonDoc>* out) {
  bson_json_reader_t* reader = bson_json_data_reader_new(/*allow_multiple=*/false, size);
  bson_json_data_reader_ingest(reader, data, size);
  bson_t doc = BSON_INITIALIZER;
  bson_error_t error;
  while (out->size() < max_docs) {
    bson_reinit(&doc);
    if (bson_json_reader_read(reader, &doc, &error) != 1) break;
    BsonView view(&doc);
    if (!IsValidBson(view)) break;
    out->emplace_back(view);
  }
  bson_destroy(&doc);
  bson_json_reader_destroy(reader);
}

void ReadRaw(const uint8_t* data, size_t size, size_t max_docs, std::vector<BsonDoc>* out) {
  while (out->size() < max_docs && size >= 5) {
    uint32_t length;
    std::memcpy(&length, data, 4);
    length = BSON_UINT32_FROM_LE(length);
    if (length < 5 || length > size) break;
    if (!ValidateBson(data, length).ok()) break;
    out->emplace_back(BsonView(data, length));
    data += length;
    size -= length;
  }
}

}  // namespace

std::vector<BsonDoc> ReadDocuments(const uint8_t* data, size_t size, size_t max_docs) {
  std::vector<BsonDoc> docs;
  if (size > 0 && data[0] == '{') {
    ReadJson(data, size, max_docs, &docs);
  } else {
    ReadRaw(data, size, max_docs, &docs);
  }
  return docs;
}

BsonView SubDocument(BsonView doc, std::string_view name, bool array) {
  bson_iter_t it;
  if (!doc.Find(name, &it)) return BsonView();
  if (BSON_ITER_HOLDS_DOCUMENT(&it) || (array && BSON_ITER_HOLDS_ARRAY(&it))) {
    return IterDocument(&it);
  }
  return BsonView();
}

bool Flag(BsonView doc, std::string_view name) {
  bson_iter_t it;
  return doc.Find(name, &it) && bson_iter_as_bool(&it);
}

bool ReadCommand(const uint8_t* data, size_t size, size_t max_docs, CommandInput* input) {
  input->owned = ReadDocuments(data, size, max_docs);
  if (input->owned.empty()) return false;
  input->command = input->owned[0].view();
  for (size_t i = 1; i < input->owned.size(); ++i) input->docs.push_back(input->owned[i].view());
  auto context =
      query::ExpressionContext::MakeAt(kFixedNowMillis, SubDocument(input->command, "let"));
  if (!context.ok()) return false;
  auto with_collation = query::ApplyQueryCollation(std::move(context).value(),
                                                   SubDocument(input->command, "collation"));
  if (!with_collation.ok()) return false;
  input->context = std::move(with_collation).value();
  return true;
}

bool IsValidBson(BsonView doc) { return ValidateBson(doc.data(), doc.size()).ok(); }

bool IsValidResult(BsonView doc) {
  Status status = ValidateBson(doc.data(), doc.size());
  return status.ok() || status.code() == ErrorCode::kOverflow;
}

void Fail(std::string_view what, const std::vector<BsonView>& involved) {
  std::fprintf(stderr, "==== fuzz invariant broken: %.*s\n", static_cast<int>(what.size()),
               what.data());
  for (BsonView doc : involved) std::fprintf(stderr, "  %s\n", doc.ToJson().c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace cairn::fuzz
