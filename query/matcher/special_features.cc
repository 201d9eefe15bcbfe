// Banned special features (special_features.h): a walk over the filter's BSON.
#include "query/matcher/special_features.h"

#include <string>

#include "query/matcher/parse_internal.h"

namespace cairn::query {

namespace {

Status NearNotAllowed() {
  return Status(ErrorCode::kLocation5626500,
                "$geoNear, $near, and $nearSphere are not allowed in this context, as these "
                "operators require sorting geospatial data. If you do not need sort, consider "
                "using $geoWithin instead. Check out "
                "https://dochub.mongodb.org/core/near-sort-operation and "
                "https://dochub.mongodb.org/core/nearSphere-sort-operationfor more details.");
}

// The operators of one path ({$gt: 1, $near: ...}), and what $not and $elemMatch hold.
Status CheckOperators(BsonView operators, unsigned banned) {
  bson_iter_t it;
  if (!operators.Init(&it)) return Status::OK();
  while (bson_iter_next(&it)) {
    std::string_view op = IterKey(&it);
    if (op == "$near" || op == "$nearSphere" || op == "$geoNear") return NearNotAllowed();
    if (op == "$not" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      CAIRN_RETURN_IF_ERROR(CheckOperators(IterDocument(&it), banned));
    }
    if (op == "$elemMatch" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      // Either form: a sub-filter on the elements' fields, or operators on the elements.
      CAIRN_RETURN_IF_ERROR(CheckSpecialFeatures(IterDocument(&it), banned));
      CAIRN_RETURN_IF_ERROR(CheckOperators(IterDocument(&it), banned));
    }
  }
  return Status::OK();
}

}  // namespace

Status CheckSpecialFeatures(BsonView filter, unsigned banned) {
  bson_iter_t it;
  if (!filter.Init(&it)) return Status::OK();
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if ((key == "$where" && (banned & kFeatureWhere)) ||
        (key == "$text" && (banned & kFeatureText))) {
      return Status(ErrorCode::kBadValue, std::string(key) + " is not allowed in this context");
    }
    if ((key == "$expr" && (banned & kFeatureExpr)) ||
        (key == "$jsonSchema" && (banned & kFeatureJsonSchema))) {
      return Status(ErrorCode::kQueryFeatureNotAllowed,
                    std::string(key) + " is not allowed in this context");
    }
    if ((key == "$and" || key == "$or" || key == "$nor") && BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_iter_t branch;
      bson_iter_recurse(&it, &branch);
      while (bson_iter_next(&branch)) {
        if (BSON_ITER_HOLDS_DOCUMENT(&branch)) {
          CAIRN_RETURN_IF_ERROR(CheckSpecialFeatures(IterDocument(&branch), banned));
        }
      }
      continue;
    }
    if ((banned & kFeatureGeoNear) && !key.empty() && key[0] != '$' &&
        internal::IsExpressionDocument(&it, false)) {
      CAIRN_RETURN_IF_ERROR(CheckOperators(IterDocument(&it), banned));
    }
  }
  return Status::OK();
}

}  // namespace cairn::query
