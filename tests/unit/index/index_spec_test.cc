// Specification of index/index_spec and key patterns: the errors createIndexes answers for bad
// specs (codes and messages as MongoDB), the stored form listIndexes prints, the partial filter
// operators allowed, and the identical / equivalent / different comparison.
#include "index/index_spec.h"

#include <gtest/gtest.h>

#include <string>

#include "index/key_pattern.h"

namespace cairn::index {
namespace {

// Runs the three createIndexes steps on one spec.
Result<BsonDoc> Prepare(const char* json) {
  BsonDoc requested = BsonDoc::FromJson(json);
  CAIRN_ASSIGN_OR_RETURN(BsonDoc validated, ValidateIndexSpec(requested.view()));
  CAIRN_RETURN_IF_ERROR(ValidateIndexSpecTtl(requested.view()));
  return FinalizeIndexSpec(validated.view());
}

TEST(IndexSpecTest, ShouldRefuseBadSpecsAsMongoDb) {
  struct Case {
    const char* spec;
    int code;
    const char* message;
  };
  const Case cases[] = {
      {R"({"key": {"z": 0}, "name": "z_0"})", 67,
       "Error in specification { key: { z: 0 }, name: \"z_0\" } :: caused by :: Values in the "
       "index key pattern cannot be 0."},
      {R"({"key": {"": 1}, "name": "ef"})", 67,
       "Error in specification { key: { : 1 }, name: \"ef\" } :: caused by :: Index keys cannot "
       "be an empty field."},
      {R"({"key": {"$x": 1}, "name": "dx"})", 67,
       "Error in specification { key: { $x: 1 }, name: \"dx\" } :: caused by :: Index key "
       "contains an illegal field name: field name starts with '$'."},
      {R"({"key": {"u": 1}, "bogus": true, "name": "u_1"})", 197,
       "Error in specification { key: { u: 1 }, bogus: true, name: \"u_1\" } :: caused by :: "
       "The field 'bogus' is not valid for an index specification. Specification: { key: { u: 1 "
       "}, bogus: true, name: \"u_1\" }"},
      {R"({"key": {"n": 1}, "name": ""})", 67,
       "Error in specification { key: { n: 1 }, name: \"\", v: 2 } :: caused by :: index name "
       "cannot be empty"},
      {R"({"key": {"s": 1}, "name": "*"})", 2, "The index name '*' is not valid."},
      {R"({"key": {"a": 1}, "name": "_id_"})", 2,
       "The index name '_id_' is reserved for the _id index, which must have key pattern {_id: "
       "1}, found key: { a: 1 }"},
      {R"({"key": {"_id": 1}, "name": "_id_", "sparse": true})", 197,
       "The field 'sparse' is not valid for an _id index specification. Specification: { key: { "
       "_id: 1 }, name: \"_id_\", sparse: true, v: 2 }"},
      {R"({"key": {"w": 1}, "expireAfterSeconds": -1, "name": "w_1"})", 67,
       ". Index spec: { key: { w: 1 }, expireAfterSeconds: -1, name: \"w_1\" } :: caused by :: "
       "TTL index 'expireAfterSeconds' option cannot be less than 0"},
      {R"({"key": {"w": 1, "a": 1}, "expireAfterSeconds": 10, "name": "w_1_a_1"})", 67,
       "TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: { "
       "key: { w: 1, a: 1 }, expireAfterSeconds: 10, name: \"w_1_a_1\" }"},
      {R"({"key": {"p": 1}, "sparse": true, "partialFilterExpression": {"a": 1}, "name": "p_1"})",
       67,
       "Error in specification { key: { p: 1 }, sparse: true, partialFilterExpression: { a: 1 }, "
       "name: \"p_1\", v: 2 } :: caused by :: cannot mix \"partialFilterExpression\" and "
       "\"sparse\" options"},
      {R"({"key": {"a": 1, "a": -1}, "name": "dup"})", 2, nullptr},
      {R"({"key": {"a": true}, "name": "b"})", 67,
       "Error in specification { key: { a: true }, name: \"b\" } :: caused by :: Values in v:2 "
       "index key pattern cannot be of type bool. Only numbers > 0, numbers < 0, and strings are "
       "allowed."},
      {R"({"key": {"a": "nope"}, "name": "n"})", 67,
       "Error in specification { key: { a: \"nope\" }, name: \"n\" } :: caused by :: Unknown "
       "index plugin 'nope'"},
      {R"({"key": {"a": 1}})", 9,
       "Error in specification { key: { a: 1 } } :: caused by :: The 'name' field is a required "
       "property of an index specification"},
      {R"({"name": "x"})", 9,
       "Error in specification { name: \"x\" } :: caused by :: The 'key' field is a required "
       "property of an index specification"},
      {R"({"key": {"a": 1}, "name": "a", "unique": "yes"})", 14,
       "Error in specification { key: { a: 1 }, name: \"a\", unique: \"yes\" } :: caused by :: "
       "The field 'unique has value unique: \"yes\", which is not convertible to bool"},
      {R"({"key": {"a": 1}, "name": "a", "hidden": 1})", 14,
       "Error in specification { key: { a: 1 }, name: \"a\", hidden: 1 } :: caused by :: The "
       "field 'name' must be a bool, but got int"},
      {R"({"key": {"a": 1}, "name": "a", "partialFilterExpression": {"a": {"$ne": 1}}})", 67,
       "Error in specification { key: { a: 1 }, name: \"a\", partialFilterExpression: { a: { "
       "$ne: 1 } }, v: 2 } :: caused by :: Expression not supported in partial index: $not\n"
       "    a $eq 1\n"},
      {R"({"key": {"a": 1, "t": "text"}, "name": "t"})", 67, nullptr},  // compound text
  };
  for (const Case& c : cases) {
    Result<BsonDoc> result = Prepare(c.spec);
    ASSERT_FALSE(result.ok()) << c.spec;
    EXPECT_EQ(result.status().code_number(), c.code)
        << c.spec << ": " << result.status().ToString();
    if (c.message != nullptr) {
      EXPECT_EQ(result.status().reason(), c.message) << c.spec;
    }
  }
}

TEST(IndexSpecTest, ShouldStoreSpecsInMongoDbsNormalForm) {
  struct Case {
    const char* spec;
    const char* stored;
  };
  const Case cases[] = {
      {R"({"key": {"a": 1}, "name": "a_1"})", R"({ v: 2, key: { a: 1 }, name: "a_1" })"},
      {R"({"name": "a_1", "key": {"a": 1}, "unique": 1, "sparse": true})",
       R"({ v: 2, unique: true, key: { a: 1 }, name: "a_1", sparse: true })"},
      {R"({"key": {"a": 1}, "name": "a_1", "unique": false, "hidden": false})",
       R"({ v: 2, key: { a: 1 }, name: "a_1" })"},
      {R"({"key": {"a": 1}, "name": "a_1", "hidden": true, "ns": "db.c",
           "partialFilterExpression": {"b": {"$exists": true}}})",
       R"({ v: 2, hidden: true, key: { a: 1 }, name: "a_1", partialFilterExpression: { b: { )"
       R"($exists: true } } })"},
      {R"({"key": {"d": 1}, "name": "d_1", "expireAfterSeconds": 60})",
       R"({ v: 2, key: { d: 1 }, name: "d_1", expireAfterSeconds: 60 })"},
  };
  for (const Case& c : cases) {
    Result<BsonDoc> result = Prepare(c.spec);
    ASSERT_TRUE(result.ok()) << c.spec << ": " << result.status().ToString();
    EXPECT_EQ(ToShellString(result->view()), c.stored) << c.spec;
  }
}

TEST(IndexSpecTest, ShouldAllowMongoDb70PartialFilterOperatorsOnly) {
  const char* allowed[] = {R"({"a": {"$exists": true}})",
                           R"({"a": {"$in": [1, 2]}})",
                           R"({"a": {"$type": "string"}})",
                           R"({"$or": [{"a": 1}, {"b": {"$gt": 1}}]})",
                           R"({"a": {"$gte": 1, "$lt": 5}, "b": null})",
                           R"({"$and": [{"$or": [{"a": 1}, {"b": 2}]}, {"c": 3}]})",
                           R"({})"};
  for (const char* json : allowed) {
    EXPECT_TRUE(ValidatePartialFilter(BsonDoc::FromJson(json).view()).ok()) << json;
  }
  struct Refused {
    const char* filter;
    int code;
    const char* message;
  };
  const Refused refused[] = {
      {R"({"a": {"$exists": false}})", 67,
       "Expression not supported in partial index: $not\n    a exists\n"},
      {R"({"$nor": [{"a": 1}]})", 67,
       "Expression not supported in partial index: $nor\n    a $eq 1\n"},
      {R"({"a": {"$regex": "x"}})", 67, "Expression not supported in partial index: a regex /x/\n"},
      {R"({"$expr": {"$eq": ["$a", 1]}})", 224, "$expr is not allowed in this context"},
      {R"({"$where": "1"})", 2, "$where is not allowed in this context"},
      {R"({"$and": [{"$and": [{"$and": [{"$and": [{"a": 1}]}]}]}]})", 67,
       "partialFilterExpression depth may not exceed 4"},
  };
  for (const Refused& r : refused) {
    Status status = ValidatePartialFilter(BsonDoc::FromJson(r.filter).view());
    ASSERT_FALSE(status.ok()) << r.filter;
    EXPECT_EQ(status.code_number(), r.code) << r.filter;
    EXPECT_EQ(status.reason(), r.message) << r.filter;
  }
}

TEST(IndexSpecTest, ShouldCompareSpecsAsMongoDb) {
  auto stored = [](const char* json) { return Prepare(json).value(); };
  BsonDoc base = stored(R"({"key": {"a": 1}, "name": "a_1"})");
  EXPECT_EQ(CompareIndexSpecs(stored(R"({"key": {"a": 1.0}, "name": "x"})").view(), base.view()),
            SpecMatch::kIdentical);
  EXPECT_EQ(
      CompareIndexSpecs(stored(R"({"key": {"a": 1}, "name": "a_1", "background": true})").view(),
                        base.view()),
      SpecMatch::kIdentical);
  EXPECT_EQ(CompareIndexSpecs(stored(R"({"key": {"a": 1}, "name": "a_1", "hidden": true})").view(),
                              base.view()),
            SpecMatch::kEquivalent);
  EXPECT_EQ(CompareIndexSpecs(stored(R"({"key": {"a": 1}, "name": "a_1", "unique": true})").view(),
                              base.view()),
            SpecMatch::kDifferent);
  EXPECT_EQ(CompareIndexSpecs(stored(R"({"key": {"a": -1}, "name": "a_1"})").view(), base.view()),
            SpecMatch::kDifferent);
  EXPECT_EQ(
      CompareIndexSpecs(
          stored(R"({"key": {"a": 1}, "name": "p", "partialFilterExpression": {"b": 1}})").view(),
          base.view()),
      SpecMatch::kDifferent);
}

TEST(KeyPatternTest, ShouldNameIndexesAsDriversDo) {
  EXPECT_EQ(DefaultIndexName(BsonDoc::FromJson(R"({"a": 1, "b": -1})").view()), "a_1_b_-1");
  EXPECT_EQ(DefaultIndexName(BsonDoc::FromJson(R"({"a.b": 1})").view()), "a.b_1");
  EXPECT_EQ(DefaultIndexName(BsonDoc::FromJson(R"({"t": "text"})").view()), "t_text");
  EXPECT_EQ(DefaultIndexName(BsonDoc::FromJson(R"({"a": 1.5})").view()), "a_1.5");
  EXPECT_TRUE(IsIdIndexPattern(BsonDoc::FromJson(R"({"_id": 1})").view()));
  EXPECT_FALSE(IsIdIndexPattern(BsonDoc::FromJson(R"({"_id": -1})").view()));
  EXPECT_FALSE(IsIdIndexPattern(BsonDoc::FromJson(R"({"_id": 1, "a": 1})").view()));
}

}  // namespace
}  // namespace cairn::index
