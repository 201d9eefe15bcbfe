// $lookup: joins each input document with documents of another collection (ForeignCollections,
// foreign_collections.h), in MongoDB's three forms — localField/foreignField; let + pipeline;
// both — setting the `as` field to the array of matches (replacing what was there).
//
// Equality semantics (MongoDB's {foreignField: {$in: <local values>}}): a localField array joins
// on any element, a missing or null localField joins foreign documents whose field is null or
// missing; a foreign array field matches on any element. Strategies, chosen once per cursor:
//   IndexedLoopJoin — `from` has a usable index on foreignField: one filtered read per input
//                     document, which the server's planner turns into an index probe;
//   HashJoin        — no index and the foreign collection fits the memory budget: read once,
//                     keyed by every foreignField value, probed per input document;
//   NestedLoopJoin  — otherwise: one filtered scan per input document.
// A pipeline without `let` or localField is uncorrelated: it runs once and its result is cached.
// With `let`, the sub-pipeline is re-parsed per input document with the let values as constants.
//
// A following `$unwind` of the `as` field is absorbed (OptimizeAt): the stage then streams one
// output document per match and never builds the array, so a join whose array would pass
// 16 MiB works when unwound; a `$match` after them on fields of the unwound `as` moves into the
// foreign side of the join (PushDownMatch). An IndexedLoopJoin on the foreign `_id` is a point
// lookup per input document. Under explain, each top-level stage counts its strategy and what it
// read (explain_stats.h). Limits: matches over 100 MiB fail with 4568; an output document
// over 16 MiB + 16 KiB (as every result document) fails with BSONObjectTooLarge (10334).
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <type_traits>

#include "common/bson_compare.h"
#include "common/bson_validate.h"
#include "common/limits.h"
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "query/pipeline/explain_stats.h"
#include "query/pipeline/foreign_collections.h"
#include "query/pipeline/path_write.h"
#include "query/pipeline/stages/stage_parsers.h"
#include "query/pipeline/stages/unwind.h"
#include "query/pipeline/value.h"

namespace cairn::query::stages {

namespace {

// internalLookupStageIntermediateDocumentMaxSizeBytes.
constexpr int64_t kMaxIntermediateBytes = kDefaultStageMemoryBytes;

struct LetVariable {
  std::string name;
  std::shared_ptr<const Expression> expr;  // shared: an absorbed $unwind copies the spec
};

// Copyable member by member (OptimizeAt copies it to absorb a $unwind): every member is a value
// or a shared pointer, so a field added later is copied too.
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

// Every value at `parts` from `index` on, arrays on the way and at the end expanded (MongoDB's
// extractAllElementsAlongPath), appended as elements of `out`'s $in array.
void CollectValues(BsonView doc, std::span<const std::string> parts,
                   std::vector<BsonElement>* out) {
  bson_iter_t it;
  if (!doc.Find(parts.front(), &it)) return;
  auto visit = [&](const bson_iter_t* value) {
    if (parts.size() == 1) {
      out->push_back(BsonElement(value));
    } else if (BSON_ITER_HOLDS_DOCUMENT(value)) {
      CollectValues(IterDocument(value), parts.subspan(1), out);
    }
  };
  if (BSON_ITER_HOLDS_ARRAY(&it)) {
    bson_iter_t element;
    IterDocument(&it).Init(&element);
    while (bson_iter_next(&element)) visit(&element);
  } else {
    visit(&it);
  }
}

class LookupStage final : public Stage {
 public:
  explicit LookupStage(std::shared_ptr<const LookupSpec> spec) : spec_(std::move(spec)) {}

  std::string_view name() const override { return "$lookup"; }
  size_t OptimizeAt(size_t index, StageList* stages) const override {
    if (spec_->unwind || index + 1 >= stages->size()) return index + 1;
    const UnwindSpec* unwind = AsUnwind(*(*stages)[index + 1]);
    if (unwind == nullptr || unwind->path != spec_->as) return index + 1;
    auto merged = std::make_shared<LookupSpec>(*spec_);
    merged->unwind = *unwind;
    stages->erase(stages->begin() + static_cast<std::ptrdiff_t>(index) + 1);
    PushDownMatch(merged.get(), index, stages);
    (*stages)[index] = std::make_shared<LookupStage>(std::move(merged));
    return index + 1;
  }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

 private:
  // $lookup + $unwind of `as` + $match: the $match's top-level conditions on paths under `as.`
  // hold for an output document exactly when the joined foreign document satisfies them with
  // the prefix removed, so they move into the join (the hash table keeps only matching foreign
  // documents, a probe's filter gains them and can use an index on them), and a join whose
  // unwound output would be filtered away is never built. The rest of the $match stays. Not
  // done when the $unwind keeps unmatched documents (preserveNullAndEmptyArrays: they have no
  // `as` and the $match decides them), when its includeArrayIndex lies under `as`, or for the
  // sub-pipeline forms.
  static void PushDownMatch(LookupSpec* spec, size_t index, StageList* stages) {
    if (index + 1 >= stages->size() || (*stages)[index + 1]->name() != "$match") return;
    if (!spec->equality() || spec->has_pipeline || !spec->let.empty()) return;
    if (spec->unwind->preserve_null_and_empty) return;
    const std::string prefix = spec->as + ".";
    std::string index_path;
    for (const std::string& part : spec->unwind->index_parts) {
      index_path += (index_path.empty() ? "" : ".") + part;
    }
    if (!index_path.empty() && (index_path == spec->as || index_path.starts_with(prefix))) return;
    const Matcher* match = (*stages)[index + 1]->matcher();
    if (match == nullptr) return;
    BsonDoc pushed, rest;
    bson_iter_t it;
    match->filter().Init(&it);
    while (bson_iter_next(&it)) {
      std::string_view key = IterKey(&it);
      if (key.size() > prefix.size() && key.starts_with(prefix) && key[prefix.size()] != '$') {
        AppendIter(pushed.get(), key.substr(prefix.size()), &it);
      } else {
        AppendIter(rest.get(), key, &it);
      }
    }
    if (pushed.view().empty()) return;
    Result<Matcher> foreign = Matcher::Parse(pushed.view(), spec->options.expression_context);
    if (!foreign.ok()) return;  // cannot happen for parts of a filter that parsed; keep as is
    if (!rest.view().empty()) {
      BsonDoc holder;
      bson_t value = rest.view().AsBson();
      BSON_APPEND_DOCUMENT(holder.get(), "$match", &value);
      bson_iter_t spec_it;
      holder.view().Init(&spec_it);
      bson_iter_next(&spec_it);
      Result<StagePtr> residual = ParseMatch(&spec_it, spec->options);
      if (!residual.ok()) return;
      (*stages)[index + 1] = *residual;
    } else {
      stages->erase(stages->begin() + static_cast<std::ptrdiff_t>(index) + 1);
    }
    spec->foreign_matcher = std::make_shared<const Matcher>(std::move(*foreign));
  }

  std::shared_ptr<const LookupSpec> spec_;
};

// The per-cursor join state.
class LookupExecutor final : public ChildSource {
 public:
  LookupExecutor(std::shared_ptr<const LookupSpec> spec, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), spec_(std::move(spec)), vars_(spec_->let_slots) {
    vars_.set_metadata(child_.get());  // {$meta: "textScore"} reads the input's score
  }

  bool Next() override {
    if (!NextOutput()) return false;
    if (spec_->stats != nullptr) ++spec_->stats->n_returned;
    return true;
  }

  bool NextOutput() {
    while (true) {
      if (spec_->unwind && next_match_ < MatchCount()) return EmitUnwound();
      if (!child_->Next()) return false;
      Status status = Join(child_->document());
      if (!status.ok()) return Fail(std::move(status));
      if (!spec_->unwind) return EmitArray();
      next_match_ = 0;
      if (MatchCount() == 0) {
        if (!spec_->unwind->preserve_null_and_empty) continue;
        bson_reinit(out_.get());
        WriteUnwound(*spec_->unwind, child_->document(), nullptr, std::nullopt,
                     /*remove_path=*/true, out_.get());
        return CheckSize();
      }
    }
  }
  BsonView document() const override { return out_.view(); }
  // The local document's metadata.
  std::optional<double> text_score() const override { return child_->text_score(); }

 private:
  enum class Strategy { kUnchosen, kIndexedLoop, kHash, kNestedLoop };

  bool EmitArray() {
    bson_reinit(out_.get());
    WriteWithPathSet(
        child_->document(), spec_->as_parts, out_.get(), [&](bson_t* parent, std::string_view key) {
          AppendValueArray(parent, key, MatchCount(),
                           [&](size_t i) -> const MatchRef { return MatchRef{Match(i)}; });
        });
    return CheckSize();
  }

  bool EmitUnwound() {
    size_t i = next_match_++;
    BsonView match = Match(i);
    bson_iter_t element;
    // An element iterator over {"": match} is not at hand; write the match as a document value.
    bson_reinit(out_.get());
    bson_reinit(holder_.get());  // reused: no allocation per output document
    bson_t whole = match.AsBson();
    bson_append_document(holder_.get(), "", 0, &whole);
    holder_.view().Init(&element);
    bson_iter_next(&element);
    WriteUnwound(*spec_->unwind, child_->document(), &element, static_cast<int64_t>(i), false,
                 out_.get());
    return CheckSize();
  }

  bool CheckSize() {
    if (out_.get()->len > static_cast<uint32_t>(kMaxInternalBsonObjectSize)) {
      return Fail(ObjectTooLarge(out_.get()->len, bson_get_data(out_.get()), out_.get()->len));
    }
    return true;
  }

  // A match held as a view: AppendValueArray's element.
  struct MatchRef {
    BsonView doc;
    void AppendTo(bson_t* out, std::string_view key) const {
      bson_t whole = doc.AsBson();
      bson_append_document(out, key.data(), static_cast<int>(key.size()), &whole);
    }
  };

  size_t MatchCount() const { return match_views_.empty() ? matches_.size() : match_views_.size(); }
  BsonView Match(size_t i) const {
    return match_views_.empty() ? matches_[i].view() : match_views_[i];
  }

  // Fills matches_ (or match_views_) with the foreign documents joined to `doc`.
  Status Join(BsonView doc) {
    matches_.clear();
    match_views_.clear();
    if (!spec_->has_pipeline) {
      if (spec_->let.empty() && spec_->equality())
        return EqualityMatches(doc, &matches_, &match_views_);
    }
    // Sub-pipeline forms.
    if (!spec_->equality() && spec_->let.empty()) {
      if (!cached_) {
        Count("UncorrelatedCached");
        CAIRN_ASSIGN_OR_RETURN(cache_, RunSubPipeline(*spec_->fixed_pipeline, nullptr));
        cached_ = true;
      }
      for (const BsonDoc& d : cache_) match_views_.push_back(d.view());
      return Status::OK();
    }
    std::unique_ptr<DocumentSource> input;
    if (spec_->equality()) {
      std::vector<BsonDoc> eq;
      std::vector<BsonView> eq_views;
      CAIRN_RETURN_IF_ERROR(EqualityMatches(doc, &eq, &eq_views));
      std::vector<BsonDoc> owned;
      if (eq_views.empty()) {
        owned = std::move(eq);
      } else {
        for (BsonView v : eq_views) owned.push_back(BsonDoc(v));
      }
      input = std::make_unique<VectorInput>(std::move(owned));
    }
    if (spec_->let.empty()) {
      CAIRN_ASSIGN_OR_RETURN(matches_, RunSubPipeline(*spec_->fixed_pipeline, std::move(input)));
      return Status::OK();
    }
    // Correlated: evaluate `let` against the document, then parse the sub-pipeline with them.
    if (!spec_->equality()) Count("CorrelatedSubPipeline");
    vars_.SetRoot(doc);
    std::vector<std::pair<std::string, Value>> values;
    for (const LetVariable& variable : spec_->let) {
      CAIRN_ASSIGN_OR_RETURN(Value value, variable.expr->Evaluate(&vars_));
      values.emplace_back(variable.name, value.missing() ? Value() : value.Owned());
    }
    PipelineOptions options = spec_->options;
    options.expression_context = options.expression_context->WithVariables(std::move(values));
    CAIRN_ASSIGN_OR_RETURN(Pipeline pipeline, Pipeline::Parse(spec_->pipeline_array(), options));
    CAIRN_ASSIGN_OR_RETURN(matches_, RunSubPipeline(pipeline, std::move(input)));
    return Status::OK();
  }

  // Runs `pipeline` over `input` (nullptr: the whole foreign collection).
  Result<std::vector<BsonDoc>> RunSubPipeline(const Pipeline& pipeline,
                                              std::unique_ptr<DocumentSource> input) {
    if (input == nullptr) {
      CAIRN_ASSIGN_OR_RETURN(input, OpenForeign(nullptr));
    }
    std::unique_ptr<DocumentSource> exec = pipeline.Bind(std::move(input), false);
    std::vector<BsonDoc> out;
    int64_t bytes = 0;
    while (exec->Next()) {
      bytes += static_cast<int64_t>(exec->document().size());
      CAIRN_RETURN_IF_ERROR(CheckIntermediate(bytes));
      out.emplace_back(exec->document());
    }
    CAIRN_RETURN_IF_ERROR(exec->status());
    return out;
  }

  // Explain's counters: one foreign read with what it examined, and the strategy when it is
  // decided (null: already recorded).
  void Count(const char* strategy, int64_t keys = 0, int64_t docs = 0) {
    LookupStats* stats = spec_->stats;
    if (stats == nullptr) return;
    if (strategy != nullptr && stats->strategy.empty()) stats->strategy = strategy;
    ++stats->foreign_reads;
    stats->foreign_keys_examined += keys;
    stats->foreign_docs_examined += docs;
  }

  Status CheckIntermediate(int64_t bytes) const {
    if (bytes <= kMaxIntermediateBytes) return Status::OK();
    return Status(ErrorCode::kLocation4568, "Total size of documents in " + spec_->from +
                                                " matching pipeline's $lookup stage exceeds " +
                                                std::to_string(kMaxIntermediateBytes) + " bytes");
  }

  Result<std::unique_ptr<DocumentSource>> OpenForeign(std::shared_ptr<const Matcher> filter) {
    if (spec_->options.foreign == nullptr) {
      return std::unique_ptr<DocumentSource>(std::make_unique<VectorInput>(std::vector<BsonDoc>()));
    }
    return spec_->options.foreign->Open(spec_->from, std::move(filter));
  }

  // The local values of `doc` as the filter {foreignField: {$in: [...]}} ({$eq: null} when
  // there are none, as MongoDB joins a missing localField).
  Result<std::shared_ptr<const Matcher>> EqualityFilter(const std::vector<BsonElement>& values,
                                                        bool missing) {
    BsonDoc filter;
    bson_t cond;
    const std::string& ff = spec_->foreign_field;
    bson_append_document_begin(filter.get(), ff.data(), static_cast<int>(ff.size()), &cond);
    if (missing) {
      bson_append_null(&cond, "$eq", 3);
    } else {
      bson_t in;
      bson_append_array_begin(&cond, "$in", 3, &in);
      for (size_t i = 0; i < values.size(); ++i) {
        bson_iter_t v = values[i].iter();
        AppendIter(&in, std::to_string(i), &v);
      }
      bson_append_array_end(&cond, &in);
    }
    bson_append_document_end(filter.get(), &cond);
    if (spec_->foreign_matcher != nullptr) {  // {$and: [<equality>, <pushed-down $match>]}
      BsonDoc both;
      bson_t clauses;
      BSON_APPEND_ARRAY_BEGIN(both.get(), "$and", &clauses);
      bson_t first = filter.view().AsBson(), second = spec_->foreign_matcher->filter().AsBson();
      BSON_APPEND_DOCUMENT(&clauses, "0", &first);
      BSON_APPEND_DOCUMENT(&clauses, "1", &second);
      bson_append_array_end(both.get(), &clauses);
      filter = std::move(both);
    }
    CAIRN_ASSIGN_OR_RETURN(Matcher matcher,
                           Matcher::Parse(filter.view(), spec_->options.expression_context));
    return std::make_shared<const Matcher>(std::move(matcher));
  }

  // localField/foreignField matches, into owned documents or views of the hash table's.
  Status EqualityMatches(BsonView doc, std::vector<BsonDoc>* owned, std::vector<BsonView>* views) {
    std::vector<BsonElement> values;
    CollectValues(doc, spec_->local_parts, &values);
    // No value joins null, except an empty array, which joins nothing.
    bson_iter_t direct;
    bool empty_array =
        FindPathNoArrays(doc, spec_->local_parts, &direct) && BSON_ITER_HOLDS_ARRAY(&direct);
    bool missing = values.empty() && !empty_array;
    if (strategy_ == Strategy::kUnchosen) CAIRN_RETURN_IF_ERROR(ChooseStrategy());
    if (strategy_ == Strategy::kHash) {
      std::set<uint32_t> hits;
      auto probe = [&](const bson_iter_t* value) {
        auto range = table_.equal_range(value);
        for (auto it = range.first; it != range.second; ++it) hits.insert(it->second);
      };
      if (missing) {
        probe(NullValue());
      } else {
        for (const BsonElement& e : values) {
          bson_iter_t v = e.iter();
          if (BSON_ITER_HOLDS_NULL(&v) || BSON_ITER_HOLDS_UNDEFINED(&v)) {
            probe(NullValue());
          } else {
            probe(&v);
          }
        }
      }
      int64_t bytes = 0;
      for (uint32_t i : hits) {
        views->push_back(foreign_docs_[i].view());
        bytes += static_cast<int64_t>(foreign_docs_[i].view().size());
        CAIRN_RETURN_IF_ERROR(CheckIntermediate(bytes));
      }
      return Status::OK();
    }
    // IndexedLoopJoin on the foreign _id with one local value: a point lookup of the _id index
    // (and of the server's document cache), with no filter to parse and no plan to make per
    // input document (those cost ~15k instructions per probe; the lookup ~2k).
    if (strategy_ == Strategy::kIndexedLoop && !missing && values.size() == 1 &&
        spec_->foreign_field == "_id" && spec_->options.foreign != nullptr &&
        spec_->options.foreign->SupportsReadById()) {
      bson_iter_t value = values[0].iter();
      const StringComparator* strings = spec_->options.expression_context != nullptr
                                            ? spec_->options.expression_context->collator()
                                            : nullptr;
      if (IsIdPointLookupValue(&value, strings)) {
        CAIRN_ASSIGN_OR_RETURN(bool found,
                               spec_->options.foreign->ReadById(spec_->from, &value, &probed_));
        Count(nullptr, /*keys=*/1, /*docs=*/found ? 1 : 0);
        if (found && spec_->foreign_matcher != nullptr) {
          CAIRN_ASSIGN_OR_RETURN(
              found, spec_->foreign_matcher->Matches(BsonView(
                         reinterpret_cast<const uint8_t*>(probed_.data()), probed_.size())));
        }
        if (found) {
          owned->emplace_back(
              BsonView(reinterpret_cast<const uint8_t*>(probed_.data()), probed_.size()));
        }
        return Status::OK();
      }
    }
    CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const Matcher> filter, EqualityFilter(values, missing));
    CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> stream, OpenForeign(std::move(filter)));
    int64_t bytes = 0;
    while (stream->Next()) {
      bytes += static_cast<int64_t>(stream->document().size());
      CAIRN_RETURN_IF_ERROR(CheckIntermediate(bytes));
      owned->emplace_back(stream->document());
    }
    Count(nullptr, stream->keys_examined(), stream->docs_examined());
    return stream->status();
  }

  // IndexedLoopJoin when `from` has an index on foreignField; else HashJoin when it fits the
  // hash-join budget (read once here); else NestedLoopJoin.
  Status ChooseStrategy() {
    if (spec_->options.foreign != nullptr &&
        spec_->options.foreign->HasIndexOn(spec_->from, spec_->foreign_field)) {
      strategy_ = Strategy::kIndexedLoop;
      if (spec_->stats != nullptr) {
        spec_->stats->strategy = "IndexedLoopJoin";
        spec_->stats->index_name =
            spec_->options.foreign->IndexNameOn(spec_->from, spec_->foreign_field);
      }
      return Status::OK();
    }
    // A pushed-down $match narrows the foreign read (through an index when one serves it).
    CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> all,
                           OpenForeign(spec_->foreign_matcher));
    int64_t bytes = 0;
    while (all->Next()) {
      bytes += static_cast<int64_t>(all->document().size()) + 64;
      if (bytes > spec_->options.hash_join_max_bytes) {
        Count("NestedLoopJoin", all->keys_examined(), all->docs_examined());
        foreign_docs_.clear();
        strategy_ = Strategy::kNestedLoop;
        return Status::OK();
      }
      foreign_docs_.emplace_back(all->document());
    }
    CAIRN_RETURN_IF_ERROR(all->status());
    const StringComparator* strings = spec_->options.expression_context != nullptr
                                          ? spec_->options.expression_context->collator()
                                          : nullptr;
    table_ = Table(OwnedValueLess{strings});
    std::vector<BsonElement> keys;
    for (uint32_t i = 0; i < foreign_docs_.size(); ++i) {
      keys.clear();
      CollectValues(foreign_docs_[i].view(), spec_->foreign_parts, &keys);
      bool any_null = keys.empty();
      for (const BsonElement& e : keys) {
        bson_iter_t v = e.iter();
        if (BSON_ITER_HOLDS_NULL(&v) || BSON_ITER_HOLDS_UNDEFINED(&v)) {
          any_null = true;
          continue;
        }
        key_store_.emplace_back(&v);
        table_.emplace(&key_store_.back(), i);
      }
      if (any_null) {
        key_store_.emplace_back(NullValue());
        table_.emplace(&key_store_.back(), i);
      }
    }
    strategy_ = Strategy::kHash;
    Count("HashJoin", all->keys_examined(), all->docs_examined());
    return Status::OK();
  }

  // Serves owned documents (the equality matches a sub-pipeline then runs over).
  class VectorInput final : public DocumentSource {
   public:
    explicit VectorInput(std::vector<BsonDoc> docs) : docs_(std::move(docs)) {}
    bool Next() override { return ++next_ <= docs_.size(); }
    BsonView document() const override { return docs_[next_ - 1].view(); }

   private:
    std::vector<BsonDoc> docs_;
    size_t next_ = 0;
  };

  using Table = std::multimap<const OwnedValue*, uint32_t, OwnedValueLess>;

  std::shared_ptr<const LookupSpec> spec_;
  Variables vars_;
  Strategy strategy_ = Strategy::kUnchosen;
  std::string probed_;                // IndexedLoopJoin by _id: the document read
  std::deque<BsonDoc> foreign_docs_;  // HashJoin: the foreign collection
  std::deque<OwnedValue> key_store_;  // HashJoin: its keys
  Table table_;
  bool cached_ = false;
  std::vector<BsonDoc> cache_;  // an uncorrelated sub-pipeline's result
  std::vector<BsonDoc> matches_;
  std::vector<BsonView> match_views_;
  size_t next_match_ = 0;
  BsonDoc holder_;  // {"": match}: the absorbed $unwind's current element
  BsonDoc out_;
};

std::unique_ptr<DocumentSource> LookupStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<LookupExecutor>(spec_, std::move(child));
}

Status Argument(const bson_iter_t* it) {
  return Status(ErrorCode::kFailedToParse,
                "$lookup argument '" + RenderElement(it) + "' must be a string, is type " +
                    std::to_string(static_cast<int>(bson_iter_type(it))));
}

}  // namespace

Result<StagePtr> ParseLookup(const bson_iter_t* spec, const PipelineOptions& options) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kFailedToParse,
                  "the $lookup specification must be an Object, but found " +
                      std::string(BsonTypeName(bson_iter_type(spec))));
  }
  auto lookup = std::make_shared<LookupSpec>();
  // One sub-pipeline level deeper (232 past 20), as MongoDB's $lookup copies its expression
  // context for the foreign side whether or not it has a pipeline. Explain counts this stage;
  // its sub-pipelines (parsed with these options) are not counted.
  CAIRN_ASSIGN_OR_RETURN(lookup->options, SubPipelineOptions(options));
  if (options.stats != nullptr) lookup->stats = &options.stats->lookups.emplace_back();
  if (lookup->options.expression_context == nullptr) {
    lookup->options.expression_context = ExpressionContext::Make();
  }
  bool has_from = false, has_local = false, has_foreign = false, has_let = false;
  BsonView let;
  bson_iter_t it;
  IterDocument(spec).Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "from" || key == "as" || key == "localField" || key == "foreignField") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) {
        if (key == "from") {
          return Status(ErrorCode::kFailedToParse,
                        "$lookup 'from' field must be a string or an object, but found " +
                            std::string(BsonTypeName(bson_iter_type(&it))));
        }
        return Argument(&it);
      }
      std::string value(IterUtf8(&it));
      if (key == "from") {
        lookup->from = value;
        has_from = true;
      } else if (key == "as") {
        lookup->as = value;
      } else if (key == "localField") {
        lookup->local_field = value;
        has_local = true;
      } else {
        lookup->foreign_field = value;
        has_foreign = true;
      }
    } else if (key == "let") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Status(ErrorCode::kFailedToParse,
                      "$lookup argument 'let' must be an object, is type " +
                          std::to_string(static_cast<int>(bson_iter_type(&it))));
      }
      let = IterDocument(&it);
      has_let = true;
    } else if (key == "pipeline") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) {
        return Status(ErrorCode::kFailedToParse, "'pipeline' option must be specified as an array");
      }
      lookup->has_pipeline = true;
      BsonDoc holder;
      AppendIter(holder.get(), "p", &it);
      lookup->pipeline = std::make_shared<const BsonDoc>(std::move(holder));
    } else {
      return Status(ErrorCode::kFailedToParse, "unknown argument to $lookup: " + std::string(key));
    }
  }
  if (lookup->as.empty()) {
    return Status(ErrorCode::kFailedToParse, "must specify 'as' field for a $lookup");
  }
  if (!has_from) {
    return Status(ErrorCode::kFailedToParse, "must specify 'from' field for a $lookup");
  }
  if (has_let && !lookup->has_pipeline) {
    return Status(ErrorCode::kFailedToParse,
                  "$lookup with a 'let' argument must also specify 'pipeline'");
  }
  if (has_local != has_foreign) {
    return Status(ErrorCode::kFailedToParse,
                  "$lookup requires both or neither of 'localField' and 'foreignField'");
  }
  if (!has_local && !lookup->has_pipeline) {
    return Status(ErrorCode::kFailedToParse,
                  "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' "
                  "to be specified");
  }
  CAIRN_ASSIGN_OR_RETURN(lookup->as_parts, SplitFieldPath(lookup->as));
  if (has_local) {
    CAIRN_ASSIGN_OR_RETURN(lookup->local_parts, SplitFieldPath(lookup->local_field));
    CAIRN_ASSIGN_OR_RETURN(lookup->foreign_parts, SplitFieldPath(lookup->foreign_field));
  }
  // `let`: expressions over the input document, parsed once.
  ParseContext ctx(lookup->options.expression_context);
  std::vector<std::pair<std::string, Value>> placeholders;
  bson_iter_t let_it;
  if (has_let && let.Init(&let_it)) {
    while (bson_iter_next(&let_it)) {
      std::string name(IterKey(&let_it));
      CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(&let_it, ctx));
      lookup->let.push_back({name, std::move(expr)});
      placeholders.emplace_back(name, Value::Null());
    }
  }
  lookup->let_slots = ctx.num_slots();
  if (lookup->has_pipeline) {
    // Parsed now for its errors (with the let variables bound to null); kept when it does not
    // depend on them.
    PipelineOptions sub = lookup->options;
    if (!placeholders.empty()) {
      sub.expression_context = sub.expression_context->WithVariables(std::move(placeholders));
    }
    bson_iter_t stage_it;
    lookup->pipeline_array().Init(&stage_it);
    while (bson_iter_next(&stage_it)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&stage_it)) continue;
      bson_iter_t name_it;
      if (!IterDocument(&stage_it).Init(&name_it) || !bson_iter_next(&name_it)) continue;
      std::string_view name = IterKey(&name_it);
      if (name == "$out" || name == "$merge") {
        return Status(ErrorCode::kLocation51047,
                      std::string(name) + " is not allowed within a $lookup's sub-pipeline");
      }
    }
    CAIRN_ASSIGN_OR_RETURN(Pipeline parsed, Pipeline::Parse(lookup->pipeline_array(), sub));
    if (!has_let) lookup->fixed_pipeline = std::move(parsed);
  }
  return StagePtr(std::make_shared<LookupStage>(std::move(lookup)));
}

}  // namespace cairn::query::stages
