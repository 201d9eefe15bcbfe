// Fuzz target `index_bounds`: the query planner's index bounds (index/planner.h, index_bounds.h)
// and the key ranges an index scan visits, checked against the key generator on arbitrary
// documents. Input (fuzz_support.h): a first document {filter: ..., sort: ..., indexes: [<index
// spec as createIndexes takes it>, ...]}, then the collection's documents. Specs go through
// createIndexes' own checks; documents the key generator refuses (parallel arrays) are left out,
// as their insert would fail.
//
// The invariant: bounds only narrow the candidates, never lose a match. For each index (hinted)
// every document the filter matches and the index holds has a key inside the scan's ranges that
// passes the per-key check; and when the planner picks an index on its own, every matching
// document has such a key (it must not pick a sparse or partial index that misses one).
#include <memory>
#include <string>
#include <vector>

#include "index/index_bounds.h"
#include "index/index_descriptor.h"
#include "index/index_spec.h"
#include "index/planner.h"
#include "query/matcher/matcher.h"
#include "query/sort/sort_pattern.h"
#include "tests/fuzz/fuzz_support.h"

using namespace cairn;

namespace {

constexpr size_t kMaxIndexes = 4;

struct Index {
  std::shared_ptr<const index::IndexDescriptor> descriptor;
  std::vector<index::KeySet> keys;  // per document
  index::MultikeyPaths multikey;
};

// Whether one of `keys` lies in a range of `ranges` and passes its per-key check.
bool ScanFinds(const index::IndexScanRanges& ranges, const index::KeySet& keys) {
  std::vector<std::string_view> scratch;
  for (const std::string& key : keys) {
    for (const index::IndexScanRanges::Range& r : ranges.ranges()) {
      if (key < r.start || (!r.end.empty() && key >= r.end)) continue;
      if (ranges.KeyInBounds(key, &scratch)) return true;
    }
  }
  return false;
}

void CheckPlan(const index::QueryPlan& plan, const std::vector<Index>& indexes,
               const std::vector<BsonView>& docs, const std::vector<bool>& matches, bool hinted,
               BsonView command) {
  if (!plan.index_scan) return;
  const index::IndexScanPlan& scan = *plan.index_scan;
  const Index& index = indexes[scan.index];
  const index::IndexDescriptor& descriptor = *index.descriptor;
  if (scan.bounds.fields.size() != descriptor.num_fields()) {
    fuzz::Fail("index bounds do not have one interval list per key field", {command});
  }
  // Explain's forms of the plan.
  BsonDoc explain;
  index::AppendIndexBounds(explain.get(), "indexBounds", scan, descriptor);
  index::AppendMultikeyPaths(explain.get(), "multiKeyPaths", descriptor, index.multikey);
  if (!fuzz::IsValidResult(explain.view()))
    fuzz::Fail("explain's bounds are invalid BSON", {command});

  index::IndexScanRanges ranges = index::IndexScanRanges::Make(
      scan.bounds, descriptor.key_pattern().descending(), scan.reverse);
  for (size_t d = 0; d < docs.size(); ++d) {
    if (!matches[d]) continue;
    // A hinted sparse or partial index returns only the documents it holds (as in MongoDB).
    if (hinted && index.keys[d].empty()) continue;
    if (!ScanFinds(ranges, index.keys[d])) {
      fuzz::Fail(std::string(hinted ? "a hinted" : "the chosen") + " index scan of " +
                     descriptor.name() + " misses a matching document",
                 {command, docs[d], explain.view()});
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<BsonDoc> input = fuzz::ReadDocuments(data, size, 16);
  if (input.empty()) return 0;
  BsonView command = input[0].view();
  auto matcher = query::Matcher::Parse(fuzz::SubDocument(command, "filter"));
  if (!matcher.ok()) return 0;
  auto sort = query::SortPattern::Parse(fuzz::SubDocument(command, "sort"));
  if (!sort.ok()) return 0;

  std::vector<Index> indexes;
  bson_iter_t specs, spec;
  if (command.Find("indexes", &specs) && BSON_ITER_HOLDS_ARRAY(&specs) &&
      bson_iter_recurse(&specs, &spec)) {
    while (indexes.size() < kMaxIndexes && bson_iter_next(&spec)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&spec)) continue;
      BsonView requested = IterDocument(&spec);
      auto validated = index::ValidateIndexSpec(requested);
      if (!validated.ok() || !index::ValidateIndexSpecTtl(requested).ok()) continue;
      auto stored = index::FinalizeIndexSpec(validated->view());
      if (!stored.ok()) continue;
      auto descriptor = index::IndexDescriptor::Make(stored->view());
      if (!descriptor.ok()) continue;
      if (descriptor.value()->key_pattern().kind() != index::IndexKind::kBtree) continue;
      Index index;
      index.descriptor = std::move(descriptor).value();
      index.multikey.assign(index.descriptor->num_fields(), 0);
      indexes.push_back(std::move(index));
    }
  }
  if (indexes.empty()) return 0;

  // The collection: the documents every index can key.
  std::vector<BsonView> docs;
  for (size_t i = 1; i < input.size(); ++i) {
    BsonView doc = input[i].view();
    std::vector<index::KeySet> keys(indexes.size());
    std::vector<index::MultikeyPaths> multikey(indexes.size());
    bool storable = true;
    for (size_t x = 0; x < indexes.size() && storable; ++x) {
      multikey[x].assign(indexes[x].descriptor->num_fields(), 0);
      storable = indexes[x].descriptor->GetKeys(doc, &keys[x], &multikey[x]).ok();
    }
    if (!storable) continue;
    docs.push_back(doc);
    for (size_t x = 0; x < indexes.size(); ++x) {
      indexes[x].keys.push_back(std::move(keys[x]));
      for (size_t f = 0; f < multikey[x].size(); ++f) indexes[x].multikey[f] |= multikey[x][f];
    }
  }
  std::vector<bool> matches;
  for (BsonView doc : docs) {
    Result<bool> matched = matcher->Matches(doc);
    matches.push_back(matched.ok() && matched.value());  // an error fails the query instead
  }

  index::PlannerInput planner;
  planner.filter = matcher->root();
  planner.sort = &sort.value();
  for (const Index& index : indexes) {
    planner.indexes.push_back({index.descriptor.get(), index.multikey});
  }
  CheckPlan(index::PlanQuery(planner), indexes, docs, matches, /*hinted=*/false, command);
  for (size_t x = 0; x < indexes.size(); ++x) {
    planner.hint = x;
    CheckPlan(index::PlanQuery(planner), indexes, docs, matches, /*hinted=*/true, command);
  }

  BsonDoc parsed;
  (void)index::AppendFilter(matcher->root(), parsed.get());
  return 0;
}
