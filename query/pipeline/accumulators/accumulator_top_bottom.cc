// $top / $bottom / $topN / $bottomN (AccumulatorTopBottomN): the `output` of the first / last n
// documents of the group in `sortBy` order (MongoDB's sort order, the command's collation;
// query/sort/), a missing output becoming null; $top / $bottom give the one value, the N forms an
// array in sort order. Ties keep the document seen first. As MongoDB does, the per-document
// operand is the object {output: <output>, s0: "$<sort path 0>", ...}, so only the sort fields
// and the output are kept, and the stored objects are compared by a pattern over s0, s1, ...
// n (N forms) is evaluated once per group against the group key. Fails with 146 past 100 MiB.
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "query/pipeline/accumulators/accumulator.h"
#include "query/pipeline/value.h"
#include "query/sort/sort_pattern.h"

namespace cairn::query {

namespace {

constexpr size_t kNodeOverheadBytes = 48;

// Orders stored operand objects by the internal pattern over s0, s1, ...
struct SortKeyOrder {
  const SortPattern* pattern;
  bool operator()(const OwnedValue& a, const OwnedValue& b) const {
    return pattern->Compare(DocumentOf(a), DocumentOf(b)) < 0;
  }
  static BsonView DocumentOf(const OwnedValue& v) {
    bson_iter_t it;
    if (!v.Iter(&it) || !BSON_ITER_HOLDS_DOCUMENT(&it)) return BsonView();
    return IterDocument(&it);
  }
};

class TopBottomAccumulator final : public Accumulator {
 public:
  TopBottomAccumulator(std::string_view name, int64_t n, const SortPattern* pattern, bool top,
                       bool single)
      : name_(name),
        n_(static_cast<size_t>(n)),
        top_(top),
        single_(single),
        entries_(SortKeyOrder{pattern}) {}

  Status Process(const bson_iter_t* value) override {
    OwnedValue entry(value != nullptr ? value : NullValue());
    if (entries_.size() == n_) {
      // $top keeps the n first in sort order, so a newcomer must beat the last kept one;
      // $bottom keeps the n last, so it must beat the first. Equal keys keep the earlier one.
      auto rival = top_ ? std::prev(entries_.end()) : entries_.begin();
      bool wins = top_ ? entries_.key_comp()(entry, *rival) : entries_.key_comp()(*rival, entry);
      if (!wins) return Status::OK();
      bytes_ -= rival->memory_bytes() + kNodeOverheadBytes;
      entries_.erase(rival);
    }
    bytes_ += entry.memory_bytes() + kNodeOverheadBytes;
    entries_.insert(std::move(entry));
    if (bytes_ >= kAccumulatorMaxMemoryBytes) return AccumulatorMemoryExceeded(name_);
    return Status::OK();
  }

  void Finish(bson_t* out, std::string_view key) const override {
    if (single_) {
      if (entries_.empty()) {
        bson_append_null(out, key.data(), static_cast<int>(key.size()));
      } else {
        AppendOutput(out, key, *entries_.begin());
      }
      return;
    }
    bson_t array;
    bson_append_array_begin(out, key.data(), static_cast<int>(key.size()), &array);
    uint32_t i = 0;
    for (const OwnedValue& entry : entries_) {
      char buf[16];
      const char* index;
      size_t len = bson_uint32_to_string(i++, &index, buf, sizeof buf);
      AppendOutput(&array, std::string_view(index, len), entry);
    }
    bson_append_array_end(out, &array);
  }

  size_t memory_bytes() const override { return sizeof(*this) + bytes_; }

 private:
  // The entry's output under `key`; null when the output expression gave nothing.
  static void AppendOutput(bson_t* out, std::string_view key, const OwnedValue& entry) {
    bson_iter_t output;
    if (SortKeyOrder::DocumentOf(entry).Find("output", &output)) {
      AppendIter(out, key, &output);
    } else {
      bson_append_null(out, key.data(), static_cast<int>(key.size()));
    }
  }

  std::string_view name_;
  size_t n_;
  bool top_;
  bool single_;
  std::multiset<OwnedValue, SortKeyOrder> entries_;  // in sort order
  size_t bytes_ = 0;
};

class TopBottomSpec final : public AccumulatorSpec {
 public:
  TopBottomSpec(std::string_view name, ExpressionPtr n, SortPattern pattern)
      : name_(name), n_(std::move(n)), pattern_(std::move(pattern)) {}

  Result<std::unique_ptr<Accumulator>> MakeForGroup(const bson_iter_t* group_key,
                                                    Variables* vars) const override {
    const bool single = name_ == "$top" || name_ == "$bottom";
    int64_t n = 1;
    if (!single) {
      CAIRN_ASSIGN_OR_RETURN(n, EvaluateGroupN(*n_, group_key, vars));
    }
    const bool top = name_ == "$top" || name_ == "$topN";
    return std::unique_ptr<Accumulator>(
        std::make_unique<TopBottomAccumulator>(name_, n, &pattern_, top, single));
  }

 private:
  std::string name_;     // the spec's own copy: accumulators view it
  ExpressionPtr n_;      // null for $top / $bottom
  SortPattern pattern_;  // over s0, s1, ... of the operand object
};

}  // namespace

Result<ParsedAccumulator> ParseTopBottom(std::string_view name, const bson_iter_t* arg,
                                         ParseContext& ctx) {
  const bool single = name == "$top" || name == "$bottom";
  if (!BSON_ITER_HOLDS_DOCUMENT(arg)) {
    return SpecificationNotAnObject(ErrorCode::kLocation5788001, arg);
  }
  ExpressionPtr n;
  bson_iter_t output, sort_by;
  bool has_output = false, has_sort_by = false;
  bson_iter_t it;
  IterDocument(arg).Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (!single && key == "n") {
      CAIRN_ASSIGN_OR_RETURN(n, ParseOperand(&it, ctx));
    } else if (key == "output") {
      output = it;
      has_output = true;
    } else if (key == "sortBy") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Status(ErrorCode::kLocation10065, "invalid parameter: expected an object (sortBy)");
      }
      sort_by = it;
      has_sort_by = true;
    } else {
      return Status(ErrorCode::kLocation5788002,
                    "Unknown argument to " + std::string(name) + " '" + std::string(key) + "'");
    }
  }
  if (!single && !n) return Status(ErrorCode::kLocation5788003, "Missing value for 'n'");
  if (!has_output) return Status(ErrorCode::kLocation5788004, "Missing value for 'output'");
  if (!has_sort_by) return Status(ErrorCode::kLocation5788005, "Missing value for 'sortBy'");

  CAIRN_ASSIGN_OR_RETURN(SortPattern user_pattern, SortPattern::Parse(IterDocument(&sort_by)));
  if (user_pattern.empty()) {
    return Status(ErrorCode::kLocation15976, "$sort stage must have at least one sort key");
  }
  // The operand {output, s0: "$path0", ...} and the pattern {s0: ±1, ...} over it.
  BsonDoc operand_spec;
  BsonDoc internal_spec;
  AppendIter(operand_spec.get(), "output", &output);
  for (size_t i = 0; i < user_pattern.keys().size(); ++i) {
    const SortPattern::Key& key = user_pattern.keys()[i];
    std::string slot = "s" + std::to_string(i);
    AppendUtf8(operand_spec.get(), slot, "$" + key.path);
    BSON_APPEND_INT32(internal_spec.get(), slot.c_str(), key.descending ? -1 : 1);
  }
  ParsedAccumulator parsed;
  CAIRN_ASSIGN_OR_RETURN(parsed.operand, ParseObjectExpression(operand_spec.view(), ctx));
  CAIRN_ASSIGN_OR_RETURN(SortPattern pattern,
                         SortPattern::Parse(internal_spec.view(), ctx.context().shared_collator()));
  parsed.spec = std::make_shared<TopBottomSpec>(name, std::move(n), std::move(pattern));
  return parsed;
}

}  // namespace cairn::query
