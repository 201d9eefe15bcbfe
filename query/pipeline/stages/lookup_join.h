// Private to the $lookup stage's files (lookup*.cc): its parsed spec, the per-cursor executor,
// and the join strategies of the localField/foreignField forms, one file each (as DuckDB has
// physical_hash_join, physical_nested_loop_join and physical_index_join):
//   lookup.cc                    the stage: parsing, OptimizeAt (absorbed $unwind, $match
//                                push-down), Bind, and the choice of a strategy;
//   lookup_join.cc               the executor (LookupExecutor): output documents, the
//                                sub-pipeline forms, and what every strategy shares;
//   lookup_indexed_loop_join.cc  IndexedLoopJoin: `from` has an index on foreignField;
//   lookup_hash_join.cc          HashJoin: the foreign side read once into a table;
//   lookup_nested_loop_join.cc   NestedLoopJoin: one filtered read per input document.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "common/bson_doc.h"
#include "common/limits.h"
#include "common/status.h"
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "query/pipeline/explain_stats.h"
#include "query/pipeline/stage.h"
#include "query/pipeline/stages/unwind.h"

namespace cairn::query::stages::lookup_internal {

// internalLookupStageIntermediateDocumentMaxSizeBytes.
inline constexpr int64_t kMaxIntermediateBytes = kDefaultStageMemoryBytes;

struct LetVariable {
  std::string name;
  std::shared_ptr<const Expression> expr;  // shared: an absorbed $unwind copies the spec
};

// The parsed stage. Copyable member by member (OptimizeAt copies it to absorb a $unwind), so
// every member is a value or a shared pointer: a field added later is copied without a word.
struct LookupSpec {
  std::string from;
  std::string as;
  std::vector<std::string> as_parts;
  std::string local_field, foreign_field;  // both or neither
  std::vector<std::string> local_parts, foreign_parts;
  bool has_pipeline = false;
  // {"p": [...]}: the sub-pipeline array as written (shared: a BsonDoc does not copy).
  std::shared_ptr<const BsonDoc> pipeline;
  std::vector<LetVariable> let;
  size_t let_slots = 0;
  PipelineOptions options;                 // the outer pipeline's, for the sub-pipeline
  std::optional<Pipeline> fixed_pipeline;  // the sub-pipeline when there is no `let`
  std::optional<UnwindSpec> unwind;        // an absorbed $unwind of `as`
  LookupStats* stats = nullptr;            // explain's counters (a top-level stage under explain)
  // A following $match's conditions on the unwound `as` document, rewritten onto the foreign
  // documents (paths without the `as.` prefix) and applied to the foreign side of the join.
  std::shared_ptr<const Matcher> foreign_matcher;

  bool equality() const { return !local_field.empty(); }
  BsonView pipeline_array() const {
    if (pipeline == nullptr) return BsonView();
    bson_iter_t it;
    pipeline->view().Find("p", &it);
    return IterDocument(&it);
  }
};
static_assert(std::is_copy_constructible_v<LookupSpec>);

// The localField values of one input document, as every strategy joins them.
struct LocalValues {
  std::vector<BsonElement> values;  // every value at localField, arrays expanded
  // No value and not an empty array: the input joins foreign documents whose field is null or
  // missing (MongoDB's {foreignField: {$eq: null}}).
  bool missing = false;
};

// One strategy of the localField/foreignField forms, chosen once per cursor (ChooseJoin).
class EqualityJoin {
 public:
  virtual ~EqualityJoin() = default;
  // Adds the foreign documents joined to `local`: copies to *owned, or views to *views that
  // stay valid while this join lives.
  virtual Status Probe(const LocalValues& local, std::vector<BsonDoc>* owned,
                       std::vector<BsonView>* views) = 0;
};

// lookup.cc: IndexedLoopJoin when `from` has an index on foreignField; else HashJoin when the
// foreign side fits the hash-join budget; else NestedLoopJoin; records it for explain. Called
// by the executor at its first input document, not by Bind: deciding for a HashJoin reads the
// foreign collection, which a cursor without input never does.
Result<std::unique_ptr<EqualityJoin>> ChooseJoin(std::shared_ptr<const LookupSpec> spec);

// lookup_indexed_loop_join.cc.
std::unique_ptr<EqualityJoin> MakeIndexedLoopJoin(std::shared_ptr<const LookupSpec> spec);
// lookup_hash_join.cc: reads the foreign side (narrowed by a pushed-down $match) into a table;
// nullptr when it passes spec.options.hash_join_max_bytes. The read counts for explain under
// the strategy it leads to ("HashJoin", or "NestedLoopJoin" past the budget).
Result<std::unique_ptr<EqualityJoin>> BuildHashJoin(std::shared_ptr<const LookupSpec> spec);
// lookup_nested_loop_join.cc.
std::unique_ptr<EqualityJoin> MakeNestedLoopJoin(std::shared_ptr<const LookupSpec> spec);
// Also lookup_nested_loop_join.cc: the read of `from` filtered by {foreignField: {$in: [local
// values]}} (and a pushed-down $match), its documents copied to *owned. NestedLoopJoin's probe,
// and IndexedLoopJoin's, whose filter the server's planner answers with an index scan.
Status ReadEqualityMatches(const LookupSpec& spec, const LocalValues& local,
                           std::vector<BsonDoc>* owned);

// ---- lookup_join.cc: what the strategies share ----

// Every value at `parts`, arrays on the way and at the end expanded (MongoDB's
// extractAllElementsAlongPath), appended to `out`.
void CollectValues(BsonView doc, std::span<const std::string> parts, std::vector<BsonElement>* out);
// A stream over `from` matching `filter` (nullptr: all); empty without foreign collections.
Result<std::unique_ptr<DocumentSource>> OpenForeign(const LookupSpec& spec,
                                                    std::shared_ptr<const Matcher> filter);
// Explain's counters: one foreign read with what it examined, and the strategy when it is
// decided (null: already recorded).
void CountForeignRead(const LookupSpec& spec, const char* strategy, int64_t keys = 0,
                      int64_t docs = 0);
// 4568 once the matches of one input document pass kMaxIntermediateBytes.
Status CheckIntermediate(const LookupSpec& spec, int64_t bytes);
// The collation strings compare under (nullptr: binary).
const StringComparator* Collator(const LookupSpec& spec);

// The per-cursor join state: Bind's executor.
std::unique_ptr<DocumentSource> MakeLookupExecutor(std::shared_ptr<const LookupSpec> spec,
                                                   std::unique_ptr<DocumentSource> child);

}  // namespace cairn::query::stages::lookup_internal
