// $replaceRoot ({newRoot: <expression>}) and its alias $replaceWith (<expression>): each document
// replaced by the document its expression evaluates to. Parse: $replaceRoot takes an object
// (40229) with exactly the field newRoot (IDL: 40415 unknown field, 40414 missing, 40413
// duplicate). Execution: a result that is not a document is 40228, "'newRoot' expression  must
// evaluate to an object, but resulting value was: ..." ('replacement document' for
// $replaceWith), naming the value, its type and the input document as MongoDB does.
#include "query/expression/number.h"
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

class ReplaceRootStage final : public Stage {
 public:
  ReplaceRootStage(ExpressionPtr new_root, std::string_view context, size_t num_slots)
      : new_root_(std::move(new_root)), context_(context), num_slots_(num_slots) {}

  std::string_view name() const override { return "$replaceRoot"; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  const Expression& new_root() const { return *new_root_; }
  std::string_view context() const { return context_; }
  size_t num_slots() const { return num_slots_; }

 private:
  ExpressionPtr new_root_;
  std::string_view context_;  // static: "'newRoot' expression " or "'replacement document' "
  size_t num_slots_;
};

class ReplaceRootExecutor final : public ChildSource {
 public:
  ReplaceRootExecutor(const ReplaceRootStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage), vars_(stage.num_slots()) {
    vars_.set_metadata(child_.get());  // {$meta: "textScore"} reads the input's score
  }

  bool Next() override {
    if (!child_->Next()) return false;
    BsonView doc = child_->document();
    vars_.SetRoot(doc);
    Result<Value> root = stage_.new_root().Evaluate(&vars_);
    if (!root.ok()) return Fail(root.status());
    if (!root->is_document()) {
      return Fail(Status(
          ErrorCode::kLocation40228,
          std::string(stage_.context()) + " must evaluate to an object, but resulting value was: " +
              ValueToString(*root) + ". Type of resulting value: '" + std::string(TypeName(*root)) +
              "'. Input document: " + ValueToString(Value::DocumentView(doc))));
    }
    bson_reinit(out_.get());
    bson_t root_doc = root->document().AsBson();
    bson_concat(out_.get(), &root_doc);
    return true;
  }
  BsonView document() const override { return out_.view(); }
  // One output per input document, which keeps its metadata.
  std::optional<double> text_score() const override { return child_->text_score(); }

 private:
  const ReplaceRootStage& stage_;
  Variables vars_;
  BsonDoc out_;
};

std::unique_ptr<DocumentSource> ReplaceRootStage::Bind(
    std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<ReplaceRootExecutor>(*this, std::move(child));
}

}  // namespace

Result<StagePtr> ParseReplaceRoot(const bson_iter_t* spec, const PipelineOptions& options) {
  ParseContext ctx(options.expression_context);
  if (IterKey(spec) == "$replaceWith") {
    CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(spec, ctx));
    return StagePtr(std::make_shared<ReplaceRootStage>(std::move(expr), "'replacement document' ",
                                                       ctx.num_slots()));
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kLocation40229,
                  "expected an object as specification for $replaceRoot stage, got " +
                      std::string(BsonTypeName(bson_iter_type(spec))));
  }
  bson_iter_t it, new_root;
  bool found = false;
  IterDocument(spec).Init(&it);
  while (bson_iter_next(&it)) {
    if (IterKey(&it) != "newRoot") {
      return Status(
          ErrorCode::kLocation40415,
          "BSON field '$replaceRoot." + std::string(IterKey(&it)) + "' is an unknown field.");
    }
    if (found) {
      return Status(ErrorCode::kLocation40413,
                    "BSON field '$replaceRoot.newRoot' is a duplicate field");
    }
    new_root = it;
    found = true;
  }
  if (!found) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field '$replaceRoot.newRoot' is missing but a required field");
  }
  CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(&new_root, ctx));
  return StagePtr(std::make_shared<ReplaceRootStage>(std::move(expr), "'newRoot' expression ",
                                                     ctx.num_slots()));
}

}  // namespace cairn::query::stages
