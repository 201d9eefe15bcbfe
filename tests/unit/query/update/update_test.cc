// Specification of updates (query/update): each modifier, path creation and array padding,
// conflicts, immutable _id, numeric promotion, field order, no-op detection and replacement.
// Each case is {document, update, expected document or error code + message, modified}.
#include "query/update/update.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/unit/query/bson_test_util.h"

namespace cairn::query {
namespace {

using testing::Canonical;

struct Case {
  const char* name;
  const char* doc;
  const char* update;
  const char* expected;  // nullptr: an error (code, message) from Parse or Apply
  int code = 0;
  const char* message = nullptr;
  bool modified = true;  // Apply's result when expected is set
};

// Expected result equal to the input: a no-op.
constexpr bool kNoop = false;

class UpdateCases : public ::testing::TestWithParam<Case> {};

TEST_P(UpdateCases, ShouldUpdateAsMongoDB) {
  const Case& c = GetParam();
  BsonDoc spec = BsonDoc::FromJson(c.update);
  BsonDoc doc = BsonDoc::FromJson(c.doc);
  Result<Update> update = Update::Parse(spec.view());
  Status status = update.status();
  BsonDoc out;
  bool modified = false;
  if (update.ok()) {
    Result<bool> applied = update->Apply(doc.view(), out.get(), Update::ApplyOptions{});
    status = applied.status();
    if (applied.ok()) modified = *applied;
  }
  if (c.expected == nullptr) {
    ASSERT_FALSE(status.ok()) << c.name << " gave " << out.ToJson();
    EXPECT_EQ(status.code_number(), c.code) << status.ToString();
    if (c.message != nullptr) {
      EXPECT_EQ(status.reason(), c.message);
    }
    return;
  }
  ASSERT_TRUE(status.ok()) << c.name << ": " << status.ToString();
  EXPECT_EQ(Canonical(out.view()), Canonical(BsonDoc::FromJson(c.expected).view())) << c.name;
  EXPECT_EQ(modified, c.modified) << c.name;
}

const Case kSetCases[] = {
    {"SetExistingFieldInPlace", R"({"_id": 1, "a": 1, "b": 2})", R"({"$set": {"a": 5}})",
     R"({"_id": 1, "a": 5, "b": 2})"},
    {"SetAppendsNewField", R"({"_id": 1, "a": 1})", R"({"$set": {"b": 2}})",
     R"({"_id": 1, "a": 1, "b": 2})"},
    {"SetAppendsNewFieldsInLexicographicOrder", R"({"_id": 1})",
     R"({"$set": {"z": 1, "a": 2, "m": 3}})", R"({"_id": 1, "a": 2, "m": 3, "z": 1})"},
    {"NewFieldsAreOrderedAcrossOperators", R"({"_id": 1})",
     R"({"$set": {"z": 1}, "$inc": {"b": 1}})", R"({"_id": 1, "b": 1, "z": 1})"},
    {"NumericFieldNamesAreOrderedNumerically", R"({"_id": 1})",
     R"({"$set": {"a.10": 1, "a.9": 2}})", R"({"_id": 1, "a": {"9": 2, "10": 1}})"},
    {"SetDottedCreatesEmbeddedDocuments", R"({"_id": 1})", R"({"$set": {"a.b.c": 1}})",
     R"({"_id": 1, "a": {"b": {"c": 1}}})"},
    {"SetDottedIntoExistingDocument", R"({"_id": 1, "a": {"x": 1}})", R"({"$set": {"a.b": 2}})",
     R"({"_id": 1, "a": {"x": 1, "b": 2}})"},
    {"SetTwoNewSiblingsShareTheCreatedParent", R"({"_id": 1})", R"({"$set": {"a.c": 1, "a.b": 2}})",
     R"({"_id": 1, "a": {"b": 2, "c": 1}})"},
    {"SetDocumentValue", R"({"_id": 1, "a": 1})", R"({"$set": {"a": {"b": [1, 2]}}})",
     R"({"_id": 1, "a": {"b": [1, 2]}})"},
    {"SetArrayIndexPadsWithNulls", R"({"_id": 1, "a": [1]})", R"({"$set": {"a.3": 1}})",
     R"({"_id": 1, "a": [1, null, null, 1]})"},
    {"SetExistingArrayIndex", R"({"_id": 1, "a": [1, 2]})", R"({"$set": {"a.1": 5}})",
     R"({"_id": 1, "a": [1, 5]})"},
    {"SetInsideArrayElementDocument", R"({"_id": 1, "a": [{"b": 1}]})", R"({"$set": {"a.0.c": 2}})",
     R"({"_id": 1, "a": [{"b": 1, "c": 2}]})"},
    {"SetNewArrayElementDocument", R"({"_id": 1, "a": [{"b": 1}]})", R"({"$set": {"a.2.c": 2}})",
     R"({"_id": 1, "a": [{"b": 1}, null, {"c": 2}]})"},
    {"SetThroughScalarIsPathNotViable", R"({"_id": 1, "a": 1})", R"({"$set": {"a.b": 2}})", nullptr,
     28, "Cannot create field 'b' in element {a: 1}"},
    {"SetThroughNullIsPathNotViable", R"({"_id": 1, "a": null})", R"({"$set": {"a.b.c": 2}})",
     nullptr, 28, "Cannot create field 'b' in element {a: null}"},
    {"SetNonNumericThroughArrayIsPathNotViable", R"({"_id": 1, "a": [1, 2]})",
     R"({"$set": {"a.b": 2}})", nullptr, 28, "Cannot create field 'b' in element {a: [ 1, 2 ]}"},
    {"SetThroughScalarArrayElement", R"({"_id": 1, "a": [0]})", R"({"$set": {"a.0.b": 2}})",
     nullptr, 28, "Cannot create field 'b' in element {0: 0}"},
    {"SetSameValueIsNoop", R"({"_id": 1, "a": 1})", R"({"$set": {"a": 1}})",
     R"({"_id": 1, "a": 1})", 0, nullptr, kNoop},
    {"SetSameDocumentIsNoop", R"({"_id": 1, "a": {"b": 1}})", R"({"$set": {"a": {"b": 1}}})",
     R"({"_id": 1, "a": {"b": 1}})", 0, nullptr, kNoop},
    {"SetEqualValueOfOtherTypeModifies", R"({"_id": 1, "a": 1})", R"({"$set": {"a": 1.0}})",
     R"({"_id": 1, "a": 1.0})"},
    {"SetEmptyOperatorIsNoop", R"({"_id": 1, "a": 1})", R"({"$set": {}})", R"({"_id": 1, "a": 1})",
     0, nullptr, kNoop},
    {"SetIdToSameValueIsAllowed", R"({"_id": 1, "a": 1})", R"({"$set": {"_id": 1, "a": 2}})",
     R"({"_id": 1, "a": 2})"},
    {"SetIdToOtherValueIsImmutableField", R"({"_id": 1, "a": 1})", R"({"$set": {"_id": 2}})",
     nullptr, 66, "Performing an update on the path '_id' would modify the immutable field '_id'"},
    {"SetIdSubfieldIsImmutableField", R"({"_id": {"x": 1}})", R"({"$set": {"_id.x": 2}})", nullptr,
     66, "Performing an update on the path '_id.x' would modify the immutable field '_id'"},
    {"SetTopLevelDollarFieldIsRejected", R"({"_id": 1})", R"({"$set": {"$x": 1}})", nullptr, 52,
     "The dollar ($) prefixed field '$x' in '$x' is not allowed in the context of an update's "
     "replacement document. Consider using an aggregation pipeline with $replaceWith."},
    {"SetNestedDollarFieldIsAllowed", R"({"_id": 1})", R"({"$set": {"a.$x": 1}})",
     R"({"_id": 1, "a": {"$x": 1}})"},
    {"SetOnInsertIsNoopOnUpdate", R"({"_id": 1})", R"({"$setOnInsert": {"a": 1}})", R"({"_id": 1})",
     0, nullptr, kNoop},
};

const Case kUnsetCases[] = {
    {"UnsetRemovesField", R"({"_id": 1, "a": 1, "b": 2})", R"({"$unset": {"a": ""}})",
     R"({"_id": 1, "b": 2})"},
    {"UnsetMissingFieldIsNoop", R"({"_id": 1, "b": 2})", R"({"$unset": {"a": 1}})",
     R"({"_id": 1, "b": 2})", 0, nullptr, kNoop},
    {"UnsetDottedField", R"({"_id": 1, "a": {"b": 1, "c": 2}})", R"({"$unset": {"a.b": 1}})",
     R"({"_id": 1, "a": {"c": 2}})"},
    {"UnsetArrayElementSetsNull", R"({"_id": 1, "a": [1, 2, 3]})", R"({"$unset": {"a.1": 1}})",
     R"({"_id": 1, "a": [1, null, 3]})"},
    {"UnsetThroughScalarIsNoop", R"({"_id": 1, "a": 1})", R"({"$unset": {"a.b": 1}})",
     R"({"_id": 1, "a": 1})", 0, nullptr, kNoop},
    {"UnsetPastArrayEndIsNoop", R"({"_id": 1, "a": [1]})", R"({"$unset": {"a.5": 1}})",
     R"({"_id": 1, "a": [1]})", 0, nullptr, kNoop},
    {"UnsetIdIsImmutableField", R"({"_id": 1, "a": 1})", R"({"$unset": {"_id": 1}})", nullptr, 66,
     "Performing an update on the path '_id' would modify the immutable field '_id'"},
};

const Case kArithmeticCases[] = {
    {"IncAddsToInt", R"({"_id": 1, "a": 1})", R"({"$inc": {"a": 2}})", R"({"_id": 1, "a": 3})"},
    {"IncCreatesMissingField", R"({"_id": 1})", R"({"$inc": {"a": 5}})", R"({"_id": 1, "a": 5})"},
    {"IncCreatesMissingDottedField", R"({"_id": 1})", R"({"$inc": {"a.b": -1}})",
     R"({"_id": 1, "a": {"b": -1}})"},
    {"IncInt32OverflowWidensToInt64", R"({"_id": 1, "a": 2147483647})", R"({"$inc": {"a": 1}})",
     R"({"_id": 1, "a": {"$numberLong": "2147483648"}})"},
    {"IncInt32UnderflowWidensToInt64", R"({"_id": 1, "a": -2147483648})", R"({"$inc": {"a": -1}})",
     R"({"_id": 1, "a": {"$numberLong": "-2147483649"}})"},
    {"IncIntByDoubleGivesDouble", R"({"_id": 1, "a": 1})", R"({"$inc": {"a": 0.5}})",
     R"({"_id": 1, "a": 1.5})"},
    {"IncLongByIntStaysLong", R"({"_id": 1, "a": {"$numberLong": "5"}})", R"({"$inc": {"a": 1}})",
     R"({"_id": 1, "a": {"$numberLong": "6"}})"},
    {"IncIntByLongGivesLong", R"({"_id": 1, "a": 5})", R"({"$inc": {"a": {"$numberLong": "1"}}})",
     R"({"_id": 1, "a": {"$numberLong": "6"}})"},
    {"IncInt64OverflowIsBadValue", R"({"_id": 1, "a": {"$numberLong": "9223372036854775807"}})",
     R"({"$inc": {"a": 1}})", nullptr, 2,
     "Failed to apply $inc operations to current value ((NumberLong)9223372036854775807) for "
     "document {_id: 1}"},
    {"IncByZeroIsNoop", R"({"_id": 1, "a": 7})", R"({"$inc": {"a": 0}})", R"({"_id": 1, "a": 7})",
     0, nullptr, kNoop},
    {"IncIntByDoubleZeroChangesType", R"({"_id": 1, "a": 7})", R"({"$inc": {"a": 0.0}})",
     R"({"_id": 1, "a": 7.0})"},
    {"IncNonNumericFieldIsTypeMismatch", R"({"_id": 1, "a": "x"})", R"({"$inc": {"a": 1}})",
     nullptr, 14,
     "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 'a' of "
     "non-numeric type string"},
    {"IncMessageNamesObjectId", R"({"_id": {"$oid": "5f0c8a8e9b1d8c0001a1b2c3"}, "a": {"b": []}})",
     R"({"$inc": {"a.b": 1}})", nullptr, 14,
     "Cannot apply $inc to a value of non-numeric type. {_id: "
     "ObjectId('5f0c8a8e9b1d8c0001a1b2c3')} has the field 'b' of non-numeric type array"},
    {"IncNonNumericArgumentIsTypeMismatch", R"({"_id": 1})", R"({"$inc": {"a": "x"}})", nullptr, 14,
     "Cannot increment with non-numeric argument: {a: \"x\"}"},
    {"MulMultiplies", R"({"_id": 1, "a": 3})", R"({"$mul": {"a": 2}})", R"({"_id": 1, "a": 6})"},
    {"MulInt32OverflowWidensToInt64", R"({"_id": 1, "a": 65536})", R"({"$mul": {"a": 65536}})",
     R"({"_id": 1, "a": {"$numberLong": "4294967296"}})"},
    {"MulMissingCreatesZeroOfOperandType", R"({"_id": 1})",
     R"({"$mul": {"a": {"$numberLong": "5"}, "b": 2.5}})",
     R"({"_id": 1, "a": {"$numberLong": "0"}, "b": 0.0})"},
    {"MulNonNumericArgumentIsTypeMismatch", R"({"_id": 1})", R"({"$mul": {"a": true}})", nullptr,
     14, "Cannot multiply with non-numeric argument: {a: true}"},
};

const Case kPushCases[] = {
    {"PushAppends", R"({"_id": 1, "a": [1]})", R"({"$push": {"a": 2}})",
     R"({"_id": 1, "a": [1, 2]})"},
    {"PushCreatesMissingArray", R"({"_id": 1})", R"({"$push": {"a.b": 1}})",
     R"({"_id": 1, "a": {"b": [1]}})"},
    {"PushArrayValueAsOneElement", R"({"_id": 1, "a": [1]})", R"({"$push": {"a": [2, 3]}})",
     R"({"_id": 1, "a": [1, [2, 3]]})"},
    {"PushEach", R"({"_id": 1, "a": [1]})", R"({"$push": {"a": {"$each": [2, 3]}}})",
     R"({"_id": 1, "a": [1, 2, 3]})"},
    {"PushEachEmptyIsNoop", R"({"_id": 1, "a": [1]})", R"({"$push": {"a": {"$each": []}}})",
     R"({"_id": 1, "a": [1]})", 0, nullptr, kNoop},
    {"PushPosition", R"({"_id": 1, "a": [1, 2, 3]})",
     R"({"$push": {"a": {"$each": [8, 9], "$position": 1}}})",
     R"({"_id": 1, "a": [1, 8, 9, 2, 3]})"},
    {"PushNegativePosition", R"({"_id": 1, "a": [1, 2, 3]})",
     R"({"$push": {"a": {"$each": [9], "$position": -1}}})", R"({"_id": 1, "a": [1, 2, 9, 3]})"},
    {"PushSlice", R"({"_id": 1, "a": [1, 2]})",
     R"({"$push": {"a": {"$each": [3, 4], "$slice": 3}}})", R"({"_id": 1, "a": [1, 2, 3]})"},
    {"PushNegativeSliceKeepsTail", R"({"_id": 1, "a": [1, 2]})",
     R"({"$push": {"a": {"$each": [3, 4], "$slice": -2}}})", R"({"_id": 1, "a": [3, 4]})"},
    {"PushSortWholeValues", R"({"_id": 1, "a": [3, 1]})",
     R"({"$push": {"a": {"$each": [2], "$sort": 1}}})", R"({"_id": 1, "a": [1, 2, 3]})"},
    {"PushSortByField", R"({"_id": 1, "a": [{"s": 2}, {"s": 1}]})",
     R"({"$push": {"a": {"$each": [{"s": 3}], "$sort": {"s": -1}}}})",
     R"({"_id": 1, "a": [{"s": 3}, {"s": 2}, {"s": 1}]})"},
    {"PushSortAlreadySortedIsNoop", R"({"_id": 1, "a": [1, 2]})",
     R"({"$push": {"a": {"$each": [], "$sort": 1}}})", R"({"_id": 1, "a": [1, 2]})", 0, nullptr,
     kNoop},
    {"PushOntoNonArrayIsBadValue", R"({"_id": 1, "a": 1})", R"({"$push": {"a": 2}})", nullptr, 2,
     "The field 'a' must be an array but is of type int in document {_id: 1}"},
    {"PushMessageUsesFullPath", R"({"_id": "k", "a": {"b": "x"}})", R"({"$push": {"a.b": 2}})",
     nullptr, 2, "The field 'a.b' must be an array but is of type string in document {_id: \"k\"}"},
    {"PushEachOfNonArrayIsBadValue", R"({"_id": 1})", R"({"$push": {"a": {"$each": 1}}})", nullptr,
     2, "The argument to $each in $push must be an array but it was of type: int"},
    {"PushUnknownClauseIsBadValue", R"({"_id": 1})",
     R"({"$push": {"a": {"$each": [1], "$foo": 1}}})", nullptr, 2,
     "Unrecognized clause in $push: $foo"},
    {"PushDocumentWithoutEachIsAValue", R"({"_id": 1})", R"({"$push": {"a": {"$foo": 1}}})",
     R"({"_id": 1, "a": [{"$foo": 1}]})"},
};

const Case kPullCases[] = {
    {"PullRemovesEveryEqualValue", R"({"_id": 1, "a": [1, 2, 1, 3]})", R"({"$pull": {"a": 1}})",
     R"({"_id": 1, "a": [2, 3]})"},
    {"PullComparesNumbersByValue", R"({"_id": 1, "a": [1, 1.0, {"$numberLong": "1"}, 2]})",
     R"({"$pull": {"a": 1}})", R"({"_id": 1, "a": [2]})"},
    {"PullArrayValue", R"({"_id": 1, "a": [[1, 2], [3]]})", R"({"$pull": {"a": [1, 2]}})",
     R"({"_id": 1, "a": [[3]]})"},
    {"PullCondition", R"({"_id": 1, "a": [1, 5, 6, 9]})", R"({"$pull": {"a": {"$gte": 6}}})",
     R"({"_id": 1, "a": [1, 5]})"},
    {"PullDocumentsMatchingFieldCondition",
     R"({"_id": 1, "results": [{"score": 8, "item": "a"}, {"score": 7, "item": "b"}, 8]})",
     R"({"$pull": {"results": {"score": 8}}})",
     R"({"_id": 1, "results": [{"score": 7, "item": "b"}, 8]})"},
    {"PullDocumentsWithOperatorCondition",
     R"({"_id": 1, "results": [{"score": 8}, {"score": 7}, {"score": 9}]})",
     R"({"$pull": {"results": {"score": {"$gt": 7}}}})",
     R"({"_id": 1, "results": [{"score": 7}]})"},
    {"PullInCondition", R"({"_id": 1, "a": ["apple", "banana", "avocado"]})",
     R"({"$pull": {"a": {"$in": ["apple", "avocado"]}}})", R"({"_id": 1, "a": ["banana"]})"},
    {"PullNothingMatchingIsNoop", R"({"_id": 1, "a": [1, 2]})", R"({"$pull": {"a": 3}})",
     R"({"_id": 1, "a": [1, 2]})", 0, nullptr, kNoop},
    {"PullMissingFieldIsNoop", R"({"_id": 1})", R"({"$pull": {"a": 3}})", R"({"_id": 1})", 0,
     nullptr, kNoop},
    {"PullFromNonArrayIsBadValue", R"({"_id": 1, "a": 1})", R"({"$pull": {"a": 1}})", nullptr, 2,
     "Cannot apply $pull to a non-array value"},
};

const Case kParseCases[] = {
    {"UnknownModifierIsFailedToParse", R"({"_id": 1})", R"({"$foo": {"a": 1}})", nullptr, 9,
     "Unknown modifier: $foo. Expected a valid update modifier or pipeline-style update specified "
     "as an array"},
    {"FieldAfterOperatorIsUnknownModifier", R"({"_id": 1})", R"({"$set": {"a": 1}, "b": 2})",
     nullptr, 9,
     "Unknown modifier: b. Expected a valid update modifier or pipeline-style update specified "
     "as an array"},
    {"OperatorArgumentMustBeDocument", R"({"_id": 1})", R"({"$set": [{"a": 1}]})", nullptr, 9,
     "Modifiers operate on fields but we found type array instead. For example: {$mod: {<field>: "
     "...}} not {$set: [ { a: 1 } ]}"},
    {"SamePathInTwoOperatorsConflicts", R"({"_id": 1})", R"({"$set": {"a": 1}, "$inc": {"a": 1}})",
     nullptr, 40, "Updating the path 'a' would create a conflict at 'a'"},
    {"ChildAfterParentConflicts", R"({"_id": 1})", R"({"$set": {"a": 1, "a.b": 2}})", nullptr, 40,
     "Updating the path 'a.b' would create a conflict at 'a'"},
    {"ParentAfterChildConflicts", R"({"_id": 1})", R"({"$set": {"a.b": 2}, "$unset": {"a": 1}})",
     nullptr, 40, "Updating the path 'a' would create a conflict at 'a'"},
    {"DeepConflictNamesThePrefix", R"({"_id": 1})", R"({"$set": {"a.b": 2}, "$inc": {"a.b.c": 1}})",
     nullptr, 40, "Updating the path 'a.b.c' would create a conflict at 'a.b'"},
    {"SetOnInsertConflictsToo", R"({"_id": 1})", R"({"$set": {"a": 2}, "$setOnInsert": {"a": 1}})",
     nullptr, 40, "Updating the path 'a' would create a conflict at 'a'"},
    {"SiblingPathsDoNotConflict", R"({"_id": 1, "a": {"b": 1, "c": 1}})",
     R"({"$set": {"a.b": 5}, "$inc": {"a.c": 1}})", R"({"_id": 1, "a": {"b": 5, "c": 2}})"},
    {"PrefixOfNameIsNotPathPrefix", R"({"_id": 1, "a": 1, "ab": 0})",
     R"({"$set": {"ab": 1}, "$inc": {"a": 1}})", R"({"_id": 1, "a": 2, "ab": 1})"},
    {"EmptyPathIsEmptyFieldName", R"({"_id": 1})", R"({"$set": {"": 1}})", nullptr, 56,
     "An empty update path is not valid."},
    {"EmptyComponentIsEmptyFieldName", R"({"_id": 1})", R"({"$set": {"a..b": 1}})", nullptr, 56,
     "The update path 'a..b' contains an empty field name, which is not allowed."},
    {"TrailingDotIsEmptyFieldName", R"({"_id": 1})", R"({"$unset": {"a.": 1}})", nullptr, 56,
     "The update path 'a.' contains an empty field name, which is not allowed."},
    {"PositionalFirstIsBadValue", R"({"_id": 1})", R"({"$set": {"$.a": 1}})", nullptr, 2,
     "Cannot have positional (i.e. '$') element in the first position in path '$.a'"},
    {"TwoPositionalsIsBadValue", R"({"_id": 1})", R"({"$set": {"a.$.b.$": 1}})", nullptr, 2,
     "Too many positional (i.e. '$') elements found in path 'a.$.b.$'"},
    {"PositionalWithoutQueryMatchIsBadValue", R"({"_id": 1})", R"({"$set": {"a.$": 1}})", nullptr,
     2, "The positional operator did not find the match needed from the query."},
    {"ArrayFilterWithoutFilterIsBadValue", R"({"_id": 1})", R"({"$set": {"a.$[x]": 1}})", nullptr,
     2, "No array filter found for identifier 'x' in path 'a.$[x]'"},
    {"ModifierErrorsComeBeforeConflicts", R"({"_id": 1})",
     R"({"$set": {"a": 1}, "$inc": {"a": "x"}})", nullptr, 14,
     "Cannot increment with non-numeric argument: {a: \"x\"}"},
};

const Case kMoreModifierCases[] = {
    {"MinLowers", R"({"_id": 1, "a": 5})", R"({"$min": {"a": 3}})", R"({"_id": 1, "a": 3})"},
    {"MinKeepsSmaller", R"({"_id": 1, "a": 5})", R"({"$min": {"a": 7}})", R"({"_id": 1, "a": 5})",
     0, nullptr, kNoop},
    {"MaxRaises", R"({"_id": 1, "a": 5})", R"({"$max": {"a": 7.5}})", R"({"_id": 1, "a": 7.5})"},
    {"MaxEqualOtherTypeIsNoop", R"({"_id": 1, "a": 5})", R"({"$max": {"a": 5.0}})",
     R"({"_id": 1, "a": 5})", 0, nullptr, kNoop},
    {"MaxComparesAcrossTypes", R"({"_id": 1, "a": 5})", R"({"$max": {"a": "x"}})",
     R"({"_id": 1, "a": "x"})"},
    {"MinCreatesMissing", R"({"_id": 1})", R"({"$min": {"a.b": 1}})",
     R"({"_id": 1, "a": {"b": 1}})"},
    {"AddToSetAddsMissingValue", R"({"_id": 1, "a": [1, 2]})", R"({"$addToSet": {"a": 3}})",
     R"({"_id": 1, "a": [1, 2, 3]})"},
    {"AddToSetPresentValueIsNoop", R"({"_id": 1, "a": [1, 2]})", R"({"$addToSet": {"a": 2.0}})",
     R"({"_id": 1, "a": [1, 2]})", 0, nullptr, kNoop},
    {"AddToSetEachDeduplicates", R"({"_id": 1, "a": [1]})",
     R"({"$addToSet": {"a": {"$each": [1, 2, 2, 3]}}})", R"({"_id": 1, "a": [1, 2, 3]})"},
    {"AddToSetCreatesArray", R"({"_id": 1})", R"({"$addToSet": {"a": {"$each": [4, 4]}}})",
     R"({"_id": 1, "a": [4]})"},
    {"AddToSetOnNonArrayIsBadValue", R"({"_id": 1, "a": {"b": 1}})", R"({"$addToSet": {"a.b": 2}})",
     nullptr, 2,
     "Cannot apply $addToSet to non-array field. Field named 'b' has non-array type int"},
    {"AddToSetEachOfNonArrayIsTypeMismatch", R"({"_id": 1})",
     R"({"$addToSet": {"a": {"$each": 1}}})", nullptr, 14,
     "The argument to $each in $addToSet must be an array but it was of type int"},
    {"PopLast", R"({"_id": 1, "a": [1, 2, 3]})", R"({"$pop": {"a": 1}})",
     R"({"_id": 1, "a": [1, 2]})"},
    {"PopFirst", R"({"_id": 1, "a": [1, 2, 3]})", R"({"$pop": {"a": -1}})",
     R"({"_id": 1, "a": [2, 3]})"},
    {"PopEmptyIsNoop", R"({"_id": 1, "a": []})", R"({"$pop": {"a": 1}})", R"({"_id": 1, "a": []})",
     0, nullptr, kNoop},
    {"PopBadArgumentIsFailedToParse", R"({"_id": 1})", R"({"$pop": {"a": 2}})", nullptr, 9,
     "$pop expects 1 or -1, found: 2"},
    {"PopNonNumberIsFailedToParse", R"({"_id": 1})", R"({"$pop": {"v": "foo"}})", nullptr, 9,
     "Expected a number in: v: \"foo\""},
    {"PopNonArrayIsTypeMismatch", R"({"_id": 1, "v": {"foo": 1}})", R"({"$pop": {"v.foo": 1}})",
     nullptr, 14, "Path 'v.foo' contains an element of non-array type 'int'"},
    {"PullAllRemovesListedValues", R"({"_id": 1, "a": [0, 5, 6, 5, 1.0]})",
     R"({"$pullAll": {"a": [5, 1]}})", R"({"_id": 1, "a": [0, 6]})"},
    {"PullAllNeedsArray", R"({"_id": 1})", R"({"$pullAll": {"a": 1}})", nullptr, 2,
     "$pullAll requires an array argument but was given a int"},
    {"RenameMovesValueToNewFieldAtEnd", R"({"_id": 1, "a": 1, "b": 2})",
     R"({"$rename": {"a": "z"}})", R"({"_id": 1, "b": 2, "z": 1})"},
    {"RenameOverwritesExistingInPlace", R"({"_id": 1, "a": 1, "b": 2})",
     R"({"$rename": {"b": "a"}})", R"({"_id": 1, "a": 2})"},
    {"RenameIntoEmbeddedDocument", R"({"_id": 1, "a": {"x": 1}, "b": 2})",
     R"({"$rename": {"b": "a.y"}})", R"({"_id": 1, "a": {"x": 1, "y": 2}})"},
    {"RenameMissingSourceIsNoop", R"({"_id": 1, "b": 2})", R"({"$rename": {"a": "c"}})",
     R"({"_id": 1, "b": 2})", 0, nullptr, kNoop},
    {"RenameToSamePathIsBadValue", R"({"_id": 1})", R"({"$rename": {"a": "a"}})", nullptr, 2,
     "The source and target field for $rename must differ: a: \"a\""},
    {"RenameOnSamePathIsBadValue", R"({"_id": 1})", R"({"$rename": {"a": "a.b"}})", nullptr, 2,
     "The source and target field for $rename must not be on the same path: a: \"a.b\""},
    {"RenameNeedsStringTarget", R"({"_id": 1})", R"({"$rename": {"a": 1}})", nullptr, 2,
     "The 'to' field for $rename must be a string: a: 1"},
    {"RenameSourceInArrayIsBadValue", R"({"_id": 1, "a": [{"b": 1}]})",
     R"({"$rename": {"a.0.b": "c"}})", nullptr, 2,
     "The source field cannot be an array element, 'a.0.b' in doc with _id: 1 has an array field "
     "called 'a'"},
    {"RenameConflictsOnSource", R"({"_id": 1})", R"({"$rename": {"a": "b"}, "$set": {"a": 5}})",
     nullptr, 40, "Updating the path 'a' would create a conflict at 'a'"},
    {"RenameConflictsOnTarget", R"({"_id": 1})", R"({"$rename": {"a": "b"}, "$set": {"b": 9}})",
     nullptr, 40, "Updating the path 'b' would create a conflict at 'b'"},
    {"CurrentDateRejectsNumber", R"({"_id": 1})", R"({"$currentDate": {"a": 1}})", nullptr, 2,
     "int is not valid type for $currentDate. Please use a boolean ('true') or a $type "
     "expression ({$type: 'timestamp/date'})."},
};

const Case kReplacementCases[] = {
    {"ReplacementKeepsDocumentId", R"({"_id": 1, "a": 1})", R"({"b": 2})", R"({"_id": 1, "b": 2})"},
    {"ReplacementWithSameIdPutsIdFirst", R"({"_id": 1, "a": 1})", R"({"b": 2, "_id": 1})",
     R"({"_id": 1, "b": 2})"},
    {"ReplacementWithOtherIdIsImmutableField", R"({"_id": 1, "a": 1})", R"({"_id": 2, "a": 1})",
     nullptr, 66,
     "After applying the update, the (immutable) field '_id' was found to have been altered to "
     "_id: 2"},
    {"IdenticalReplacementIsNoop", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 1})",
     R"({"_id": 1, "a": 1})", 0, nullptr, kNoop},
    {"EmptyReplacementKeepsOnlyId", R"({"_id": 1, "a": 1})", "{}", R"({"_id": 1})"},
    {"ReplacementWithOperatorFieldIsRejected", R"({"_id": 1})", R"({"a": 1, "$set": {"b": 1}})",
     nullptr, 52,
     "The dollar ($) prefixed field '$set' in '$set' is not allowed in the context of an update's "
     "replacement document. Consider using an aggregation pipeline with $replaceWith."},
    {"ReplacementIdCannotBeArray", R"({"_id": 1})", R"({"_id": [1]})", nullptr, 53,
     "The '_id' value cannot be of type array"},
};

auto CaseName = [](const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.name);
};

INSTANTIATE_TEST_SUITE_P(Set, UpdateCases, ::testing::ValuesIn(kSetCases), CaseName);
INSTANTIATE_TEST_SUITE_P(Unset, UpdateCases, ::testing::ValuesIn(kUnsetCases), CaseName);
INSTANTIATE_TEST_SUITE_P(Arithmetic, UpdateCases, ::testing::ValuesIn(kArithmeticCases), CaseName);
INSTANTIATE_TEST_SUITE_P(Push, UpdateCases, ::testing::ValuesIn(kPushCases), CaseName);
INSTANTIATE_TEST_SUITE_P(Pull, UpdateCases, ::testing::ValuesIn(kPullCases), CaseName);
INSTANTIATE_TEST_SUITE_P(Parse, UpdateCases, ::testing::ValuesIn(kParseCases), CaseName);
INSTANTIATE_TEST_SUITE_P(More, UpdateCases, ::testing::ValuesIn(kMoreModifierCases), CaseName);
INSTANTIATE_TEST_SUITE_P(Replacement, UpdateCases, ::testing::ValuesIn(kReplacementCases),
                         CaseName);

// --- Upserts ---

Result<std::string> ApplyUpsert(const char* filter, const char* update_json) {
  BsonDoc filter_doc = BsonDoc::FromJson(filter);
  CAIRN_ASSIGN_OR_RETURN(BsonDoc seed, Update::SeedFromFilter(filter_doc.view()));
  BsonDoc spec = BsonDoc::FromJson(update_json);
  CAIRN_ASSIGN_OR_RETURN(Update update, Update::Parse(spec.view()));
  BsonDoc out;
  Update::ApplyOptions options;
  options.is_upsert_insert = true;
  CAIRN_ASSIGN_OR_RETURN(bool modified, update.Apply(seed.view(), out.get(), options));
  (void)modified;
  return Canonical(out.view());
}

TEST(UpdateUpsertTest, ShouldApplySetOnInsertOnlyWhenInserting) {
  Result<std::string> out = ApplyUpsert(R"({"_id": 5})", R"({"$setOnInsert": {"a": 1}})");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, Canonical(BsonDoc::FromJson(R"({"_id": 5, "a": 1})").view()));
}

TEST(UpdateUpsertTest, ShouldPutIdFirstWhenTheUpdateSetsIt) {
  Result<std::string> out = ApplyUpsert(R"({"a": 1})", R"({"$set": {"_id": 7, "b": 2}})");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, Canonical(BsonDoc::FromJson(R"({"_id": 7, "a": 1, "b": 2})").view()));
}

TEST(UpdateUpsertTest, ShouldRejectChangingTheFilterId) {
  Result<std::string> out = ApplyUpsert(R"({"_id": 1})", R"({"$set": {"_id": 2}})");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code_number(), 66);
}

TEST(UpdateUpsertTest, ShouldKeepOnlyTheIdForAReplacement) {
  Result<std::string> out = ApplyUpsert(R"({"_id": 3, "x": 1})", R"({"b": 2})");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, Canonical(BsonDoc::FromJson(R"({"_id": 3, "b": 2})").view()));
}

TEST(UpdateUpsertTest, ShouldRejectAnArrayId) {
  Result<std::string> out = ApplyUpsert(R"({"a": 1})", R"({"$set": {"_id": [1]}})");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code_number(), 53);
  EXPECT_EQ(out.status().reason(), "The '_id' value cannot be of type array");
}

// --- SeedFromFilter ---

struct SeedCase {
  const char* name;
  const char* filter;
  const char* expected;  // nullptr: error
  int code = 0;
  const char* message = nullptr;
};

class SeedCases : public ::testing::TestWithParam<SeedCase> {};

TEST_P(SeedCases, ShouldSeedAsMongoDB) {
  const SeedCase& c = GetParam();
  BsonDoc filter = BsonDoc::FromJson(c.filter);
  Result<BsonDoc> seed = Update::SeedFromFilter(filter.view());
  if (c.expected == nullptr) {
    ASSERT_FALSE(seed.ok()) << c.name;
    EXPECT_EQ(seed.status().code_number(), c.code);
    if (c.message != nullptr) {
      EXPECT_EQ(seed.status().reason(), c.message);
    }
    return;
  }
  ASSERT_TRUE(seed.ok()) << seed.status().ToString();
  EXPECT_EQ(Canonical(seed->view()), Canonical(BsonDoc::FromJson(c.expected).view())) << c.name;
}

const SeedCase kSeedCases[] = {
    {"EqualitiesOperatorsAndAnd", R"({"_id": 5, "a": {"$gt": 1}, "b.c": 2, "$and": [{"d": 3}]})",
     R"({"_id": 5, "b": {"c": 2}, "d": 3})"},
    {"IdComesFirst", R"({"z": 1, "_id": 2})", R"({"_id": 2, "z": 1})"},
    {"ExplicitEq", R"({"a": {"$eq": 4}})", R"({"a": 4})"},
    {"DocumentValueIsSeeded", R"({"a": {"x": 1, "y": [1, 2]}})", R"({"a": {"x": 1, "y": [1, 2]}})"},
    {"SingleValueInIsSeeded", R"({"a": {"$in": [7]}})", R"({"a": 7})"},
    {"MultiValueInIsNot", R"({"a": {"$in": [7, 8]}})", "{}"},
    {"OrIsIgnored", R"({"$or": [{"a": 1}, {"b": 2}]})", "{}"},
    {"SingleClauseOrIsSeeded", R"({"$or": [{"a": 1}]})", R"({"a": 1})"},
    {"RegexIsNotSeeded", R"({"a": {"$regularExpression": {"pattern": "x", "options": ""}}})", "{}"},
    {"NullIsSeeded", R"({"a": null})", R"({"a": null})"},
    {"DottedSiblingsShareParent", R"({"a.c": 1, "a.b": 2})", R"({"a": {"b": 2, "c": 1}})"},
    {"SamePathTwiceIsNotSingleValueField", R"({"$and": [{"a": 1}, {"a": 2}]})", nullptr, 54,
     "cannot infer query fields to set, path 'a' is matched twice"},
    {"PrefixPathsAreNotSingleValueField", R"({"a.b": 1, "a": {"b": 1}})", nullptr, 54,
     "cannot infer query fields to set, both paths 'a.b' and 'a' are matched"},
};

INSTANTIATE_TEST_SUITE_P(Seed, SeedCases, ::testing::ValuesIn(kSeedCases),
                         [](const ::testing::TestParamInfo<SeedCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(UpdateTest, ShouldOutliveItsSpecBuffer) {
  Result<Update> update = [] {
    BsonDoc spec = BsonDoc::FromJson(R"({"$set": {"a": "text"}, "$push": {"b": {"$each": [1]}}})");
    return Update::Parse(spec.view());
  }();
  ASSERT_TRUE(update.ok());
  EXPECT_FALSE(update->is_replacement());
  BsonDoc doc = BsonDoc::FromJson(R"({"_id": 1})");
  BsonDoc out;
  ASSERT_TRUE(update->Apply(doc.view(), out.get(), {}).ok());
  EXPECT_EQ(Canonical(out.view()),
            Canonical(BsonDoc::FromJson(R"({"_id": 1, "a": "text", "b": [1]})").view()));
}

TEST(UpdateTest, ShouldSetCurrentDateAsDateOrTimestamp) {
  // {$currentDate: {d: true, t: {$type: "timestamp"}, e: {$type: "date"}}}, built with libbson:
  // its JSON reader takes {"$type": ...} for legacy binary.
  BsonDoc spec;
  bson_t op, t, e;
  bson_append_document_begin(spec.get(), "$currentDate", -1, &op);
  bson_append_bool(&op, "d", -1, true);
  bson_append_document_begin(&op, "t", -1, &t);
  bson_append_utf8(&t, "$type", -1, "timestamp", -1);
  bson_append_document_end(&op, &t);
  bson_append_document_begin(&op, "e", -1, &e);
  bson_append_utf8(&e, "$type", -1, "date", -1);
  bson_append_document_end(&op, &e);
  bson_append_document_end(spec.get(), &op);
  Result<Update> update = Update::Parse(spec.view());
  ASSERT_TRUE(update.ok()) << update.status().ToString();
  BsonDoc doc = BsonDoc::FromJson(R"({"_id": 1, "d": 0})");
  BsonDoc out;
  Result<bool> applied = update->Apply(doc.view(), out.get(), {});
  ASSERT_TRUE(applied.ok());
  EXPECT_TRUE(*applied);
  bson_iter_t it;
  ASSERT_TRUE(out.view().Find("d", &it));
  EXPECT_EQ(bson_iter_type(&it), BSON_TYPE_DATE_TIME);
  EXPECT_GT(bson_iter_date_time(&it), 1600000000000);
  ASSERT_TRUE(out.view().Find("t", &it));
  EXPECT_EQ(bson_iter_type(&it), BSON_TYPE_TIMESTAMP);
  ASSERT_TRUE(out.view().Find("e", &it));
  EXPECT_EQ(bson_iter_type(&it), BSON_TYPE_DATE_TIME);
}

TEST(UpdateTest, ShouldReportReplacement) {
  BsonDoc spec = BsonDoc::FromJson(R"({"a": 1})");
  Result<Update> update = Update::Parse(spec.view());
  ASSERT_TRUE(update.ok());
  EXPECT_TRUE(update->is_replacement());
}

}  // namespace
}  // namespace cairn::query
