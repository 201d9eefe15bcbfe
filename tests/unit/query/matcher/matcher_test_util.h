// Test support for the matcher's specification tables: filters written as relaxed JSON, the
// {filter, document, matches?} and {filter, code, message} case rows, and the checks each row
// runs. libbson's JSON reader takes "$type", "$regex" and "$options" keys for legacy Extended
// JSON, so filters spell them "$type_", "$regex_", "$options_" and Filter() renames them.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "common/bson_doc.h"
#include "common/status.h"
#include "query/matcher/matcher.h"

namespace cairn::query::testing {

inline void RenameTypeKeys(const bson_t* in, bson_t* out) {
  bson_iter_t it;
  bson_iter_init(&it, in);
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key.size() > 1 && key.front() == '$' && key.back() == '_') key.pop_back();
    if (BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_t sub_in, sub_out;
      BsonView view = IterDocument(&it);
      bson_init_static(&sub_in, view.data(), view.size());
      if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
        bson_append_document_begin(out, key.c_str(), -1, &sub_out);
        RenameTypeKeys(&sub_in, &sub_out);
        bson_append_document_end(out, &sub_out);
      } else {
        bson_append_array_begin(out, key.c_str(), -1, &sub_out);
        RenameTypeKeys(&sub_in, &sub_out);
        bson_append_array_end(out, &sub_out);
      }
    } else {
      bson_append_iter(out, key.c_str(), -1, &it);
    }
  }
}

inline BsonDoc Filter(const char* json) {
  BsonDoc parsed = BsonDoc::FromJson(json);
  BsonDoc out;
  RenameTypeKeys(parsed.get(), out.get());
  return out;
}

struct MatchCase {
  const char* filter;
  const char* doc;
  bool matches;
};

inline void PrintTo(const MatchCase& c, std::ostream* os) {
  *os << "filter " << c.filter << " doc " << c.doc << " → " << (c.matches ? "match" : "no match");
}

// The filter parses and gives `matches` on the document.
inline void ExpectMatch(const MatchCase& c) {
  BsonDoc filter = Filter(c.filter);
  BsonDoc doc = BsonDoc::FromJson(c.doc);
  Result<Matcher> matcher = Matcher::Parse(filter.view());
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  EXPECT_EQ(*matcher->Matches(doc.view()), c.matches);
}

struct ErrorCase {
  const char* filter;
  ErrorCode code;
  const char* message;
};

inline void PrintTo(const ErrorCase& c, std::ostream* os) { *os << "filter " << c.filter; }

// The filter is refused with MongoDB's code and message.
inline void ExpectParseError(const ErrorCase& c) {
  BsonDoc filter = Filter(c.filter);
  Result<Matcher> matcher = Matcher::Parse(filter.view());
  ASSERT_FALSE(matcher.ok());
  EXPECT_EQ(matcher.status().code(), c.code) << matcher.status().ToString();
  EXPECT_EQ(matcher.status().reason(), c.message);
}

}  // namespace cairn::query::testing
