// Text search: term lookups in the text index, the union of their RecordIds with summed scores,
// and the fetch + document test of each candidate.
#include "server/exec/text_search.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/interrupt.h"
#include "index/key_string.h"
#include "index/text_index_spec.h"
#include "index/text_query.h"
#include "server/catalog/collection_indexes.h"

namespace cairn::server {

namespace {

// The smallest string greater than every string that starts with `prefix` (empty: none).
std::string PrefixEnd(std::string prefix) {
  while (!prefix.empty() && static_cast<uint8_t>(prefix.back()) == 0xFF) prefix.pop_back();
  if (!prefix.empty()) prefix.back() = static_cast<char>(static_cast<uint8_t>(prefix.back()) + 1);
  return prefix;
}

// The score field of a text key (term, score).
double KeyScore(std::string_view key_bytes) {
  Result<BsonDoc> decoded = index::DecodeKey(key_bytes, {false, false});
  if (!decoded.ok()) return 0;
  bson_iter_t it;
  double score = 0;
  if (decoded->view().Init(&it) && bson_iter_next(&it) && bson_iter_next(&it)) {
    IterAsDouble(&it, &score);
  }
  return score;
}

class TextSearchStreamImpl final : public TextSearchStream {
 public:
  TextSearchStreamImpl(const storage::Reader& reader, storage::Prefix collection,
                       index::TextIndexSpec spec, index::TextQuery query,
                       std::shared_ptr<const query::Matcher> matcher,
                       std::map<storage::RecordId, double> candidates,
                       std::unique_ptr<FusedStage> fetch, std::string index_name,
                       std::shared_ptr<const InterruptSlot> interrupt)
      : reader_(reader),
        collection_(collection),
        spec_(std::move(spec)),
        query_(std::move(query)),
        matcher_(std::move(matcher)),
        candidates_(std::move(candidates)),
        next_(candidates_.begin()),
        fetch_(std::move(fetch)),
        index_name_(std::move(index_name)),
        interrupt_(std::move(interrupt)) {}

  bool Next() override {
    while (next_ != candidates_.end()) {
      status_ = CheckInterrupt(interrupt_.get());  // a safe point (common/interrupt.h)
      if (!status_.ok()) return false;
      auto current = next_++;
      bool found = false;
      status_ = reader_.GetRecord(collection_, current->first, &document_, &found);
      if (!status_.ok()) return false;
      if (!found) continue;  // deleted since the index was read
      ++fetch_->mutable_counters().docs_examined;
      BsonView doc = view();
      Result<bool> text_match = query_.Matches(spec_, doc);
      if (!text_match.ok()) {
        status_ = text_match.status();
        return false;
      }
      if (!*text_match) continue;
      Result<bool> matched = matcher_->Matches(doc);
      if (!matched.ok()) {
        status_ = matched.status();
        return false;
      }
      if (!*matched) continue;
      record_id_ = current->first;
      score_ = current->second;
      ++fetch_->mutable_counters().returned;
      ++counters_.returned;
      return true;
    }
    return false;
  }
  BsonView document() const override { return view(); }
  storage::RecordId record_id() const override { return record_id_; }
  Status status() const override { return status_; }
  std::optional<double> text_score() const override { return score_; }
  void AppendPlanFields(bson_t* m) const override {
    bson_t prefix;
    BSON_APPEND_DOCUMENT_BEGIN(m, "indexPrefix", &prefix);
    bson_append_document_end(m, &prefix);
    AppendUtf8(m, "indexName", index_name_);
    bson_t parsed;
    BSON_APPEND_DOCUMENT_BEGIN(m, "parsedTextQuery", &parsed);
    query_.AppendExplain(&parsed);
    bson_append_document_end(m, &parsed);
    BSON_APPEND_INT32(m, "textIndexVersion", index::kTextIndexVersion);
  }
  size_t input_count() const override { return 1; }
  const PlanStage* input(size_t) const override { return fetch_.get(); }

 private:
  BsonView view() const {
    return BsonView(reinterpret_cast<const uint8_t*>(document_.data()), document_.size());
  }

  const storage::Reader& reader_;
  storage::Prefix collection_;
  index::TextIndexSpec spec_;
  index::TextQuery query_;
  std::shared_ptr<const query::Matcher> matcher_;
  std::map<storage::RecordId, double> candidates_;
  std::map<storage::RecordId, double>::const_iterator next_;
  std::unique_ptr<FusedStage> fetch_;  // FETCH → IXSCAN, or → OR → IXSCAN per term
  std::string index_name_;
  std::shared_ptr<const InterruptSlot> interrupt_;
  std::string document_;
  storage::RecordId record_id_ = 0;
  double score_ = 0;
  Status status_;
};

// The IXSCAN of one term, as MongoDB prints a text index scan (its bounds are not shown).
// {$meta: "textScore"}: the sum over the query's terms of the document's score for each, which
// is what the index keys hold (the same sum the lookup makes).
class IndexTextScorer final : public query::TextScorer {
 public:
  IndexTextScorer(index::TextIndexSpec spec, std::set<std::string> terms)
      : spec_(std::move(spec)), terms_(std::move(terms)) {}

  double Score(BsonView doc) const override {
    std::map<std::string, double> scores;
    if (!spec_.ScoreDocument(doc, &scores).ok()) return 0;
    double total = 0;
    for (const std::string& term : terms_) {
      auto found = scores.find(term);
      if (found != scores.end()) total += found->second;
    }
    return total;
  }

 private:
  index::TextIndexSpec spec_;
  std::set<std::string> terms_;
};

// The IXSCAN of one term, as MongoDB prints a text index scan (its bounds are not shown).
std::unique_ptr<FusedStage> TermScanStage(std::shared_ptr<const index::IndexDescriptor> index) {
  return std::make_unique<FusedStage>(StageType::kIxScan, [index](bson_t* f) {
    const index::IndexDescriptor& d = *index;
    bson_t pattern = d.key_pattern().pattern().AsBson();
    BSON_APPEND_DOCUMENT(f, "keyPattern", &pattern);
    AppendUtf8(f, "indexName", d.name());
    BSON_APPEND_BOOL(f, "isMultiKey", true);
    BSON_APPEND_BOOL(f, "isUnique", false);
    BSON_APPEND_BOOL(f, "isSparse", false);
    BSON_APPEND_BOOL(f, "isPartial", false);
    BSON_APPEND_INT32(f, "indexVersion", d.version());
    AppendUtf8(f, "direction", "backward");
    bson_t bounds;
    BSON_APPEND_DOCUMENT_BEGIN(f, "indexBounds", &bounds);
    bson_append_document_end(f, &bounds);
  });
}

// FETCH → IXSCAN, or → OR → one IXSCAN per term, below TEXT_MATCH, as MongoDB 7.0 plans a $text
// query whose score nobody asks for. *terms receives each term's IXSCAN, in order, and *union
// the OR (null for one term).
std::unique_ptr<FusedStage> TextStages(const IndexHandle& index, const index::TextQuery& query,
                                       std::shared_ptr<const query::Matcher> matcher,
                                       std::vector<FusedStage*>* terms, FusedStage** union_stage) {
  // The rest of the filter: TEXT_MATCH stands for the top-level $text clause.
  auto fetch = std::make_unique<FusedStage>(StageType::kFetch, [matcher](bson_t* f) {
    BsonDoc rest;
    bson_iter_t field;
    if (matcher->filter().Init(&field)) {
      while (bson_iter_next(&field)) {
        if (IterKey(&field) != "$text") AppendIter(rest.get(), IterKey(&field), &field);
      }
    }
    if (!rest.view().empty()) BSON_APPEND_DOCUMENT(f, "filter", rest.get());
  });
  *union_stage = nullptr;
  const size_t count = query.terms_for_bounds().size();
  if (count == 1) {
    terms->push_back(fetch->AddInput(TermScanStage(index.descriptor)));
  } else if (count > 1) {
    *union_stage = fetch->AddInput(std::make_unique<FusedStage>(StageType::kOr));
    for (size_t i = 0; i < count; ++i) {
      terms->push_back((*union_stage)->AddInput(TermScanStage(index.descriptor)));
    }
  }
  return fetch;
}

}  // namespace

Result<std::unique_ptr<TextSearchStream>> MakeTextSearchStream(
    const storage::Reader& reader, const storage::CollectionHandle& collection,
    const query::TextMatchExpression& text, const QuerySpec& spec) {
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const CollectionIndexes> indexes, IndexesOf(collection));
  const IndexHandle* text_index = nullptr;
  for (const IndexHandle& index : indexes->all()) {
    if (index.state.ready && index.descriptor->key_pattern().kind() == index::IndexKind::kText) {
      text_index = &index;
    }
  }
  if (text_index == nullptr) {
    return Status(ErrorCode::kIndexNotFound, "text index required for $text query");
  }
  CAIRN_ASSIGN_OR_RETURN(index::TextIndexSpec text_spec,
                         index::TextIndexSpec::Parse(text_index->descriptor->spec()));
  index::TextLanguage language = text_spec.default_language();
  if (!text.language().empty() && !index::TextLanguage::Find(text.language(), &language)) {
    return Status(ErrorCode::kBadValue,
                  "unsupported language: \"" + text.language() + "\" for text index version 3");
  }
  index::TextQuery query = index::TextQuery::Parse(text.search(), language, text.case_sensitive(),
                                                   text.diacritic_sensitive());

  text.SetScorer(std::make_shared<IndexTextScorer>(text_spec, query.terms_for_bounds()));

  std::vector<FusedStage*> terms;
  FusedStage* union_stage = nullptr;
  std::unique_ptr<FusedStage> fetch =
      TextStages(*text_index, query, spec.matcher, &terms, &union_stage);

  // Every entry of every positive term, scores summed per document (MongoDB's TEXT_OR).
  std::map<storage::RecordId, double> candidates;
  size_t term_index = 0;
  for (const std::string& term : query.terms_for_bounds()) {
    StageCounters& term_counters = terms[term_index++]->mutable_counters();
    BsonDoc holder;
    AppendUtf8(holder.get(), "t", term);
    bson_iter_t it;
    holder.view().Init(&it);
    bson_iter_next(&it);
    std::string start;
    index::AppendValue(&start, &it);
    std::unique_ptr<storage::IndexCursor> cursor =
        reader.ScanIndex(text_index->prefix, start, PrefixEnd(start));
    ++term_counters.seeks;
    while (cursor->Next()) {
      std::string_view key_bytes = IndexEntryKeyBytes(false, cursor->key());
      auto [entry, added] =
          candidates.try_emplace(IndexEntryRecordId(false, cursor->key(), cursor->value()), 0.0);
      entry->second += KeyScore(key_bytes);
      ++term_counters.keys_examined;
      ++term_counters.returned;
      if (union_stage != nullptr) {
        StageCounters& union_counters = union_stage->mutable_counters();
        ++union_counters.dups_tested;
        if (added) {
          ++union_counters.returned;
        } else {
          ++union_counters.dups_dropped;
        }
      }
    }
    CAIRN_RETURN_IF_ERROR(cursor->status());
  }
  return std::unique_ptr<TextSearchStream>(new TextSearchStreamImpl(
      reader, collection->prefix, std::move(text_spec), std::move(query), spec.matcher,
      std::move(candidates), std::move(fetch), text_index->descriptor->name(), spec.interrupt));
}

namespace {

// Rewrites each document of its child: with (adding) or without (removing) the score field.
class TextScoreFieldStream final : public DocumentStream {
 public:
  TextScoreFieldStream(std::unique_ptr<DocumentStream> child, const TextSearchStream* scores)
      : child_(std::move(child)), scores_(scores) {}  // not a stage of MongoDB's: kNotExplained

  bool Next() override {
    if (!child_->Next()) return false;
    bson_reinit(out_.get());
    if (scores_ != nullptr) {
      query::SortPattern::AppendWithTextScore(child_->document(), scores_->text_score().value_or(0),
                                              out_.get());
    } else {
      query::SortPattern::AppendWithoutTextScore(child_->document(), out_.get());
    }
    return true;
  }
  BsonView document() const override { return out_.view(); }
  storage::RecordId record_id() const override { return child_->record_id(); }
  Status status() const override { return child_->status(); }
  size_t input_count() const override { return 1; }
  const PlanStage* input(size_t) const override { return child_.get(); }

 private:
  std::unique_ptr<DocumentStream> child_;
  const TextSearchStream* scores_;  // the child itself when adding; null when removing
  BsonDoc out_;
};

}  // namespace

std::unique_ptr<DocumentStream> WithTextScoreField(std::unique_ptr<TextSearchStream> text) {
  const TextSearchStream* scores = text.get();
  return std::make_unique<TextScoreFieldStream>(std::move(text), scores);
}

std::unique_ptr<DocumentStream> WithoutTextScoreField(std::unique_ptr<DocumentStream> sorted) {
  return std::make_unique<TextScoreFieldStream>(std::move(sorted), nullptr);
}

}  // namespace cairn::server
