// Test support for the expression specifications: Evaluate() parses an expression written as
// JSON, evaluates it against a document written as JSON and returns the result wrapped as
// {"r": <value>} ({} when missing), or the Status that stopped parsing or evaluation. Cases
// compare results byte for byte with an expected {"r": ...} written as JSON, so the BSON type
// counts: 5 is int32, 5.0 double, {"$numberLong": "5"} int64.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "common/bson_doc.h"
#include "common/status.h"
#include "query/expression/expression.h"
#include "tests/unit/query/bson_test_util.h"

namespace cairn::query::testing {

struct Evaluated {
  Status status;
  BsonDoc result;  // {"r": value}, or {} when the value is missing
};

// libbson's JSON reader takes any {"$type": ...} for the legacy binary form, so expressions are
// written with "$type" spelled "$__type" for the reader and renamed back here.
inline void CopyRenamingType(BsonView in, bson_t* out) {
  bson_iter_t it;
  in.Init(&it);
  while (bson_iter_next(&it)) {
    std::string key(IterKey(&it));
    if (key == "$__type") key = "$type";
    if (BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_t child;
      bool array = BSON_ITER_HOLDS_ARRAY(&it);
      if (array) {
        bson_append_array_begin(out, key.c_str(), static_cast<int>(key.size()), &child);
      } else {
        bson_append_document_begin(out, key.c_str(), static_cast<int>(key.size()), &child);
      }
      CopyRenamingType(IterDocument(&it), &child);
      if (array) {
        bson_append_array_end(out, &child);
      } else {
        bson_append_document_end(out, &child);
      }
    } else {
      AppendIter(out, key, &it);
    }
  }
}

inline BsonDoc ExpressionFromJson(std::string json) {
  for (size_t at = json.find("\"$type\""); at != std::string::npos;
       at = json.find("\"$type\"", at)) {
    json.replace(at, 7, "\"$__type\"");
  }
  BsonDoc raw = BsonDoc::FromJson(json);
  BsonDoc out;
  CopyRenamingType(raw.view(), out.get());
  return out;
}

inline Evaluated Evaluate(const std::string& expr_json, const std::string& doc_json = "{}",
                          const std::string& let_json = "{}") {
  Evaluated out;
  BsonDoc expr = ExpressionFromJson("{\"e\": " + expr_json + "}");
  BsonDoc doc = BsonDoc::FromJson(doc_json);
  BsonDoc let = BsonDoc::FromJson(let_json);
  auto context = ExpressionContext::MakeAt(1700000000000, let.view());
  if (!context.ok()) {
    out.status = context.status();
    return out;
  }
  ParseContext ctx(*context);
  bson_iter_t it;
  expr.view().Init(&it);
  bson_iter_next(&it);
  Result<ExpressionPtr> parsed = ParseOperand(&it, ctx);
  if (!parsed.ok()) {
    out.status = parsed.status();
    return out;
  }
  Variables vars(ctx.num_slots());
  vars.SetRoot(doc.view());
  Result<Value> value = (*parsed)->Evaluate(&vars);
  if (!value.ok()) {
    out.status = value.status();
    return out;
  }
  value->AppendTo(out.result.get(), "r");
  return out;
}

// One table row: the expression, the input document, and either the expected {"r": ...}
// (JSON) or an error code with (optionally) its exact message.
struct Case {
  const char* expr;
  const char* doc;
  const char* expected;  // {"r": ...}, "{}" for missing; nullptr when an error is expected
  int code = 0;
  const char* message = nullptr;
};

inline void PrintTo(const Case& c, std::ostream* os) { *os << c.expr << " on " << c.doc; }

inline void CheckCase(const Case& c) {
  Evaluated got = Evaluate(c.expr, c.doc);
  if (c.expected != nullptr) {
    ASSERT_TRUE(got.status.ok()) << c.expr << ": " << got.status.ToString();
    BsonDoc expected = BsonDoc::FromJson(c.expected);
    EXPECT_EQ(Canonical(got.result.view()), Canonical(expected.view())) << c.expr;
    return;
  }
  ASSERT_FALSE(got.status.ok()) << c.expr << " gave " << Canonical(got.result.view());
  EXPECT_EQ(got.status.code_number(), c.code) << c.expr << ": " << got.status.reason();
  if (c.message != nullptr) {
    EXPECT_EQ(got.status.reason(), c.message) << c.expr;
  }
}

}  // namespace cairn::query::testing

// Declares the table-driven specification `Suite`: every Case of the array `cases` checked with
// CheckCase. Use at namespace scope, after the table.
#define CAIRN_EXPRESSION_CASES(Suite, cases)                                                 \
  class Suite : public ::testing::TestWithParam<::cairn::query::testing::Case> {};           \
  TEST_P(Suite, ShouldEvaluateAsMongoDB) { ::cairn::query::testing::CheckCase(GetParam()); } \
  INSTANTIATE_TEST_SUITE_P(Expression, Suite, ::testing::ValuesIn(cases))
