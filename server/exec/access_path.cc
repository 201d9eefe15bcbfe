// Access path selection (access_path.h): hint resolution, planning, the index scan (single,
// covered, count-only, OR, min/max), and the plan nodes explain prints for each.
#include "server/exec/access_path.h"

#include "common/bson_compare.h"
#include "index/min_max_bounds.h"
#include "index/or_plan.h"
#include "index/plan_analysis.h"
#include "index/planner.h"
#include "server/catalog/collection_indexes.h"
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

// Explain's description of one index scan: the index, as the plan's catalog snapshot has it.
struct IndexRef {
  std::shared_ptr<const CollectionIndexes> indexes;
  size_t position = 0;
  const IndexHandle& handle() const { return indexes->all()[position]; }
};

// The fields every index scan stage shows, up to its bounds.
void AppendIndexFields(const IndexHandle& index, bson_t* f) {
  const index::IndexDescriptor& d = *index.descriptor;
  bson_t pattern = d.key_pattern().pattern().AsBson();
  BSON_APPEND_DOCUMENT(f, "keyPattern", &pattern);
  AppendUtf8(f, "indexName", d.name());
  BSON_APPEND_BOOL(f, "isMultiKey", index::IsMultikey(index.state.multikey));
  index::AppendMultikeyPaths(f, "multiKeyPaths", d, index.state.multikey);
  BSON_APPEND_BOOL(f, "isUnique", d.unique());
  BSON_APPEND_BOOL(f, "isSparse", d.sparse());
  BSON_APPEND_BOOL(f, "isPartial", d.partial_filter() != nullptr);
  BSON_APPEND_INT32(f, "indexVersion", d.version());
}

// An IXSCAN's fields: the index, direction and bounds of `plan`.
FusedStage::Describe IxscanFields(IndexRef index,
                                  std::shared_ptr<const index::IndexScanPlan> plan) {
  return [index = std::move(index), plan = std::move(plan)](bson_t* f) {
    AppendIndexFields(index.handle(), f);
    AppendUtf8(f, "direction", plan->reverse ? "backward" : "forward");
    index::AppendIndexBounds(f, "indexBounds", *plan, *index.handle().descriptor);
  };
}

// FETCH's fields: the part of the filter the bounds do not answer (`answered`: what they do).
FusedStage::Describe FetchFields(std::shared_ptr<const query::Matcher> matcher,
                                 std::vector<const query::MatchExpression*> answered,
                                 std::shared_ptr<const void> keep_alive) {
  return [matcher = std::move(matcher), answered = std::move(answered),
          keep_alive = std::move(keep_alive)](bson_t* f) {
    BsonDoc residual;
    if (index::AppendResidualFilter(matcher->root(), answered, residual.get())) {
      BSON_APPEND_DOCUMENT(f, "filter", residual.get());
    }
  };
}

// A rejected candidate: FETCH → IXSCAN, described but never run.
std::unique_ptr<PlanStage> RejectedPlan(IndexRef index, index::IndexScanPlan plan,
                                        std::shared_ptr<const query::Matcher> matcher) {
  auto shared = std::make_shared<const index::IndexScanPlan>(std::move(plan));
  auto fetch = std::make_unique<FusedStage>(
      StageType::kFetch, FetchFields(std::move(matcher), shared->exact_predicates, shared));
  fetch->AddInput(
      std::make_unique<FusedStage>(StageType::kIxScan, IxscanFields(std::move(index), shared)));
  return fetch;
}

// A built scan: its stream, and whether its documents come from the keys (PROJECTION_COVERED).
struct ScanBuild {
  std::unique_ptr<DocumentStream> stream;
  bool covered = false;
};

IndexScanBranch BranchOf(const IndexHandle& index, const index::IndexScanPlan& plan) {
  IndexScanBranch branch;
  branch.index = index.prefix;
  branch.unique = index.descriptor->unique();
  branch.reverse = plan.reverse;
  branch.descriptor = index.descriptor;
  branch.ranges = index::IndexScanRanges::Make(
      plan.bounds, index.descriptor->key_pattern().descending(), plan.reverse);
  return branch;
}

IndexScanSpec BaseSpec(const storage::CollectionEntry& collection, const QuerySpec& spec,
                       IdCache* record_cache) {
  IndexScanSpec scan_spec;
  scan_spec.record_cache = record_cache;
  scan_spec.collection = collection.prefix;
  scan_spec.matcher = spec.matcher;
  scan_spec.interrupt = spec.interrupt;
  return scan_spec;
}

// One index: FETCH → IXSCAN; or, when its bounds answer the whole filter, a count of keys
// (COUNT_SCAN) for count, or the documents built from the keys (covered) for a find whose
// projection the index holds.
ScanBuild BuildSingleScan(const storage::Reader& reader, const storage::CollectionEntry& collection,
                          IndexRef chosen, index::IndexScanPlan scan, const QuerySpec& spec,
                          IdCache* record_cache) {
  const IndexHandle& index = chosen.handle();
  IndexScanSpec scan_spec = BaseSpec(collection, spec, record_cache);
  IndexScanBranch branch = BranchOf(index, scan);
  scan_spec.dedup = scan.multikey;

  const bool answered = index::BoundsAnswerFilter(scan, spec.matcher->root());
  const bool sorted = !spec.sort || spec.sort->empty() || scan.provides_sort;
  std::optional<std::vector<std::string>> covered;
  if (answered && spec.count_only) {
    scan_spec.output = IndexScanOutput::kCountOnly;
  } else if (answered && sorted && !spec.projection.empty() &&
             (covered =
                  index::CoveredFields(spec.projection, *index.descriptor, index.state.multikey))) {
    scan_spec.output = IndexScanOutput::kCovered;
    scan_spec.covered_fields = std::move(*covered);
    scan_spec.descending = index.descriptor->key_pattern().descending();
  }
  auto plan = std::make_shared<const index::IndexScanPlan>(std::move(scan));
  // COUNT_SCAN shows one key interval; bounds that are not one stay an IXSCAN.
  auto count_bounds = std::make_shared<BsonDoc>();
  if (scan_spec.output == IndexScanOutput::kCountOnly &&
      index::AppendCountScanBounds(count_bounds->get(), "indexBounds", *plan, *index.descriptor)) {
    branch.stage = StageType::kCountScan;
    branch.describe = [chosen, count_bounds](bson_t* f) {
      AppendIndexFields(chosen.handle(), f);
      bson_iter_t it;
      if (count_bounds->view().Find("indexBounds", &it)) AppendIter(f, "indexBounds", &it);
    };
  } else {
    branch.describe = IxscanFields(chosen, plan);
  }
  if (scan_spec.output == IndexScanOutput::kFetch) {
    scan_spec.fetch_fields = FetchFields(spec.matcher, plan->exact_predicates, plan);
  }
  scan_spec.branches.push_back(std::move(branch));
  ScanBuild build;
  build.covered = scan_spec.output == IndexScanOutput::kCovered;
  build.stream = MakeIndexScanStream(reader, std::move(scan_spec));
  return build;
}

// An OR plan: (SUBPLAN →) FETCH → OR → [IXSCAN, ...], RecordIds deduplicated across branches.
ScanBuild BuildOrScan(const storage::Reader& reader, const storage::CollectionEntry& collection,
                      const std::shared_ptr<const CollectionIndexes>& indexes,
                      const std::vector<size_t>& positions, index::OrPlan plan,
                      const QuerySpec& spec, IdCache* record_cache) {
  IndexScanSpec scan_spec = BaseSpec(collection, spec, record_cache);
  std::vector<const query::MatchExpression*> answered;
  if (plan.exact) answered.push_back(plan.or_node);
  scan_spec.fetch_fields = FetchFields(spec.matcher, std::move(answered), nullptr);
  scan_spec.subplan = plan.rooted;
  for (index::IndexScanPlan& branch_plan : plan.branches) {
    IndexRef index{indexes, positions[branch_plan.index]};
    IndexScanBranch branch = BranchOf(index.handle(), branch_plan);
    branch.describe = IxscanFields(
        std::move(index), std::make_shared<const index::IndexScanPlan>(std::move(branch_plan)));
    scan_spec.branches.push_back(std::move(branch));
  }
  ScanBuild build;
  build.stream = MakeIndexScanStream(reader, std::move(scan_spec));
  return build;
}

// find's min/max: FETCH → IXSCAN of the hinted index over [min, max), the whole filter on each
// document.
ScanBuild BuildMinMaxScan(const storage::Reader& reader, const storage::CollectionEntry& collection,
                          IndexRef chosen, index::IndexScanRanges ranges, const QuerySpec& spec,
                          IdCache* record_cache) {
  const IndexHandle& index = chosen.handle();
  IndexScanSpec scan_spec = BaseSpec(collection, spec, record_cache);
  scan_spec.dedup = index::IsMultikey(index.state.multikey);
  IndexScanBranch branch;
  branch.index = index.prefix;
  branch.unique = index.descriptor->unique();
  branch.descriptor = index.descriptor;
  branch.ranges = std::move(ranges);
  // The command's min/max are views on its bytes; explain runs while they live, a cursor may
  // outlive them: the description keeps copies.
  auto min = std::make_shared<const BsonDoc>(spec.min);
  auto max = std::make_shared<const BsonDoc>(spec.max);
  branch.describe = [chosen, min, max](bson_t* f) {
    AppendIndexFields(chosen.handle(), f);
    AppendUtf8(f, "direction", "forward");
    index::AppendMinMaxBounds(f, "indexBounds", *chosen.handle().descriptor, min->view(),
                              max->view());
  };
  scan_spec.fetch_fields = [matcher = spec.matcher](bson_t* f) {
    BsonDoc filter;
    if (!matcher->MatchesAll() && index::AppendFilter(matcher->root(), filter.get())) {
      BSON_APPEND_DOCUMENT(f, "filter", filter.get());
    }
  };
  scan_spec.branches.push_back(std::move(branch));
  ScanBuild build;
  build.stream = MakeIndexScanStream(reader, std::move(scan_spec));
  return build;
}

// distinct: PROJECTION_COVERED → DISTINCT_SCAN, one document per value of the index's first
// field (the key), skipping the other keys with that value.
ScanBuild BuildDistinctScan(const storage::Reader& reader,
                            const storage::CollectionEntry& collection, IndexRef chosen,
                            index::IndexScanPlan scan, const QuerySpec& spec) {
  const IndexHandle& index = chosen.handle();
  IndexScanSpec scan_spec = BaseSpec(collection, spec, nullptr);
  IndexScanBranch branch = BranchOf(index, scan);
  branch.reverse = false;
  branch.stage = StageType::kDistinctScan;
  auto plan = std::make_shared<const index::IndexScanPlan>(std::move(scan));
  branch.describe = [chosen, plan](bson_t* f) {
    AppendIndexFields(chosen.handle(), f);
    AppendUtf8(f, "direction", "forward");
    index::AppendIndexBounds(f, "indexBounds", *plan, *chosen.handle().descriptor);
  };
  scan_spec.branches.push_back(std::move(branch));
  scan_spec.output = IndexScanOutput::kDistinct;
  scan_spec.descending = index.descriptor->key_pattern().descending();
  scan_spec.distinct_field = std::string(spec.distinct_key);
  scan_spec.top_fields = [field = scan_spec.distinct_field](bson_t* f) {
    BsonDoc transform;
    BSON_APPEND_INT32(transform.get(), "_id", 0);
    BSON_APPEND_INT32(transform.get(), field.c_str(), 1);
    BSON_APPEND_DOCUMENT(f, "transformBy", transform.get());
  };
  ScanBuild build;
  build.stream = MakeIndexScanStream(reader, std::move(scan_spec));
  return build;
}

}  // namespace

Result<AccessPath> PlanAccessPath(const storage::Reader& reader,
                                  const storage::CollectionHandle& collection,
                                  const QuerySpec& spec, IdCache* record_cache,
                                  bool with_rejected) {
  AccessPath path;
  const bool min_max = !spec.min.empty() || !spec.max.empty();
  if (min_max) {
    const bool index_hinted = !spec.hint.empty() && !spec.hint.natural;
    CAIRN_RETURN_IF_ERROR(index::ValidateFindMinMax(spec.min, spec.max, index_hinted));
  }
  if (spec.hint.natural) return path;
  storage::CollectionHandle handle = collection;
  for (int attempt = 0;; ++attempt) {
    CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const CollectionIndexes> compiled, IndexesOf(handle));
    const std::vector<IndexHandle>& all = compiled->all();
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
    if (hinted && !input.hint) return UnknownHint();
    std::vector<size_t> used;  // positions in `all` of the indexes the scan reads
    ScanBuild build;
    index::QueryPlan plan;
    if (min_max) {
      size_t chosen = positions[*input.hint];
      CAIRN_ASSIGN_OR_RETURN(index::IndexScanRanges ranges,
                             index::MinMaxRanges(*all[chosen].descriptor, spec.min, spec.max));
      build = BuildMinMaxScan(reader, *handle, IndexRef{compiled, chosen}, std::move(ranges), spec,
                              record_cache);
      used.push_back(chosen);
    } else if (std::optional<index::IndexScanPlan> distinct =
                   spec.distinct_key.empty() ? std::nullopt
                                             : index::PlanDistinctScan(input, spec.distinct_key)) {
      size_t chosen = positions[distinct->index];
      build = BuildDistinctScan(reader, *handle, IndexRef{compiled, chosen}, std::move(*distinct),
                                spec);
      used.push_back(chosen);
    } else {
      plan = index::PlanQuery(input);
      if (plan.index_scan) {
        size_t chosen = positions[plan.index_scan->index];
        path.provides_sort = plan.index_scan->provides_sort;
        build = BuildSingleScan(reader, *handle, IndexRef{compiled, chosen}, *plan.index_scan, spec,
                                record_cache);
        used.push_back(chosen);
      } else {
        std::optional<index::OrPlan> or_plan = index::PlanOr(input);
        if (!or_plan) return path;  // a collection scan
        for (const index::IndexScanPlan& branch : or_plan->branches) {
          used.push_back(positions[branch.index]);
        }
        build = BuildOrScan(reader, *handle, compiled, positions, std::move(*or_plan), spec,
                            record_cache);
      }
    }

    // The scan's snapshot is pinned: if a writer recorded new multikey paths for an index it
    // reads since `handle` was read, the bounds may be too tight for keys the snapshot holds.
    if (attempt == 0) {
      storage::CollectionHandle fresh = reader.catalog().Find(handle->ns);
      if (fresh && fresh != handle && fresh->prefix == handle->prefix) {
        Result<std::shared_ptr<const CollectionIndexes>> now = IndexesOf(fresh);
        bool changed = !now.ok();
        for (size_t position : used) {
          if (changed) break;
          const IndexHandle& index = all[position];
          int found = now.value()->Find(index.name);
          changed = found < 0 || now.value()->all()[found].state.multikey != index.state.multikey;
        }
        if (changed) {
          handle = std::move(fresh);
          path.provides_sort = false;
          continue;
        }
      }
    }
    if (with_rejected && plan.index_scan) {
      for (index::IndexScanPlan& other : plan.rejected) {
        size_t position = positions[other.index];
        path.rejected.push_back(
            RejectedPlan(IndexRef{compiled, position}, std::move(other), spec.matcher));
      }
    }
    path.stream = std::move(build.stream);
    path.covered = build.covered;
    return path;
  }
}

}  // namespace cairn::server
