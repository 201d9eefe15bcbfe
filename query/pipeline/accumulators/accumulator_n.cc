// $firstN / $lastN / $maxN / $minN (AccumulatorFirstLastN, AccumulatorMinMaxN): the first / last
// n operand values in input order (missing counts, as null), and the n largest / smallest by
// MongoDB's value order (null and missing ignored; $maxN descending, $minN ascending, ties keep
// the earlier value). n is an expression evaluated once per group against the group key and
// must be a positive integral number. The same states serve the array expressions of these
// names (query/expression/ops/accumulator_n.cc). Each fails with 146 past 100 MiB.
#include <algorithm>
#include <cmath>
#include <deque>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "query/expression/number.h"
#include "query/pipeline/accumulators/accumulator.h"
#include "query/pipeline/value.h"

namespace cairn::query {

namespace {

// A std container node's bookkeeping, counted with each stored value.
constexpr size_t kNodeOverheadBytes = 48;

class FirstLastNAccumulator final : public Accumulator {
 public:
  FirstLastNAccumulator(std::string_view name, int64_t n, bool last)
      : name_(name), n_(static_cast<size_t>(n)), last_(last) {}

  Status Process(const bson_iter_t* value) override {
    if (values_.size() == n_) {
      if (!last_) return Status::OK();  // $firstN already has its n
      bytes_ -= values_.front().memory_bytes() + kNodeOverheadBytes;
      values_.pop_front();
    }
    values_.emplace_back(value != nullptr ? value : NullValue());
    bytes_ += values_.back().memory_bytes() + kNodeOverheadBytes;
    if (bytes_ >= kAccumulatorMaxMemoryBytes) return AccumulatorMemoryExceeded(name_);
    return Status::OK();
  }

  void Finish(bson_t* out, std::string_view key) const override {
    AppendValueArray(out, key, values_.size(),
                     [this](size_t i) -> const OwnedValue& { return values_[i]; });
  }

  size_t memory_bytes() const override { return sizeof(*this) + bytes_; }

 private:
  std::string_view name_;
  size_t n_;
  bool last_;
  std::deque<OwnedValue> values_;
  size_t bytes_ = 0;
};

struct OwnedValueOrder {
  const StringComparator* strings = nullptr;
  bool operator()(const OwnedValue& a, const OwnedValue& b) const {
    bson_iter_t it;
    b.Iter(&it);
    return CompareOwned(a, &it, strings) < 0;
  }
};

class MinMaxNAccumulator final : public Accumulator {
 public:
  MinMaxNAccumulator(std::string_view name, int64_t n, bool max)
      : name_(name), n_(static_cast<size_t>(n)), max_(max) {}

  Status Process(const bson_iter_t* value) override {
    if (value == nullptr || BSON_ITER_HOLDS_NULL(value) || BSON_ITER_HOLDS_UNDEFINED(value)) {
      return Status::OK();
    }
    if (values_.size() == n_) {
      // The kept value the newcomer competes with: the largest for $minN, the smallest for $maxN.
      auto worst = max_ ? values_.begin() : std::prev(values_.end());
      int cmp = CompareOwned(*worst, value, collator_);
      if (max_ ? cmp >= 0 : cmp <= 0) return Status::OK();
      bytes_ -= worst->memory_bytes() + kNodeOverheadBytes;
      values_.erase(worst);
    }
    auto inserted = values_.emplace(value);
    bytes_ += inserted->memory_bytes() + kNodeOverheadBytes;
    if (bytes_ >= kAccumulatorMaxMemoryBytes) return AccumulatorMemoryExceeded(name_);
    return Status::OK();
  }

  void Finish(bson_t* out, std::string_view key) const override {
    std::vector<const OwnedValue*> ordered;
    ordered.reserve(values_.size());
    for (const OwnedValue& v : values_) ordered.push_back(&v);
    if (max_) std::reverse(ordered.begin(), ordered.end());
    AppendValueArray(out, key, ordered.size(),
                     [&](size_t i) -> const OwnedValue& { return *ordered[i]; });
  }

  size_t memory_bytes() const override { return sizeof(*this) + bytes_; }

  void SetCollator(const StringComparator* collator) override {
    collator_ = collator;
    values_ = std::multiset<OwnedValue, OwnedValueOrder>(OwnedValueOrder{collator});
  }

 private:
  std::string_view name_;
  size_t n_;
  bool max_;
  const StringComparator* collator_ = nullptr;
  std::multiset<OwnedValue, OwnedValueOrder> values_;  // ascending
  size_t bytes_ = 0;
};

// The parsed {n, input}: n evaluated per group.
class NAccumulatorSpec final : public AccumulatorSpec {
 public:
  NAccumulatorSpec(std::string_view name, ExpressionPtr n) : name_(name), n_(std::move(n)) {}

  Result<std::unique_ptr<Accumulator>> MakeForGroup(const bson_iter_t* group_key,
                                                    Variables* vars) const override {
    CAIRN_ASSIGN_OR_RETURN(int64_t n, EvaluateGroupN(*n_, group_key, vars));
    return MakeNAccumulator(name_, n);
  }

 private:
  std::string name_;  // the spec's own copy: accumulators view it
  ExpressionPtr n_;
};

}  // namespace

Result<int64_t> ValidateN(const Value& n) {
  auto not_integral = [&](ErrorCode code) {
    return Status(code, "Value for 'n' must be of integral type, but found " + ValueToString(n));
  };
  if (!n.numeric()) return not_integral(ErrorCode::kLocation5787902);
  int64_t whole = 0;
  switch (n.type()) {
    case BSON_TYPE_INT32:
      whole = n.int32();
      break;
    case BSON_TYPE_INT64:
      whole = n.int64();
      break;
    default: {
      double d = 0;
      bson_iter_t it = n.iter();
      IterAsDouble(&it, &d);
      // Value::coerceToLong truncates; n must survive the round trip.
      if (!std::isfinite(d) || d >= 9.2e18 || d <= -9.2e18 || std::trunc(d) != d) {
        return not_integral(ErrorCode::kLocation5787903);
      }
      whole = static_cast<int64_t>(d);
    }
  }
  if (whole <= 0) {
    return Status(ErrorCode::kLocation5787908,
                  "'n' must be greater than 0, found " + std::to_string(whole));
  }
  return whole;
}

Result<int64_t> EvaluateGroupN(const Expression& n, const bson_iter_t* group_key, Variables* vars) {
  if (BSON_ITER_HOLDS_DOCUMENT(group_key)) {
    vars->SetRoot(Value::Element(group_key));
  } else {
    vars->SetRoot(BsonView());
  }
  CAIRN_ASSIGN_OR_RETURN(Value n_value, n.Evaluate(vars));
  return ValidateN(n_value);
}

Status SpecificationNotAnObject(ErrorCode code, const bson_iter_t* arg) {
  return Status(code, "specification must be an object; found " + std::string(IterKey(arg)) + ": " +
                          ValueToShellString(arg));
}

Status ParseNArguments(std::string_view name, const bson_iter_t* arg, ParseContext& ctx,
                       ExpressionPtr* n, ExpressionPtr* input) {
  if (!BSON_ITER_HOLDS_DOCUMENT(arg)) {
    bool first_last = name == "$firstN" || name == "$lastN";
    return SpecificationNotAnObject(
        first_last ? ErrorCode::kLocation5787801 : ErrorCode::kLocation5787900, arg);
  }
  bson_iter_t it;
  IterDocument(arg).Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "input") {
      CAIRN_ASSIGN_OR_RETURN(*input, ParseOperand(&it, ctx));
    } else if (key == "n") {
      CAIRN_ASSIGN_OR_RETURN(*n, ParseOperand(&it, ctx));
    } else {
      return Status(ErrorCode::kLocation5787901,
                    "Unknown argument for 'n' operator: " + std::string(key));
    }
  }
  if (!*n) return Status(ErrorCode::kLocation5787906, "Missing value for 'n'");
  if (!*input) return Status(ErrorCode::kLocation5787907, "Missing value for 'input'");
  return Status::OK();
}

std::unique_ptr<Accumulator> MakeNAccumulator(std::string_view name, int64_t n) {
  if (name == "$firstN") return std::make_unique<FirstLastNAccumulator>(name, n, false);
  if (name == "$lastN") return std::make_unique<FirstLastNAccumulator>(name, n, true);
  return std::make_unique<MinMaxNAccumulator>(name, n, name == "$maxN");
}

Result<ParsedAccumulator> ParseNAccumulator(std::string_view name, const bson_iter_t* arg,
                                            ParseContext& ctx) {
  ExpressionPtr n, input;
  CAIRN_RETURN_IF_ERROR(ParseNArguments(name, arg, ctx, &n, &input));
  ParsedAccumulator parsed;
  parsed.spec = std::make_shared<NAccumulatorSpec>(name, std::move(n));
  parsed.operand = std::move(input);
  return parsed;
}

}  // namespace cairn::query
