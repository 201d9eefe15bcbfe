// Fuzz target `key_string`: the order-preserving index key encoding (index/key_string.h) on
// arbitrary values, and its decoder on arbitrary bytes. Input (fuzz_support.h): documents whose
// top-level values are encoded. Checks the encoding's documented invariants:
//   - the order of two values (CompareValues) is the bytewise order of their encodings;
//   - a descending encoding is the ascending one with every byte inverted;
//   - DecodeKey gives back a value equal to the original, and SplitKey finds each field of a
//     compound key.
// The raw input is also handed to DecodeKey and SplitKey as a stored key (what the validate
// command and a corrupt index feed them).
#include <cstring>
#include <string>
#include <vector>

#include "common/bson_compare.h"
#include "index/key_string.h"
#include "tests/fuzz/fuzz_support.h"

using namespace cairn;

namespace {

constexpr size_t kMaxValues = 48;

int Sign(int c) { return (c > 0) - (c < 0); }

// {"v": value} (for the failure report).
BsonDoc Wrap(const bson_iter_t* value) {
  BsonDoc doc;
  AppendIter(doc.get(), "v", value);
  return doc;
}

void CheckRoundTrip(const bson_iter_t* value, const std::string& ascending) {
  std::string descending;
  index::AppendValue(&descending, value, /*descending=*/true);
  if (descending.size() != ascending.size()) {
    fuzz::Fail("descending key length differs from ascending", {Wrap(value).view()});
  }
  for (size_t i = 0; i < ascending.size(); ++i) {
    if (static_cast<uint8_t>(descending[i]) != static_cast<uint8_t>(~ascending[i])) {
      fuzz::Fail("descending key is not the inverted ascending key", {Wrap(value).view()});
    }
  }
  // A regex decodes through libbson's bson_append_regex, which keeps only the known option
  // letters, sorted: the decoded value is compared with the original so canonicalized (the one
  // place a key's value and a stored value may differ; mongod's options are sorted by drivers).
  BsonDoc canonical_regex;
  bson_iter_t reference = *value;
  if (BSON_ITER_HOLDS_REGEX(value)) {
    const char* options = nullptr;
    const char* pattern = bson_iter_regex(value, &options);
    bson_append_regex(canonical_regex.get(), "", 0, pattern, options);
    canonical_regex.view().Init(&reference);
    bson_iter_next(&reference);
  }
  for (bool desc : {false, true}) {
    const std::string& key = desc ? descending : ascending;
    Result<BsonDoc> decoded = index::DecodeKey(key, {desc});
    if (!decoded.ok()) {
      fuzz::Fail("DecodeKey refuses a key AppendValue made: " + decoded.status().ToString(),
                 {Wrap(value).view()});
    }
    bson_iter_t it;
    if (!decoded->view().Init(&it) || !bson_iter_next(&it) || CompareValues(&it, &reference) != 0) {
      fuzz::Fail("DecodeKey gives a value unequal to the encoded one",
                 {Wrap(value).view(), decoded->view()});
    }
    std::string again, expected;
    index::AppendValue(&again, &it, desc);
    index::AppendValue(&expected, &reference, desc);
    if (again != expected) {
      fuzz::Fail("a decoded value encodes to other bytes", {Wrap(value).view(), decoded->view()});
    }
  }
  // A compound key of the value twice, ascending then descending, splits back into both.
  std::vector<std::string_view> fields;
  std::string compound = ascending + descending;
  if (!index::SplitKey(compound, {false, true}, &fields) || fields.size() != 2 ||
      fields[0] != ascending || fields[1] != descending) {
    fuzz::Fail("SplitKey does not split a compound key into its fields", {Wrap(value).view()});
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The raw bytes as stored keys of one to three fields.
  std::string_view raw(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> fields;
  const std::vector<bool> shapes[] = {{false}, {true}, {false, true}, {true, false, false}};
  for (const std::vector<bool>& shape : shapes) {
    (void)index::SplitKey(raw, shape, &fields);
    Result<BsonDoc> decoded = index::DecodeKey(raw, shape);
    if (decoded.ok() && !fuzz::IsValidResult(decoded->view())) {
      fuzz::Fail("DecodeKey produced invalid BSON from raw bytes");
    }
  }

  std::vector<BsonDoc> docs = fuzz::ReadDocuments(data, size, 8);
  std::vector<bson_iter_t> values;
  for (const BsonDoc& doc : docs) {
    bson_iter_t it;
    if (!doc.view().Init(&it)) continue;
    while (values.size() < kMaxValues && bson_iter_next(&it)) values.push_back(it);
  }
  std::vector<std::string> keys(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    index::AppendValue(&keys[i], &values[i]);
    CheckRoundTrip(&values[i], keys[i]);
  }
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = i + 1; j < values.size(); ++j) {
      int by_value = Sign(CompareValues(&values[i], &values[j]));
      int by_bytes = Sign(keys[i].compare(keys[j]));
      if (by_value != by_bytes) {
        fuzz::Fail("key order differs from value order (CompareValues " + std::to_string(by_value) +
                       ", key bytes " + std::to_string(by_bytes) + ")",
                   {Wrap(&values[i]).view(), Wrap(&values[j]).view()});
      }
    }
  }
  return 0;
}
