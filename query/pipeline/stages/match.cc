// $match: filters documents with the query matcher (query/matcher), its $expr clauses reading the
// pipeline's `let` variables. Parse: the argument must be an object (15959); the filter's own
// errors are the matcher's; a $expr evaluation error ends the pipeline. The leading $match of a
// pipeline is exposed through Pipeline::leading_match() so the server can run it as its query.
#include "query/matcher/matcher.h"
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

class MatchStage final : public Stage {
 public:
  explicit MatchStage(Matcher matcher) : matcher_(std::move(matcher)) {}

  std::string_view name() const override { return "$match"; }
  const Matcher* matcher() const override { return &matcher_; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

 private:
  Matcher matcher_;
};

class MatchExecutor final : public ChildSource {
 public:
  MatchExecutor(const MatchStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage) {}

  bool Next() override {
    while (child_->Next()) {
      Result<bool> matched = stage_.matcher()->Matches(child_->document());
      if (!matched.ok()) return Fail(matched.status());  // a $expr evaluation error
      if (*matched) return true;
    }
    return false;
  }
  BsonView document() const override { return child_->document(); }
  // One output per input document, which keeps its metadata.
  std::optional<double> text_score() const override { return child_->text_score(); }

 private:
  const MatchStage& stage_;
};

std::unique_ptr<DocumentSource> MatchStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<MatchExecutor>(*this, std::move(child));
}

}  // namespace

Result<StagePtr> ParseMatch(const bson_iter_t* spec, const PipelineOptions& options) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kLocation15959, "the match filter must be an expression in an object");
  }
  CAIRN_ASSIGN_OR_RETURN(Matcher matcher,
                         Matcher::Parse(IterDocument(spec), options.expression_context));
  return StagePtr(std::make_shared<MatchStage>(std::move(matcher)));
}

}  // namespace cairn::query::stages
