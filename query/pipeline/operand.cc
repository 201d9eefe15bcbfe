// Operand (operand.h): parsing as Expression::parseOperand / ExpressionFieldPath::parse do, for
// the constant and field-path cases; evaluation as ExpressionFieldPath::evaluatePath does.
#include "query/pipeline/operand.h"

#include <algorithm>
#include <iterator>

namespace cairn::query {

namespace {

// MongoDB 7.0's aggregation expression operators (REGISTER_*EXPRESSION names), sorted.
constexpr std::string_view kExpressionOperators[] = {
    "$abs", "$acos", "$acosh", "$add", "$allElementsTrue", "$and", "$anyElementTrue",
    "$arrayElemAt", "$arrayToObject", "$asin", "$asinh", "$atan", "$atan2", "$atanh", "$avg",
    "$binarySize", "$bitAnd", "$bitNot", "$bitOr", "$bitXor", "$bottom", "$bottomN", "$bsonSize",
    "$ceil", "$cmp", "$concat", "$concatArrays", "$cond", "$convert", "$cos", "$cosh",
    "$dateAdd", "$dateDiff", "$dateFromParts", "$dateFromString", "$dateSubtract",
    "$dateToParts", "$dateToString", "$dateTrunc", "$dayOfMonth", "$dayOfWeek", "$dayOfYear",
    "$degreesToRadians", "$divide", "$eq", "$exp", "$filter", "$first", "$firstN", "$floor",
    "$function", "$getField", "$gt", "$gte", "$hour", "$ifNull", "$in", "$indexOfArray",
    "$indexOfBytes", "$indexOfCP", "$isArray", "$isNumber", "$isoDayOfWeek", "$isoWeek",
    "$isoWeekYear", "$last", "$lastN", "$let", "$literal", "$ln", "$log", "$log10", "$lt",
    "$lte", "$ltrim", "$map", "$max", "$maxN", "$median", "$mergeObjects", "$meta",
    "$millisecond", "$min", "$minN", "$minute", "$mod", "$month", "$multiply", "$ne", "$not",
    "$objectToArray", "$or", "$percentile", "$pow", "$radiansToDegrees", "$rand", "$range",
    "$reduce", "$regexFind", "$regexFindAll", "$regexMatch", "$replaceAll", "$replaceOne",
    "$reverseArray", "$round", "$rtrim", "$sampleRate", "$second", "$setDifference",
    "$setEquals", "$setField", "$setIntersection", "$setIsSubset", "$setUnion", "$size", "$sin",
    "$sinh", "$slice", "$sortArray", "$split", "$sqrt", "$stdDevPop", "$stdDevSamp",
    "$strLenBytes", "$strLenCP", "$strcasecmp", "$substr", "$substrBytes", "$substrCP",
    "$subtract", "$sum", "$switch", "$tan", "$tanh", "$toBool", "$toDate", "$toDecimal",
    "$toDouble", "$toHashedIndexKey", "$toInt", "$toLong", "$toLower", "$toObjectId",
    "$toString", "$toUpper", "$top", "$topN", "$trim", "$trunc", "$tsIncrement", "$tsSecond",
    "$type", "$unsetField", "$week", "$year", "$zip",
};

// System variables ($$ROOT, ...) a user may read (Variables::kBuiltin).
constexpr std::string_view kSystemVariables[] = {
    "CLUSTER_TIME", "CURRENT", "DESCEND", "IS_MR", "JS_SCOPE", "KEEP", "NOW",
    "PRUNE",        "REMOVE",  "ROOT",    "SEARCH_META", "USER_ROLES",
};

Status NotSupported(std::string what) {
  return Status(ErrorCode::kBadValue, std::move(what) + " is not supported by Cairn yet");
}

// FieldPath's validation of the path after "$" (FieldPath::FieldPath, uassertValidFieldName).
Result<std::vector<std::string>> ParseFieldPath(std::string_view path) {
  if (path.back() == '.') {
    return Status(ErrorCode::kLocation40353, "FieldPath must not end with a '.'.");
  }
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string_view part = path.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (part.empty()) {
      return Status(ErrorCode::kLocation15998, "FieldPath field names may not be empty strings.");
    }
    if (part[0] == '$' && part != "$id" && part != "$ref" && part != "$db") {
      return Status(ErrorCode::kLocation16410,
                    "FieldPath field names may not start with '$'. Consider using $getField or "
                    "$setField.");
    }
    if (part.find('\0') != std::string_view::npos) {
      return Status(ErrorCode::kLocation16411,
                    "FieldPath field names may not contain '\\0'. Consider using $getField or "
                    "$setField.");
    }
    parts.emplace_back(part);
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

// A value that is a constant as it stands: not a string starting with '$', not an object or
// array holding anything but such constants ({} included).
bool IsLiteral(const bson_iter_t* value) {
  switch (bson_iter_type(value)) {
    case BSON_TYPE_UTF8: return IterUtf8(value).substr(0, 1) != "$";
    case BSON_TYPE_DOCUMENT: return IterDocument(value).empty();
    case BSON_TYPE_ARRAY: {
      bson_iter_t it;
      BsonView array = IterDocument(value);
      if (!array.Init(&it)) return false;
      while (bson_iter_next(&it)) {
        if (!IsLiteral(&it)) return false;
      }
      return true;
    }
    default: return true;
  }
}

std::shared_ptr<const BsonDoc> MakeConstant(const bson_iter_t* value) {
  auto doc = std::make_shared<BsonDoc>();
  bson_append_iter(doc->get(), "", 0, value);
  return doc;
}

// Appends, under `key`, the value path[index..] yields inside the array `array`: the array of
// what each element document yields (ExpressionFieldPath::evaluatePathArray).
void AppendPathArray(BsonView array, const std::vector<std::string>& path, size_t index,
                     bson_t* out, std::string_view key);

// Appends the value path[index..] yields inside `doc` under `key`; false when missing.
bool AppendPath(BsonView doc, const std::vector<std::string>& path, size_t index, bson_t* out,
                std::string_view key) {
  bson_iter_t it;
  if (!doc.Find(path[index], &it)) return false;
  if (index + 1 == path.size()) return AppendIter(out, key, &it);
  if (BSON_ITER_HOLDS_DOCUMENT(&it)) return AppendPath(IterDocument(&it), path, index + 1, out, key);
  if (BSON_ITER_HOLDS_ARRAY(&it)) {
    AppendPathArray(IterDocument(&it), path, index + 1, out, key);
    return true;
  }
  return false;
}

void AppendPathArray(BsonView array, const std::vector<std::string>& path, size_t index,
                     bson_t* out, std::string_view key) {
  bson_t child;
  bson_append_array_begin(out, key.data(), static_cast<int>(key.size()), &child);
  bson_iter_t it;
  uint32_t n = 0;
  if (array.Init(&it)) {
    while (bson_iter_next(&it)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) continue;
      char buf[16];
      const char* element_key;
      size_t len = bson_uint32_to_string(n, &element_key, buf, sizeof buf);
      if (AppendPath(IterDocument(&it), path, index, &child, std::string_view(element_key, len))) {
        ++n;
      }
    }
  }
  bson_append_array_end(out, &child);
}

}  // namespace

bool IsKnownExpressionOperator(std::string_view name) {
  return std::binary_search(std::begin(kExpressionOperators), std::end(kExpressionOperators),
                            name);
}

Result<Operand> Operand::Parse(const bson_iter_t* value) {
  Operand operand;
  bson_type_t type = bson_iter_type(value);
  if (type == BSON_TYPE_UTF8 && IterUtf8(value).substr(0, 1) == "$") {
    std::string_view raw = IterUtf8(value);
    if (raw.size() < 2) {
      return Status(ErrorCode::kLocation16872, "'$' by itself is not a valid FieldPath");
    }
    if (raw[1] == '$') {
      std::string_view rest = raw.substr(2);
      std::string_view name = rest.substr(0, rest.find('.'));
      if (name.empty()) {
        return Status(ErrorCode::kFailedToParse, "empty variable names are not allowed");
      }
      if (std::find(std::begin(kSystemVariables), std::end(kSystemVariables), name) !=
          std::end(kSystemVariables)) {
        return NotSupported("The variable $$" + std::string(name));
      }
      return Status(ErrorCode::kLocation17276, "Use of undefined variable: " + std::string(name));
    }
    CAIRN_ASSIGN_OR_RETURN(operand.path_, ParseFieldPath(raw.substr(1)));
    return operand;
  }
  if (type == BSON_TYPE_DOCUMENT && !IterDocument(value).empty()) {
    BsonView object = IterDocument(value);
    bson_iter_t it;
    object.Init(&it);
    bson_iter_next(&it);
    std::string_view op = IterKey(&it);
    if (op.substr(0, 1) != "$") {
      return NotSupported("An object of expressions as an operand ({" + std::string(op) + ": …})");
    }
    if (object.CountKeys() != 1) {
      return Status(ErrorCode::kLocation15983,
                    "An object representing an expression must have exactly one field: " +
                        ToShellString(object));
    }
    if (op == "$literal") {
      operand.constant_ = MakeConstant(&it);
      return operand;
    }
    if (IsKnownExpressionOperator(op)) return NotSupported("The expression " + std::string(op));
    return Status(ErrorCode::kInvalidPipelineOperator,
                  "Unrecognized expression '" + std::string(op) + "'");
  }
  if (type == BSON_TYPE_ARRAY && !IsLiteral(value)) {
    return NotSupported("An array of expressions as an operand");
  }
  operand.constant_ = MakeConstant(value);
  return operand;
}

bool Operand::Evaluate(BsonView doc, BsonDoc* scratch, bson_iter_t* value) const {
  if (constant_ != nullptr) {
    return constant_->view().Init(value) && bson_iter_next(value);
  }
  // Walk down documents in place; the first array met builds the result in *scratch.
  BsonView current = doc;
  for (size_t i = 0; i < path_.size(); ++i) {
    bson_iter_t it;
    if (!current.Find(path_[i], &it)) return false;
    if (i + 1 == path_.size()) {
      *value = it;
      return true;
    }
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      current = IterDocument(&it);
      continue;
    }
    if (!BSON_ITER_HOLDS_ARRAY(&it)) return false;
    bson_reinit(scratch->get());
    AppendPathArray(IterDocument(&it), path_, i + 1, scratch->get(), "");
    return scratch->view().Init(value) && bson_iter_next(value);
  }
  return false;
}

}  // namespace cairn::query
