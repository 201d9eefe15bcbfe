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
#include "server/exec/explain.h"

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
  TextSearchStreamImpl(const storage::Engine& engine, storage::Prefix collection,
                       index::TextIndexSpec spec, index::TextQuery query,
                       std::shared_ptr<const query::Matcher> matcher,
                       std::map<storage::RecordId, double> candidates, PlanNode* fetch_node)
      : engine_(engine),
        collection_(collection),
        spec_(std::move(spec)),
        query_(std::move(query)),
        matcher_(std::move(matcher)),
        candidates_(std::move(candidates)),
        next_(candidates_.begin()),
        fetch_node_(fetch_node) {}

  bool Next() override {
    while (next_ != candidates_.end()) {
      status_ = CheckForInterrupt();  // a safe point (common/interrupt.h)
      if (!status_.ok()) return false;
      auto current = next_++;
      bool found = false;
      status_ = engine_.GetRecord(collection_, current->first, &document_, &found);
      if (!status_.ok()) return false;
      if (!found) continue;  // deleted since the index was read
      ++examined_;
      if (fetch_node_ != nullptr) ++fetch_node_->scan.docs_examined;
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
      if (fetch_node_ != nullptr) ++fetch_node_->n_returned;
      return true;
    }
    return false;
  }
  BsonView document() const override { return view(); }
  storage::RecordId record_id() const override { return record_id_; }
  Status status() const override { return status_; }
  int64_t docs_examined() const override { return examined_; }
  std::optional<double> text_score() const override { return score_; }

 private:
  BsonView view() const {
    return BsonView(reinterpret_cast<const uint8_t*>(document_.data()), document_.size());
  }

  const storage::Engine& engine_;
  storage::Prefix collection_;
  index::TextIndexSpec spec_;
  index::TextQuery query_;
  std::shared_ptr<const query::Matcher> matcher_;
  std::map<storage::RecordId, double> candidates_;
  std::map<storage::RecordId, double>::const_iterator next_;
  PlanNode* fetch_node_;
  std::string document_;
  storage::RecordId record_id_ = 0;
  double score_ = 0;
  int64_t examined_ = 0;
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

std::unique_ptr<PlanNode> TermScanNode(const index::IndexDescriptor& d) {
  auto ixscan = MakePlanNode("IXSCAN", nullptr);
  ixscan->reports_keys = true;
  bson_t* f = ixscan->fields.get();
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
  return ixscan;
}

// Where the stream counts what it does (explain's executionStats).
struct TextPlanCounters {
  std::vector<IndexScanCounters*> terms;        // per term of terms_for_bounds(), in order
  IndexScanCounters* union_counters = nullptr;  // the OR over several terms
  PlanNode* fetch = nullptr;
};

// TEXT_MATCH → FETCH → IXSCAN, or → OR → one IXSCAN per term, as MongoDB 7.0 plans a $text
// query whose score nobody asks for.
std::unique_ptr<PlanNode> TextPlan(const IndexHandle& index, const index::TextQuery& query,
                                   const query::Matcher& matcher, TextPlanCounters* counters) {
  const index::IndexDescriptor& d = *index.descriptor;
  std::unique_ptr<PlanNode> scans;
  if (query.terms_for_bounds().size() == 1) {
    scans = TermScanNode(d);
    counters->terms.push_back(&scans->scan);
  } else if (!query.terms_for_bounds().empty()) {
    scans = MakePlanNode("OR", nullptr);
    counters->union_counters = &scans->scan;
    for (size_t i = 0; i < query.terms_for_bounds().size(); ++i) {
      scans->inputs.push_back(TermScanNode(d));
      counters->terms.push_back(&scans->inputs.back()->scan);
    }
  }
  auto fetch = MakePlanNode("FETCH", std::move(scans));
  fetch->is_fetch = fetch->reports_docs = true;
  counters->fetch = fetch.get();
  // The rest of the filter: TEXT_MATCH stands for the top-level $text clause.
  BsonDoc rest;
  bson_iter_t field;
  if (matcher.filter().Init(&field)) {
    while (bson_iter_next(&field)) {
      if (IterKey(&field) != "$text") AppendIter(rest.get(), IterKey(&field), &field);
    }
  }
  if (!rest.view().empty()) BSON_APPEND_DOCUMENT(fetch->fields.get(), "filter", rest.get());

  auto match = MakePlanNode("TEXT_MATCH", std::move(fetch));
  bson_t* m = match->fields.get();
  bson_t prefix;
  BSON_APPEND_DOCUMENT_BEGIN(m, "indexPrefix", &prefix);
  bson_append_document_end(m, &prefix);
  AppendUtf8(m, "indexName", d.name());
  bson_t parsed;
  BSON_APPEND_DOCUMENT_BEGIN(m, "parsedTextQuery", &parsed);
  query.AppendExplain(&parsed);
  bson_append_document_end(m, &parsed);
  BSON_APPEND_INT32(m, "textIndexVersion", index::kTextIndexVersion);
  return match;
}

}  // namespace

Result<std::unique_ptr<TextSearchStream>> MakeTextSearchStream(
    const storage::Engine& engine, const storage::CollectionHandle& collection,
    const query::TextMatchExpression& text, const QuerySpec& spec, QueryExplain* explain,
    std::unique_ptr<PlanNode>* plan) {
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

  TextPlanCounters counters;
  if (explain != nullptr) *plan = TextPlan(*text_index, query, *spec.matcher, &counters);
  const bool count = explain != nullptr && explain->count_execution;

  // Every entry of every positive term, scores summed per document (MongoDB's TEXT_OR).
  std::map<storage::RecordId, double> candidates;
  size_t term_index = 0;
  for (const std::string& term : query.terms_for_bounds()) {
    IndexScanCounters* term_counters = count ? counters.terms[term_index++] : nullptr;
    BsonDoc holder;
    AppendUtf8(holder.get(), "t", term);
    bson_iter_t it;
    holder.view().Init(&it);
    bson_iter_next(&it);
    std::string start;
    index::AppendValue(&start, &it);
    std::unique_ptr<storage::IndexCursor> cursor =
        engine.ScanIndex(text_index->prefix, start, PrefixEnd(start));
    if (term_counters != nullptr) ++term_counters->seeks;
    while (cursor->Next()) {
      std::string_view key_bytes = IndexEntryKeyBytes(false, cursor->key());
      auto [entry, added] =
          candidates.try_emplace(IndexEntryRecordId(false, cursor->key(), cursor->value()), 0.0);
      entry->second += KeyScore(key_bytes);
      if (term_counters != nullptr) {
        ++term_counters->keys_examined;
        ++term_counters->keys_returned;
      }
      if (count && counters.union_counters != nullptr) {
        ++counters.union_counters->dups_tested;
        if (added) {
          ++counters.union_counters->keys_returned;
        } else {
          ++counters.union_counters->dups_dropped;
        }
      }
    }
    CAIRN_RETURN_IF_ERROR(cursor->status());
  }
  PlanNode* fetch_node = count ? counters.fetch : nullptr;
  return std::unique_ptr<TextSearchStream>(
      new TextSearchStreamImpl(engine, collection->prefix, std::move(text_spec), std::move(query),
                               spec.matcher, std::move(candidates), fetch_node));
}

namespace {

// Rewrites each document of its child: with (adding) or without (removing) the score field.
class TextScoreFieldStream final : public DocumentStream {
 public:
  TextScoreFieldStream(std::unique_ptr<DocumentStream> child, const TextSearchStream* scores)
      : child_(std::move(child)), scores_(scores) {}

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
  int64_t docs_examined() const override { return child_->docs_examined(); }

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
