// Specification of $where in Cairn, which has no JavaScript engine: refused exactly as a
// MongoDB 7.0 mongod with server-side JavaScript disabled refuses it (the argument checked
// first, then Location6108304), and placement errors as any mongod gives them.
#include <gtest/gtest.h>

#include "tests/unit/query/matcher/matcher_test_util.h"

namespace cairn::query {
namespace {

using testing::ErrorCase;

class WhereErrors : public ::testing::TestWithParam<ErrorCase> {};
TEST_P(WhereErrors, ShouldRefuseAsMongodWithoutJavaScript) {
  testing::ExpectParseError(GetParam());
}

constexpr ErrorCode kBadValue = ErrorCode::kBadValue;
constexpr ErrorCode kNoScriptEngine = ErrorCode::kLocation6108304;

const ErrorCase kErrors[] = {
    {R"({"$where": "this.a == 1"})", kNoScriptEngine, "no globalScriptEngine in $where parsing"},
    {R"({"$where": {"$code": "function() { return true; }"}})", kNoScriptEngine,
     "no globalScriptEngine in $where parsing"},
    {R"({"a": 1, "$where": "true"})", kNoScriptEngine, "no globalScriptEngine in $where parsing"},
    {R"({"$or": [{"$where": "true"}]})", kNoScriptEngine,
     "no globalScriptEngine in $where parsing"},
    {R"({"$where": {"$code": "true", "$scope": {}}})", ErrorCode::kLocation4649201,
     "$where no longer supports deprecated BSON type CodeWScope"},
    {R"({"$where": ""})", kBadValue, "code for $where cannot be empty"},
    {R"({"$where": 1})", kBadValue, "$where got bad type"},
    {R"({"$where": null})", kBadValue, "$where got bad type"},
    {R"({"a": {"$where": "true"}})", kBadValue, "$where cannot be applied to a field"},
    {R"({"a": {"$elemMatch": {"$where": "true"}}})", kBadValue,
     "$where can only be applied to the top-level document"},
    {R"({"a": {"$elemMatch": {"b": 1, "$where": "true"}}})", kBadValue,
     "$where can only be applied to the top-level document"},
};
INSTANTIATE_TEST_SUITE_P(ParseErrors, WhereErrors, ::testing::ValuesIn(kErrors));

}  // namespace
}  // namespace cairn::query
