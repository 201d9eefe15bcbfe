// $lookup's per-cursor executor (LookupExecutor) and what its join strategies share
// (lookup_join.h). For each input document it finds the joined foreign documents — through the
// cursor's EqualityJoin for localField/foreignField, through the sub-pipeline for the pipeline
// forms (over the equality matches when both are given) — and writes the output: the input with
// `as` set to the array of matches, or, with an absorbed $unwind, one document per match.
#include "query/pipeline/stages/lookup_join.h"

#include "common/bson_validate.h"
#include "query/pipeline/foreign_collections.h"
#include "query/pipeline/path_write.h"
#include "query/pipeline/value.h"

namespace cairn::query::stages::lookup_internal {

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

namespace {

// Serves owned documents: the equality matches a sub-pipeline then runs over, or the empty
// foreign side when there are no foreign collections.
class VectorInput final : public DocumentSource {
 public:
  explicit VectorInput(std::vector<BsonDoc> docs) : docs_(std::move(docs)) {}
  bool Next() override { return ++next_ <= docs_.size(); }
  BsonView document() const override { return docs_[next_ - 1].view(); }

 private:
  std::vector<BsonDoc> docs_;
  size_t next_ = 0;
};

}  // namespace

Result<std::unique_ptr<DocumentSource>> OpenForeign(const LookupSpec& spec,
                                                    std::shared_ptr<const Matcher> filter) {
  if (spec.options.foreign == nullptr) {
    return std::unique_ptr<DocumentSource>(std::make_unique<VectorInput>(std::vector<BsonDoc>()));
  }
  return spec.options.foreign->Open(spec.from, std::move(filter));
}

void CountForeignRead(const LookupSpec& spec, const char* strategy, int64_t keys, int64_t docs) {
  LookupStats* stats = spec.stats;
  if (stats == nullptr) return;
  if (strategy != nullptr && stats->strategy.empty()) stats->strategy = strategy;
  ++stats->foreign_reads;
  stats->foreign_keys_examined += keys;
  stats->foreign_docs_examined += docs;
}

Status CheckIntermediate(const LookupSpec& spec, int64_t bytes) {
  if (bytes <= kMaxIntermediateBytes) return Status::OK();
  return Status(ErrorCode::kLocation4568, "Total size of documents in " + spec.from +
                                              " matching pipeline's $lookup stage exceeds " +
                                              std::to_string(kMaxIntermediateBytes) + " bytes");
}

const StringComparator* Collator(const LookupSpec& spec) {
  return spec.options.expression_context != nullptr ? spec.options.expression_context->collator()
                                                    : nullptr;
}

namespace {

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
        CountForeignRead(*spec_, "UncorrelatedCached");
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
    if (!spec_->equality()) CountForeignRead(*spec_, "CorrelatedSubPipeline");
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
      CAIRN_ASSIGN_OR_RETURN(input, OpenForeign(*spec_, nullptr));
    }
    std::unique_ptr<DocumentSource> exec = pipeline.Bind(std::move(input), false);
    std::vector<BsonDoc> out;
    int64_t bytes = 0;
    while (exec->Next()) {
      bytes += static_cast<int64_t>(exec->document().size());
      CAIRN_RETURN_IF_ERROR(CheckIntermediate(*spec_, bytes));
      out.emplace_back(exec->document());
    }
    CAIRN_RETURN_IF_ERROR(exec->status());
    return out;
  }

  // localField/foreignField matches, into owned documents or views of the join's own.
  Status EqualityMatches(BsonView doc, std::vector<BsonDoc>* owned, std::vector<BsonView>* views) {
    LocalValues local;
    CollectValues(doc, spec_->local_parts, &local.values);
    // No value joins null, except an empty array, which joins nothing.
    bson_iter_t direct;
    bool empty_array =
        FindPathNoArrays(doc, spec_->local_parts, &direct) && BSON_ITER_HOLDS_ARRAY(&direct);
    local.missing = local.values.empty() && !empty_array;
    if (join_ == nullptr) {
      CAIRN_ASSIGN_OR_RETURN(join_, ChooseJoin(spec_));
    }
    return join_->Probe(local, owned, views);
  }

  std::shared_ptr<const LookupSpec> spec_;
  Variables vars_;
  std::unique_ptr<EqualityJoin> join_;  // chosen at the first input document
  bool cached_ = false;
  std::vector<BsonDoc> cache_;  // an uncorrelated sub-pipeline's result
  std::vector<BsonDoc> matches_;
  std::vector<BsonView> match_views_;
  size_t next_match_ = 0;
  BsonDoc holder_;  // {"": match}: the absorbed $unwind's current element
  BsonDoc out_;
};

}  // namespace

std::unique_ptr<DocumentSource> MakeLookupExecutor(std::shared_ptr<const LookupSpec> spec,
                                                   std::unique_ptr<DocumentSource> child) {
  return std::make_unique<LookupExecutor>(std::move(spec), std::move(child));
}

}  // namespace cairn::query::stages::lookup_internal
