// Specification of the array-element paths of updates (query/update): the positional "$" (the
// index the query matched), "$[]" (every element) and "$[<identifier>]" with arrayFilters,
// nested and combined, their parse and apply errors and conflicts; and the $bit modifier.
// Each case is {document, update, arrayFilters, matched index, expected document or error code
// + message, modified}.
#include <gtest/gtest.h>

#include <string>

#include "query/update/update.h"
#include "tests/unit/query/bson_test_util.h"

namespace cairn::query {
namespace {

using testing::Canonical;
using testing::ExpectError;
using testing::JsonArray;

struct Case {
  const char* name;
  const char* doc;
  const char* update;
  const char* array_filters;  // a JSON array, or nullptr for none
  const char* matched;        // the positional match (elemMatchKey), or nullptr
  const char* expected;       // nullptr: an error (code, message) from Parse or Apply
  int code = 0;
  const char* message = nullptr;
  bool modified = true;
  bool upsert_insert = false;
};

constexpr bool kNoop = false;

class ArrayUpdateCases : public ::testing::TestWithParam<Case> {};

TEST_P(ArrayUpdateCases, ShouldUpdateAsMongoDB) {
  const Case& c = GetParam();
  BsonDoc spec = BsonDoc::FromJson(c.update);
  BsonDoc doc = BsonDoc::FromJson(c.doc);
  BsonDoc filters_holder;
  BsonView filters =
      c.array_filters != nullptr ? JsonArray(c.array_filters, &filters_holder) : BsonView();
  Result<Update> update = Update::Parse(spec.view(), filters);
  Status status = update.status();
  BsonDoc out;
  bool modified = false;
  if (update.ok()) {
    Update::ApplyOptions options;
    options.is_upsert_insert = c.upsert_insert;
    if (c.matched != nullptr) options.positional_match = c.matched;
    Result<bool> applied = update->Apply(doc.view(), out.get(), options);
    status = applied.status();
    if (applied.ok()) modified = *applied;
  }
  if (c.expected == nullptr) {
    ExpectError(status, c.code, c.message, std::string(c.name) + " gave " + out.ToJson());
    return;
  }
  ASSERT_TRUE(status.ok()) << c.name << ": " << status.ToString();
  EXPECT_EQ(Canonical(out.view()), Canonical(BsonDoc::FromJson(c.expected).view())) << c.name;
  EXPECT_EQ(modified, c.modified) << c.name;
}

const Case kAllElementsCases[] = {
    {"SetsEveryElement", R"({"_id": 1, "a": [1, 2, 3]})", R"({"$set": {"a.$[]": 0}})", nullptr,
     nullptr, R"({"_id": 1, "a": [0, 0, 0]})"},
    {"IncrementsAFieldOfEveryElement", R"({"_id": 1, "a": [{"b": 1}, {"b": 2}]})",
     R"({"$inc": {"a.$[].b": 10}})", nullptr, nullptr,
     R"({"_id": 1, "a": [{"b": 11}, {"b": 12}]})"},
    {"CreatesMissingFieldsUnderEachElement", R"({"_id": 1, "a": [{"b": 1}, {}]})",
     R"({"$set": {"a.$[].c": 5}})", nullptr, nullptr,
     R"({"_id": 1, "a": [{"b": 1, "c": 5}, {"c": 5}]})"},
    {"CannotCreateAFieldInAScalarElement", R"({"_id": 1, "a": [{"b": 1}, 1]})",
     R"({"$set": {"a.$[].c": 5}})", nullptr, nullptr, nullptr, 28,
     "Cannot create field 'c' in element {1: 1}"},
    {"UnsetNullsEveryElement", R"({"_id": 1, "a": [1, 2]})", R"({"$unset": {"a.$[]": 1}})", nullptr,
     nullptr, R"({"_id": 1, "a": [null, null]})"},
    {"PushesIntoEveryElement", R"({"_id": 1, "a": [{"l": [1]}, {"l": []}]})",
     R"({"$push": {"a.$[].l": 9}})", nullptr, nullptr,
     R"({"_id": 1, "a": [{"l": [1, 9]}, {"l": [9]}]})"},
    {"PullsFromEveryElement", R"({"_id": 1, "a": [[1, 2], [2, 3]]})", R"({"$pull": {"a.$[]": 2}})",
     nullptr, nullptr, R"({"_id": 1, "a": [[1], [3]]})"},
    {"NestedAllElements", R"({"_id": 1, "a": [[1, 2], [3]]})", R"({"$mul": {"a.$[].$[]": 2}})",
     nullptr, nullptr, R"({"_id": 1, "a": [[2, 4], [6]]})"},
    {"EmptyArrayIsANoop", R"({"_id": 1, "a": []})", R"({"$set": {"a.$[]": 1}})", nullptr, nullptr,
     R"({"_id": 1, "a": []})", 0, nullptr, kNoop},
    {"SameValuesAreANoop", R"({"_id": 1, "a": [1, 1]})", R"({"$set": {"a.$[]": 1}})", nullptr,
     nullptr, R"({"_id": 1, "a": [1, 1]})", 0, nullptr, kNoop},
    {"TwoModifiersOnEachElement", R"({"_id": 1, "a": [{"x": 1}]})",
     R"({"$inc": {"a.$[].x": 1}, "$set": {"a.$[].y": 2}})", nullptr, nullptr,
     R"({"_id": 1, "a": [{"x": 2, "y": 2}]})"},
    {"MissingArrayIsAnError", R"({"_id": 1})", R"({"$set": {"a.$[]": 1}})", nullptr, nullptr,
     nullptr, 2, "The path 'a' must exist in the document in order to apply array updates."},
    {"MissingNestedArrayNamesTheWholePath", R"({"_id": 1, "a": {}})",
     R"({"$set": {"a.b.c.$[]": 1}})", nullptr, nullptr, nullptr, 2,
     "The path 'a.b.c' must exist in the document in order to apply array updates."},
    {"NonArrayIsAnError", R"({"_id": 1, "a": 5})", R"({"$set": {"a.$[]": 1}})", nullptr, nullptr,
     nullptr, 2, "Cannot apply array updates to non-array element a: 5"},
    {"IdentifierCannotComeFirst", R"({"_id": 1})", R"({"$set": {"$[]": 1}})", nullptr, nullptr,
     nullptr, 2,
     "Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in "
     "path '$[]'"},
    {"ObjectAndArrayNodesConflict", R"({"_id": 1})", R"({"$set": {"a.$[]": 1, "a.0": 2}})", nullptr,
     nullptr, nullptr, 40, "Updating the path 'a.0' would create a conflict at 'a'"},
    {"ArrayAfterObjectNodeConflicts", R"({"_id": 1})", R"({"$set": {"a.0": 2, "a.$[]": 1}})",
     nullptr, nullptr, nullptr, 40, "Updating the path 'a.$[]' would create a conflict at 'a'"},
    {"LeafAndPathBelowConflict", R"({"_id": 1})", R"({"$set": {"a.$[]": 1, "a.$[].b": 2}})",
     nullptr, nullptr, nullptr, 40,
     "Updating the path 'a.$[].b' would create a conflict at 'a.$[]'"},
    {"RenameSourceMayNotBeDynamic", R"({"_id": 1})", R"({"$rename": {"a.$[]": "b"}})", nullptr,
     nullptr, nullptr, 2, "The source field for $rename may not be dynamic: a.$[]"},
    {"RenameDestinationMayNotBeDynamic", R"({"_id": 1})", R"({"$rename": {"a": "b.$[]"}})", nullptr,
     nullptr, nullptr, 2, "The destination field for $rename may not be dynamic: b.$[]"},
    {"UpsertAppliesToTheSeededArray", R"({"a": [1, 2]})", R"({"$set": {"a.$[]": 0}})", nullptr,
     nullptr, R"({"a": [0, 0]})", 0, nullptr, true, /*upsert_insert=*/true},
    {"UpsertWithoutTheArrayFails", R"({"_id": 1})", R"({"$set": {"a.$[]": 0}})", nullptr, nullptr,
     nullptr, 2, "The path 'a' must exist in the document in order to apply array updates.", true,
     /*upsert_insert=*/true},
};

INSTANTIATE_TEST_SUITE_P(AllElements, ArrayUpdateCases, ::testing::ValuesIn(kAllElementsCases),
                         [](const auto& info) { return std::string(info.param.name); });

const Case kArrayFilterCases[] = {
    {"FilterOnTheElement", R"({"_id": 1, "a": [1, 2, 3]})", R"({"$set": {"a.$[i]": 0}})",
     R"([{"i": {"$gte": 2}}])", nullptr, R"({"_id": 1, "a": [1, 0, 0]})"},
    {"FilterOnAFieldOfTheElement", R"({"_id": 1, "y": [{"b": 3}, {"b": 1}]})",
     R"({"$set": {"y.$[i].b": 2}})", R"([{"i.b": 3}])", nullptr,
     R"({"_id": 1, "y": [{"b": 2}, {"b": 1}]})"},
    {"NoElementMatchesIsANoop", R"({"_id": 1, "y": [{"b": 3}, {"b": 1}]})",
     R"({"$set": {"y.$[i].b": 2}})", R"([{"i.b": 4}])", nullptr,
     R"({"_id": 1, "y": [{"b": 3}, {"b": 1}]})", 0, nullptr, kNoop},
    {"NestedIdentifiers", R"({"_id": 3, "y": [{"b": 5, "c": [{"d": 2}, {"d": 1}]}]})",
     R"({"$set": {"y.$[i].c.$[j].d": 0}})", R"([{"i.b": 5}, {"j.d": 1}])", nullptr,
     R"({"_id": 3, "y": [{"b": 5, "c": [{"d": 2}, {"d": 0}]}]})"},
    {"ElementThatIsAnArrayMatchesByItsElements", R"({"_id": 1, "a": [[1, 2], [3]]})",
     R"({"$set": {"a.$[i]": 0}})", R"([{"i": 2}])", nullptr, R"({"_id": 1, "a": [0, [3]]})"},
    {"FilterWithOr", R"({"_id": 1, "a": [{"b": 1}, {"c": 2}, {"b": 3}]})",
     R"({"$set": {"a.$[e].x": 1}})", R"([{"$or": [{"e.b": 1}, {"e.c": 2}]}])", nullptr,
     R"({"_id": 1, "a": [{"b": 1, "x": 1}, {"c": 2, "x": 1}, {"b": 3}]})"},
    {"TwoFiltersOnDifferentFieldsOfOneElementMerge", R"({"_id": 1, "a": [{"b": 1}]})",
     R"({"$set": {"a.$[i].c": 1, "a.$[j].d": 2}})", R"([{"i.b": 1}, {"j.b": 1}])", nullptr,
     R"({"_id": 1, "a": [{"b": 1, "c": 1, "d": 2}]})"},
    {"TwoFiltersSettingOneElementConflict", R"({"_id": 1, "a": [1, 2]})",
     R"({"$set": {"a.$[i]": 1, "a.$[j]": 2}})", R"([{"i": 1}, {"j": {"$gte": 1}}])", nullptr,
     nullptr, 40, "Update created a conflict at 'a.0'"},
    {"ConflictInsideMergedElementsNamesTheField", R"({"_id": 1, "a": [{"b": 1}]})",
     R"({"$set": {"a.$[i].c": 1}, "$inc": {"a.$[j].c": 2}})", R"([{"i.b": 1}, {"j.b": 1}])",
     nullptr, nullptr, 40, "Update created a conflict at 'a.0.c'"},
    {"FiltersThatNeverMeetDoNotConflict", R"({"_id": 1, "a": [1, 2]})",
     R"({"$set": {"a.$[i]": 10, "a.$[j]": 20}})", R"([{"i": 1}, {"j": 2}])", nullptr,
     R"({"_id": 1, "a": [10, 20]})"},
    {"AllAndIdentifierOnOneElementConflict", R"({"_id": 1, "a": [1]})",
     R"({"$set": {"a.$[]": 1, "a.$[i]": 2}})", R"([{"i": 1}])", nullptr, nullptr, 40,
     "Update created a conflict at 'a.0'"},
    {"UnusedFilterFails", R"({"_id": 1, "a": [1]})", R"({"$set": {"a.$[i]": 0}})",
     R"([{"i": 1}, {"j": 1}])", nullptr, nullptr, 9,
     "The array filter for identifier 'j' was not used in the update { $set: { a.$[i]: 0 } }"},
    {"FilterWithoutUseInAReplacementIsIgnored", R"({"_id": 1, "a": 1})", R"({"b": 2})",
     R"([{"i": 1}])", nullptr, R"({"_id": 1, "b": 2})"},
    {"IdentifierWithoutFilterFails", R"({"_id": 1, "a": [1]})", R"({"$set": {"a.$[x]": 0}})",
     nullptr, nullptr, nullptr, 2, "No array filter found for identifier 'x' in path 'a.$[x]'"},
    {"DuplicateIdentifiersFail", R"({"_id": 1, "a": [1]})", R"({"$set": {"a.$[i]": 0}})",
     R"([{"i": 1}, {"i": 2}])", nullptr, nullptr, 9,
     "Found multiple array filters with the same top-level field name i"},
    {"IdentifierMustStartLowercase", R"({"_id": 1, "a": [1]})", R"({"$set": {"a.$[I]": 0}})",
     R"([{"I": 1}])", nullptr, nullptr, 2,
     "Error parsing array filter :: caused by :: The top-level field name must be an "
     "alphanumeric string beginning with a lowercase letter, found 'I'"},
    {"IdentifierMustBeAlphanumeric", R"({"_id": 1, "a": [1]})", R"({"$set": {"a.0": 0}})",
     R"([{"a_b": 1}])", nullptr, nullptr, 2,
     "Error parsing array filter :: caused by :: The top-level field name must be an "
     "alphanumeric string beginning with a lowercase letter, found 'a_b'"},
    {"EmptyFilterFails", R"({"_id": 1, "a": [1]})", R"({"$set": {"a.$[i]": 0}})", R"([{}])",
     nullptr, nullptr, 9,
     "Cannot use an expression without a top-level field name in arrayFilters"},
    {"FilterWithTwoNamesFails", R"({"_id": 1, "a": [1]})", R"({"$set": {"a.$[i]": 0}})",
     R"([{"i": 1, "j": 2}])", nullptr, nullptr, 9,
     "Error parsing array filter :: caused by :: Expected a single top-level field name, found "
     "'i' and 'j'"},
    {"FilterParseErrorsCarryContext", R"({"_id": 1, "a": [1]})", R"({"$set": {"a.$[i]": 0}})",
     R"([{"i": {"$foo": 1}}])", nullptr, nullptr, 2,
     "Error parsing array filter :: caused by :: unknown operator: $foo"},
    {"ExprIsNotAllowed", R"({"_id": 1, "a": [1]})", R"({"$set": {"a.$[i]": 0}})",
     R"([{"$expr": {"$eq": ["$i", 1]}}])", nullptr, nullptr, 224,
     "Error parsing array filter :: caused by :: $expr is not allowed in this context"},
    {"FiltersApplyBeforeAnyUpdate", R"({"_id": 1, "a": [{"n": 1}, {"n": 2}]})",
     R"({"$inc": {"a.$[i].n": 1}})", R"([{"i.n": 1}])", nullptr,
     R"({"_id": 1, "a": [{"n": 2}, {"n": 2}]})"},
};

INSTANTIATE_TEST_SUITE_P(ArrayFilters, ArrayUpdateCases, ::testing::ValuesIn(kArrayFilterCases),
                         [](const auto& info) { return std::string(info.param.name); });

const Case kPositionalCases[] = {
    {"SetsTheMatchedElement", R"({"_id": 1, "a": [1, 2, 3]})", R"({"$set": {"a.$": 9}})", nullptr,
     "1", R"({"_id": 1, "a": [1, 9, 3]})"},
    {"UpdatesAFieldOfTheMatchedElement", R"({"_id": 1, "a": [{"b": 1}, {"b": 2}]})",
     R"({"$inc": {"a.$.b": 5}})", nullptr, "1", R"({"_id": 1, "a": [{"b": 1}, {"b": 7}]})"},
    {"WithoutAMatchFails", R"({"_id": 1, "a": [1]})", R"({"$set": {"a.$": 9}})", nullptr, nullptr,
     nullptr, 2, "The positional operator did not find the match needed from the query."},
    {"AnUpsertInsertHasNoMatch", R"({"a": [1]})", R"({"$set": {"a.$": 9}})", nullptr, nullptr,
     nullptr, 2, "The positional operator did not find the match needed from the query.", true,
     /*upsert_insert=*/true},
    {"EvenSetOnInsertNeedsTheMatch", R"({"_id": 1, "a": [1]})", R"({"$setOnInsert": {"a.$": 9}})",
     nullptr, nullptr, nullptr, 2,
     "The positional operator did not find the match needed from the query."},
    {"MatchedIndexPastTheEndPads", R"({"_id": 1, "a": [1]})", R"({"$set": {"a.$": 5}})", nullptr,
     "2", R"({"_id": 1, "a": [1, null, 5]})"},
    {"SameFieldByIndexConflicts", R"({"_id": 1, "a": [1, 2]})", R"({"$set": {"a.$": 1, "a.0": 2}})",
     nullptr, "0", nullptr, 40, "Update created a conflict at 'a.0'"},
    {"OtherIndexDoesNotConflict", R"({"_id": 1, "a": [5, 6]})", R"({"$set": {"a.$": 1, "a.1": 2}})",
     nullptr, "0", R"({"_id": 1, "a": [1, 2]})"},
    {"MergesWithTheFieldItStandsFor", R"({"_id": 1, "a": [{"x": 1}]})",
     R"({"$set": {"a.$.y": 1, "a.0.z": 2}})", nullptr, "0",
     R"({"_id": 1, "a": [{"x": 1, "y": 1, "z": 2}]})"},
    {"TooManyPositionalElements", R"({"_id": 1})", R"({"$set": {"a.$.b.$": 1}})", nullptr, "0",
     nullptr, 2, "Too many positional (i.e. '$') elements found in path 'a.$.b.$'"},
    {"PositionalCannotComeFirst", R"({"_id": 1})", R"({"$set": {"$.a": 1}})", nullptr, "0", nullptr,
     2, "Cannot have positional (i.e. '$') element in the first position in path '$.a'"},
    {"TwoPositionalPathsOnOneFieldConflict", R"({"_id": 1})",
     R"({"$set": {"a.$": 1}, "$inc": {"a.$": 2}})", nullptr, "0", nullptr, 40,
     "Updating the path 'a.$' would create a conflict at 'a.$'"},
    {"CombinesWithArrayFilters", R"({"_id": 1, "a": [{"b": [1, 2]}, {"b": [3, 4]}]})",
     R"({"$set": {"a.$.b.$[i]": 0}})", R"([{"i": {"$gt": 3}}])", "1",
     R"({"_id": 1, "a": [{"b": [1, 2]}, {"b": [3, 0]}]})"},
    {"UnderAllElements", R"({"_id": 1, "a": [[1, 2], [3, 4]]})", R"({"$set": {"a.$[].$": 0}})",
     nullptr, "1", R"({"_id": 1, "a": [[1, 0], [3, 0]]})"},
    {"RenameMayNotBePositional", R"({"_id": 1})", R"({"$rename": {"a.$": "b"}})", nullptr, "0",
     nullptr, 2, "The source field for $rename may not be dynamic: a.$"},
};

INSTANTIATE_TEST_SUITE_P(Positional, ArrayUpdateCases, ::testing::ValuesIn(kPositionalCases),
                         [](const auto& info) { return std::string(info.param.name); });

const Case kBitCases[] = {
    {"And", R"({"_id": 1, "a": 13})", R"({"$bit": {"a": {"and": 10}}})", nullptr, nullptr,
     R"({"_id": 1, "a": 8})"},
    {"Or", R"({"_id": 1, "a": 13})", R"({"$bit": {"a": {"or": 10}}})", nullptr, nullptr,
     R"({"_id": 1, "a": 15})"},
    {"Xor", R"({"_id": 1, "a": 13})", R"({"$bit": {"a": {"xor": 10}}})", nullptr, nullptr,
     R"({"_id": 1, "a": 7})"},
    {"OperationsApplyInOrder", R"({"_id": 1, "a": 5})", R"({"$bit": {"a": {"and": 3, "or": 8}}})",
     nullptr, nullptr, R"({"_id": 1, "a": 9})"},
    {"Int64OperandMakesInt64", R"({"_id": 1, "a": 13})",
     R"({"$bit": {"a": {"and": {"$numberLong": "10"}}}})", nullptr, nullptr,
     R"({"_id": 1, "a": {"$numberLong": "8"}})"},
    {"Int64FieldStaysInt64", R"({"_id": 1, "a": {"$numberLong": "-1"}})",
     R"({"$bit": {"a": {"and": 255}}})", nullptr, nullptr,
     R"({"_id": 1, "a": {"$numberLong": "255"}})"},
    {"TypeChangeAloneIsAModification", R"({"_id": 1, "a": 5})",
     R"({"$bit": {"a": {"or": {"$numberLong": "1"}}}})", nullptr, nullptr,
     R"({"_id": 1, "a": {"$numberLong": "5"}})"},
    {"NegativeInt32", R"({"_id": 1, "a": -8})", R"({"$bit": {"a": {"xor": -1}}})", nullptr, nullptr,
     R"({"_id": 1, "a": 7})"},
    {"SameValueIsANoop", R"({"_id": 1, "a": 5})", R"({"$bit": {"a": {"or": 1}}})", nullptr, nullptr,
     R"({"_id": 1, "a": 5})", 0, nullptr, kNoop},
    {"MissingFieldStartsFromZero", R"({"_id": 1})", R"({"$bit": {"a": {"or": 5}}})", nullptr,
     nullptr, R"({"_id": 1, "a": 5})"},
    {"MissingFieldAndIsZero", R"({"_id": 1})", R"({"$bit": {"a.b": {"and": 5}}})", nullptr, nullptr,
     R"({"_id": 1, "a": {"b": 0}})"},
    {"ThroughArrayFilters", R"({"_id": 1, "a": [1, 2, 4]})", R"({"$bit": {"a.$[i]": {"or": 8}}})",
     R"([{"i": {"$gt": 1}}])", nullptr, R"({"_id": 1, "a": [1, 10, 12]})"},
    {"NonIntegralFieldFails", R"({"_id": 1, "a": 1.5})", R"({"$bit": {"a": {"and": 1}}})", nullptr,
     nullptr, nullptr, 2,
     "Cannot apply $bit to a value of non-integral type._id: 1 has the field a of non-integer "
     "type double"},
    {"DoubleOperandFails", R"({"_id": 1, "a": 1})", R"({"$bit": {"a": {"and": 1.0}}})", nullptr,
     nullptr, nullptr, 2,
     "The $bit modifier field must be an Integer(32/64 bit); a 'double' is not supported here: "
     "{and: 1.0}"},
    {"UnknownOperationFails", R"({"_id": 1, "a": 1})", R"({"$bit": {"a": {"nand": 1}}})", nullptr,
     nullptr, nullptr, 2,
     "The $bit modifier only supports 'and', 'or', and 'xor', not 'nand' which is an unknown "
     "operator: {nand: 1}"},
    {"OperandMustBeADocument", R"({"_id": 1, "a": 1})", R"({"$bit": {"a": 5}})", nullptr, nullptr,
     nullptr, 2,
     "The $bit modifier is not compatible with a int. You must pass in an embedded document: "
     "{$bit: {field: {and/or/xor: #}}"},
    {"AtLeastOneOperation", R"({"_id": 1, "a": 1})", R"({"$bit": {"a": {}}})", nullptr, nullptr,
     nullptr, 2,
     "You must pass in at least one bitwise operation. The format is: {$bit: {field: "
     "{and/or/xor: #}}"},
};

INSTANTIATE_TEST_SUITE_P(Bit, ArrayUpdateCases, ::testing::ValuesIn(kBitCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ArrayUpdate, ShouldReportWhetherAPathIsPositional) {
  BsonDoc positional = BsonDoc::FromJson(R"({"$set": {"a.$.b": 1}})");
  BsonDoc plain = BsonDoc::FromJson(R"({"$set": {"a.$[].b": 1}})");
  Result<Update> with = Update::Parse(positional.view());
  Result<Update> without = Update::Parse(plain.view());
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_TRUE(with->uses_positional());
  EXPECT_FALSE(without->uses_positional());
}

}  // namespace
}  // namespace cairn::query
