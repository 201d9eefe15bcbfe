// $push: appends to an array (creating it when missing), with the $each, $position, $sort and
// $slice clauses; $sort compares strings under the statement's collation. A non-array field is
// BadValue "The field 'a' must be an array but is of type int in document {_id: 1}". MongoDB:
// push_node.cpp, pattern_cmp.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "common/bson_compare.h"
#include "query/update/update_internal.h"

namespace cairn::query::update_internal {
namespace {

// MatchExpressionParser::parseIntegerElementToLong: an integral number.
bool ParseInteger(const bson_iter_t* it, int64_t* out) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DOUBLE:
      return IterAsInt64(it, out);
    case BSON_TYPE_DECIMAL128: {
      double d = 0;
      if (!IterAsDouble(it, &d) || std::trunc(d) != d || !(std::fabs(d) < 9.2e18)) return false;
      *out = static_cast<int64_t>(d);
      return true;
    }
    default:
      return false;
  }
}

struct SortSpec {
  bool whole = false;                               // sort whole elements ($sort: 1 / -1)
  int whole_direction = 1;                          // for whole
  std::vector<std::pair<std::string, int>> fields;  // ($sort: {field: 1/-1, ...})
};

Status CheckSortPattern(BsonView pattern) {
  if (pattern.empty()) {
    return Status(ErrorCode::kBadValue,
                  "The $sort pattern is empty when it should be a set of fields.");
  }
  bson_iter_t it;
  pattern.Init(&it);
  while (bson_iter_next(&it)) {
    double order = 0;
    if (IterIsNumber(&it)) IterAsDouble(&it, &order);
    if (order != -1 && order != 1) {
      return Status(ErrorCode::kBadValue, "The $sort element value must be either 1 or -1");
    }
    std::string_view field = IterKey(&it);
    if (field.empty()) return Status(ErrorCode::kBadValue, "The $sort field cannot be empty");
    for (const std::string& part : SplitDottedPath(field)) {
      if (part.empty()) {
        return Status(
            ErrorCode::kBadValue,
            "The $sort field is a dotted field but has an empty part: " + std::string(field));
      }
    }
  }
  return Status::OK();
}

class PushModifier final : public Modifier {
 public:
  explicit PushModifier(std::shared_ptr<const StringComparator> collator)
      : collator_(std::move(collator)) {}

  bool AllowCreation() const override { return true; }

  Status Init(const bson_iter_t& operand) {
    bson_iter_t each;
    if (BSON_ITER_HOLDS_DOCUMENT(&operand) && IterDocument(&operand).Find("$each", &each)) {
      bson_iter_t clause;
      bson_iter_recurse(&operand, &clause);
      std::vector<std::string> seen;
      // Plain locals, not std::optional<bson_iter_t>: a template type loses bson_iter_t's
      // alignment (see common/bson_element.h).
      struct Clause {
        bool present = false;
        bson_iter_t it;
      };
      Clause each_it, slice_it, sort_it, position_it;
      while (bson_iter_next(&clause)) {
        std::string_view name = IterKey(&clause);
        Clause* slot = nullptr;
        if (name == "$each")
          slot = &each_it;
        else if (name == "$slice")
          slot = &slice_it;
        else if (name == "$sort")
          slot = &sort_it;
        else if (name == "$position")
          slot = &position_it;
        if (slot == nullptr) {
          return Status(ErrorCode::kBadValue, "Unrecognized clause in $push: " + std::string(name));
        }
        if (slot->present) {
          return Status(ErrorCode::kBadValue, "Only one " + std::string(name) + " is supported.");
        }
        slot->present = true;
        slot->it = clause;
      }
      if (!BSON_ITER_HOLDS_ARRAY(&each_it.it)) {
        return Status(ErrorCode::kBadValue,
                      "The argument to $each in $push must be an array but it was of type: " +
                          std::string(BsonTypeName(bson_iter_type(&each_it.it))));
      }
      bson_iter_t item;
      bson_iter_recurse(&each_it.it, &item);
      while (bson_iter_next(&item)) values_.emplace_back(&item);
      if (slice_it.present) {
        int64_t slice;
        if (!ParseInteger(&slice_it.it, &slice)) {
          return Status(ErrorCode::kBadValue,
                        "The value for $slice must be an integer value but was given type: " +
                            std::string(BsonTypeName(bson_iter_type(&slice_it.it))));
        }
        slice_ = slice;
      }
      if (sort_it.present) {
        SortSpec sort;
        if (BSON_ITER_HOLDS_DOCUMENT(&sort_it.it)) {
          BsonView pattern = IterDocument(&sort_it.it);
          CAIRN_RETURN_IF_ERROR(CheckSortPattern(pattern));
          bson_iter_t f;
          pattern.Init(&f);
          while (bson_iter_next(&f)) {
            double order = 0;
            IterAsDouble(&f, &order);
            sort.fields.emplace_back(std::string(IterKey(&f)), order < 0 ? -1 : 1);
          }
          // A pattern naming the empty field sorts whole values (PatternElementCmp).
          for (const auto& [name, dir] : sort.fields) {
            if (name.empty()) {
              sort.whole = true;
              sort.whole_direction = sort.fields.front().second;
            }
          }
        } else if (IterIsNumber(&sort_it.it)) {
          double order = 0;
          IterAsDouble(&sort_it.it, &order);
          if (order != -1 && order != 1) {
            return Status(ErrorCode::kBadValue, "The $sort element value must be either 1 or -1");
          }
          sort.whole = true;
          sort.whole_direction = order < 0 ? -1 : 1;
        } else {
          return Status(ErrorCode::kBadValue,
                        "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} "
                        "to sort embedded fields");
        }
        sort_ = std::move(sort);
      }
      if (position_it.present) {
        int64_t position;
        if (!ParseInteger(&position_it.it, &position)) {
          return Status(ErrorCode::kBadValue,
                        "The value for $position must be an integer value, not of type: " +
                            std::string(BsonTypeName(bson_iter_type(&position_it.it))));
        }
        position_ = position;
      }
    } else {
      values_.emplace_back(&operand);
    }
    return Status::OK();
  }

  Result<bool> UpdateExisting(ApplyContext& ctx, ElementRef element,
                              std::string_view path) const override {
    Node& node = element.node();
    if (!node.IsArray()) {
      return Status(ErrorCode::kBadValue, "The field '" + std::string(path) +
                                              "' must be an array but is of type " +
                                              std::string(BsonTypeName(node.type)) +
                                              " in document {" + ctx.IdForMessage() + "}");
    }
    return Push(ctx, &node);
  }

  Result<Node> NewValue(ApplyContext& ctx) const override {
    Node array = Node::NewArray();
    Push(ctx, &array);
    return array;
  }

 private:
  // Performs the push on an array node; returns whether the array changed.
  bool Push(ApplyContext& ctx, Node* array) const {
    array->Expand();
    auto& kids = array->kids;
    bool changed = false;
    if (!values_.empty()) {
      const int64_t size = static_cast<int64_t>(kids.size());
      int64_t at;
      if (size == 0 || position_ > size) {
        at = size;
      } else if (position_ >= 0) {
        at = position_;
      } else if (-position_ < size) {
        at = size + position_;
      } else {
        at = 0;
      }
      std::vector<std::pair<std::string, Node>> inserted;
      for (const BsonElement& element : values_) {
        bson_iter_t value = element.iter();
        inserted.emplace_back(std::string(), Node::FromIter(&value));
      }
      kids.insert(kids.begin() + at, inserted.begin(), inserted.end());
      changed = true;
    }
    if (sort_) {
      // Sort a permutation so that "did the order change" is known exactly.
      std::vector<BsonElement> elements;
      elements.reserve(kids.size());
      for (const auto& kid : kids) {
        bson_iter_t it = ctx.IterOf(kid.second);
        elements.emplace_back(&it);
      }
      std::vector<size_t> order(kids.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        bson_iter_t x = elements[a].iter(), y = elements[b].iter();
        return Compare(x, y) < 0;
      });
      bool moved = false;
      for (size_t i = 0; i < order.size(); ++i) moved = moved || order[i] != i;
      if (moved) {
        std::vector<std::pair<std::string, Node>> sorted;
        sorted.reserve(kids.size());
        for (size_t i : order) sorted.push_back(std::move(kids[i]));
        kids = std::move(sorted);
        changed = true;
      }
    }
    const int64_t limit = slice_ == std::numeric_limits<int64_t>::min()
                              ? std::numeric_limits<int64_t>::max()
                              : (slice_ < 0 ? -slice_ : slice_);
    if (static_cast<int64_t>(kids.size()) > limit) {
      const size_t remove = kids.size() - static_cast<size_t>(limit);
      if (slice_ >= 0) {
        kids.erase(kids.end() - static_cast<std::ptrdiff_t>(remove), kids.end());
      } else {
        kids.erase(kids.begin(), kids.begin() + static_cast<std::ptrdiff_t>(remove));
      }
      changed = true;
    }
    return changed;
  }

  // PatternElementCmp: whole values, or the pattern's fields extracted from each element
  // (non-documents and missing fields compare as null).
  int Compare(const bson_iter_t& a, const bson_iter_t& b) const {
    if (sort_->whole) {
      int c = CompareValues(&a, &b, collator_.get());
      return sort_->whole_direction < 0 ? -c : c;
    }
    static const BsonDoc kNull = BsonDoc::FromJson(R"({"v": null})");
    bson_iter_t null_it;
    kNull.view().Find("v", &null_it);
    for (const auto& [field, direction] : sort_->fields) {
      bson_iter_t va = null_it, vb = null_it;
      Extract(a, field, &va);
      Extract(b, field, &vb);
      int c = CompareValues(&va, &vb, collator_.get());
      if (c != 0) return direction < 0 ? -c : c;
    }
    return 0;
  }

  static void Extract(const bson_iter_t& element, const std::string& field, bson_iter_t* out) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&element)) return;
    bson_iter_t doc, found;
    if (!bson_iter_recurse(&element, &doc)) return;
    if (bson_iter_find_descendant(&doc, field.c_str(), &found)) *out = found;
  }

  std::vector<BsonElement> values_;  // not bson_iter_t: see common/bson_element.h
  int64_t slice_ = std::numeric_limits<int64_t>::max();
  std::optional<SortSpec> sort_;
  int64_t position_ = std::numeric_limits<int64_t>::max();
  std::shared_ptr<const StringComparator> collator_;  // for $sort; null: binary
};

}  // namespace

Result<std::unique_ptr<Modifier>> MakePush(const ModifierArg& arg) {
  auto push = std::make_unique<PushModifier>(arg.collator());
  CAIRN_RETURN_IF_ERROR(push->Init(arg.value));
  return std::unique_ptr<Modifier>(std::move(push));
}

}  // namespace cairn::query::update_internal
