// Specification of find projections (query/projection): inclusion and exclusion of top-level
// and dotted fields, the _id rules, arrays of documents, field order, and MongoDB's errors.
#include "query/projection/projection.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/unit/query/bson_test_util.h"

namespace cairn::query {
namespace {

using testing::Canonical;

struct Case {
  const char* name;
  const char* doc;
  const char* projection;
  const char* expected;  // nullptr when Parse fails
  int code = 0;
  const char* message = nullptr;
};

class ProjectionCases : public ::testing::TestWithParam<Case> {};

TEST_P(ProjectionCases, ShouldProjectAsMongoDB) {
  const Case& c = GetParam();
  BsonDoc spec = BsonDoc::FromJson(c.projection);
  Result<Projection> projection = Projection::Parse(spec.view());
  if (c.expected == nullptr) {
    ASSERT_FALSE(projection.ok()) << c.name;
    EXPECT_EQ(projection.status().code_number(), c.code) << projection.status().ToString();
    if (c.message != nullptr) {
      EXPECT_EQ(projection.status().reason(), c.message);
    }
    return;
  }
  ASSERT_TRUE(projection.ok()) << c.name << ": " << projection.status().ToString();
  BsonDoc doc = BsonDoc::FromJson(c.doc);
  BsonDoc out;
  ASSERT_TRUE(projection->Apply(doc.view(), out.get()).ok());
  EXPECT_EQ(Canonical(out.view()), Canonical(BsonDoc::FromJson(c.expected).view())) << c.name;
}

const Case kCases[] = {
    // Identity and _id.
    {"EmptyIsIdentity", R"({"_id": 1, "a": 1, "b": 2})", "{}", R"({"_id": 1, "a": 1, "b": 2})"},
    {"InclusionKeepsIdByDefault", R"({"_id": 1, "a": 1, "b": 2})", R"({"a": 1})",
     R"({"_id": 1, "a": 1})"},
    {"InclusionCanExcludeId", R"({"_id": 1, "a": 1, "b": 2})", R"({"a": 1, "_id": 0})",
     R"({"a": 1})"},
    {"ExclusionCanIncludeId", R"({"_id": 1, "a": 1, "b": 2})", R"({"_id": 1, "a": 0})",
     R"({"_id": 1, "b": 2})"},
    {"OnlyIdIncludedIsInclusion", R"({"_id": 1, "a": 1})", R"({"_id": 1})", R"({"_id": 1})"},
    {"OnlyIdExcludedIsExclusion", R"({"_id": 1, "a": 1})", R"({"_id": 0})", R"({"a": 1})"},
    {"ExclusionOfFields", R"({"_id": 1, "a": 1, "b": 2, "c": 3})", R"({"a": 0, "c": false})",
     R"({"_id": 1, "b": 2})"},
    // Truthiness of the value.
    {"ZeroLongExcludes", R"({"_id": 1, "a": 1, "b": 2, "c": 3, "d": 4})",
     R"({"a": true, "b": 5, "c": -1.5, "d": {"$numberLong": "0"}})", nullptr, 31254,
     "Cannot do exclusion on field d in inclusion projection"},
    {"NonZeroDoubleIncludes", R"({"_id": 1, "a": 1, "b": 2})", R"({"b": 0.5})",
     R"({"_id": 1, "b": 2})"},
    // Field order follows the document.
    {"OutputKeepsDocumentOrder", R"({"_id": 1, "z": 1, "a": 2, "m": 3})",
     R"({"m": 1, "z": 1, "a": 1})", R"({"_id": 1, "z": 1, "a": 2, "m": 3})"},
    {"IdKeepsItsPositionInDocument", R"({"a": 1, "_id": 7, "b": 2})", R"({"b": 1})",
     R"({"_id": 7, "b": 2})"},
    // Dotted paths.
    {"DottedInclusion", R"({"_id": 1, "a": {"b": 1, "c": 2}, "d": 3})", R"({"a.b": 1})",
     R"({"_id": 1, "a": {"b": 1}})"},
    {"DottedExclusion", R"({"_id": 1, "a": {"b": 1, "c": 2}, "d": 3})", R"({"a.b": 0})",
     R"({"_id": 1, "a": {"c": 2}, "d": 3})"},
    {"NestedSubProjectionEqualsDotted", R"({"_id": 1, "a": {"b": 1, "c": 2}})",
     R"({"a": {"c": 1}})", R"({"_id": 1, "a": {"c": 2}})"},
    {"DottedInclusionOfMissingSubfieldKeepsEmptyDocument", R"({"_id": 1, "a": {"c": 2}})",
     R"({"a.b": 1})", R"({"_id": 1, "a": {}})"},
    {"DottedInclusionThroughScalarDropsField", R"({"_id": 1, "a": 2})", R"({"a.b": 1})",
     R"({"_id": 1})"},
    {"DottedInclusionThroughArrayOfDocuments", R"({"_id": 1, "a": [{"b": 1, "c": 2}, {"c": 3}]})",
     R"({"a.b": 1})", R"({"_id": 1, "a": [{"b": 1}, {}]})"},
    {"DottedInclusionDropsScalarArrayElements",
     R"({"_id": 1, "a": [1, {"b": 2}, "x", [{"b": 3, "c": 4}]]})", R"({"a.b": 1})",
     R"({"_id": 1, "a": [{"b": 2}, [{"b": 3}]]})"},
    {"DottedExclusionThroughArrayKeepsScalars", R"({"_id": 1, "a": [1, {"b": 2, "c": 3}]})",
     R"({"a.b": 0})", R"({"_id": 1, "a": [1, {"c": 3}]})"},
    {"WholeSubdocumentInclusion", R"({"_id": 1, "a": {"b": {"c": 1}}, "x": 1})", R"({"a": 1})",
     R"({"_id": 1, "a": {"b": {"c": 1}}})"},
    {"DottedIdInclusionCountsAsSpecifyingId", R"({"_id": {"x": 1, "y": 2}, "a": 1})",
     R"({"_id.x": 1, "a": 1})", R"({"_id": {"x": 1}, "a": 1})"},
    // Errors.
    {"MixingExclusionIntoInclusion", "{}", R"({"a": 1, "b": 0})", nullptr, 31254,
     "Cannot do exclusion on field b in inclusion projection"},
    {"MixingInclusionIntoExclusion", "{}", R"({"a": 0, "b": 1})", nullptr, 31253,
     "Cannot do inclusion on field b in exclusion projection"},
    {"NestedMixReportsLocalName", "{}", R"({"a": {"b": 0, "c": 1}})", nullptr, 31253,
     "Cannot do inclusion on field c in exclusion projection"},
    {"PathCollisionThroughLeaf", "{}", R"({"a": 1, "a.b": 1})", nullptr, 31249,
     "Path collision at a.b remaining portion b"},
    {"PathCollisionAtLeaf", "{}", R"({"a.b": 1, "a": 1})", nullptr, 31250, "Path collision at a"},
    {"EmptySubProjection", "{}", R"({"a": {}})", nullptr, 51270,
     "An empty sub-projection is not a valid value. Found empty object at path"},
    {"EmptyFieldName", "{}", R"({"": 1})", nullptr, 40352,
     "FieldPath cannot be constructed with empty string"},
    {"EmptyPathComponent", "{}", R"({"a..b": 1})", nullptr, 15998,
     "FieldPath field names may not be empty strings."},
    {"DollarPrefixedComponent", "{}", R"({"a.$b": 1})", nullptr, 16410,
     "FieldPath field names may not start with '$'. Consider using $getField or $setField."},
    // DBRef's field names are the '$'-prefixed ones FieldPath accepts.
    {"DBRefFieldNames", R"({"_id": 1, "r": {"x": 1}})", R"({"r.$id": 1, "r.$ref": 1})",
     R"({"_id": 1, "r": {}})"},
    {"UnknownDollarSubObjectIsAnUnknownExpression", "{}", R"({"a": {"$bogus": 1}})", nullptr, 31325,
     "Unknown expression $bogus"},
    // Outside find, {$slice: n} is the aggregation expression, which takes 2 or 3 arguments.
    {"FindSliceIsTheAggregationExpression", "{}", R"({"a": {"$slice": 2}})", nullptr, 28667,
     "Expression $slice takes at least 2 arguments, and at most 3, but 1 were passed in."},
    // $elemMatch and `a.$` are find-only: find_projection_test.cc.
    // Literals and expressions are computed fields: projection_expression_test.cc.
    {"Literal", R"({"_id": 1, "a": 1})", R"({"a": "x"})", R"({"_id": 1, "a": "x"})"},
    {"Expression", R"({"_id": 1, "b": 1})", R"({"a": {"$add": [1, 2]}})", R"({"_id": 1, "a": 3})"},
};

INSTANTIATE_TEST_SUITE_P(Spec, ProjectionCases, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.name);
                         });

TEST(ProjectionTest, ShouldReportIdentityOnlyForEmptySpec) {
  EXPECT_TRUE(Projection::Parse(BsonDoc::FromJson("{}").view())->IsIdentity());
  EXPECT_FALSE(Projection::Parse(BsonDoc::FromJson(R"({"_id": 0})").view())->IsIdentity());
  EXPECT_FALSE(Projection::Parse(BsonDoc::FromJson(R"({"a": 1})").view())->IsIdentity());
  // {_id: 1, a: 0} excludes a; {_id: 1} alone includes only _id.
  EXPECT_FALSE(Projection::Parse(BsonDoc::FromJson(R"({"_id": 1})").view())->IsIdentity());
}

TEST(ProjectionTest, ShouldOutliveItsSpecBuffer) {
  Result<Projection> projection = [] {
    BsonDoc spec = BsonDoc::FromJson(R"({"a": 1})");
    return Projection::Parse(spec.view());
  }();
  ASSERT_TRUE(projection.ok());
  BsonDoc doc = BsonDoc::FromJson(R"({"_id": 1, "a": 2, "b": 3})");
  BsonDoc out;
  ASSERT_TRUE(projection->Apply(doc.view(), out.get()).ok());
  EXPECT_EQ(Canonical(out.view()), Canonical(BsonDoc::FromJson(R"({"_id": 1, "a": 2})").view()));
}

}  // namespace
}  // namespace cairn::query
