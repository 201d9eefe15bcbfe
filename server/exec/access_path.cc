// Access path selection (access_path.h): hint resolution, planning, the index scan (single,
// covered, count-only, OR, min/max), and the plan nodes explain prints for each.
#include "server/exec/access_path.h"

#include "common/bson_compare.h"
#include "index/min_max_bounds.h"
#include "index/or_plan.h"
#include "index/plan_analysis.h"
#include "index/planner.h"
#include "server/catalog/collection_indexes.h"
#include "server/exec/explain.h"
#include "server/exec/index_scan.h"

namespace cairn::server {

namespace {

Status UnknownHint() {
  return Status(ErrorCode::kBadValue,
                "error processing query: planner returned error :: caused by :: hint provided "
                "does not correspond to an existing index");
}

bool HintNames(const QueryHint& hint, const IndexHandle& index) {
  if (!hint.name.empty()) return hint.name == index.name;
  BsonView pattern(reinterpret_cast<const uint8_t*>(hint.key_pattern.data()),
                   hint.key_pattern.size());
  return CompareDocuments(pattern, index.descriptor->key_pattern().pattern()) == 0;
}

// An IXSCAN or COUNT_SCAN node with the index's fields, up to its bounds.
std::unique_ptr<PlanNode> IndexNode(const IndexHandle& index, const char* stage) {
  const index::IndexDescriptor& d = *index.descriptor;
  auto ixscan = std::make_unique<PlanNode>();
  ixscan->stage = stage;
  ixscan->reports_keys = true;
  bson_t* f = ixscan->fields.get();
  bson_t pattern = d.key_pattern().pattern().AsBson();
  BSON_APPEND_DOCUMENT(f, "keyPattern", &pattern);
  AppendUtf8(f, "indexName", d.name());
  BSON_APPEND_BOOL(f, "isMultiKey", index::IsMultikey(index.state.multikey));
  index::AppendMultikeyPaths(f, "multiKeyPaths", d, index.state.multikey);
  BSON_APPEND_BOOL(f, "isUnique", d.unique());
  BSON_APPEND_BOOL(f, "isSparse", d.sparse());
  BSON_APPEND_BOOL(f, "isPartial", d.partial_filter() != nullptr);
  BSON_APPEND_INT32(f, "indexVersion", d.version());
  return ixscan;
}

// IXSCAN (or COUNT_SCAN) of one index, as explain prints it; COUNT_SCAN falls back to IXSCAN
// when its bounds are not one key interval.
std::unique_ptr<PlanNode> IndexScanNode(const IndexHandle& index, const index::IndexScanPlan& plan,
                                        bool count_scan = false) {
  if (count_scan) {
    std::unique_ptr<PlanNode> node = IndexNode(index, "COUNT_SCAN");
    if (index::AppendCountScanBounds(node->fields.get(), "indexBounds", plan, *index.descriptor)) {
      return node;
    }
  }
  std::unique_ptr<PlanNode> node = IndexNode(index, "IXSCAN");
  AppendUtf8(node->fields.get(), "direction", plan.reverse ? "backward" : "forward");
  index::AppendIndexBounds(node->fields.get(), "indexBounds", plan, *index.descriptor);
  return node;
}

// FETCH over IXSCAN, as explain prints them.
std::unique_ptr<PlanNode> IndexScanNodes(const IndexHandle& index, const index::IndexScanPlan& plan,
                                         const query::Matcher& matcher) {
  std::unique_ptr<PlanNode> ixscan = IndexScanNode(index, plan);
  auto fetch = std::make_unique<PlanNode>();
  fetch->stage = "FETCH";
  fetch->is_fetch = true;
  fetch->reports_docs = true;
  BsonDoc residual;
  if (index::AppendResidualFilter(matcher.root(), plan.exact_predicates, residual.get())) {
    BSON_APPEND_DOCUMENT(fetch->fields.get(), "filter", residual.get());
  }
  fetch->input = std::move(ixscan);
  return fetch;
}

// A built scan: its stream and (explain) its plan nodes.
struct ScanBuild {
  std::unique_ptr<DocumentStream> stream;
  std::unique_ptr<PlanNode> nodes;
  bool covered = false;  // documents come from the keys (PROJECTION_COVERED)
};

IndexScanBranch BranchOf(const IndexHandle& index, const index::IndexScanPlan& plan) {
  IndexScanBranch branch;
  branch.index = index.prefix;
  branch.unique = index.descriptor->unique();
  branch.reverse = plan.reverse;
  branch.ranges = index::IndexScanRanges::Make(
      plan.bounds, index.descriptor->key_pattern().descending(), plan.reverse);
  return branch;
}

// One index: FETCH → IXSCAN; or, when its bounds answer the whole filter, a count of keys
// (COUNT_SCAN) for count, or the documents built from the keys (covered) for a find whose
// projection the index holds.
ScanBuild BuildSingleScan(const storage::Engine& engine, const storage::CollectionEntry& collection,
                          const IndexHandle& chosen, const index::IndexScanPlan& scan,
                          const QuerySpec& spec, QueryExplain* explain, IdCache* record_cache) {
  IndexScanSpec scan_spec;
  scan_spec.record_cache = record_cache;
  scan_spec.collection = collection.prefix;
  IndexScanBranch branch = BranchOf(chosen, scan);
  scan_spec.index = branch.index;
  scan_spec.unique = branch.unique;
  scan_spec.reverse = branch.reverse;
  scan_spec.ranges = std::move(branch.ranges);
  scan_spec.dedup = scan.multikey;
  scan_spec.matcher = spec.matcher;

  const bool answered = index::BoundsAnswerFilter(scan, spec.matcher->root());
  const bool sorted = !spec.sort || spec.sort->empty() || scan.provides_sort;
  std::optional<std::vector<std::string>> covered;
  if (answered && spec.count_only) {
    scan_spec.output = IndexScanOutput::kCountOnly;
  } else if (answered && sorted && !spec.projection.empty() &&
             (covered = index::CoveredFields(spec.projection, *chosen.descriptor,
                                             chosen.state.multikey))) {
    scan_spec.output = IndexScanOutput::kCovered;
    scan_spec.covered_fields = std::move(*covered);
    scan_spec.descending = chosen.descriptor->key_pattern().descending();
  }

  ScanBuild build;
  build.covered = scan_spec.output == IndexScanOutput::kCovered;
  PlanNode* count_node = nullptr;
  if (explain != nullptr) {
    if (scan_spec.output == IndexScanOutput::kFetch) {
      build.nodes = IndexScanNodes(chosen, scan, *spec.matcher);
      if (explain->count_execution) {
        scan_spec.counters = &build.nodes->input->scan;
        scan_spec.fetch_counters = &build.nodes->scan;
        count_node = build.nodes.get();
      }
    } else {
      build.nodes = IndexScanNode(chosen, scan, spec.count_only);
      if (explain->count_execution) scan_spec.counters = &build.nodes->scan;
    }
  }
  build.stream = MakeIndexScanStream(engine, std::move(scan_spec));
  if (count_node != nullptr) build.stream = CountInto(std::move(build.stream), count_node);
  return build;
}

// An OR plan: (SUBPLAN →) FETCH → OR → [IXSCAN, ...], RecordIds deduplicated across branches.
ScanBuild BuildOrScan(const storage::Engine& engine, const storage::CollectionEntry& collection,
                      const std::vector<IndexHandle>& all, const std::vector<size_t>& positions,
                      const index::OrPlan& plan, const QuerySpec& spec, QueryExplain* explain,
                      IdCache* record_cache) {
  IndexScanSpec scan_spec;
  scan_spec.record_cache = record_cache;
  scan_spec.collection = collection.prefix;
  scan_spec.matcher = spec.matcher;
  ScanBuild build;
  std::unique_ptr<PlanNode> fetch, or_node;
  const bool count = explain != nullptr && explain->count_execution;
  if (explain != nullptr) {
    or_node = MakePlanNode("OR", nullptr);
    fetch = MakePlanNode("FETCH", nullptr);
    fetch->is_fetch = fetch->reports_docs = true;
    std::vector<const query::MatchExpression*> answered;
    if (plan.exact) answered.push_back(plan.or_node);
    BsonDoc residual;
    if (index::AppendResidualFilter(spec.matcher->root(), answered, residual.get())) {
      BSON_APPEND_DOCUMENT(fetch->fields.get(), "filter", residual.get());
    }
    if (count) {
      scan_spec.fetch_counters = &fetch->scan;
      scan_spec.dedup_counters = &or_node->scan;
    }
  }
  for (const index::IndexScanPlan& branch_plan : plan.branches) {
    const IndexHandle& index = all[positions[branch_plan.index]];
    IndexScanBranch branch = BranchOf(index, branch_plan);
    if (explain != nullptr) {
      std::unique_ptr<PlanNode> node = IndexScanNode(index, branch_plan);
      if (count) branch.counters = &node->scan;
      or_node->inputs.push_back(std::move(node));
    }
    scan_spec.branches.push_back(std::move(branch));
  }
  build.stream = MakeIndexScanStream(engine, std::move(scan_spec));
  if (explain != nullptr) {
    if (count) build.stream = CountInto(std::move(build.stream), fetch.get());
    fetch->input = std::move(or_node);
    build.nodes = plan.rooted ? MakePlanNode("SUBPLAN", std::move(fetch)) : std::move(fetch);
  }
  return build;
}

// find's min/max: FETCH → IXSCAN of the hinted index over [min, max), the whole filter on each
// document.
ScanBuild BuildMinMaxScan(const storage::Engine& engine, const storage::CollectionEntry& collection,
                          const IndexHandle& chosen, index::IndexScanRanges ranges,
                          const QuerySpec& spec, QueryExplain* explain, IdCache* record_cache) {
  IndexScanSpec scan_spec;
  scan_spec.record_cache = record_cache;
  scan_spec.collection = collection.prefix;
  scan_spec.index = chosen.prefix;
  scan_spec.unique = chosen.descriptor->unique();
  scan_spec.dedup = index::IsMultikey(chosen.state.multikey);
  scan_spec.ranges = std::move(ranges);
  scan_spec.matcher = spec.matcher;
  ScanBuild build;
  PlanNode* fetch = nullptr;
  if (explain != nullptr) {
    std::unique_ptr<PlanNode> ixscan = IndexNode(chosen, "IXSCAN");
    AppendUtf8(ixscan->fields.get(), "direction", "forward");
    index::AppendMinMaxBounds(ixscan->fields.get(), "indexBounds", *chosen.descriptor, spec.min,
                              spec.max);
    build.nodes = MakePlanNode("FETCH", nullptr);
    build.nodes->is_fetch = build.nodes->reports_docs = true;
    BsonDoc filter;
    if (!spec.matcher->MatchesAll() && index::AppendFilter(spec.matcher->root(), filter.get())) {
      BSON_APPEND_DOCUMENT(build.nodes->fields.get(), "filter", filter.get());
    }
    if (explain->count_execution) {
      scan_spec.counters = &ixscan->scan;
      scan_spec.fetch_counters = &build.nodes->scan;
      fetch = build.nodes.get();
    }
    build.nodes->input = std::move(ixscan);
  }
  build.stream = MakeIndexScanStream(engine, std::move(scan_spec));
  if (fetch != nullptr) build.stream = CountInto(std::move(build.stream), fetch);
  return build;
}

// distinct: PROJECTION_COVERED → DISTINCT_SCAN, one document per value of the index's first
// field (the key), skipping the other keys with that value.
ScanBuild BuildDistinctScan(const storage::Engine& engine,
                            const storage::CollectionEntry& collection, const IndexHandle& chosen,
                            const index::IndexScanPlan& scan, const QuerySpec& spec,
                            QueryExplain* explain) {
  IndexScanSpec scan_spec;
  scan_spec.collection = collection.prefix;
  IndexScanBranch branch = BranchOf(chosen, scan);
  scan_spec.index = branch.index;
  scan_spec.unique = branch.unique;
  scan_spec.ranges = std::move(branch.ranges);
  scan_spec.matcher = spec.matcher;
  scan_spec.output = IndexScanOutput::kDistinct;
  scan_spec.descending = chosen.descriptor->key_pattern().descending();
  scan_spec.distinct_field = std::string(spec.distinct_key);
  ScanBuild build;
  if (explain != nullptr) {
    std::unique_ptr<PlanNode> node = IndexNode(chosen, "DISTINCT_SCAN");
    AppendUtf8(node->fields.get(), "direction", "forward");
    index::AppendIndexBounds(node->fields.get(), "indexBounds", scan, *chosen.descriptor);
    if (explain->count_execution) scan_spec.counters = &node->scan;
    build.nodes = MakePlanNode("PROJECTION_COVERED", std::move(node));
    BsonDoc transform;
    BSON_APPEND_INT32(transform.get(), "_id", 0);
    std::string field(spec.distinct_key);
    BSON_APPEND_INT32(transform.get(), field.c_str(), 1);
    BSON_APPEND_DOCUMENT(build.nodes->fields.get(), "transformBy", transform.get());
  }
  build.stream = MakeIndexScanStream(engine, std::move(scan_spec));
  return build;
}

}  // namespace

AccessPath PlanAccessPath(const storage::Engine& engine,
                          const storage::CollectionHandle& collection, const QuerySpec& spec,
                          QueryExplain* explain, IdCache* record_cache) {
  AccessPath path;
  const bool min_max = !spec.min.empty() || !spec.max.empty();
  if (min_max) {
    const bool index_hinted = !spec.hint.empty() && !spec.hint.natural;
    path.error = index::ValidateFindMinMax(spec.min, spec.max, index_hinted);
    if (!path.error.ok()) return path;
  }
  if (spec.hint.natural) return path;
  storage::CollectionHandle handle = collection;
  for (int attempt = 0;; ++attempt) {
    Result<std::shared_ptr<const CollectionIndexes>> compiled = IndexesOf(handle);
    if (!compiled.ok()) {
      path.error = compiled.status();
      return path;
    }
    const std::vector<IndexHandle>& all = compiled.value()->all();
    index::PlannerInput input;
    std::vector<size_t> positions;  // planner index → position in `all`
    input.filter = spec.matcher->root();
    input.sort = spec.sort.get();
    input.collation = spec.matcher->collator() != nullptr;
    const bool hinted = !spec.hint.empty();
    for (size_t i = 0; i < all.size(); ++i) {
      if (!all[i].state.ready) continue;  // still being built
      // A text index's keys are (term, score): only $text reads it (server/exec/text_search.h).
      if (all[i].descriptor->key_pattern().kind() == index::IndexKind::kText) continue;
      if (hinted && !input.hint && !all[i].descriptor->hidden() && HintNames(spec.hint, all[i])) {
        input.hint = input.indexes.size();
      }
      input.indexes.push_back({all[i].descriptor.get(), all[i].state.multikey});
      positions.push_back(i);
    }
    if (hinted && !input.hint) {
      path.error = UnknownHint();
      return path;
    }
    std::vector<const IndexHandle*> used;  // the indexes the scan reads
    ScanBuild build;
    index::QueryPlan plan;
    std::optional<index::OrPlan> or_plan;
    if (min_max) {
      const IndexHandle& chosen = all[positions[*input.hint]];
      Result<index::IndexScanRanges> ranges =
          index::MinMaxRanges(*chosen.descriptor, spec.min, spec.max);
      if (!ranges.ok()) {
        path.error = ranges.status();
        return path;
      }
      build =
          BuildMinMaxScan(engine, *handle, chosen, std::move(*ranges), spec, explain, record_cache);
      used.push_back(&chosen);
    } else if (std::optional<index::IndexScanPlan> distinct =
                   spec.distinct_key.empty() ? std::nullopt
                                             : index::PlanDistinctScan(input, spec.distinct_key)) {
      const IndexHandle& chosen = all[positions[distinct->index]];
      build = BuildDistinctScan(engine, *handle, chosen, *distinct, spec, explain);
      used.push_back(&chosen);
    } else {
      plan = index::PlanQuery(input);
      if (!plan.index_scan) {
        or_plan = index::PlanOr(input);
        if (!or_plan) return path;  // a collection scan
      }
      build =
          plan.index_scan
              ? BuildSingleScan(engine, *handle, all[positions[plan.index_scan->index]],
                                *plan.index_scan, spec, explain, record_cache)
              : BuildOrScan(engine, *handle, all, positions, *or_plan, spec, explain, record_cache);
    }
    if (plan.index_scan) {
      used.push_back(&all[positions[plan.index_scan->index]]);
    } else if (or_plan) {
      for (const index::IndexScanPlan& branch : or_plan->branches) {
        used.push_back(&all[positions[branch.index]]);
      }
    }

    // The scan's snapshot is pinned: if a writer recorded new multikey paths for an index it
    // reads since `handle` was read, the bounds may be too tight for keys the snapshot holds.
    if (attempt == 0) {
      storage::CollectionHandle fresh = engine.catalog().Find(handle->ns);
      if (fresh && fresh != handle && fresh->prefix == handle->prefix) {
        Result<std::shared_ptr<const CollectionIndexes>> now = IndexesOf(fresh);
        bool changed = !now.ok();
        for (const IndexHandle* index : used) {
          if (changed) break;
          int position = now.value()->Find(index->name);
          changed =
              position < 0 || now.value()->all()[position].state.multikey != index->state.multikey;
        }
        if (changed) {
          handle = std::move(fresh);
          continue;
        }
      }
    }
    if (explain != nullptr) {
      explain->winning = std::move(build.nodes);
      explain->covered = build.covered;
      if (plan.index_scan) {
        for (const index::IndexScanPlan& other : plan.rejected) {
          explain->rejected.push_back(
              IndexScanNodes(all[positions[other.index]], other, *spec.matcher));
        }
      }
    }
    path.stream = std::move(build.stream);
    path.provides_sort = plan.index_scan && plan.index_scan->provides_sort;
    return path;
  }
}

}  // namespace cairn::server
