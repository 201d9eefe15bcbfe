// $bucketAuto: {groupBy, buckets, output?, granularity?} — sorts its input by the groupBy value
// (missing as null) and cuts it into at most `buckets` buckets of about round(n / buckets)
// documents each, never splitting equal values; each bucket outputs {_id: {min, max}, <output>}
// where max is the next bucket's min (the last bucket's: its largest value). With a granularity
// (a preferred-number series or POWERSOF2) the boundaries are rounded onto the series and the
// values they now cover absorbed. MongoDB's algorithm (DocumentSourceBucketAuto) step for step.
//
// `output` (default {count: {$sum: 1}}) is run by the $group stage's own accumulator machinery:
// the stage parses {$group: {_id: null, <output>}} and binds it over each bucket's documents, so
// every accumulator $group has works here with the same semantics and errors.
//
// Blocking: holds its input, failing with 292 past PipelineOptions::max_memory_bytes.
// Errors as MongoDB: 40240 (not an object), 40239 (groupBy), 40241/40242/40243 (buckets),
// 40244 (output), 40261/40257 (granularity), 40245 (unknown option), 40246 (groupBy or buckets
// missing); at run time with a granularity 40258/40259/40260 (a value not numeric, NaN, < 0).
// Left out: Decimal128 values are rounded through double (MongoDB rounds them in Decimal128).
#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "query/expression/number.h"
#include "query/pipeline/stages/buffered_input.h"
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

// GranularityRounder: rounds a non-negative number up or down to a value strictly beyond it on
// a preferred-number series (R5 … E192, 1-2-5, scaled by powers of ten) or to a power of two.
class Rounder {
 public:
  // MongoDB's series (granularity_rounder_preferred_numbers.cpp, from Wikipedia's "Preferred
  // number" tables); empty for POWERSOF2.
  explicit Rounder(std::span<const double> series) : series_(series) {}

  // The rounder named `granularity`, or 40257.
  static Result<Rounder> Find(std::string_view granularity);

  // MongoDB's scaling loops never end for two inputs they accept: Infinity (the multiplier
  // grows to infinity and stays there) and numbers below ~1e-322, where the multiplier, divided
  // by ten again and again, underflows to 0 and then never grows back (0 * 10 == 0). Here
  // Infinity rounds to itself, and a number below every scaled series value rounds up to the
  // smallest one and down to 0.
  Value RoundUp(const Value& value) const {
    double number = NumberAsDouble(value);
    if (number == 0.0 || std::isinf(number)) return value;
    if (series_.empty()) {
      if (value.type() == BSON_TYPE_DOUBLE || value.type() == BSON_TYPE_DECIMAL128) {
        return PowerOfTwo(value, static_cast<int>(std::floor(std::log2(number)) + 1.0));
      }
      return PowerOfTwo(value, 64 - __builtin_clzll(static_cast<uint64_t>(AsLong(value))));
    }
    double multiplier = 1.0;
    while (number >= series_.back() * multiplier) multiplier *= 10.0;
    while (number < series_.front() * multiplier) {
      double previous_min = series_.front() * multiplier;
      multiplier /= 10.0;
      // Also ends the loop once the multiplier underflows to 0 (0 <= number).
      if (number >= series_.back() * multiplier) return Numeric(value, previous_min);
    }
    auto it = std::upper_bound(series_.begin(), series_.end(), number,
                               [&](double n, double s) { return n < s * multiplier; });
    return Numeric(value, *it * multiplier);
  }

  Value RoundDown(const Value& value) const {
    double number = NumberAsDouble(value);
    if (number == 0.0 || std::isinf(number)) return value;
    if (series_.empty()) {
      if (value.type() == BSON_TYPE_DOUBLE || value.type() == BSON_TYPE_DECIMAL128) {
        return PowerOfTwo(value, static_cast<int>(std::ceil(std::log2(number)) - 1.0));
      }
      auto bits = static_cast<uint64_t>(AsLong(value));
      int leading = __builtin_clzll(bits), trailing = __builtin_ctzll(bits);
      return PowerOfTwo(value, leading + trailing == 63 ? 63 - leading - 1 : 63 - leading);
    }
    double multiplier = 1.0;
    while (number <= series_.front() * multiplier && multiplier > 0.0) multiplier /= 10.0;
    if (multiplier == 0.0) return Numeric(value, 0.0);
    while (number > series_.back() * multiplier) {
      double previous_max = series_.back() * multiplier;
      multiplier *= 10.0;
      if (number <= series_.front() * multiplier) return Numeric(value, previous_max);
    }
    auto it = std::lower_bound(series_.begin(), series_.end(), number,
                               [&](double s, double n) { return s * multiplier < n; });
    return Numeric(value, *(it - 1) * multiplier);
  }

 private:
  static int64_t AsLong(const Value& value) {
    return value.type() == BSON_TYPE_INT32 ? value.int32() : value.int64();
  }
  // A series value: a double (MongoDB's Value(double)), Decimal128 for a Decimal128 input.
  static Value Numeric(const Value& input, double result) {
    if (input.type() == BSON_TYPE_DECIMAL128) return Value::Decimal(DecimalFromDouble(result));
    return Value::Double(result);
  }
  // {$pow: [2, exponent]}: int or long while it fits, else double; Decimal128 for a Decimal128
  // input (whose exponent MongoDB keeps as Decimal128).
  static Value PowerOfTwo(const Value& input, int exponent) {
    double power = std::ldexp(1.0, exponent);
    if (input.type() == BSON_TYPE_DECIMAL128) return Value::Decimal(DecimalFromDouble(power));
    if (exponent >= 0 && exponent <= 62) return Value::IntOrLong(int64_t{1} << exponent);
    return Value::Double(power);
  }

  std::span<const double> series_;
};

constexpr double kR5[] = {10, 16, 25, 40, 63};
constexpr double kR10[] = {100, 125, 160, 200, 250, 315, 400, 500, 630, 800};
constexpr double kR20[] = {100, 112, 125, 140, 160, 180, 200, 224, 250, 280,
                           315, 355, 400, 450, 500, 560, 630, 710, 800, 900};
constexpr double kR40[] = {100, 106, 112, 118, 125, 132, 140, 150, 160, 170, 180, 190, 200,
                           212, 224, 236, 250, 265, 280, 300, 315, 355, 375, 400, 425, 450,
                           475, 500, 530, 560, 600, 630, 670, 710, 750, 800, 850, 900, 950};
constexpr double kR80[] = {103, 109, 115, 122, 128, 136, 145, 155, 165, 175, 185, 195, 206, 218,
                           230, 243, 258, 272, 290, 307, 325, 345, 365, 387, 412, 437, 462, 487,
                           515, 545, 575, 615, 650, 690, 730, 775, 825, 875, 925, 975};
constexpr double k125[] = {10, 20, 50};
constexpr double kE6[] = {10, 15, 22, 33, 47, 68};
constexpr double kE12[] = {10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82};
constexpr double kE24[] = {10, 11, 12, 13, 15, 16, 18, 20, 22, 24, 27, 30,
                           33, 36, 39, 43, 47, 51, 56, 62, 68, 75, 82, 91};
constexpr double kE48[] = {100, 105, 110, 115, 121, 127, 133, 140, 147, 154, 162, 169,
                           178, 187, 196, 205, 215, 226, 237, 249, 261, 274, 287, 301,
                           316, 332, 348, 365, 383, 402, 422, 442, 464, 487, 511, 536,
                           562, 590, 619, 649, 681, 715, 750, 787, 825, 866, 909, 953};
constexpr double kE96[] = {100, 102, 105, 107, 110, 113, 115, 118, 121, 124, 127, 130, 133, 137,
                           140, 143, 147, 150, 154, 158, 162, 165, 169, 174, 178, 182, 187, 191,
                           196, 200, 205, 210, 215, 221, 226, 232, 237, 243, 249, 255, 261, 267,
                           274, 280, 287, 294, 301, 309, 316, 324, 332, 340, 348, 357, 365, 374,
                           383, 392, 402, 412, 422, 432, 442, 453, 464, 475, 487, 499, 511, 523,
                           536, 549, 562, 576, 590, 604, 619, 634, 649, 665, 681, 698, 715, 732,
                           750, 768, 787, 806, 825, 845, 866, 887, 909, 931, 953, 976};
constexpr double kE192[] = {
    100, 101, 102, 104, 105, 106, 107, 109, 110, 111, 113, 114, 115, 117, 118, 120, 121, 123,
    124, 126, 127, 129, 130, 132, 133, 135, 137, 138, 140, 142, 143, 145, 147, 149, 150, 152,
    154, 156, 158, 160, 162, 164, 165, 167, 169, 172, 174, 176, 178, 180, 182, 184, 187, 189,
    191, 193, 196, 198, 200, 203, 205, 208, 210, 213, 215, 218, 221, 223, 226, 229, 232, 234,
    237, 240, 243, 246, 249, 252, 255, 258, 261, 264, 267, 271, 274, 277, 280, 284, 287, 291,
    294, 298, 301, 305, 309, 312, 316, 320, 324, 328, 332, 336, 340, 344, 348, 352, 357, 361,
    365, 370, 374, 379, 383, 388, 392, 397, 402, 407, 412, 417, 422, 427, 432, 437, 442, 448,
    453, 459, 464, 470, 475, 481, 487, 493, 499, 505, 511, 517, 523, 530, 536, 542, 549, 556,
    562, 569, 576, 583, 590, 597, 604, 612, 619, 626, 634, 642, 649, 657, 665, 673, 681, 690,
    698, 706, 715, 723, 732, 741, 750, 759, 768, 777, 787, 796, 806, 816, 825, 835, 845, 856,
    866, 876, 887, 898, 909, 920, 931, 942, 953, 965, 976, 988};

Result<Rounder> Rounder::Find(std::string_view granularity) {
  struct Row {
    std::string_view name;
    std::span<const double> series;
  };
  static const Row kRows[] = {
      {"R5", kR5},     {"R10", kR10},   {"R20", kR20},     {"R40", kR40}, {"R80", kR80},
      {"1-2-5", k125}, {"E6", kE6},     {"E12", kE12},     {"E24", kE24}, {"E48", kE48},
      {"E96", kE96},   {"E192", kE192}, {"POWERSOF2", {}},
  };
  for (const Row& row : kRows) {
    if (row.name == granularity) return Rounder(row.series);
  }
  return Status(ErrorCode::kLocation40257,
                "Unknown rounding granularity '" + std::string(granularity) + "'");
}

class BucketAutoStage final : public Stage {
 public:
  BucketAutoStage(ExpressionPtr group_by, size_t num_slots, int32_t buckets,
                  std::optional<Rounder> rounder, StagePtr group, PipelineOptions options)
      : group_by_(std::move(group_by)),
        num_slots_(num_slots),
        buckets_(buckets),
        rounder_(rounder),
        group_(std::move(group)),
        options_(std::move(options)) {}

  std::string_view name() const override { return "$bucketAuto"; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  const Expression& group_by() const { return *group_by_; }
  size_t num_slots() const { return num_slots_; }
  int32_t buckets() const { return buckets_; }
  const std::optional<Rounder>& rounder() const { return rounder_; }
  const Stage& group() const { return *group_; }
  int64_t max_memory_bytes() const { return options_.max_memory_bytes; }
  const StringComparator* collator() const {
    return options_.expression_context ? options_.expression_context->collator() : nullptr;
  }

 private:
  ExpressionPtr group_by_;
  size_t num_slots_;
  int32_t buckets_;
  std::optional<Rounder> rounder_;
  StagePtr group_;  // {$group: {_id: null, <output>}}, run over each bucket
  PipelineOptions options_;
};

class BucketAutoExecutor final : public ChildSource {
 public:
  BucketAutoExecutor(const BucketAutoStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage), vars_(stage.num_slots()) {
    vars_.set_metadata(child_.get());  // {$meta: "textScore"} reads the input's score
  }

  bool Next() override {
    if (!loaded_) {
      loaded_ = true;
      Status status = Load();
      if (!status.ok()) return Fail(std::move(status));
      if (!child_->status().ok()) return false;
      approx_bucket_size_ = std::max<int64_t>(
          1, static_cast<int64_t>(std::round(static_cast<double>(entries_.size()) /
                                             static_cast<double>(stage_.buckets()))));
    }
    if (bucket_number_++ >= stage_.buckets()) return false;
    if (!next_min_.has_value() && position_ >= entries_.size()) return false;
    Status status = EmitBucket();
    if (!status.ok()) return Fail(std::move(status));
    return true;
  }
  BsonView document() const override { return out_.view(); }

 private:
  struct Entry {
    Value key;
    size_t doc;  // index in docs_
  };

  // Reads the input, keyed by groupBy, and sorts it (stable: equal keys keep input order).
  Status Load() {
    int64_t bytes = 0;
    while (child_->Next()) {
      bytes += static_cast<int64_t>(child_->document().size());
      if (bytes > stage_.max_memory_bytes()) return MemoryLimitExceeded(stage_.max_memory_bytes());
      docs_.emplace_back(child_->document());
      vars_.SetRoot(docs_.back().view());
      CAIRN_ASSIGN_OR_RETURN(Value key, stage_.group_by().Evaluate(&vars_));
      if (stage_.rounder().has_value()) CAIRN_RETURN_IF_ERROR(CheckRoundable(key));
      entries_.push_back(Entry{key.missing() ? Value::Null() : key.Owned(), docs_.size() - 1});
    }
    const StringComparator* strings = stage_.collator();
    std::stable_sort(entries_.begin(), entries_.end(), [&](const Entry& a, const Entry& b) {
      return CompareValue(a.key, b.key, strings) < 0;
    });
    return Status::OK();
  }

  static Status CheckRoundable(const Value& key) {
    if (!key.numeric()) {
      return Status(ErrorCode::kLocation40258,
                    "$bucketAuto can specify a 'granularity' with numeric boundaries only, but "
                    "found a value with type: " +
                        std::string(TypeName(key)));
    }
    double number = NumberAsDouble(key);
    if (std::isnan(number)) {
      return Status(ErrorCode::kLocation40259,
                    "$bucketAuto can specify a 'granularity' with numeric boundaries only, but "
                    "found a NaN");
    }
    if (number < 0.0) {
      return Status(ErrorCode::kLocation40260,
                    "$bucketAuto can specify a 'granularity' with non-negative numbers only, but "
                    "found a negative number");
    }
    return Status::OK();
  }

  bool Equal(const Value& a, const Value& b) const {
    return CompareValue(a, b, stage_.collator()) == 0;
  }

  void Add(const Entry& entry, Value* max, std::vector<BsonView>* members) {
    *max = entry.key;
    members->push_back(docs_[entry.doc].view());
  }

  // populateNextBucket + adjustBoundariesAndGetMinForNextBucket.
  Status EmitBucket() {
    const std::optional<Rounder>& rounder = stage_.rounder();
    const Entry& first = next_min_.has_value() ? *next_min_ : entries_[position_++];
    Value min = first.key, max = first.key;
    if (rounder.has_value())
      min = previous_max_.has_value() ? *previous_max_ : rounder->RoundDown(first.key);
    std::vector<BsonView> members;
    Add(first, &max, &members);
    const bool last_bucket = bucket_number_ == stage_.buckets();
    for (int64_t i = 1; position_ < entries_.size() && (i < approx_bucket_size_ || last_bucket);
         ++i) {
      Add(entries_[position_++], &max, &members);
    }
    std::optional<Entry> next;
    auto advance = [&] {
      next.reset();
      if (position_ < entries_.size()) next = entries_[position_++];
    };
    advance();
    if (rounder.has_value()) {
      Value boundary = rounder->RoundUp(max);
      while (next.has_value() &&
             (CompareValue(boundary, next->key, stage_.collator()) > 0 || Equal(max, next->key))) {
        Add(*next, &max, &members);
        advance();
      }
      max = NumberAsDouble(boundary) == 0.0 && next.has_value() ? rounder->RoundDown(next->key)
                                                                : boundary;
    } else {
      while (next.has_value() && Equal(max, next->key)) {
        Add(*next, &max, &members);
        advance();
      }
      if (next.has_value()) max = next->key;
    }
    next_min_ = std::move(next);
    previous_max_ = max;
    return Accumulate(min, max, std::move(members));
  }

  // {_id: {min, max}, <output>}: the $group over the bucket's documents, its _id replaced.
  Status Accumulate(const Value& min, const Value& max, std::vector<BsonView> members) {
    std::unique_ptr<DocumentSource> group =
        stage_.group().Bind(std::make_unique<ViewSource>(std::move(members)));
    bson_reinit(out_.get());
    bson_t id;
    bson_append_document_begin(out_.get(), "_id", 3, &id);
    min.AppendTo(&id, "min");
    max.AppendTo(&id, "max");
    bson_append_document_end(out_.get(), &id);
    if (!group->Next()) {
      CAIRN_RETURN_IF_ERROR(group->status());
      return Status(ErrorCode::kInternalError, "$bucketAuto: a bucket produced no group");
    }
    bson_iter_t field;
    group->document().Init(&field);
    while (bson_iter_next(&field)) {
      if (IterKey(&field) != "_id") AppendIter(out_.get(), IterKey(&field), &field);
    }
    return Status::OK();
  }

  const BucketAutoStage& stage_;
  Variables vars_;
  bool loaded_ = false;
  std::vector<BsonDoc> docs_;
  std::vector<Entry> entries_;  // sorted by key
  int64_t approx_bucket_size_ = 1;
  int32_t bucket_number_ = 0;
  size_t position_ = 0;
  std::optional<Entry> next_min_;  // the first entry of the next bucket, already taken
  std::optional<Value> previous_max_;
  BsonDoc out_;
};

std::unique_ptr<DocumentSource> BucketAutoStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<BucketAutoExecutor>(*this, std::move(child));
}

std::string TypeOf(const bson_iter_t* it) { return std::string(BsonTypeName(bson_iter_type(it))); }

}  // namespace

Result<StagePtr> ParseBucketAuto(const bson_iter_t* spec, const PipelineOptions& options) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kLocation40240,
                  "The argument to $bucketAuto must be an object, but found type: " + TypeOf(spec));
  }
  ParseContext ctx(options.expression_context);
  ExpressionPtr group_by;
  std::optional<int32_t> buckets;
  std::optional<Rounder> rounder;
  BsonDoc group;  // {$group: {_id: null, <output>}}
  bson_t body;
  bson_append_document_begin(group.get(), "$group", 6, &body);
  bson_append_null(&body, "_id", 3);
  bool has_output = false;
  bson_iter_t it;
  bson_iter_recurse(spec, &it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "groupBy") {
      if (!IsGroupByExpression(&it, /*min_path_length=*/2)) {
        return Status(ErrorCode::kLocation40239,
                      "The $bucketAuto 'groupBy' field must be defined as a $-prefixed path or an "
                      "expression object, but found: " +
                          ValueToString(Value::Element(&it)));
      }
      CAIRN_ASSIGN_OR_RETURN(group_by, ParseOperand(&it, ctx));
    } else if (key == "buckets") {
      Value value = Value::Element(&it);
      if (!value.numeric()) {
        return Status(ErrorCode::kLocation40241,
                      "The $bucketAuto 'buckets' field must be a numeric value, but found type: " +
                          TypeOf(&it));
      }
      if (!IsIntegral32(value)) {
        return Status(ErrorCode::kLocation40242,
                      "The $bucketAuto 'buckets' field must be representable as a 32-bit "
                      "integer, but found " +
                          FormatDouble(NumberAsDouble(value)));
      }
      CAIRN_ASSIGN_OR_RETURN(buckets, CoerceToInt(value));
    } else if (key == "output") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Status(
            ErrorCode::kLocation40244,
            "The $bucketAuto 'output' field must be an object, but found type: " + TypeOf(&it));
      }
      bson_t fields = IterDocument(&it).AsBson();
      bson_concat(&body, &fields);
      has_output = true;
    } else if (key == "granularity") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) {
        return Status(
            ErrorCode::kLocation40261,
            "The $bucketAuto 'granularity' field must be a string, but found type: " + TypeOf(&it));
      }
      CAIRN_ASSIGN_OR_RETURN(Rounder found, Rounder::Find(IterUtf8(&it)));
      rounder.emplace(found);
    } else {
      return Status(ErrorCode::kLocation40245,
                    "Unrecognized option to $bucketAuto: " + std::string(key));
    }
  }
  if (group_by == nullptr || !buckets.has_value()) {
    return Status(ErrorCode::kLocation40246,
                  "$bucketAuto requires 'groupBy' and 'buckets' to be specified");
  }
  if (*buckets <= 0) {
    return Status(ErrorCode::kLocation40243,
                  "The $bucketAuto 'buckets' field must be greater than 0, but found: " +
                      std::to_string(*buckets));
  }
  if (!has_output) AppendCountOfOne(&body);
  bson_append_document_end(group.get(), &body);
  CAIRN_ASSIGN_OR_RETURN(StagePtr group_stage,
                         ParseStageDocument(group.view(), ParseGroup, options));
  return StagePtr(std::make_shared<BucketAutoStage>(std::move(group_by), ctx.num_slots(), *buckets,
                                                    rounder, std::move(group_stage), options));
}

}  // namespace cairn::query::stages
