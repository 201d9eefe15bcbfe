// The shared source stage of $collStats, $currentOp and $listLocalSessions (server_source.h).
#include "query/pipeline/stages/server_source.h"

#include <string>
#include <utility>

namespace cairn::query::stages {

namespace {

class ServerSourceStage final : public Stage {
 public:
  ServerSourceStage(std::string_view name, std::shared_ptr<ServerSources> server, ServerRead read)
      : name_(name), server_(std::move(server)), read_(std::move(read)) {}

  std::string_view name() const override { return name_; }
  bool is_source() const override { return true; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  Result<std::vector<BsonDoc>> Read() const {
    if (server_ == nullptr) {
      return Status(ErrorCode::kBadValue, std::string(name_) + " is not supported in this context");
    }
    return read_(*server_);
  }

 private:
  std::string_view name_;
  std::shared_ptr<ServerSources> server_;
  ServerRead read_;
};

// Reads the documents on the first pull and serves them in order; the input is never pulled.
class ServerSourceExecutor final : public ChildSource {
 public:
  ServerSourceExecutor(const ServerSourceStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage) {}

  bool Next() override {
    if (!started_) {
      started_ = true;
      Result<std::vector<BsonDoc>> documents = stage_.Read();
      if (!documents.ok()) return Fail(documents.status());
      documents_ = std::move(*documents);
    }
    return status_.ok() && ++next_ <= documents_.size();
  }
  BsonView document() const override { return documents_[next_ - 1].view(); }

 private:
  const ServerSourceStage& stage_;
  bool started_ = false;
  std::vector<BsonDoc> documents_;
  size_t next_ = 0;
};

std::unique_ptr<DocumentSource> ServerSourceStage::Bind(
    std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<ServerSourceExecutor>(*this, std::move(child));
}

}  // namespace

StagePtr MakeServerSourceStage(std::string_view static_name, const PipelineOptions& options,
                               ServerRead read) {
  return std::make_shared<ServerSourceStage>(static_name, options.server_sources, std::move(read));
}

Status CheckNotInSubPipeline(std::string_view name, const PipelineOptions& options) {
  if (options.sub_pipeline_depth == 0) return Status::OK();
  return Status(ErrorCode::kBadValue, std::string(name) + " is not supported by Cairn yet");
}

}  // namespace cairn::query::stages
