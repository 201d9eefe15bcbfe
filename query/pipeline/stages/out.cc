// $out: {$out: "coll"} or {$out: {db: "d", coll: "c"}} writes every input document into the
// target, replacing its contents in one step at the end (the server's OutSink writes a temporary
// collection and renames it over the target), and returns no documents. Parse errors as
// MongoDB's: a string or object (16990); the object's fields as its IDL parser (40414 missing,
// 40415 unknown, TypeMismatch 14). Namespace rules (17385 for system collections) are the
// server's, checked at parse time through OutputTargets::CheckOut. Position (last only, 40601)
// is pipeline.cc's.
#include <string>

#include "query/pipeline/output_target.h"
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

class OutStage final : public Stage {
 public:
  OutStage(std::string db, std::string coll, std::shared_ptr<OutputTargets> targets)
      : db_(std::move(db)), coll_(std::move(coll)), targets_(std::move(targets)) {}

  std::string_view name() const override { return "$out"; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  // Empty db: the aggregate's database.
  const std::string& db() const { return db_; }
  const std::string& coll() const { return coll_; }
  OutputTargets* targets() const { return targets_.get(); }

 private:
  std::string db_, coll_;
  std::shared_ptr<OutputTargets> targets_;
};

// Drains its input into the sink on the first Next() and ends the stream.
class OutExecutor final : public ChildSource {
 public:
  OutExecutor(const OutStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage) {}

  bool Next() override {
    if (done_) return false;
    done_ = true;
    if (stage_.targets() == nullptr) {
      return Fail(Status(ErrorCode::kBadValue, "$out is not supported in this context"));
    }
    std::string_view db =
        stage_.db().empty() ? stage_.targets()->default_db() : std::string_view(stage_.db());
    auto sink = stage_.targets()->OpenOut(db, stage_.coll());
    if (!sink.ok()) return Fail(sink.status());
    while (child_->Next()) {
      Status added = (*sink)->Add(child_->document());
      if (!added.ok()) return Fail(std::move(added));
    }
    if (!child_->status().ok()) return false;  // the sink drops its temporary collection
    Status finished = (*sink)->Finish();
    if (!finished.ok()) return Fail(std::move(finished));
    return false;
  }
  BsonView document() const override { return BsonView(); }

 private:
  const OutStage& stage_;
  bool done_ = false;
};

std::unique_ptr<DocumentSource> OutStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<OutExecutor>(*this, std::move(child));
}

}  // namespace

Result<TargetNamespace> ParseTargetNamespace(const bson_iter_t* spec, std::string_view field) {
  TargetNamespace target;
  bson_iter_t it;
  if (!bson_iter_recurse(spec, &it)) return target;
  bool has_db = false, has_coll = false;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key != "db" && key != "coll") {
      return Status(ErrorCode::kLocation40415, "BSON field '" + std::string(field) + "." +
                                                   std::string(key) + "' is an unknown field.");
    }
    if (!BSON_ITER_HOLDS_UTF8(&it)) {
      return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(field) + "." +
                                                  std::string(key) + "' is the wrong type '" +
                                                  std::string(BsonTypeName(bson_iter_type(&it))) +
                                                  "', expected type 'string'");
    }
    (key == "db" ? target.db : target.coll) = std::string(IterUtf8(&it));
    (key == "db" ? has_db : has_coll) = true;
  }
  if (!has_db || !has_coll) {
    return Status(ErrorCode::kLocation40414, "BSON field '" + std::string(field) + "." +
                                                 (has_db ? "coll" : "db") +
                                                 "' is missing but a required field");
  }
  return target;
}

Result<StagePtr> ParseOut(const bson_iter_t* spec, const PipelineOptions& options) {
  TargetNamespace target;
  if (BSON_ITER_HOLDS_UTF8(spec)) {
    target.coll = std::string(IterUtf8(spec));
  } else if (BSON_ITER_HOLDS_DOCUMENT(spec)) {
    CAIRN_ASSIGN_OR_RETURN(target, ParseTargetNamespace(spec, "$out"));
  } else {
    return Status(ErrorCode::kLocation16990,
                  "$out only supports a string or object argument, but found " +
                      std::string(BsonTypeName(bson_iter_type(spec))));
  }
  if (options.output_targets != nullptr) {
    CAIRN_RETURN_IF_ERROR(options.output_targets->CheckOut(
        target.db.empty() ? options.output_targets->default_db() : std::string_view(target.db),
        target.coll));
  }
  return StagePtr(std::make_shared<OutStage>(std::move(target.db), std::move(target.coll),
                                             options.output_targets));
}

}  // namespace cairn::query::stages
