// Whole-filter answers, covered projections and COUNT_SCAN bounds (plan_analysis.h).
#include "index/plan_analysis.h"

#include <algorithm>

namespace cairn::index {

namespace {

using query::MatchExpression;
using query::MatchKind;

void AppendEdge(bson_t* out, const std::string& field, bool max_key) {
  if (max_key) {
    bson_append_maxkey(out, field.c_str(), static_cast<int>(field.size()));
  } else {
    bson_append_minkey(out, field.c_str(), static_cast<int>(field.size()));
  }
}

}  // namespace

size_t CountConjuncts(const MatchExpression* filter) {
  if (filter == nullptr) return 0;
  if (filter->kind() != MatchKind::kAnd) return 1;
  size_t n = 0;
  for (size_t i = 0; i < filter->num_children(); ++i) n += CountConjuncts(filter->child(i));
  return n;
}

bool BoundsAnswerFilter(const IndexScanPlan& plan, const MatchExpression* filter) {
  return !plan.multikey && plan.exact_predicates.size() == CountConjuncts(filter);
}

std::optional<std::vector<std::string>> CoveredFields(BsonView projection,
                                                      const IndexDescriptor& index,
                                                      const MultikeyPaths& multikey) {
  if (projection.empty() || IsMultikey(multikey)) return std::nullopt;
  const KeyPattern& pattern = index.key_pattern();
  if (pattern.kind() != IndexKind::kBtree) return std::nullopt;
  const std::vector<KeyField>& fields = pattern.fields();
  std::vector<std::string> out(fields.size());
  auto key_field = [&](std::string_view name) -> int {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].path == name) return static_cast<int>(i);
    }
    return -1;
  };
  bool id_excluded = false;
  bool any = false;
  bson_iter_t it;
  projection.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view name = IterKey(&it);
    if (name.empty() || name.front() == '$' || name.find('.') != std::string_view::npos ||
        name.find('$') != std::string_view::npos) {
      return std::nullopt;
    }
    bool include;
    if (BSON_ITER_HOLDS_BOOL(&it)) {
      include = bson_iter_bool(&it);
    } else if (IterIsNumber(&it)) {
      include = bson_iter_as_double(&it) != 0;
    } else {
      return std::nullopt;  // expressions, $slice, $elemMatch, literals
    }
    if (!include) {
      if (name != "_id") return std::nullopt;  // an exclusion projection returns other fields
      id_excluded = true;
      continue;
    }
    int position = key_field(name);
    if (position < 0) return std::nullopt;
    out[position] = std::string(name);
    any = true;
  }
  if (!any) return std::nullopt;
  if (!id_excluded) {  // _id is returned unless excluded: it must come from the key too
    int position = key_field("_id");
    if (position < 0) return std::nullopt;
    out[position] = "_id";
  }
  return out;
}

std::optional<IndexScanPlan> PlanDistinctScan(const PlannerInput& input, std::string_view key) {
  if (input.collation) return std::nullopt;
  std::optional<IndexScanPlan> best;
  size_t best_fields = 0;
  for (size_t i = 0; i < input.indexes.size(); ++i) {
    if (input.hint.has_value() && *input.hint != i) continue;
    const PlannerIndex& index = input.indexes[i];
    const IndexDescriptor& d = *index.descriptor;
    const std::vector<KeyField>& fields = d.key_pattern().fields();
    if (d.hidden() || d.partial_filter() != nullptr ||
        d.key_pattern().kind() != IndexKind::kBtree || IsMultikey(index.multikey) ||
        fields.empty() || fields[0].path != key) {
      continue;
    }
    // The bounds this index alone gives the filter (a hinted plan of it).
    PlannerInput only;
    only.filter = input.filter;
    only.indexes = {index};
    only.hint = 0;
    QueryPlan plan = PlanQuery(only);
    if (!plan.index_scan || !BoundsAnswerFilter(*plan.index_scan, input.filter)) continue;
    if (best && best_fields <= fields.size()) continue;
    best = std::move(plan.index_scan);
    best->index = i;
    best->reverse = false;
    best->provides_sort = false;
    best_fields = fields.size();
  }
  return best;
}

bool AppendCountScanBounds(bson_t* out, const char* key, const IndexScanPlan& plan,
                           const IndexDescriptor& index) {
  if (plan.reverse) return false;
  const std::vector<KeyField>& fields = index.key_pattern().fields();
  if (plan.bounds.fields.size() != fields.size()) return false;
  BsonDoc start, end;
  bool start_inclusive = true, end_inclusive = true;
  bool past_range = false;
  for (size_t i = 0; i < fields.size(); ++i) {
    const IntervalList& list = plan.bounds.fields[i];
    const std::string& name = fields[i].path;
    const bool asc = !fields[i].descending;
    if (past_range) {
      if (!IsFullRange(list)) return false;
      // Past the range field, the remaining fields span everything on the inclusive side.
      AppendEdge(start.get(), name, start_inclusive != asc);
      AppendEdge(end.get(), name, end_inclusive == asc);
      continue;
    }
    if (list.size() != 1) return false;
    const Interval& interval = list[0];
    if (interval.IsPoint()) {
      interval.low.AppendTo(start.get(), name);
      interval.low.AppendTo(end.get(), name);
      continue;
    }
    // The range field: its ends in key order (a descending field scans high to low).
    const query::OwnedValue& first = asc ? interval.low : interval.high;
    const query::OwnedValue& last = asc ? interval.high : interval.low;
    first.AppendTo(start.get(), name);
    last.AppendTo(end.get(), name);
    start_inclusive = asc ? interval.low_inclusive : interval.high_inclusive;
    end_inclusive = asc ? interval.high_inclusive : interval.low_inclusive;
    past_range = true;
  }
  bson_t doc;
  bson_append_document_begin(out, key, -1, &doc);
  BSON_APPEND_DOCUMENT(&doc, "startKey", start.get());
  BSON_APPEND_BOOL(&doc, "startKeyInclusive", start_inclusive);
  BSON_APPEND_DOCUMENT(&doc, "endKey", end.get());
  BSON_APPEND_BOOL(&doc, "endKeyInclusive", end_inclusive);
  bson_append_document_end(out, &doc);
  return true;
}

}  // namespace cairn::index
