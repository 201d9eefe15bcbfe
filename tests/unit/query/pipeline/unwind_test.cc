// Specification of $unwind: MongoDB's parse errors, one document per array element (the element
// in the array's place), scalars passing whole, missing/null/[] dropped or preserved, and
// includeArrayIndex as NumberLong (null when there is no array).
#include <gtest/gtest.h>

#include "query/pipeline/pipeline.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

using testing::ExpectError;
using testing::ExpectOutput;

struct UnwindErrorCase {
  const char* unwind;
  int code;
  const char* reason;
};

void PrintTo(const UnwindErrorCase& c, std::ostream* os) { *os << c.unwind; }

class UnwindParseError : public ::testing::TestWithParam<UnwindErrorCase> {};

TEST_P(UnwindParseError, ShouldAnswerMongoDBsError) {
  const UnwindErrorCase& c = GetParam();
  ExpectError(std::string(R"([{"$unwind": )") + c.unwind + "}]", {}, c.code, c.reason);
}

const UnwindErrorCase kUnwindErrors[] = {
    {R"(1)", 15981,
     "expected either a string or an object as specification for $unwind stage, got int"},
    {R"("a")", 28818, "path option to $unwind stage should be prefixed with a '$': a"},
    {R"({})", 28812, "no path specified to $unwind stage"},
    {R"({"path": 1})", 28808, "expected a string as the path for $unwind stage, got int"},
    {R"({"path": "$a", "preserveNullAndEmptyArrays": 1})", 28809,
     "expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage, got int"},
    {R"({"path": "$a", "includeArrayIndex": ""})", 28810,
     "expected a non-empty string for the includeArrayIndex  option to $unwind stage, got string"},
    {R"({"path": "$a", "includeArrayIndex": "$i"})", 28822,
     "includeArrayIndex option to $unwind stage should not be prefixed with a '$': $i"},
    {R"({"path": "$a", "foo": 1})", 28811, "unrecognized option to $unwind stage: foo"},
};

INSTANTIATE_TEST_SUITE_P(Unwind, UnwindParseError, ::testing::ValuesIn(kUnwindErrors));

TEST(Unwind, ShouldEmitOneDocumentPerElementInTheArraysPlace) {
  ExpectOutput(R"([{"$unwind": "$a"}])", {R"({"_id": 1, "a": [1, {"x": 2}], "b": 3})"},
               {R"({"_id": 1, "a": 1, "b": 3})", R"({"_id": 1, "a": {"x": 2}, "b": 3})"});
}

TEST(Unwind, ShouldPassAScalarAsOneDocumentAndDropMissingNullAndEmpty) {
  ExpectOutput(R"([{"$unwind": "$a"}])",
               {R"({"_id": 1, "a": 5})", R"({"_id": 2})", R"({"_id": 3, "a": null})",
                R"({"_id": 4, "a": []})"},
               {R"({"_id": 1, "a": 5})"});
}

TEST(Unwind, ShouldPreserveNullAndEmptyRemovingTheEmptyArray) {
  ExpectOutput(
      R"([{"$unwind": {"path": "$a", "preserveNullAndEmptyArrays": true, "includeArrayIndex": "i"}}])",
      {R"({"_id": 1, "a": [7, 8]})", R"({"_id": 2})", R"({"_id": 3, "a": null})",
       R"({"_id": 4, "a": []})", R"({"_id": 5, "a": "s"})"},
      {R"({"_id": 1, "a": 7, "i": {"$numberLong": "0"}})",
       R"({"_id": 1, "a": 8, "i": {"$numberLong": "1"}})", R"({"_id": 2, "i": null})",
       R"({"_id": 3, "a": null, "i": null})", R"({"_id": 4, "i": null})",
       R"({"_id": 5, "a": "s", "i": null})"});
}

TEST(Unwind, ShouldFollowEmbeddedDocumentsButNotArraysOnThePath) {
  ExpectOutput(R"([{"$unwind": "$a.b"}])",
               {R"({"_id": 1, "a": {"b": [1, 2], "c": 0}})", R"({"_id": 2, "a": [{"b": [1]}]})"},
               {R"({"_id": 1, "a": {"b": 1, "c": 0}})", R"({"_id": 1, "a": {"b": 2, "c": 0}})"});
}

TEST(Unwind, ShouldOverwriteAnExistingIndexFieldInPlace) {
  ExpectOutput(R"([{"$unwind": {"path": "$a", "includeArrayIndex": "i"}}])",
               {R"({"i": "x", "a": [1]})"}, {R"({"i": {"$numberLong": "0"}, "a": 1})"});
}

}  // namespace
}  // namespace cairn::query
