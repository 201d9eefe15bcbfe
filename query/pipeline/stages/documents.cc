// $documents: {$documents: <expression>} — the source stage of a database-level aggregate: the
// expression (evaluated once, with no input document: literals, $$NOW, let variables) must give
// an array (5858203), each element a document (40228, as the $replaceWith MongoDB desugars it
// into). It ignores its input (a database-level aggregate feeds it nothing); position (first
// only, 40602) is pipeline.cc's.
#include <optional>

#include "common/bson_element.h"
#include "query/expression/number.h"
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

class DocumentsStage final : public Stage {
 public:
  DocumentsStage(ExpressionPtr documents, size_t num_slots)
      : documents_(std::move(documents)), num_slots_(num_slots) {}

  std::string_view name() const override { return "$documents"; }
  bool is_source() const override { return true; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  const Expression& documents() const { return *documents_; }
  size_t num_slots() const { return num_slots_; }

 private:
  ExpressionPtr documents_;
  size_t num_slots_;
};

class DocumentsExecutor final : public ChildSource {
 public:
  DocumentsExecutor(const DocumentsStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage), vars_(stage.num_slots()) {}

  bool Next() override {
    if (!started_) {
      started_ = true;
      vars_.SetRoot(BsonView());
      Result<Value> array = stage_.documents().Evaluate(&vars_);
      if (!array.ok()) return Fail(array.status());
      if (!array->is_array()) {
        return Fail(
            Status(ErrorCode::kLocation5858203, "error during lookup: an array is expected"));
      }
      array_ = array->Owned();
    }
    bson_iter_t it;
    if (!position_.has_value()) {
      array_.Recurse(&it);
    } else {
      it = position_->iter();
    }
    if (!bson_iter_next(&it)) return false;
    position_.emplace(&it);
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      Value element = array_.Child(&it);
      return Fail(Status(ErrorCode::kLocation40228,
                         "'replacement document'  must evaluate to an object, but resulting "
                         "value was: " +
                             ValueToString(element) + ". Type of resulting value: '" +
                             std::string(TypeName(element)) + "'. Input document: {}"));
    }
    current_ = IterDocument(&it);
    return true;
  }
  BsonView document() const override { return current_; }

 private:
  const DocumentsStage& stage_;
  Variables vars_;
  bool started_ = false;
  Value array_;  // owns the bytes position_ walks
  // The current element; none before the first (a bson_iter_t must not live on the heap).
  std::optional<BsonElement> position_;
  BsonView current_;
};

std::unique_ptr<DocumentSource> DocumentsStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<DocumentsExecutor>(*this, std::move(child));
}

}  // namespace

Result<StagePtr> ParseDocuments(const bson_iter_t* spec, const PipelineOptions& options) {
  ParseContext ctx(options.expression_context);
  CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(spec, ctx));
  return StagePtr(std::make_shared<DocumentsStage>(std::move(expr), ctx.num_slots()));
}

}  // namespace cairn::query::stages
