// The "special" match features some contexts refuse (MongoDB's
// MatchExpressionParser::AllowedFeatures): partial index filters refuse them all, collection
// validators refuse $where, $text and the sorting geo operators. Checked on the filter's BSON
// before it is parsed, with MongoDB's errors.
#pragma once

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::query {

enum SpecialFeature : unsigned {
  kFeatureWhere = 1u << 0,       // $where: BadValue "$where is not allowed in this context"
  kFeatureText = 1u << 1,        // $text: BadValue, the same wording
  kFeatureExpr = 1u << 2,        // $expr: QueryFeatureNotAllowed 224
  kFeatureJsonSchema = 1u << 3,  // $jsonSchema: QueryFeatureNotAllowed 224
  kFeatureGeoNear = 1u << 4,     // $near, $nearSphere, $geoNear: 5626500
};

// Finds a banned feature (a mask of SpecialFeature) where it may stand: at the top of the
// filter or inside $and / $or / $nor, and for the geo operators among a path's operators
// (also under $not and $elemMatch).
Status CheckSpecialFeatures(BsonView filter, unsigned banned);

}  // namespace cairn::query
