// The matching rules of tests/spec/README.md; tests/spec/run.mjs implements the same ones.
#include "tests/spec/spec_match.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "common/bson_compare.h"

namespace cairn::spec {

namespace {

std::string Join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string Where(const std::string& path) { return path.empty() ? "<root>" : path; }

std::string Fail(const std::string& path, const std::string& message) {
  return Where(path) + ": " + message;
}

// A document whose one field is a special operator ("$$type", ...): that field's name, else "".
std::string_view SpecialOperator(const bson_iter_t* it, bson_iter_t* argument) {
  if (!BSON_ITER_HOLDS_DOCUMENT(it)) return {};
  bson_iter_t inner;
  if (!bson_iter_recurse(it, &inner) || !bson_iter_next(&inner)) return {};
  std::string_view key = IterKey(&inner);
  if (key.substr(0, 2) != "$$") return {};
  *argument = inner;
  if (bson_iter_next(&inner)) return {};  // more than one field: an ordinary document
  return key;
}

bool IsPlainNumber(bson_type_t type) {
  return type == BSON_TYPE_INT32 || type == BSON_TYPE_INT64 || type == BSON_TYPE_DOUBLE;
}

std::string DecimalString(const bson_iter_t* it) {
  bson_decimal128_t value;
  bson_iter_decimal128(it, &value);
  char text[BSON_DECIMAL128_STRING];
  bson_decimal128_to_string(&value, text);
  return text;
}

std::string SortedOptions(const char* options) {
  std::string sorted = options ? options : "";
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

// Same type and value, for every type but documents, arrays and plain numbers: the server's own
// comparison (common/bson_compare.h), except that a Decimal128 must print the same (1.0 is not
// 1.00 here) and regex options match in any order.
bool ScalarsEqual(const bson_iter_t* e, const bson_iter_t* a) {
  bson_type_t type = bson_iter_type(e);
  if (type != bson_iter_type(a)) return false;
  if (type == BSON_TYPE_DECIMAL128) return DecimalString(e) == DecimalString(a);
  if (type == BSON_TYPE_REGEX) {
    const char *eo = nullptr, *ao = nullptr;
    const char* ep = bson_iter_regex(e, &eo);
    const char* ap = bson_iter_regex(a, &ao);
    return std::strcmp(ep, ap) == 0 && SortedOptions(eo) == SortedOptions(ao);
  }
  return ValuesEqual(e, a);
}

std::string MatchDocument(BsonView expected, BsonView actual, bool root, const std::string& path);

// A special operator in value position (not $$exists, which only a field may hold).
std::string MatchOperator(std::string_view op, const bson_iter_t* argument,
                          const bson_iter_t* actual, bool root, const std::string& path) {
  if (op == "$$type") {
    std::vector<std::string> wanted;
    if (BSON_ITER_HOLDS_UTF8(argument)) {
      wanted.emplace_back(IterUtf8(argument));
    } else if (BSON_ITER_HOLDS_ARRAY(argument)) {
      bson_iter_t names;
      bson_iter_recurse(argument, &names);
      while (bson_iter_next(&names)) {
        if (!BSON_ITER_HOLDS_UTF8(&names)) return Fail(path, "$$type takes type names (strings)");
        wanted.emplace_back(IterUtf8(&names));
      }
    } else {
      return Fail(path, "$$type takes a type name or an array of them");
    }
    if (actual == nullptr) return Fail(path, "expected a value of type " + wanted[0] + ", absent");
    bson_type_t type = bson_iter_type(actual);
    std::string name(BsonTypeName(type));
    bool number = IsPlainNumber(type) || type == BSON_TYPE_DECIMAL128;
    for (const std::string& w : wanted) {
      if (w == name || (number && w == "number")) return "";
    }
    std::string list;
    for (const std::string& w : wanted) list += (list.empty() ? "" : "|") + w;
    return Fail(path, "expected type " + list + ", got " + name + " " + ValueJson(actual));
  }
  if (op == "$$unsetOrMatches") {
    if (actual == nullptr) return "";
    return MatchValue(argument, actual, root, path);
  }
  if (op == "$$matchAsRoot") {
    if (!BSON_ITER_HOLDS_DOCUMENT(argument)) return Fail(path, "$$matchAsRoot takes a document");
    return MatchValue(argument, actual, /*root=*/true, path);
  }
  if (op == "$$exists") return Fail(path, "$$exists can only be the value of a field");
  return Fail(path, "unknown special operator " + std::string(op));
}

std::string MatchDocument(BsonView expected, BsonView actual, bool root, const std::string& path) {
  bson_iter_t e;
  expected.Init(&e);
  while (bson_iter_next(&e)) {
    std::string_view key = IterKey(&e);
    std::string field_path = Join(path, key);
    bson_iter_t a;
    bool present = actual.Find(key, &a);
    bson_iter_t argument;
    std::string_view op = SpecialOperator(&e, &argument);
    std::string result;
    if (op == "$$exists") {
      bool want = bson_iter_as_bool(&argument);
      if (want && !present) return Fail(field_path, "expected the field to exist, absent");
      if (!want && present) {
        return Fail(field_path, "expected the field to be absent, got " + ValueJson(&a));
      }
    } else if (!op.empty()) {
      result = MatchOperator(op, &argument, present ? &a : nullptr, false, field_path);
    } else if (!present) {
      return Fail(field_path, "missing field (expected " + ValueJson(&e) + ")");
    } else {
      result = MatchValue(&e, &a, false, field_path);
    }
    if (!result.empty()) return result;
  }
  if (!root) {
    bson_iter_t a;
    actual.Init(&a);
    while (bson_iter_next(&a)) {
      bson_iter_t unused;
      if (!expected.Find(IterKey(&a), &unused)) {
        return Fail(Join(path, IterKey(&a)), "unexpected extra field with value " + ValueJson(&a));
      }
    }
  }
  return "";
}

}  // namespace

std::string ValueJson(const bson_iter_t* it) {
  if (it == nullptr) return "<absent>";
  BsonDoc wrapper;
  AppendIter(wrapper.get(), "v", it);
  std::string json = wrapper.ToJson();  // { "v" : X }
  return json.size() >= 10 ? json.substr(8, json.size() - 10) : json;
}

std::string MatchValue(const bson_iter_t* expected, const bson_iter_t* actual, bool root,
                       const std::string& path) {
  bson_iter_t argument;
  std::string_view op = SpecialOperator(expected, &argument);
  if (!op.empty()) return MatchOperator(op, &argument, actual, root, path);
  if (actual == nullptr) return Fail(path, "missing (expected " + ValueJson(expected) + ")");
  bson_type_t type = bson_iter_type(expected);
  bson_type_t actual_type = bson_iter_type(actual);
  auto mismatch = [&] {
    return Fail(path, "expected " + ValueJson(expected) + ", got " + ValueJson(actual));
  };
  if (type == BSON_TYPE_DOCUMENT) {
    if (actual_type != BSON_TYPE_DOCUMENT) return mismatch();
    return MatchDocument(IterDocument(expected), IterDocument(actual), root, path);
  }
  if (type == BSON_TYPE_ARRAY) {
    if (actual_type != BSON_TYPE_ARRAY) return mismatch();
    uint32_t expected_count = IterDocument(expected).CountKeys();
    uint32_t actual_count = IterDocument(actual).CountKeys();
    if (expected_count != actual_count) {
      return Fail(path, "expected " + std::to_string(expected_count) + " elements, got " +
                            std::to_string(actual_count) + ": " + ValueJson(actual));
    }
    bson_iter_t e, a;
    bson_iter_recurse(expected, &e);
    bson_iter_recurse(actual, &a);
    for (size_t index = 0; bson_iter_next(&e) && bson_iter_next(&a); ++index) {
      std::string result = MatchValue(&e, &a, false, Join(path, std::to_string(index)));
      if (!result.empty()) return result;
    }
    return "";
  }
  if (IsPlainNumber(type)) {
    if (!IsPlainNumber(actual_type) || !ValuesEqual(expected, actual)) return mismatch();
    return "";
  }
  if (!ScalarsEqual(expected, actual)) return mismatch();
  return "";
}

std::string MatchRoot(BsonView expected, BsonView actual) {
  return MatchDocument(expected, actual, /*root=*/true, "");
}

}  // namespace cairn::spec
