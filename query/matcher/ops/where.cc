// $where: always refused, because Cairn has no JavaScript engine.
//
// Decision: answer exactly as a MongoDB 7.0 mongod started with server-side JavaScript disabled
// (--noscripting / security.javascriptEnabled: false) does in a query. That mongod first checks
// the argument as any mongod would (ExtensionsCallback::extractWhereMatchExpressionParams: a
// string or Code, not empty; CodeWScope refused since 4.4) and then fails to build the
// JavaScript function: Location6108304 "no globalScriptEngine in $where parsing" (JsFunction).
// A client therefore sees what a real deployment without JavaScript answers. The placement
// errors ($where inside $elemMatch, or applied to a field) stay those of the parser.
#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query::internal {

Result<MatchExpressionPtr> ParseWhere(const bson_iter_t* op, FilterParseState state) {
  if (state.level == ParseLevel::kUserSubDocument) {
    return Status(ErrorCode::kBadValue, "$where can only be applied to the top-level document");
  }
  switch (bson_iter_type(op)) {
    case BSON_TYPE_UTF8:
      if (IterUtf8(op).empty()) {
        return Status(ErrorCode::kBadValue, "code for $where cannot be empty");
      }
      break;
    case BSON_TYPE_CODE: {
      uint32_t length = 0;
      bson_iter_code(op, &length);
      if (length == 0) return Status(ErrorCode::kBadValue, "code for $where cannot be empty");
      break;
    }
    case BSON_TYPE_CODEWSCOPE:
      return Status(ErrorCode::kLocation4649201,
                    "$where no longer supports deprecated BSON type CodeWScope");
    default:
      return Status(ErrorCode::kBadValue, "$where got bad type");
  }
  return Status(ErrorCode::kLocation6108304, "no globalScriptEngine in $where parsing");
}

}  // namespace cairn::query::internal
