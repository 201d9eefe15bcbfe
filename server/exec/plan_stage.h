// PlanStage: one stage of an executed query plan as explain shows it, with the counters the stage
// keeps while it does its work (MongoDB's PlanStage::getStats(), DuckDB's operator profiling).
// Every DocumentStream is one (document_stream.h); a stream that does the work of several of
// MongoDB's stages in one loop (the index scan's FETCH → IXSCAN, text search) owns a
// FusedStage for each inner stage and counts into it where that stage's work happens. Explain
// (explain.h) walks this tree; nothing else records a plan. Counters are plain integers: a plan
// runs on one thread at a time.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace cairn::server {

enum class StageType : uint8_t {
  kNotExplained,  // a stream that is not one of MongoDB's stages: explain shows its input instead
  kEof,
  kCollScan,
  kIdHack,
  kIxScan,
  kFetch,
  kOr,
  kSubplan,
  kCountScan,
  kDistinctScan,
  kSort,
  kSkip,
  kLimit,
  kTextMatch,
  kProjectionSimple,
  kProjectionDefault,
  kProjectionCovered,
  kCount,
  kUpdate,
  kDelete,
  kRecordStoreFastCount,
};

// MongoDB's name for the stage ("COLLSCAN", "IXSCAN", ...).
const char* StageName(StageType type);

// What one stage did. Each stage counts only its own work, so a plan's totalKeysExamined and
// totalDocsExamined are the sums over its stages.
struct StageCounters {
  int64_t returned = 0;       // nReturned: documents (or, for an index scan, keys) passed on
  int64_t keys_examined = 0;  // index entries read
  int64_t docs_examined = 0;  // stored documents read
  int64_t seeks = 0;
  int64_t dups_tested = 0;
  int64_t dups_dropped = 0;
};

class PlanStage {
 public:
  explicit PlanStage(StageType type) : type_(type) {}
  virtual ~PlanStage() = default;

  StageType stage_type() const { return type_; }
  const StageCounters& counters() const { return counters_; }
  StageCounters& mutable_counters() { return counters_; }

  // The stage's queryPlanner fields after "stage" ("filter" first when it has one): computed
  // only when explain asks, from what the stage holds anyway.
  virtual void AppendPlanFields(bson_t* out) const { (void)out; }
  // Fields only executionStages shows beyond the counters (COUNT's nCounted, UPDATE's nMatched).
  virtual void AppendExecutionFields(bson_t* out) const { (void)out; }

  // Its inputs: inputStage (one), or inputStages (OR, more than one).
  virtual size_t input_count() const { return 0; }
  virtual const PlanStage* input(size_t i) const {
    (void)i;
    return nullptr;
  }

 protected:
  void set_stage_type(StageType type) { type_ = type; }
  StageCounters counters_;

 private:
  StageType type_;
};

// An inner stage of a stream that does several stages' work in one loop: its fields are
// described by a function the stream's builder supplies (called only by explain), its counters
// are kept by the stream.
class FusedStage final : public PlanStage {
 public:
  // (Spelled with the struct's tag: bson_t's alignment attribute cannot be a template argument's.)
  using Describe = std::function<void(struct _bson_t* out)>;
  explicit FusedStage(StageType type, Describe describe = nullptr)
      : PlanStage(type), describe_(std::move(describe)) {}

  void AppendPlanFields(bson_t* out) const override {
    if (describe_) describe_(out);
  }
  size_t input_count() const override { return inputs_.size(); }
  const PlanStage* input(size_t i) const override { return inputs_[i].get(); }

  FusedStage* AddInput(std::unique_ptr<FusedStage> stage) {
    inputs_.push_back(std::move(stage));
    return inputs_.back().get();
  }

 private:
  Describe describe_;
  std::vector<std::unique_ptr<FusedStage>> inputs_;
};

// The sums over `stage` and everything below it.
int64_t TotalKeysExamined(const PlanStage& stage);
int64_t TotalDocsExamined(const PlanStage& stage);

}  // namespace cairn::server
