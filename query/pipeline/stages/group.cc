// $group: groups documents by an _id and folds each group's documents through accumulators
// (accumulators/). The _id and each accumulator's operand are aggregation expressions
// (query/expression/), an _id object without a leading operator being a document of expressions.
// Parse errors follow DocumentSourceGroup / AccumulationStatement, in their order:
// 15947 (not an object), 15948 (two _id), 40234 (not an accumulator object), 40235 ('.' in the
// name), 40236 ('$' name), 40238 (several accumulators), 40237 (array operand), 15952 (unknown
// accumulator), TypeMismatch ($count with arguments), 17390 (inclusion-style _id), 15955 (no
// _id). Execution: a missing _id value groups as null; keys compare with MongoDB's value
// comparison (1, 1.0 and NumberLong(1) are one group, shown as the first seen; strings under
// the command's collation); groups come out
// in first-seen order (MongoDB leaves it unspecified); no input, no output.
// Blocking, within PipelineOptions::group_max_memory_bytes: past it, with allowDiskUse false it
// fails with 292; with allowDiskUse the group table is frozen and the documents of groups not in
// it are spilled as (key, operand values) records to an external sorter
// (query/sort/external_sorter.h), which gives them back sorted by key, in input order within a
// key (the sort is stable), to be folded one group at a time after the in-memory groups. Every
// accumulator thus sees exactly the values, in exactly the order, the in-memory path gives it,
// and no accumulator needs a serialised partial state; memory stays the frozen table plus the
// sorter's budget plus one spilled group.
#include <charconv>
#include <map>
#include <vector>

#include "common/bson_compare.h"
#include "query/expression/expression.h"
#include "query/pipeline/accumulators/accumulator.h"
#include "query/pipeline/spill_stats.h"
#include "query/pipeline/stages/stage_parsers.h"
#include "query/pipeline/value.h"
#include "query/sort/external_sorter.h"

namespace cairn::query::stages {

namespace {

struct AccumulatedField {
  std::string name;                             // output field
  AccumulatorFactory make;                      // plain accumulators; or:
  std::shared_ptr<const AccumulatorSpec> spec;  // those with per-group arguments ($topN, ...)
  ExpressionPtr operand;
};

class GroupStage final : public Stage {
 public:
  GroupStage(ExpressionPtr id, std::vector<AccumulatedField> fields, ExternalSorterOptions spill,
             SpillStatsSlot stats, size_t num_slots,
             std::shared_ptr<const StringComparator> collator)
      : id_(std::move(id)),
        fields_(std::move(fields)),
        spill_(std::move(spill)),
        stats_(std::move(stats)),
        num_slots_(num_slots),
        collator_(std::move(collator)) {}

  std::string_view name() const override { return "$group"; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  const Expression& id() const { return *id_; }
  const std::vector<AccumulatedField>& fields() const { return fields_; }
  int64_t max_memory_bytes() const { return spill_.max_memory_bytes; }
  const ExternalSorterOptions& spill() const { return spill_; }
  const SpillStatsSlot& stats() const { return stats_; }
  size_t num_slots() const { return num_slots_; }
  // The command's collation: keys whose strings are equal under it are one group.
  const StringComparator* collator() const { return collator_.get(); }

 private:
  ExpressionPtr id_;
  std::vector<AccumulatedField> fields_;
  ExternalSorterOptions spill_;  // the budget, allowDiskUse, the spill directory
  SpillStatsSlot stats_;         // explain's usedDisk / spills
  size_t num_slots_;
  std::shared_ptr<const StringComparator> collator_;
};

class GroupExecutor final : public ChildSource {
 public:
  GroupExecutor(const GroupStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)),
        stage_(stage),
        index_(OwnedValueLess{stage.collator()}),
        vars_(stage.num_slots()) {
    vars_.set_metadata(child_.get());  // {$meta: "textScore"} reads the input's score
  }

  bool Next() override {
    if (!loaded_) {
      loaded_ = true;
      if (!Load()) {
        index_.clear();
        groups_.clear();  // an error ends the stream for good
        sorter_.reset();
        return false;
      }
      position_ = 0;
    } else {
      ++position_;
    }
    if (position_ >= groups_.size()) return sorter_ != nullptr && NextSpilledGroup();
    const Group& group = *groups_[position_];
    bson_reinit(out_.get());
    group.key.AppendTo(out_.get(), "_id");
    for (size_t i = 0; i < group.accumulators.size(); ++i) {
      group.accumulators[i]->Finish(out_.get(), stage_.fields()[i].name);
    }
    return true;
  }
  BsonView document() const override { return out_.view(); }

 private:
  struct Group {
    OwnedValue key;
    std::vector<std::unique_ptr<Accumulator>> accumulators;
  };

  static constexpr int64_t kGroupOverheadBytes = 64;

  Status MemoryExceeded() const {
    return Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                  "Exceeded memory limit for $group, but didn't allow external sort. Pass "
                  "allowDiskUse:true to opt in.");
  }

  // A new group's accumulators evaluate their per-group arguments ($topN's n) with `vars`
  // against the key; $$ROOT is then set back to `doc`, the input document.
  Result<Group*> FindOrAddGroup(const bson_iter_t* key, Variables* vars, BsonView doc) {
    auto found = index_.find(key);
    if (found != index_.end()) return groups_[found->second].get();
    auto group = std::make_unique<Group>();
    group->key = OwnedValue(key);
    for (const AccumulatedField& field : stage_.fields()) {
      if (field.spec != nullptr) {
        CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<Accumulator> accumulator,
                               field.spec->MakeForGroup(key, vars));
        vars->SetRoot(doc);
        group->accumulators.push_back(std::move(accumulator));
      } else {
        group->accumulators.push_back(field.make());
      }
      group->accumulators.back()->SetCollator(stage_.collator());
      memory_ += static_cast<int64_t>(group->accumulators.back()->memory_bytes());
    }
    memory_ += static_cast<int64_t>(group->key.memory_bytes()) + kGroupOverheadBytes;
    groups_.push_back(std::move(group));
    index_.emplace(&groups_.back()->key, groups_.size() - 1);
    return groups_.back().get();
  }

  bool Load() {
    Variables& vars = vars_;
    while (child_->Next()) {
      BsonView doc = child_->document();
      vars.SetRoot(doc);
      Result<Value> key_value = stage_.id().Evaluate(&vars);
      if (!key_value.ok()) return Fail(key_value.status());
      // A missing _id groups as null.
      bson_iter_t key = key_value->missing() ? *NullValue() : key_value->iter();
      Group* group = nullptr;
      if (sorter_ != nullptr) {
        // Spilling: the frozen table folds its own groups; the others go to the sorter.
        auto found = index_.find(&key);
        if (found == index_.end()) {
          Status spilled = SpillDocument(&key, &vars);
          if (!spilled.ok()) return Fail(std::move(spilled));
          continue;
        }
        group = groups_[found->second].get();
      } else {
        Result<Group*> found = FindOrAddGroup(&key, &vars, doc);
        if (!found.ok()) return Fail(found.status());
        group = *found;
      }
      for (size_t i = 0; i < group->accumulators.size(); ++i) {
        Accumulator& accumulator = *group->accumulators[i];
        Result<Value> value = stage_.fields()[i].operand->Evaluate(&vars);
        if (!value.ok()) return Fail(value.status());
        bson_iter_t it;
        if (!value->missing()) it = value->iter();
        int64_t before = static_cast<int64_t>(accumulator.memory_bytes());
        Status status = accumulator.Process(value->missing() ? nullptr : &it);
        if (!status.ok()) return Fail(std::move(status));
        memory_ += static_cast<int64_t>(accumulator.memory_bytes()) - before;
      }
      if (memory_ > stage_.max_memory_bytes() && sorter_ == nullptr) {
        if (!stage_.spill().allow_disk_use) return Fail(MemoryExceeded());
        StartSpilling();
      }
    }
    if (!child_->status().ok()) return false;
    if (sorter_ != nullptr) {
      Status sorted = sorter_->Sort();
      stage_.stats().Record(sorter_.get());
      if (!sorted.ok()) return Fail(std::move(sorted));
    }
    return true;
  }

  // ---- spilling ----

  // The sorter orders records by their key document {"": <group key>}, as the table does.
  void StartSpilling() {
    const StringComparator* collator = stage_.collator();
    sorter_ = std::make_unique<ExternalSorter>(
        [collator](BsonView a, BsonView b) {
          bson_iter_t a_key, b_key;
          a.Init(&a_key);
          b.Init(&b_key);
          bson_iter_next(&a_key);
          bson_iter_next(&b_key);
          return CompareValues(&a_key, &b_key, collator);
        },
        stage_.spill());
  }

  // One document of a group outside the frozen table: its key, and its operand values under
  // their accumulator's index ("0", "1", ...; a missing value is left out).
  Status SpillDocument(const bson_iter_t* key, Variables* vars) {
    bson_reinit(spill_key_.get());
    bson_append_iter(spill_key_.get(), "", 0, key);
    bson_reinit(spill_values_.get());
    const std::vector<AccumulatedField>& fields = stage_.fields();
    for (size_t i = 0; i < fields.size(); ++i) {
      CAIRN_ASSIGN_OR_RETURN(Value value, fields[i].operand->Evaluate(vars));
      if (value.missing()) continue;
      char index[16];
      const char* index_key = nullptr;
      size_t index_len =
          bson_uint32_to_string(static_cast<uint32_t>(i), &index_key, index, sizeof index);
      bson_iter_t it = value.iter();
      bson_append_iter(spill_values_.get(), index_key, static_cast<int>(index_len), &it);
    }
    BsonView values = spill_values_.view();
    return sorter_->Add(
        spill_key_.view(),
        std::string_view(reinterpret_cast<const char*>(values.data()), values.size()));
  }

  // Folds the sorter's next key — its records up to the next key — into one output group.
  bool NextSpilledGroup() {
    if (!has_pending_record_ && !sorter_->Next()) return SorterEnded();
    has_pending_record_ = false;
    // The first record's key is the group's: the first seen, as the sort is stable.
    BsonView first = sorter_->key();
    spilled_key_.assign(reinterpret_cast<const char*>(first.data()), first.size());
    BsonView key_doc(reinterpret_cast<const uint8_t*>(spilled_key_.data()), spilled_key_.size());
    bson_iter_t key;
    key_doc.Init(&key);
    bson_iter_next(&key);
    spilled_accumulators_.clear();
    for (const AccumulatedField& field : stage_.fields()) {
      if (field.spec != nullptr) {
        Result<std::unique_ptr<Accumulator>> made = field.spec->MakeForGroup(&key, &vars_);
        if (!made.ok()) return Fail(made.status());
        spilled_accumulators_.push_back(std::move(made).value());
      } else {
        spilled_accumulators_.push_back(field.make());
      }
      spilled_accumulators_.back()->SetCollator(stage_.collator());
    }
    while (true) {
      Status folded = FoldSpilledRecord(sorter_->value());
      if (!folded.ok()) return Fail(std::move(folded));
      if (!sorter_->Next()) {
        if (!sorter_->status().ok()) return Fail(sorter_->status());
        break;
      }
      if (sorter_->CompareKeys(key_doc, sorter_->key()) != 0) {
        has_pending_record_ = true;
        break;
      }
    }
    bson_reinit(out_.get());
    bson_append_iter(out_.get(), "_id", 3, &key);
    for (size_t i = 0; i < spilled_accumulators_.size(); ++i) {
      spilled_accumulators_[i]->Finish(out_.get(), stage_.fields()[i].name);
    }
    return true;
  }

  Status FoldSpilledRecord(std::string_view record) {
    BsonView values(reinterpret_cast<const uint8_t*>(record.data()), record.size());
    bson_iter_t it;
    values.Init(&it);
    bool has_value = bson_iter_next(&it);
    for (size_t i = 0; i < spilled_accumulators_.size(); ++i) {
      uint32_t index = UINT32_MAX;
      if (has_value) {
        std::string_view name = IterKey(&it);
        std::from_chars(name.data(), name.data() + name.size(), index);
      }
      if (index == i) {
        CAIRN_RETURN_IF_ERROR(spilled_accumulators_[i]->Process(&it));
        has_value = bson_iter_next(&it);
      } else {
        CAIRN_RETURN_IF_ERROR(spilled_accumulators_[i]->Process(nullptr));
      }
    }
    return Status::OK();
  }

  bool SorterEnded() { return sorter_->status().ok() ? false : Fail(sorter_->status()); }

  const GroupStage& stage_;
  bool loaded_ = false;
  size_t position_ = 0;
  int64_t memory_ = 0;
  std::vector<std::unique_ptr<Group>> groups_;                 // first-seen order
  std::map<const OwnedValue*, size_t, OwnedValueLess> index_;  // group keys by value
  Variables vars_;
  BsonDoc out_;
  // Spilling (past the budget with allowDiskUse): the groups outside the frozen table.
  std::unique_ptr<ExternalSorter> sorter_;
  BsonDoc spill_key_;  // reused per spilled document
  BsonDoc spill_values_;
  std::string spilled_key_;  // the key of the spilled group being folded
  std::vector<std::unique_ptr<Accumulator>> spilled_accumulators_;
  bool has_pending_record_ = false;  // the sorter is on the next group's first record
};

std::unique_ptr<DocumentSource> GroupStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<GroupExecutor>(*this, std::move(child));
}

Status NotSupported(std::string what) {
  return Status(ErrorCode::kBadValue, std::move(what) + " is not supported by Cairn yet");
}

// The _id of a $group (parseIdExpression): an object without a leading $-operator is a
// document of expressions, after MongoDB's check for inclusion-style values.
Result<ExpressionPtr> ParseId(const bson_iter_t* value, ParseContext& ctx) {
  if (BSON_ITER_HOLDS_DOCUMENT(value)) {
    BsonView object = IterDocument(value);
    bson_iter_t it;
    if (object.Init(&it) && bson_iter_next(&it) && IterKey(&it).substr(0, 1) != "$") {
      object.Init(&it);
      while (bson_iter_next(&it)) {
        if (IterIsNumber(&it) || BSON_ITER_HOLDS_BOOL(&it)) {
          return Status(ErrorCode::kLocation17390,
                        "$group does not support inclusion-style expressions");
        }
      }
    }
  }
  return ParseOperand(value, ctx);
}

Result<AccumulatedField> ParseAccumulatedField(const bson_iter_t* elem, ParseContext& ctx) {
  std::string_view name = IterKey(elem);
  bson_iter_t spec;
  bool is_accumulator_object = BSON_ITER_HOLDS_DOCUMENT(elem) && IterDocument(elem).Init(&spec) &&
                               bson_iter_next(&spec) && IterKey(&spec).substr(0, 1) == "$";
  if (!is_accumulator_object) {
    return Status(ErrorCode::kLocation40234,
                  "The field '" + std::string(name) + "' must be an accumulator object");
  }
  if (name.find('.') != std::string_view::npos) {
    return Status(ErrorCode::kLocation40235,
                  "The field name '" + std::string(name) + "' cannot contain '.'");
  }
  if (name.substr(0, 1) == "$") {
    return Status(ErrorCode::kLocation40236,
                  "The field name '" + std::string(name) + "' cannot be an operator name");
  }
  if (IterDocument(elem).CountKeys() != 1) {
    return Status(ErrorCode::kLocation40238,
                  "The field '" + std::string(name) + "' must specify one accumulator");
  }
  std::string_view op = IterKey(&spec);
  if (BSON_ITER_HOLDS_ARRAY(&spec)) {
    return Status(ErrorCode::kLocation40237,
                  "The " + std::string(op) + " accumulator is a unary operator");
  }
  if (AccumulatorParser parse = FindAccumulatorParser(op)) {
    CAIRN_ASSIGN_OR_RETURN(ParsedAccumulator parsed, parse(op, &spec, ctx));
    return AccumulatedField{std::string(name), nullptr, std::move(parsed.spec),
                            std::move(parsed.operand)};
  }
  AccumulatorFactory make = FindAccumulator(op);
  if (make == nullptr) {
    if (IsKnownAccumulator(op)) return NotSupported("The $group accumulator " + std::string(op));
    return Status(ErrorCode::kLocation15952, "unknown group operator '" + std::string(op) + "'");
  }
  AccumulatedField field{std::string(name), make, nullptr, nullptr};
  if (op == "$count") {
    // parseCountAccumulator: {$count: {}} is {$sum: 1}.
    if (!BSON_ITER_HOLDS_DOCUMENT(&spec) || !IterDocument(&spec).empty()) {
      return Status(ErrorCode::kTypeMismatch, "$count takes no arguments, i.e. $count:{}");
    }
    field.operand = MakeConstant(Value::Int32(1));
    return field;
  }
  CAIRN_ASSIGN_OR_RETURN(field.operand, ParseOperand(&spec, ctx));
  return field;
}

}  // namespace

Result<StagePtr> ParseGroup(const bson_iter_t* spec, const PipelineOptions& options) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kLocation15947, "a group's fields must be specified in an object");
  }
  ParseContext ctx(options.expression_context);
  ExpressionPtr id;
  std::vector<AccumulatedField> fields;
  bson_iter_t it;
  IterDocument(spec).Init(&it);
  while (bson_iter_next(&it)) {
    if (IterKey(&it) == "_id") {
      if (id) return Status(ErrorCode::kLocation15948, "a group's _id may only be specified once");
      CAIRN_ASSIGN_OR_RETURN(id, ParseId(&it, ctx));
      continue;
    }
    CAIRN_ASSIGN_OR_RETURN(AccumulatedField field, ParseAccumulatedField(&it, ctx));
    fields.push_back(std::move(field));
  }
  if (!id) return Status(ErrorCode::kLocation15955, "a group specification must include an _id");
  ExternalSorterOptions spill;
  spill.max_memory_bytes = options.group_max_memory_bytes;
  spill.allow_disk_use = options.allow_disk_use;
  spill.spill_dir = options.spill_dir;
  return StagePtr(std::make_shared<GroupStage>(std::move(id), std::move(fields), std::move(spill),
                                               SpillStatsSlot(options), ctx.num_slots(),
                                               ctx.context().shared_collator()));
}

}  // namespace cairn::query::stages
