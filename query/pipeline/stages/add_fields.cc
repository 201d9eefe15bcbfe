// $addFields and its alias $set: every field of the input document kept, the spec's fields set to
// the values of their expressions (query/pipeline/computed_fields.h: replaced in place, appended
// when new, through embedded documents and arrays, removed by $$REMOVE). Parse: an object
// (40272 "<stage> specification stage must be an object, got <type>"); the spec's own errors read
// "Invalid <stage> :: caused by :: ...". {} is a no-op.
#include "query/pipeline/computed_fields.h"
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

class AddFieldsStage final : public Stage {
 public:
  AddFieldsStage(std::string_view name, ComputedFields fields, size_t num_slots)
      : name_(name), fields_(std::move(fields)), num_slots_(num_slots) {}

  std::string_view name() const override { return name_; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  const ComputedFields& fields() const { return fields_; }
  size_t num_slots() const { return num_slots_; }

 private:
  std::string_view name_;  // "$addFields" or "$set": static strings
  ComputedFields fields_;
  size_t num_slots_;
};

class AddFieldsExecutor final : public ChildSource {
 public:
  AddFieldsExecutor(const AddFieldsStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage), vars_(stage.num_slots()) {
    vars_.set_metadata(child_.get());  // {$meta: "textScore"} reads the input's score
  }

  bool Next() override {
    if (!child_->Next()) return false;
    BsonView doc = child_->document();
    bson_reinit(out_.get());
    vars_.SetRoot(doc);
    Status status = stage_.fields().Apply(doc, &vars_, out_.get());
    if (!status.ok()) return Fail(std::move(status));
    return true;
  }
  BsonView document() const override { return out_.view(); }
  // One output per input document, which keeps its metadata.
  std::optional<double> text_score() const override { return child_->text_score(); }

 private:
  const AddFieldsStage& stage_;
  Variables vars_;
  BsonDoc out_;
};

std::unique_ptr<DocumentSource> AddFieldsStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<AddFieldsExecutor>(*this, std::move(child));
}

}  // namespace

Result<StagePtr> ParseAddFields(const bson_iter_t* spec, const PipelineOptions& options) {
  std::string_view name = IterKey(spec) == "$set" ? "$set" : "$addFields";
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kLocation40272, std::string(name) +
                                                 " specification stage must be an object, got " +
                                                 std::string(BsonTypeName(bson_iter_type(spec))));
  }
  ParseContext ctx(options.expression_context);
  Result<ComputedFields> fields = ComputedFields::Parse(IterDocument(spec), ctx);
  if (!fields.ok()) return fields.status().WithContext("Invalid " + std::string(name));
  return StagePtr(
      std::make_shared<AddFieldsStage>(name, std::move(fields).value(), ctx.num_slots()));
}

}  // namespace cairn::query::stages
