// Access path selection (query_planner.h): hint resolution, planning, the index scan, and the
// IXSCAN/FETCH plan nodes explain prints.
#include "server/query_planner.h"

#include "common/bson_compare.h"
#include "index/planner.h"
#include "server/collection_indexes.h"
#include "server/explain.h"
#include "server/index_scan.h"

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

// FETCH over IXSCAN, as explain prints them.
std::unique_ptr<PlanNode> IndexScanNodes(const IndexHandle& index, const index::IndexScanPlan& plan,
                                         const query::Matcher& matcher) {
  const index::IndexDescriptor& d = *index.descriptor;
  auto ixscan = std::make_unique<PlanNode>();
  ixscan->stage = "IXSCAN";
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
  AppendUtf8(f, "direction", plan.reverse ? "backward" : "forward");
  index::AppendIndexBounds(f, "indexBounds", plan, d);

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

}  // namespace

AccessPath PlanAccessPath(const storage::Engine& engine,
                          const storage::CollectionHandle& collection, const QuerySpec& spec,
                          QueryExplain* explain) {
  AccessPath path;
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
    index::QueryPlan plan = index::PlanQuery(input);
    if (!plan.index_scan) return path;  // a collection scan

    const index::IndexScanPlan& scan = *plan.index_scan;
    const IndexHandle& chosen = all[positions[scan.index]];
    std::unique_ptr<PlanNode> nodes;
    if (explain != nullptr) nodes = IndexScanNodes(chosen, scan, *spec.matcher);
    IndexScanSpec scan_spec;
    scan_spec.collection = handle->prefix;
    scan_spec.index = chosen.prefix;
    scan_spec.unique = chosen.descriptor->unique();
    scan_spec.reverse = scan.reverse;
    scan_spec.dedup = scan.multikey;
    scan_spec.ranges = index::IndexScanRanges::Make(
        scan.bounds, chosen.descriptor->key_pattern().descending(), scan.reverse);
    scan_spec.matcher = spec.matcher;
    if (nodes != nullptr && explain->count_execution) scan_spec.counters = &nodes->input->scan;
    std::unique_ptr<DocumentStream> stream = MakeIndexScanStream(engine, std::move(scan_spec));

    // The scan's snapshot is pinned: if a writer recorded new multikey paths for this index
    // since `handle` was read, the bounds may be too tight for keys the snapshot holds.
    if (attempt == 0) {
      storage::CollectionHandle fresh = engine.catalog().Find(handle->ns);
      if (fresh && fresh != handle && fresh->prefix == handle->prefix) {
        Result<std::shared_ptr<const CollectionIndexes>> now = IndexesOf(fresh);
        int position = now.ok() ? now.value()->Find(chosen.name) : -1;
        if (position < 0 || now.value()->all()[position].state.multikey != chosen.state.multikey) {
          handle = std::move(fresh);
          continue;
        }
      }
    }
    if (explain != nullptr) {
      if (explain->count_execution) stream = CountInto(std::move(stream), nodes.get());
      explain->winning = std::move(nodes);
      for (const index::IndexScanPlan& other : plan.rejected) {
        explain->rejected.push_back(
            IndexScanNodes(all[positions[other.index]], other, *spec.matcher));
      }
    }
    path.stream = std::move(stream);
    path.provides_sort = scan.provides_sort;
    return path;
  }
}

}  // namespace cairn::server
