// $count: {$count: "name"} → one document {name: N} counting its input, none when the input is
// empty (MongoDB desugars it to $group {_id: null, name: {$sum: 1}} + $project {_id: 0}, so N is
// an int, a long past int32). Parse: a string (40156), non-empty (40157), not $-prefixed
// (40158), without a NUL (40159) or '.' (40160), and not "_id" (the desugared $group's 15948).
#include <limits>

#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

class CountStage final : public Stage {
 public:
  explicit CountStage(std::string field) : field_(std::move(field)) {}

  std::string_view name() const override { return "$count"; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

class CountExecutor final : public ChildSource {
 public:
  CountExecutor(const CountStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage) {}

  bool Next() override {
    if (done_) return false;
    done_ = true;
    int64_t count = 0;
    while (child_->Next()) ++count;
    if (!child_->status().ok() || count == 0) return false;
    const std::string& field = stage_.field();
    if (count <= std::numeric_limits<int32_t>::max()) {
      bson_append_int32(out_.get(), field.data(), static_cast<int>(field.size()),
                        static_cast<int32_t>(count));
    } else {
      bson_append_int64(out_.get(), field.data(), static_cast<int>(field.size()), count);
    }
    return true;
  }
  BsonView document() const override { return out_.view(); }

 private:
  const CountStage& stage_;
  bool done_ = false;
  BsonDoc out_;
};

std::unique_ptr<DocumentSource> CountStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<CountExecutor>(*this, std::move(child));
}

}  // namespace

Result<StagePtr> ParseCount(const bson_iter_t* spec, const PipelineOptions& options) {
  if (!BSON_ITER_HOLDS_UTF8(spec)) {
    return Status(ErrorCode::kLocation40156, "the count field must be a non-empty string");
  }
  std::string_view field = IterUtf8(spec);
  if (field.empty()) {
    return Status(ErrorCode::kLocation40157, "the count field must be a non-empty string");
  }
  if (field[0] == '$') {
    return Status(ErrorCode::kLocation40158, "the count field cannot be a $-prefixed path");
  }
  if (field.find('\0') != std::string_view::npos) {
    return Status(ErrorCode::kLocation40159, "the count field cannot contain a null byte");
  }
  if (field.find('.') != std::string_view::npos) {
    return Status(ErrorCode::kLocation40160, "the count field cannot contain '.'");
  }
  if (field == "_id") {
    return Status(ErrorCode::kLocation15948, "a group's _id may only be specified once");
  }
  return StagePtr(std::make_shared<CountStage>(std::string(field)));
}

}  // namespace cairn::query::stages
