// $meta: a document's metadata as an expression. Cairn carries one kind, the $text score:
// {$meta: "textScore"} reads it from Variables::metadata() (query/expression/document_metadata.h),
// which the pipeline's executors point at their input. Evaluated with no score (no $text search
// ran before it) it fails as MongoDB does: 40218 "query requires text score metadata, but it is
// not available". Other metadata names keep the "not supported by Cairn yet" answer.
#include "query/expression/operator.h"

namespace cairn::query::ops {

namespace {

class TextScoreMetaExpression final : public Expression {
 public:
  Result<Value> Evaluate(Variables* vars) const override {
    const DocumentMetadata* metadata = vars->metadata();
    std::optional<double> score = metadata != nullptr ? metadata->text_score() : std::nullopt;
    if (!score) {
      return TextScoreNotAvailable();
    }
    return Value::Double(*score);
  }
};

}  // namespace

Result<ExpressionPtr> ParseMeta(const bson_iter_t* arg, std::string_view name, ParseContext&) {
  if (BSON_ITER_HOLDS_UTF8(arg) && IterUtf8(arg) == "textScore") {
    return ExpressionPtr(std::make_unique<TextScoreMetaExpression>());
  }
  return Status(ErrorCode::kBadValue,
                "The expression " + std::string(name) + " is not supported by Cairn yet");
}

}  // namespace cairn::query::ops
