// Specification of the query matcher: {filter, document, matches?} tables per operator family,
// checked against MongoDB 7.0's documented and observed semantics, plus parse errors (code and
// message) and the Matcher API (MatchesAll, IdEquality, filter copy lifetime).
#include "query/matcher/matcher.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "common/bson_compare.h"
#include "tests/unit/query/matcher/matcher_test_util.h"

namespace cairn::query {
namespace {

using testing::ErrorCase;
using testing::ExpectMatch;
using testing::ExpectParseError;
using testing::Filter;
using testing::MatchCase;

class MatcherSpec : public ::testing::TestWithParam<MatchCase> {};

TEST_P(MatcherSpec, ShouldMatchAsMongoDB) { ExpectMatch(GetParam()); }

// Implicit equality and $eq: numbers by value, arrays by element or whole, null and missing.
const MatchCase kEquality[] = {
    {R"({"a": 1})", R"({"a": 1})", true},
    {R"({"a": 1})", R"({"a": 2})", false},
    {R"({"a": 1})", R"({"a": 1.0})", true},
    {R"({"a": 1})", R"({"a": {"$numberLong": "1"}})", true},
    {R"({"a": 1})", R"({"a": {"$numberDecimal": "1.0"}})", true},
    {R"({"a": 1})", R"({"a": "1"})", false},
    {R"({"a": 1})", R"({"b": 1})", false},
    {R"({"a": 1})", R"({"a": [2, 1]})", true},
    {R"({"a": [1, 2]})", R"({"a": [1, 2]})", true},
    {R"({"a": [1, 2]})", R"({"a": [2, 1]})", false},
    {R"({"a": [1, 2]})", R"({"a": [[1, 2], 3]})", true},
    {R"({"a": [1]})", R"({"a": 1})", false},
    {R"({"a": []})", R"({"a": []})", true},
    {R"({"a": []})", R"({"a": [[]]})", true},
    {R"({"a": null})", R"({})", true},
    {R"({"a": null})", R"({"a": null})", true},
    {R"({"a": null})", R"({"a": [1, null]})", true},
    {R"({"a": null})", R"({"a": [1, 2]})", false},
    {R"({"a": null})", R"({"a": {"$undefined": true}})", true},
    {R"({"a": null})", R"({"a": 0})", false},
    {R"({"a": null})", R"({"a": false})", false},
    {R"({"a": {"b": 1, "c": 2}})", R"({"a": {"b": 1, "c": 2}})", true},
    {R"({"a": {"b": 1, "c": 2}})", R"({"a": {"c": 2, "b": 1}})", false},
    {R"({"a": {"b": 1}})", R"({"a": {"b": 1, "c": 2}})", false},
    {R"({"a": {"b": 1}})", R"({"a": {"b": 1.0}})", true},
    {R"({"a": {"b": 1}})", R"({"a": [{"b": 2}, {"b": 1}]})", true},
    {R"({"a": {}})", R"({"a": {}})", true},
    {R"({"a": {"$eq": {"b": 1}}})", R"({"a": {"b": 1}})", true},
    {R"({"a": {"$eq": [1]}})", R"({"a": [[1]]})", true},
    {R"({"a": {"$eq": 5}})", R"({"a": [4, 5]})", true},
    {R"({"a": "x"})", R"({"a": {"$symbol": "x"}})", true},
    {R"({"a": {"$numberDouble": "NaN"}})", R"({"a": {"$numberDouble": "NaN"}})", true},
    {R"({"a": {"$date": "2020-01-01T00:00:00Z"}})", R"({"a": {"$date": "2020-01-01T00:00:00Z"}})",
     true},
    {R"({"a": {"$oid": "5f1b0c0e0000000000000001"}})",
     R"({"a": {"$oid": "5f1b0c0e0000000000000001"}})", true},
    {R"({"a": true})", R"({"a": 1})", false},
    {R"({"a": {"$ref": "c", "$id": 1}})", R"({"a": {"$ref": "c", "$id": 1}})", true},
};
INSTANTIATE_TEST_SUITE_P(Equality, MatcherSpec, ::testing::ValuesIn(kEquality));

// Dotted paths through documents, arrays of documents and numeric components.
const MatchCase kPaths[] = {
    {R"({"a.b": 1})", R"({"a": {"b": 1}})", true},
    {R"({"a.b": 1})", R"({"a": {"b": 2}})", false},
    {R"({"a.b": 1})", R"({"a": [{"b": 2}, {"b": 1}]})", true},
    {R"({"a.b": 1})", R"({"a": [{"b": [3, 1]}]})", true},
    {R"({"a.b": 1})", R"({"a": [[{"b": 1}]]})", false},
    {R"({"a.b": 1})", R"({"a": 1})", false},
    {R"({"a.b.c": 1})", R"({"a": {"b": [{"c": 1}]}})", true},
    {R"({"a.b.c": 1})", R"({"a": [{"b": [{"c": 2}, {"c": 1}]}]})", true},
    {R"({"a.0": 1})", R"({"a": [1, 2]})", true},
    {R"({"a.1": 1})", R"({"a": [1, 2]})", false},
    {R"({"a.1": 2})", R"({"a": [1, 2]})", true},
    {R"({"a.5": 1})", R"({"a": [1, 2]})", false},
    {R"({"a.0": 1})", R"({"a": {"0": 1}})", true},
    {R"({"a.0.b": 1})", R"({"a": [{"b": 1}]})", true},
    {R"({"a.0.b": 1})", R"({"a": [{"b": 2}, {"b": 1}]})", false},
    {R"({"a.0.b": 1})", R"({"a": [{"0": {"b": 1}}]})", true},
    {R"({"a.0.0": 1})", R"({"a": [[1]]})", true},
    {R"({"a.0": [1]})", R"({"a": [[1]]})", true},
    {R"({"a.0": 1})", R"({"a": [[1]]})", false},
    {R"({"a.b": null})", R"({"a": 5})", true},
    {R"({"a.b": null})", R"({})", true},
    {R"({"a.b": null})", R"({"a": [1, 2]})", false},
    {R"({"a.b": null})", R"({"a": [{"b": 1}, {"c": 1}]})", true},
    {R"({"a.b": null})", R"({"a": [{"b": 1}]})", false},
    {R"({"a.b": null})", R"({"a": []})", false},
    {R"({"a.b": {"$ne": null}})", R"({"a": [{"b": 1}, {"c": 1}]})", false},
    {R"({"": 1})", R"({"": 1})", true},
};
INSTANTIATE_TEST_SUITE_P(DottedPaths, MatcherSpec, ::testing::ValuesIn(kPaths));

// $ne is the negation of $eq; $gt/$gte/$lt/$lte compare within a type bracket.
const MatchCase kComparison[] = {
    {R"({"a": {"$ne": 1}})", R"({})", true},
    {R"({"a": {"$ne": 1}})", R"({"a": 2})", true},
    {R"({"a": {"$ne": 1}})", R"({"a": 1.0})", false},
    {R"({"a": {"$ne": 1}})", R"({"a": [1, 2]})", false},
    {R"({"a": {"$ne": 1}})", R"({"a": [2, 3]})", true},
    {R"({"a": {"$ne": null}})", R"({})", false},
    {R"({"a": {"$ne": null}})", R"({"a": 1})", true},
    {R"({"a": {"$gt": 1}})", R"({"a": 2})", true},
    {R"({"a": {"$gt": 1}})", R"({"a": 1})", false},
    {R"({"a": {"$gt": 1}})", R"({"a": "2"})", false},
    {R"({"a": {"$gt": 1}})", R"({"a": {"$numberLong": "2"}})", true},
    {R"({"a": {"$gt": 1}})", R"({"a": [0, 5]})", true},
    {R"({"a": {"$gt": 1}})", R"({"a": [0, 1]})", false},
    {R"({"a": {"$gt": 1}})", R"({})", false},
    {R"({"a": {"$gte": 1}})", R"({"a": 1.0})", true},
    {R"({"a": {"$lt": 1}})", R"({"a": 0.5})", true},
    {R"({"a": {"$lt": 1}})", R"({"a": null})", false},
    {R"({"a": {"$lte": 1}})", R"({"a": {"$numberDecimal": "1"}})", true},
    {R"({"a": {"$lt": "b"}})", R"({"a": "a"})", true},
    {R"({"a": {"$lt": "b"}})", R"({"a": 1})", false},
    {R"({"a": {"$gt": "a"}})", R"({"a": "ab"})", true},
    {R"({"a": {"$gte": null}})", R"({})", true},
    {R"({"a": {"$gte": null}})", R"({"a": null})", true},
    {R"({"a": {"$gte": null}})", R"({"a": 1})", false},
    {R"({"a": {"$gt": null}})", R"({"a": null})", false},
    {R"({"a": {"$gt": null}})", R"({})", false},
    {R"({"a": {"$lte": null}})", R"({})", true},
    {R"({"a": {"$lt": null}})", R"({})", false},
    {R"({"a": {"$gt": {"$minKey": 1}}})", R"({"a": "x"})", true},
    {R"({"a": {"$gt": {"$minKey": 1}}})", R"({"a": {"$minKey": 1}})", false},
    {R"({"a": {"$gte": {"$minKey": 1}}})", R"({"a": {"$minKey": 1}})", true},
    {R"({"a": {"$lt": {"$maxKey": 1}}})", R"({"a": {"b": 1}})", true},
    {R"({"a": {"$lt": {"$maxKey": 1}}})", R"({})", true},
    {R"({"a": {"$gt": 1, "$lt": 5}})", R"({"a": 3})", true},
    {R"({"a": {"$gt": 1, "$lt": 5}})", R"({"a": [0, 10]})", true},
    {R"({"a": {"$gt": 1, "$lt": 5}})", R"({"a": 10})", false},
    {R"({"a": {"$gte": {"$numberDouble": "NaN"}}})", R"({"a": {"$numberDouble": "NaN"}})", true},
    {R"({"a": {"$gt": {"$numberDouble": "NaN"}}})", R"({"a": {"$numberDouble": "NaN"}})", false},
    {R"({"a": {"$lt": 1}})", R"({"a": {"$numberDouble": "NaN"}})", false},
    {R"({"a": {"$gt": {"$numberDouble": "-Infinity"}}})", R"({"a": -1e308})", true},
    {R"({"a": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}})",
     R"({"a": {"$date": "2021-01-01T00:00:00Z"}})", true},
    {R"({"a": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}})", R"({"a": 1e20})", false},
    {R"({"a": {"$lt": [2]}})", R"({"a": [1]})", true},
    {R"({"a": {"$gt": {"b": 1}}})", R"({"a": {"b": 2}})", true},
    {R"({"a": {"$gt": false}})", R"({"a": true})", true},
    {R"({"a.b": {"$gt": 1}})", R"({"a": [{"b": 0}, {"b": 3}]})", true},
};
INSTANTIATE_TEST_SUITE_P(Comparison, MatcherSpec, ::testing::ValuesIn(kComparison));

const MatchCase kInExists[] = {
    {R"({"a": {"$in": [1, 2]}})", R"({"a": 2})", true},
    {R"({"a": {"$in": [1, 2]}})", R"({"a": 2.0})", true},
    {R"({"a": {"$in": [1, 2]}})", R"({"a": [3, 2]})", true},
    {R"({"a": {"$in": [1, 2]}})", R"({"a": 3})", false},
    {R"({"a": {"$in": [1, 2]}})", R"({})", false},
    {R"({"a": {"$in": [null]}})", R"({})", true},
    {R"({"a": {"$in": [null, 5]}})", R"({"a": {"$undefined": true}})", true},
    {R"({"a": {"$in": []}})", R"({"a": 1})", false},
    {R"({"a": {"$in": [[1, 2]]}})", R"({"a": [1, 2]})", true},
    {R"({"a": {"$in": [{"b": 1}]}})", R"({"a": {"b": 1}})", true},
    {R"({"a": {"$in": ["x", 1, "y"]}})", R"({"a": "y"})", true},
    {R"({"a.b": {"$in": [5]}})", R"({"a": [{"b": 1}, {"b": 5}]})", true},
    {R"({"a": {"$nin": [1, 2]}})", R"({})", true},
    {R"({"a": {"$nin": [1, 2]}})", R"({"a": [3, 1]})", false},
    {R"({"a": {"$nin": [1, 2]}})", R"({"a": 3})", true},
    {R"({"a": {"$nin": [null]}})", R"({})", false},
    {R"({"a": {"$exists": true}})", R"({"a": null})", true},
    {R"({"a": {"$exists": true}})", R"({})", false},
    {R"({"a": {"$exists": false}})", R"({})", true},
    {R"({"a": {"$exists": false}})", R"({"a": null})", false},
    {R"({"a": {"$exists": 0}})", R"({"a": 1})", false},
    {R"({"a": {"$exists": 1}})", R"({"a": 1})", true},
    {R"({"a": {"$exists": null}})", R"({})", true},
    {R"({"a": {"$exists": "no"}})", R"({"a": 1})", true},
    {R"({"a": {"$exists": true}})", R"({"a": []})", true},
    {R"({"a.b": {"$exists": true}})", R"({"a": [{"c": 1}, {"b": null}]})", true},
    {R"({"a.b": {"$exists": true}})", R"({"a": [1]})", false},
    {R"({"a.b": {"$exists": false}})", R"({"a": [1]})", true},
    {R"({"a.b": {"$exists": false}})", R"({"a": [{"b": 1}, {}]})", false},
};
INSTANTIATE_TEST_SUITE_P(InAndExists, MatcherSpec, ::testing::ValuesIn(kInExists));

const MatchCase kLogical[] = {
    {R"({})", R"({"a": 1})", true},
    {R"({"a": 1, "b": 2})", R"({"a": 1, "b": 2})", true},
    {R"({"a": 1, "b": 2})", R"({"a": 1, "b": 3})", false},
    {R"({"$and": [{"a": 1}, {"b": 2}]})", R"({"a": 1, "b": 2})", true},
    {R"({"$and": [{"a": 1}, {"b": 2}]})", R"({"a": 1})", false},
    {R"({"$or": [{"a": 1}, {"b": 2}]})", R"({"b": 2})", true},
    {R"({"$or": [{"a": 1}, {"b": 2}]})", R"({"c": 1})", false},
    {R"({"$nor": [{"a": 1}, {"b": 2}]})", R"({"c": 1})", true},
    {R"({"$nor": [{"a": 1}]})", R"({"a": [1]})", false},
    {R"({"$or": [{"$and": [{"a": 1}, {"b": 1}]}, {"c": 1}]})", R"({"a": 1, "b": 1})", true},
    {R"({"a": {"$not": {"$gt": 1}}})", R"({"a": 0})", true},
    {R"({"a": {"$not": {"$gt": 1}}})", R"({})", true},
    {R"({"a": {"$not": {"$gt": 1}}})", R"({"a": [0, 5]})", false},
    {R"({"a": {"$not": {"$gt": 1, "$lt": 5}}})", R"({"a": 7})", true},
    {R"({"a": {"$not": {"$eq": 1}}})", R"({"a": [1, 2]})", false},
    {R"({"$comment": "note"})", R"({"a": 1})", true},
    {R"({"$comment": {"any": ["type", 1]}, "a": 1})", R"({"a": 1})", true},
    {R"({"$or": [{"$comment": 5}, {"a": 2}]})", R"({"a": 1})", true},
    {R"({"$comment": "note", "a": 2})", R"({"a": 1})", false},
    {R"({"$alwaysTrue": 1})", R"({})", true},
    {R"({"$alwaysFalse": 1})", R"({})", false},
};
INSTANTIATE_TEST_SUITE_P(Logical, MatcherSpec, ::testing::ValuesIn(kLogical));

const MatchCase kArrayOperators[] = {
    {R"({"a": {"$elemMatch": {"$gt": 1, "$lt": 5}}})", R"({"a": [0, 10]})", false},
    {R"({"a": {"$elemMatch": {"$gt": 1, "$lt": 5}}})", R"({"a": [0, 3]})", true},
    {R"({"a": {"$elemMatch": {"$gt": 1}}})", R"({"a": 5})", false},
    {R"({"a": {"$elemMatch": {"b": 1, "c": 2}}})", R"({"a": [{"b": 1}, {"c": 2}]})", false},
    {R"({"a": {"$elemMatch": {"b": 1, "c": 2}}})", R"({"a": [{"b": 1, "c": 2}]})", true},
    {R"({"a": {"$elemMatch": {"b": {"$gt": 1}}}})", R"({"a": [{"b": 0}, {"b": 2}]})", true},
    {R"({"a": {"$elemMatch": {"$or": [{"b": 1}, {"c": 1}]}}})", R"({"a": [{"c": 1}]})", true},
    {R"({"a.b": {"$elemMatch": {"$eq": 1}}})", R"({"a": [{"b": [1]}]})", true},
    {R"({"a": {"$elemMatch": {"$not": {"$gt": 3}}}})", R"({"a": [5, 2]})", true},
    {R"({"a": {"$elemMatch": {"$elemMatch": {"$gt": 3}}}})", R"({"a": [[1], [5]]})", true},
    {R"({"a": {"$size": 2}})", R"({"a": [1, 2]})", true},
    {R"({"a": {"$size": 2}})", R"({"a": [[1, 2]]})", false},
    {R"({"a": {"$size": 0}})", R"({"a": []})", true},
    {R"({"a": {"$size": 1}})", R"({"a": "x"})", false},
    {R"({"a": {"$size": 2.0}})", R"({"a": [1, 2]})", true},
    {R"({"a.b": {"$size": 1}})", R"({"a": [{"b": [1, 2]}, {"b": [1]}]})", true},
    {R"({"a": {"$all": [1, 2]}})", R"({"a": [2, 3, 1]})", true},
    {R"({"a": {"$all": [1, 2]}})", R"({"a": [1]})", false},
    {R"({"a": {"$all": []}})", R"({"a": []})", false},
    {R"({"a": {"$all": [1]}})", R"({"a": 1})", true},
    {R"({"a": {"$all": [[1, 2]]}})", R"({"a": [1, 2]})", true},
    {R"({"a": {"$all": [null]}})", R"({})", true},
    {R"({"a": {"$all": [{"$elemMatch": {"b": 1}}, {"$elemMatch": {"c": 1}}]}})",
     R"({"a": [{"b": 1}, {"c": 1}]})", true},
    {R"({"a": {"$all": [{"$elemMatch": {"b": 1}}, {"$elemMatch": {"c": 1}}]}})",
     R"({"a": [{"b": 1}]})", false},
};
INSTANTIATE_TEST_SUITE_P(ArrayOperators, MatcherSpec, ::testing::ValuesIn(kArrayOperators));

const MatchCase kTypeMod[] = {
    {R"({"a": {"$type_": "string"}})", R"({"a": "x"})", true},
    {R"({"a": {"$type_": {"$numberInt": "2"}}})", R"({"a": "x"})", true},
    {R"({"a": {"$type_": {"$numberDouble": "2.0"}}})", R"({"a": "x"})", true},
    {R"({"a": {"$type_": "number"}})", R"({"a": {"$numberLong": "5"}})", true},
    {R"({"a": {"$type_": "number"}})", R"({"a": "5"})", false},
    {R"({"a": {"$type_": "array"}})", R"({"a": []})", true},
    {R"({"a": {"$type_": "int"}})", R"({"a": [1.5, 2]})", true},
    {R"({"a": {"$type_": "double"}})", R"({"a": 1})", false},
    {R"({"a": {"$type_": "objectId"}})", R"({"a": {"$oid": "5f1b0c0e0000000000000001"}})", true},
    {R"({"a": {"$type_": {"$numberInt": "-1"}}})", R"({"a": {"$minKey": 1}})", true},
    {R"({"a": {"$type_": "maxKey"}})", R"({"a": {"$maxKey": 1}})", true},
    {R"({"a": {"$type_": "null"}})", R"({})", false},
    {R"({"a": {"$mod": [4, 0]}})", R"({"a": 8})", true},
    {R"({"a": {"$mod": [4, 0]}})", R"({"a": 8.9})", true},
    {R"({"a": {"$mod": [4, 1]}})", R"({"a": 8})", false},
    {R"({"a": {"$mod": [4, -3]}})", R"({"a": -7})", true},
    {R"({"a": {"$mod": [4, 0]}})", R"({"a": "8"})", false},
    {R"({"a": {"$mod": [4, 0]}})", R"({"a": {"$numberDouble": "NaN"}})", false},
    {R"({"a": {"$mod": [4.5, 1]}})", R"({"a": 5})", true},
    {R"({"a": {"$mod": [-1, 0]}})", R"({"a": {"$numberLong": "-9223372036854775808"}})", true},
    {R"({"a": {"$mod": [2, 1]}})", R"({"a": [2, 3]})", true},
};
INSTANTIATE_TEST_SUITE_P(TypeAndMod, MatcherSpec, ::testing::ValuesIn(kTypeMod));

// ---- Parse errors: code and MongoDB's message ----

class MatcherErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(MatcherErrors, ShouldRejectWithMongoDBCodeAndMessage) { ExpectParseError(GetParam()); }

constexpr ErrorCode kBadValue = ErrorCode::kBadValue;

const ErrorCase kErrors[] = {
    {R"({"$foo": 1})", kBadValue,
     "unknown top level operator: $foo. If you have a field name that starts with a '$' symbol, "
     "consider using $getField or $setField."},
    {R"({"$not": {"a": 1}})", kBadValue,
     "unknown top level operator: $not. If you are trying to negate an entire expression, use "
     "$nor."},
    {R"({"$eq": 1})", kBadValue,
     "unknown top level operator: $eq. If you have a field name that starts with a '$' symbol, "
     "consider using $getField or $setField."},
    {R"({"a": {"$foo": 1}})", kBadValue, "unknown operator: $foo"},
    {R"({"a": {"$gt": 1, "b": 2}})", kBadValue, "unknown operator: b"},
    {R"({"a": {"$in": 1}})", kBadValue, "$in needs an array"},
    {R"({"a": {"$nin": {"x": 1}}})", kBadValue, "$nin needs an array"},
    {R"({"a": {"$in": [{"$gt": 1}]}})", kBadValue, "cannot nest $ under $in"},
    {R"({"a": {"$in": [{"$undefined": true}]}})", kBadValue,
     "InMatchExpression equality cannot be undefined"},
    {R"({"a": {"$not": 5}})", kBadValue, "$not needs a regex or a document"},
    {R"({"a": {"$not": {}}})", kBadValue, "$not cannot be empty"},
    {R"({"a": {"$not": {"b": 1}}})", kBadValue, "unknown operator: b"},
    {R"({"$and": []})", kBadValue, "$and/$or/$nor must be a nonempty array"},
    {R"({"$or": []})", kBadValue, "$and/$or/$nor must be a nonempty array"},
    {R"({"$or": {"a": 1}})", kBadValue, "$or must be an array"},
    {R"({"$and": 1})", kBadValue, "$and must be an array"},
    {R"({"$nor": [1]})", kBadValue, "$or/$and/$nor entries need to be full objects"},
    {R"({"$or": [{"a": {"$foo": 1}}]})", kBadValue, "unknown operator: $foo"},
    {R"({"a": {"$where": "1"}})", kBadValue, "$where cannot be applied to a field"},
    {R"({"a": {"$elemMatch": {"$where": "1"}}})", kBadValue,
     "$where can only be applied to the top-level document"},
    {R"({"a": {"$elemMatch": {"$expr": {}}}})", kBadValue,
     "$expr can only be applied to the top-level document"},
    {R"({"a": {"$options_": "i"}})", kBadValue, "$options needs a $regex"},
    {R"({"$expr": {"$bogus": 1}})", ErrorCode::kInvalidPipelineOperator,
     "Unrecognized expression '$bogus'"},
    {R"({"$text": "x"})", kBadValue, "$text expects an object"},
    {R"({"$text": {"$search": 1}})", ErrorCode::kTypeMismatch, "$search requires a string value"},
    {R"({"$text": {"$search": "x", "$language": 1}})", ErrorCode::kTypeMismatch,
     "$language requires a string value"},
    {R"({"$text": {"$search": "x", "$caseSensitive": 1}})", ErrorCode::kTypeMismatch,
     "$caseSensitive requires a boolean value"},
    {R"({"$text": {"$search": "x", "$bogus": 1}})", kBadValue, "extra fields in $text"},
    {R"({"a": {"$elemMatch": {"$text": {"$search": "x"}}}})", kBadValue,
     "$text can only be applied to the top-level document"},
    {R"({"a": {"$near": [0, 0]}})", kBadValue, "operator $near is not supported yet"},
    {R"({"a": {"$gt": {"$regularExpression": {"pattern": "x", "options": ""}}}})", kBadValue,
     "Can't have RegEx as arg to predicate over field 'a'."},
    {R"({"a": {"$ne": {"$regularExpression": {"pattern": "x", "options": ""}}}})", kBadValue,
     "Can't have regex as arg to $ne."},
    {R"({"a": {"$undefined": true}})", kBadValue, "cannot compare to undefined"},
    {R"({"a": {"$lt": {"$undefined": true}}})", kBadValue, "cannot compare to undefined"},
    {R"({"a": {"$size": -1}})", kBadValue,
     "Failed to parse $size. Expected a non-negative number in: $size: -1"},
    {R"({"a": {"$size": 2.5}})", kBadValue,
     "Failed to parse $size. Expected an integer: $size: 2.5"},
    {R"({"a": {"$size": "x"}})", kBadValue,
     "Failed to parse $size. Expected a number in: $size: \"x\""},
    {R"({"a": {"$size": {"$numberDouble": "NaN"}}})", kBadValue,
     "Failed to parse $size. Expected an integer, but found NaN in: $size: nan.0"},
    {R"({"a": {"$all": 1}})", kBadValue, "$all needs an array"},
    {R"({"a": {"$all": [{"$gt": 1}]}})", kBadValue, "no $ expressions in $all"},
    {R"({"a": {"$all": [{"$elemMatch": {"b": 1}}, 5]}})", kBadValue,
     "$all/$elemMatch has to be consistent"},
    {R"({"a": {"$elemMatch": 1}})", kBadValue, "$elemMatch needs an Object"},
    {R"({"a": {"$elemMatch": {"$gt": 1, "b": 1}}})", kBadValue, "unknown operator: b"},
    {R"({"a": {"$type_": "foo"}})", kBadValue, "Unknown type name alias: foo"},
    {R"({"a": {"$type_": {"$numberInt": "100"}}})", kBadValue, "Invalid numerical type code: 100"},
    {R"({"a": {"$type_": {"$numberDouble": "1.5"}}})", kBadValue,
     "Invalid numerical type code: 1.5"},
    {R"({"a": {"$type_": {}}})", ErrorCode::kTypeMismatch,
     "type must be represented as a number or a string"},
    {R"({"a": {"$type_": 0}})", kBadValue,
     "Invalid numerical type code: 0. Instead use {$exists:false}."},
    {R"({"a": {"$type_": "missing"}})", kBadValue,
     "'missing' is not a legal type name. To query for non-existence of a field, use "
     "{$exists:false}."},
    {R"({"a": {"$type_": 20}})", kBadValue, "Invalid numerical type code: 20"},
    {R"({"a": {"$mod": 1}})", kBadValue, "malformed mod, needs to be an array"},
    {R"({"a": {"$mod": [1]}})", kBadValue, "malformed mod, not enough elements"},
    {R"({"a": {"$mod": [1, 2, 3]}})", kBadValue, "malformed mod, too many elements"},
    {R"({"a": {"$mod": ["x", 1]}})", kBadValue, "malformed mod, divisor not a number"},
    {R"({"a": {"$mod": [1, "x"]}})", kBadValue, "malformed mod, remainder not a number"},
    {R"({"a": {"$mod": [0, 1]}})", kBadValue, "divisor cannot be 0"},
    {R"({"a": {"$mod": [{"$numberDouble": "NaN"}, 1]}})", kBadValue,
     "malformed mod, divisor value is invalid :: caused by :: Unable to coerce NaN/Inf to "
     "integral type"},
    {R"({"a": {"$mod": [1, 1e30]}})", kBadValue,
     "malformed mod, remainder value is invalid :: caused by :: Out of bounds coercing to "
     "integral value"},
    {R"({"$alwaysTrue": 2})", ErrorCode::kFailedToParse,
     "$alwaysTrue must be an integer value of 1"},
};
INSTANTIATE_TEST_SUITE_P(ParseErrors, MatcherErrors, ::testing::ValuesIn(kErrors));

// libbson's JSON reader takes {"$type_": [...]} for legacy binary, so these are built with BCON.
TEST(Matcher, ShouldMatchAnyTypeOfATypeList) {
  bson_t* filter = BCON_NEW("a", "{", "$type", "[", BCON_UTF8("string"), BCON_INT32(10), "]", "}");
  Result<Matcher> matcher = Matcher::Parse(BsonView(filter));
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  EXPECT_TRUE(*matcher->Matches(BsonDoc::FromJson(R"({"a": null})").view()));
  EXPECT_TRUE(*matcher->Matches(BsonDoc::FromJson(R"({"a": "x"})").view()));
  EXPECT_FALSE(*matcher->Matches(BsonDoc::FromJson(R"({"a": 1})").view()));
  bson_destroy(filter);
}

TEST(Matcher, ShouldRejectAnEmptyTypeList) {
  bson_t* filter = BCON_NEW("a", "{", "$type", "[", "]", "}");
  Result<Matcher> matcher = Matcher::Parse(BsonView(filter));
  ASSERT_FALSE(matcher.ok());
  EXPECT_EQ(matcher.status().code(), ErrorCode::kFailedToParse);
  EXPECT_EQ(matcher.status().reason(), "a must match at least one type");
  bson_destroy(filter);
}

// ---- The Matcher API ----

TEST(Matcher, ShouldMatchAllOnlyForEmptyFilter) {
  BsonDoc empty = BsonDoc::FromJson("{}");
  BsonDoc comment = BsonDoc::FromJson(R"({"$comment": "x"})");
  BsonDoc some = BsonDoc::FromJson(R"({"a": 1})");
  EXPECT_TRUE(Matcher::Parse(empty.view())->MatchesAll());
  EXPECT_TRUE(Matcher::Parse(comment.view())->MatchesAll());
  EXPECT_FALSE(Matcher::Parse(some.view())->MatchesAll());
}

TEST(Matcher, ShouldOwnACopyOfTheFilter) {
  Result<Matcher> matcher = [] {
    BsonDoc filter = BsonDoc::FromJson(R"({"a": {"$in": [1, 2]}, "b": "x"})");
    return Matcher::Parse(filter.view());
  }();
  ASSERT_TRUE(matcher.ok());
  BsonDoc doc = BsonDoc::FromJson(R"({"a": 2, "b": "x"})");
  EXPECT_TRUE(*matcher->Matches(doc.view()));
  EXPECT_EQ(matcher->filter().ToJson(),
            BsonDoc::FromJson(R"({"a": {"$in": [1, 2]}, "b": "x"})").ToJson());
  Matcher copy = *matcher;  // copies share the parsed tree
  EXPECT_TRUE(*copy.Matches(doc.view()));
}

struct IdCase {
  const char* filter;
  const char* id;  // expected value as {"v": ...}, or nullptr for no point lookup
};

void PrintTo(const IdCase& c, std::ostream* os) { *os << "filter " << c.filter; }

class MatcherIdEquality : public ::testing::TestWithParam<IdCase> {};

TEST_P(MatcherIdEquality, ShouldFindPointLookups) {
  const IdCase& c = GetParam();
  BsonDoc filter = Filter(c.filter);
  Result<Matcher> matcher = Matcher::Parse(filter.view());
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  bson_iter_t value;
  bool found = matcher->IdEquality(&value);
  ASSERT_EQ(found, c.id != nullptr);
  if (!found) return;
  BsonDoc expected = BsonDoc::FromJson(c.id);
  bson_iter_t want;
  ASSERT_TRUE(expected.view().Find("v", &want));
  EXPECT_EQ(bson_iter_type(&value), bson_iter_type(&want));
  EXPECT_TRUE(ValuesEqual(&value, &want));
}

const IdCase kIdCases[] = {
    {R"({"_id": 5})", R"({"v": 5})"},
    {R"({"_id": {"$eq": "x"}})", R"({"v": "x"})"},
    {R"({"_id": {"$oid": "5f1b0c0e0000000000000001"}})",
     R"({"v": {"$oid": "5f1b0c0e0000000000000001"}})"},
    {R"({"_id": {"a": 1}})", R"({"v": {"a": 1}})"},
    {R"({"_id": 5, "b": 2})", R"({"v": 5})"},
    {R"({"$and": [{"b": 1}, {"_id": 7}]})", R"({"v": 7})"},
    {R"({"$and": [{"$and": [{"_id": 8}]}]})", R"({"v": 8})"},
    {R"({})", nullptr},
    {R"({"_id": [1]})", nullptr},
    {R"({"_id": {"$gt": 5}})", nullptr},
    {R"({"_id": {"$in": [5]}})", nullptr},
    {R"({"_id": {"$eq": {"$gt": 5}}})", nullptr},
    {R"({"_id": {"$eq": {"$regularExpression": {"pattern": "x", "options": ""}}}})", nullptr},
    {R"({"$or": [{"_id": 5}]})", nullptr},
    {R"({"_id": {"$ne": 5}})", nullptr},
    {R"({"_id.a": 5})", nullptr},
};
INSTANTIATE_TEST_SUITE_P(IdEquality, MatcherIdEquality, ::testing::ValuesIn(kIdCases));

}  // namespace
}  // namespace cairn::query
