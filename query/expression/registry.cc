// The operator table (operator.h): MongoDB 7.0 expression names → the family file that
// implements each, in one sorted table, plus the MongoDB operators Cairn does not implement yet
// (answered with a precise BadValue rather than 168 "Unrecognized expression"). Both lists are
// sorted by name (checked in a unit test).
#include <algorithm>
#include <iterator>

#include "query/expression/operator.h"

namespace cairn::query::ops {

namespace {

// clang-format off
constexpr OperatorRow kOperators[] = {
    {"$abs",             nullptr,                EvalAbs,             1, 1},
    {"$add",             nullptr,                EvalAdd,             0, kVariadic},
    {"$allElementsTrue", nullptr,                EvalAllElementsTrue, 1, 1},
    {"$and",             nullptr,                EvalAnd,             0, kVariadic},
    {"$anyElementTrue",  nullptr,                EvalAnyElementTrue,  1, 1},
    {"$arrayElemAt",     nullptr,                EvalArrayElemAt,     2, 2},
    {"$arrayToObject",   nullptr,                EvalArrayToObject,   1, 1},
    {"$avg",             nullptr,                EvalAccumulator,     0, kVariadic},
    {"$ceil",            nullptr,                EvalCeil,            1, 1},
    {"$cmp",             nullptr,                EvalCmp,             2, 2},
    {"$concat",          nullptr,                EvalConcat,          0, kVariadic},
    {"$concatArrays",    nullptr,                EvalConcatArrays,    0, kVariadic},
    {"$cond",            ParseCond,              nullptr,             0, 0},
    {"$const",           ParseLiteral,           nullptr,             0, 0},
    {"$convert",         ParseConvert,           nullptr,             0, 0},
    {"$dateAdd",         ParseDateAdd,           nullptr,             0, 0},
    {"$dateDiff",        ParseDateDiff,          nullptr,             0, 0},
    {"$dateFromParts",   ParseDateFromParts,     nullptr,             0, 0},
    {"$dateFromString",  ParseDateFromString,    nullptr,             0, 0},
    {"$dateSubtract",    ParseDateAdd,           nullptr,             0, 0},
    {"$dateToParts",     ParseDateToParts,       nullptr,             0, 0},
    {"$dateToString",    ParseDateToString,      nullptr,             0, 0},
    {"$dateTrunc",       ParseDateTrunc,         nullptr,             0, 0},
    {"$dayOfMonth",      ParseDatePart,          nullptr,             0, 0},
    {"$dayOfWeek",       ParseDatePart,          nullptr,             0, 0},
    {"$dayOfYear",       ParseDatePart,          nullptr,             0, 0},
    {"$divide",          nullptr,                EvalDivide,          2, 2},
    {"$eq",              nullptr,                EvalEq,              2, 2},
    {"$exp",             nullptr,                EvalExp,             1, 1},
    {"$filter",          ParseFilter,            nullptr,             0, 0},
    {"$first",           nullptr,                EvalFirst,           1, 1},
    {"$firstN",          ParseAccumulatorN,      nullptr,             0, 0},
    {"$floor",           nullptr,                EvalFloor,           1, 1},
    {"$getField",        ParseGetField,          nullptr,             0, 0},
    {"$gt",              nullptr,                EvalGt,              2, 2},
    {"$gte",             nullptr,                EvalGte,             2, 2},
    {"$hour",            ParseDatePart,          nullptr,             0, 0},
    {"$ifNull",          ParseIfNull,            nullptr,             0, 0},
    {"$in",              nullptr,                EvalIn,              2, 2},
    {"$indexOfArray",    nullptr,                EvalIndexOfArray,    2, 4},
    {"$indexOfBytes",    nullptr,                EvalIndexOfBytes,    2, 4},
    {"$indexOfCP",       nullptr,                EvalIndexOfCP,       2, 4},
    {"$isArray",         nullptr,                EvalIsArray,         1, 1},
    {"$isNumber",        nullptr,                EvalIsNumber,        1, 1},
    {"$isoDayOfWeek",    ParseDatePart,          nullptr,             0, 0},
    {"$isoWeek",         ParseDatePart,          nullptr,             0, 0},
    {"$isoWeekYear",     ParseDatePart,          nullptr,             0, 0},
    {"$last",            nullptr,                EvalLast,            1, 1},
    {"$lastN",           ParseAccumulatorN,      nullptr,             0, 0},
    {"$let",             ParseLet,               nullptr,             0, 0},
    {"$literal",         ParseLiteral,           nullptr,             0, 0},
    {"$ln",              nullptr,                EvalLn,              1, 1},
    {"$log",             nullptr,                EvalLog,             2, 2},
    {"$log10",           nullptr,                EvalLog10,           1, 1},
    {"$lt",              nullptr,                EvalLt,              2, 2},
    {"$lte",             nullptr,                EvalLte,             2, 2},
    {"$ltrim",           ParseTrim,              nullptr,             0, 0},
    {"$map",             ParseMap,               nullptr,             0, 0},
    {"$max",             nullptr,                EvalAccumulator,     0, kVariadic},
    {"$maxN",            ParseAccumulatorN,      nullptr,             0, 0},
    {"$mergeObjects",    nullptr,                EvalMergeObjects,    0, kVariadic},
    {"$meta",            ParseMeta,              nullptr,             0, 0},
    {"$millisecond",     ParseDatePart,          nullptr,             0, 0},
    {"$min",             nullptr,                EvalAccumulator,     0, kVariadic},
    {"$minN",            ParseAccumulatorN,      nullptr,             0, 0},
    {"$minute",          ParseDatePart,          nullptr,             0, 0},
    {"$mod",             nullptr,                EvalMod,             2, 2},
    {"$month",           ParseDatePart,          nullptr,             0, 0},
    {"$multiply",        nullptr,                EvalMultiply,        0, kVariadic},
    {"$ne",              nullptr,                EvalNe,              2, 2},
    {"$not",             nullptr,                EvalNot,             1, 1},
    {"$objectToArray",   nullptr,                EvalObjectToArray,   1, 1},
    {"$or",              nullptr,                EvalOr,              0, kVariadic},
    {"$pow",             nullptr,                EvalPow,             2, 2},
    {"$rand",            ParseRand,              nullptr,             0, 0},
    {"$range",           nullptr,                EvalRange,           2, 3},
    {"$reduce",          ParseReduce,            nullptr,             0, 0},
    {"$regexFind",       ParseRegex,             nullptr,             0, 0},
    {"$regexFindAll",    ParseRegex,             nullptr,             0, 0},
    {"$regexMatch",      ParseRegex,             nullptr,             0, 0},
    {"$replaceAll",      ParseReplace,           nullptr,             0, 0},
    {"$replaceOne",      ParseReplace,           nullptr,             0, 0},
    {"$reverseArray",    nullptr,                EvalReverseArray,    1, 1},
    {"$round",           nullptr,                EvalRound,           1, 2},
    {"$rtrim",           ParseTrim,              nullptr,             0, 0},
    {"$second",          ParseDatePart,          nullptr,             0, 0},
    {"$setDifference",   nullptr,                EvalSetDifference,   2, 2},
    {"$setEquals",       ParseSetEquals,         nullptr,             0, 0},
    {"$setField",        ParseSetField,          nullptr,             0, 0},
    {"$setIntersection", nullptr,                EvalSetIntersection, 0, kVariadic},
    {"$setIsSubset",     nullptr,                EvalSetIsSubset,     2, 2},
    {"$setUnion",        nullptr,                EvalSetUnion,        0, kVariadic},
    {"$size",            nullptr,                EvalSize,            1, 1},
    {"$slice",           nullptr,                EvalSlice,           2, 3},
    {"$sortArray",       ParseSortArray,         nullptr,             0, 0},
    {"$split",           nullptr,                EvalSplit,           2, 2},
    {"$sqrt",            nullptr,                EvalSqrt,            1, 1},
    {"$stdDevPop",       nullptr,                EvalAccumulator,     0, kVariadic},
    {"$stdDevSamp",      nullptr,                EvalAccumulator,     0, kVariadic},
    {"$strLenBytes",     nullptr,                EvalStrLenBytes,     1, 1},
    {"$strLenCP",        nullptr,                EvalStrLenCP,        1, 1},
    {"$strcasecmp",      nullptr,                EvalStrcasecmp,      2, 2},
    {"$substr",          ParseSubstr,            nullptr,             0, 0},
    {"$substrBytes",     nullptr,                EvalSubstrBytes,     3, 3},
    {"$substrCP",        nullptr,                EvalSubstrCP,        3, 3},
    {"$subtract",        nullptr,                EvalSubtract,        2, 2},
    {"$sum",             nullptr,                EvalAccumulator,     0, kVariadic},
    {"$switch",          ParseSwitch,            nullptr,             0, 0},
    {"$toBool",          ParseConversionAlias,   nullptr,             0, 0},
    {"$toDate",          ParseConversionAlias,   nullptr,             0, 0},
    {"$toDecimal",       ParseConversionAlias,   nullptr,             0, 0},
    {"$toDouble",        ParseConversionAlias,   nullptr,             0, 0},
    {"$toInt",           ParseConversionAlias,   nullptr,             0, 0},
    {"$toLong",          ParseConversionAlias,   nullptr,             0, 0},
    {"$toLower",         nullptr,                EvalToLower,         1, 1},
    {"$toObjectId",      ParseConversionAlias,   nullptr,             0, 0},
    {"$toString",        ParseConversionAlias,   nullptr,             0, 0},
    {"$toUpper",         nullptr,                EvalToUpper,         1, 1},
    {"$trim",            ParseTrim,              nullptr,             0, 0},
    {"$trunc",           nullptr,                EvalTrunc,           1, 2},
    {"$type",            nullptr,                EvalType,            1, 1},
    {"$unsetField",      ParseSetField,          nullptr,             0, 0},
    {"$week",            ParseDatePart,          nullptr,             0, 0},
    {"$year",            ParseDatePart,          nullptr,             0, 0},
    {"$zip",             ParseZip,               nullptr,             0, 0},
};
// clang-format on

// MongoDB 7.0's other expression operators (REGISTER_*EXPRESSION names): the date-part and
// regular-expression families, trigonometry, bitwise, the other accumulators usable as
// expressions, and the rest Cairn does not implement yet.
constexpr std::string_view kNotSupported[] = {
    "$acos",        "$acosh",
    "$asin",        "$asinh",
    "$atan",        "$atan2",
    "$atanh",       "$binarySize",
    "$bitAnd",      "$bitNot",
    "$bitOr",       "$bitXor",
    "$bsonSize",    "$cos",
    "$cosh",        "$degreesToRadians",
    "$function",    "$median",
    "$percentile",  "$radiansToDegrees",
    "$sampleRate",  "$sin",
    "$sinh",        "$tan",
    "$tanh",        "$toHashedIndexKey",
    "$tsIncrement", "$tsSecond",
};

struct RowLess {
  bool operator()(const OperatorRow& row, std::string_view name) const { return row.name < name; }
};

}  // namespace

const OperatorRow* FindOperator(std::string_view name) {
  const OperatorRow* end = std::end(kOperators);
  const OperatorRow* row = std::lower_bound(std::begin(kOperators), end, name, RowLess());
  return row != end && row->name == name ? row : nullptr;
}

bool IsNotSupportedOperator(std::string_view name) {
  return std::binary_search(std::begin(kNotSupported), std::end(kNotSupported), name);
}

bool OperatorTablesAreSorted() {
  for (size_t i = 1; i < std::size(kOperators); ++i) {
    if (!(kOperators[i - 1].name < kOperators[i].name)) return false;
  }
  for (size_t i = 1; i < std::size(kNotSupported); ++i) {
    if (!(kNotSupported[i - 1] < kNotSupported[i])) return false;
  }
  for (std::string_view name : kNotSupported) {
    if (FindOperator(name) != nullptr) return false;
  }
  return true;
}

}  // namespace cairn::query::ops

namespace cairn::query {

bool IsKnownExpressionOperator(std::string_view name) {
  return ops::FindOperator(name) != nullptr || ops::IsNotSupportedOperator(name);
}

}  // namespace cairn::query
