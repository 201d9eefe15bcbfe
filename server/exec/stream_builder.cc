// DocumentStreams: collection scan, _id point lookup, skip and limit; the query stream built
// from them (the sort is sort_stream.cc).
#include "server/exec/stream_builder.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/interrupt.h"
#include "index/key_string.h"
#include "index/planner.h"
#include "server/exec/access_path.h"
#include "server/exec/explain.h"
#include "server/exec/sort_stream.h"
#include "server/exec/text_search.h"

namespace cairn::server {

namespace {

class EmptyStream final : public DocumentStream {
 public:
  bool Next() override { return false; }
  BsonView document() const override { return BsonView(); }
  storage::RecordId record_id() const override { return 0; }
};

// A query that could not be planned: no documents, and the error as its status.
class ErrorStream final : public DocumentStream {
 public:
  explicit ErrorStream(Status status) : status_(std::move(status)) {}
  bool Next() override { return false; }
  BsonView document() const override { return BsonView(); }
  storage::RecordId record_id() const override { return 0; }
  Status status() const override { return status_; }

 private:
  Status status_;
};

// The filter as explain prints it (a collection scan's filter, parsedQuery).
void AppendExplainFilter(const query::Matcher& matcher, const char* key, bson_t* out) {
  if (matcher.MatchesAll()) return;
  BsonDoc parsed;
  if (!index::AppendFilter(matcher.root(), parsed.get())) parsed = BsonDoc(matcher.filter());
  BSON_APPEND_DOCUMENT(out, key, parsed.get());
}

// Every document of a collection in RecordId order (or reverse), filtered by the matcher.
class CollectionScanStream final : public DocumentStream {
 public:
  CollectionScanStream(std::unique_ptr<storage::RecordCursor> cursor,
                       std::shared_ptr<const query::Matcher> matcher)
      : cursor_(std::move(cursor)),
        matcher_(std::move(matcher)),
        match_all_(matcher_->MatchesAll()) {}

  bool Next() override {
    while (cursor_->Next()) {
      // A safe point: maxTimeMS, killOp, shutdown and a client gone stop a scan here.
      if (Status interrupted = CheckForInterrupt(); !interrupted.ok()) {
        error_ = std::move(interrupted);
        return false;
      }
      ++examined_;
      if (match_all_) return true;
      Result<bool> matched = matcher_->Matches(cursor_->value());
      if (!matched.ok()) {  // a $expr evaluation error ends the query
        error_ = matched.status();
        return false;
      }
      if (*matched) return true;
    }
    return false;
  }
  BsonView document() const override { return cursor_->value(); }
  storage::RecordId record_id() const override { return cursor_->id(); }
  Status status() const override { return error_.ok() ? cursor_->status() : error_; }
  int64_t docs_examined() const override { return examined_; }

 private:
  std::unique_ptr<storage::RecordCursor> cursor_;
  std::shared_ptr<const query::Matcher> matcher_;
  bool match_all_;
  int64_t examined_ = 0;
  Status error_;
};

// True when `doc`'s _id encodes to exactly `key`.
bool HasIdKey(BsonView doc, std::string_view key) {
  bson_iter_t id;
  if (!doc.Find("_id", &id)) return false;
  thread_local std::string encoded;
  encoded.clear();
  index::AppendValue(&encoded, &id);
  return encoded == key;
}

}  // namespace

Status ReadById(const storage::Engine& engine, const storage::CollectionEntry& collection,
                const bson_iter_t* id, IdCache* id_cache, std::string* document,
                storage::RecordId* record_id, bool* found) {
  thread_local std::string key;
  key.clear();
  index::AppendValue(&key, id);
  *found = false;
  // The cache only names a candidate: it counts when that record exists and carries this
  // _id (a deleted document, a colliding key or a torn slot fall back to the index).
  if (id_cache != nullptr && id_cache->Lookup(collection.prefix, key, record_id)) {
    CAIRN_RETURN_IF_ERROR(
        ReadRecordThroughCache(engine, collection.prefix, *record_id, id_cache, document, found));
    if (*found &&
        HasIdKey(BsonView(reinterpret_cast<const uint8_t*>(document->data()), document->size()),
                 key)) {
      return Status::OK();
    }
    *found = false;
  }
  std::string value;
  CAIRN_RETURN_IF_ERROR(engine.GetIndexEntry(collection.indexes[0].prefix, key, &value, found));
  if (!*found) return Status::OK();
  *record_id = storage::DecodeRecordId(value);
  CAIRN_RETURN_IF_ERROR(
      ReadRecordThroughCache(engine, collection.prefix, *record_id, id_cache, document, found));
  if (*found && id_cache != nullptr) id_cache->Insert(collection.prefix, key, *record_id);
  return Status::OK();
}

namespace {

// At most one document: the one whose _id index entry matches, if the rest of the filter
// matches it too.
class IdLookupStream final : public DocumentStream {
 public:
  IdLookupStream(const storage::Engine& engine, const storage::CollectionEntry& collection,
                 std::shared_ptr<const query::Matcher> matcher, const bson_iter_t* id,
                 IdCache* id_cache) {
    bool found = false;
    status_ = ReadById(engine, collection, id, id_cache, &document_, &record_id_, &found);
    if (!status_.ok() || !found) return;
    examined_ = 1;
    Result<bool> matched = matcher->Matches(view());
    if (!matched.ok()) {  // a $expr evaluation error
      status_ = matched.status();
      return;
    }
    ready_ = *matched;
  }

  bool Next() override {
    bool has = ready_;
    ready_ = false;
    return has;
  }
  BsonView document() const override { return view(); }
  storage::RecordId record_id() const override { return record_id_; }
  Status status() const override { return status_; }
  int64_t docs_examined() const override { return examined_; }

 private:
  BsonView view() const {
    return BsonView(reinterpret_cast<const uint8_t*>(document_.data()), document_.size());
  }
  std::string document_;
  storage::RecordId record_id_ = 0;
  Status status_;
  bool ready_ = false;
  int64_t examined_ = 0;
};

class SkipLimitStream final : public DocumentStream {
 public:
  SkipLimitStream(std::unique_ptr<DocumentStream> child, int64_t skip, int64_t limit)
      : child_(std::move(child)), skip_(skip), limit_(limit) {}

  bool Next() override {
    if (limit_ > 0 && returned_ >= limit_) return false;
    while (skip_ > 0) {
      if (!child_->Next()) return false;
      --skip_;
    }
    if (!child_->Next()) return false;
    ++returned_;
    return true;
  }
  BsonView document() const override { return child_->document(); }
  storage::RecordId record_id() const override { return child_->record_id(); }
  Status status() const override { return child_->status(); }
  int64_t docs_examined() const override { return child_->docs_examined(); }

 private:
  std::unique_ptr<DocumentStream> child_;
  int64_t skip_;
  int64_t limit_;
  int64_t returned_ = 0;
};

}  // namespace

void SetQueryHint(const bson_iter_t* hint, QuerySpec* spec) {
  spec->hint = QueryHint();
  if (BSON_ITER_HOLDS_UTF8(hint)) {
    spec->hint.name = std::string(IterUtf8(hint));
    return;
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(hint)) return;
  BsonView pattern = IterDocument(hint);
  if (pattern.empty()) return;  // {}: no hint
  bson_iter_t first;
  if (pattern.Init(&first) && bson_iter_next(&first) && IterKey(&first) == "$natural") {
    spec->hint.natural = true;
    double direction = 1;
    IterAsDouble(&first, &direction);
    if (!spec->sort || spec->sort->empty()) spec->reverse_natural = direction < 0;
    return;
  }
  spec->hint.key_pattern.assign(reinterpret_cast<const char*>(pattern.data()), pattern.size());
}

std::unique_ptr<DocumentStream> BuildQueryStream(const storage::Engine& engine,
                                                 const storage::CollectionHandle& collection,
                                                 const QuerySpec& spec, IdCache* id_cache,
                                                 QueryExplain* explain) {
  const bool count = explain != nullptr && explain->count_execution;
  if (explain != nullptr) {
    explain->parsed_query = BsonDoc();
    if (!spec.matcher->MatchesAll()) {
      BsonDoc parsed;
      AppendExplainFilter(*spec.matcher, "q", parsed.get());
      bson_iter_t it;
      parsed.view().Find("q", &it);
      explain->parsed_query = BsonDoc(IterDocument(&it));
    }
  }
  if (!collection) {
    if (explain != nullptr) explain->winning = MakePlanNode("EOF", nullptr);
    return std::make_unique<EmptyStream>();
  }
  std::unique_ptr<DocumentStream> stream;
  std::unique_ptr<PlanNode> plan;  // what explain prints (explain only)
  bool sorted = false;
  bson_iter_t id;
  Result<const query::TextMatchExpression*> text = query::FindTextClause(spec.matcher->root());
  if (!text.ok()) return std::make_unique<ErrorStream>(text.status());
  const bool text_score_sort = spec.sort && spec.sort->needs_text_score();
  if (text_score_sort && *text == nullptr) {
    return std::make_unique<ErrorStream>(query::TextScoreNotAvailable());
  }
  if (*text != nullptr) {  // $text: the text index decides (server/exec/text_search.h)
    auto searched = MakeTextSearchStream(engine, collection, **text, spec, explain, &plan);
    if (!searched.ok()) return std::make_unique<ErrorStream>(searched.status());
    stream = text_score_sort ? WithTextScoreField(std::move(searched).value())
                             : std::move(searched).value();
  } else if (spec.hint.empty() && spec.matcher->IdEquality(&id)) {
    stream = std::make_unique<IdLookupStream>(engine, *collection, spec.matcher, &id, id_cache);
    if (explain != nullptr) {
      plan = MakePlanNode("IDHACK", nullptr);
      plan->reports_keys = plan->reports_docs = true;
    }
  } else {
    AccessPath path = PlanAccessPath(engine, collection, spec, explain, id_cache);
    if (!path.error.ok()) return std::make_unique<ErrorStream>(path.error);
    if (path.stream) {
      stream = std::move(path.stream);
      sorted = path.provides_sort;
      if (explain != nullptr) plan = std::move(explain->winning);
    } else {
      auto cursor = spec.reverse_natural ? engine.ScanRecordsReverse(collection->prefix)
                                         : engine.ScanRecords(collection->prefix);
      stream = std::make_unique<CollectionScanStream>(std::move(cursor), spec.matcher);
      if (explain != nullptr) {
        plan = MakePlanNode("COLLSCAN", nullptr);
        plan->reports_docs = true;
        AppendExplainFilter(*spec.matcher, "filter", plan->fields.get());
        AppendUtf8(plan->fields.get(), "direction", spec.reverse_natural ? "backward" : "forward");
      }
    }
  }
  if (count && plan && plan->stage != "FETCH") stream = CountInto(std::move(stream), plan.get());
  if (spec.sort && !spec.sort->empty() && !sorted) {
    int64_t keep = spec.limit > 0 ? spec.skip + spec.limit : 0;
    stream = MakeSortStream(std::move(stream), spec.sort, keep, spec.spill_dir,
                            spec.max_sort_memory_bytes);
    if (explain != nullptr) {
      plan = MakePlanNode("SORT", std::move(plan));
      BsonDoc pattern;
      for (const query::SortPattern::Key& key : spec.sort->keys()) {
        if (key.text_score) {
          bson_t meta;
          BSON_APPEND_DOCUMENT_BEGIN(pattern.get(), key.path.c_str(), &meta);
          BSON_APPEND_UTF8(&meta, "$meta", "textScore");
          bson_append_document_end(pattern.get(), &meta);
          continue;
        }
        BSON_APPEND_INT32(pattern.get(), key.path.c_str(), key.descending ? -1 : 1);
      }
      BSON_APPEND_DOCUMENT(plan->fields.get(), "sortPattern", pattern.get());
      AppendCount(plan->fields.get(), "memLimit", spec.max_sort_memory_bytes);
      if (keep > 0) AppendCount(plan->fields.get(), "limitAmount", keep);
      AppendUtf8(plan->fields.get(), "type", "simple");
      if (count) stream = CountInto(std::move(stream), plan.get());
    }
  }
  if (text_score_sort) stream = WithoutTextScoreField(std::move(stream));
  if (spec.skip > 0 || spec.limit > 0) {
    // One stream does both, except under a counted explain: a stream (and a stage) each.
    if (!count) {
      stream = std::make_unique<SkipLimitStream>(std::move(stream), spec.skip, spec.limit);
    }
    if (spec.skip > 0 && explain != nullptr) {
      if (count) stream = std::make_unique<SkipLimitStream>(std::move(stream), spec.skip, 0);
      plan = MakePlanNode("SKIP", std::move(plan));
      AppendCount(plan->fields.get(), "skipAmount", spec.skip);
      if (count) stream = CountInto(std::move(stream), plan.get());
    }
    if (spec.limit > 0 && explain != nullptr) {
      if (count) stream = std::make_unique<SkipLimitStream>(std::move(stream), 0, spec.limit);
      // A blocking sort already keeps only skip + limit documents: no LIMIT stage above it.
      if (sorted || !spec.sort || spec.sort->empty()) {
        plan = MakePlanNode("LIMIT", std::move(plan));
        AppendCount(plan->fields.get(), "limitAmount", spec.limit);
        if (count) stream = CountInto(std::move(stream), plan.get());
      }
    }
  }
  if (explain != nullptr) explain->winning = std::move(plan);
  return stream;
}

}  // namespace cairn::server
