// TextMatchExpression: the $text clause of a filter ({$text: {$search, $language,
// $caseSensitive, $diacriticSensitive}}) as the matcher parses it, with MongoDB's argument
// errors. The matcher only holds it: the search itself runs against the collection's text index
// (server/exec/text_search.h), which hands on only documents that satisfy it, so the node matches
// every document it is shown; the search installs a TextScorer for {$meta: "textScore"}.
// FindTextClause gives the server the clause and refuses the places
// MongoDB refuses ($text more than once, under $or or $nor). Immutable; thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "common/mutex.h"
#include "common/status.h"
#include "query/matcher/match_expression.h"

namespace cairn::query {

// A document's textScore under one $text query: the server's text search knows the index and
// installs it (query/ knows no text index); {$meta: "textScore"} reads it.
class TextScorer {
 public:
  virtual ~TextScorer() = default;
  virtual double Score(BsonView doc) const = 0;
};

class TextMatchExpression final : public MatchExpression {
 public:
  TextMatchExpression(std::string search, std::string language, bool case_sensitive,
                      bool diacritic_sensitive)
      : MatchExpression(MatchKind::kText),
        search_(std::move(search)),
        language_(std::move(language)),
        case_sensitive_(case_sensitive),
        diacritic_sensitive_(diacritic_sensitive) {}

  bool Matches(BsonView, Status*) const override { return true; }
  bool MatchesSingleElement(const bson_iter_t*, Status*) const override { return true; }

  const std::string& search() const { return search_; }
  // Empty: the text index's default_language.
  const std::string& language() const { return language_; }
  bool case_sensitive() const { return case_sensitive_; }
  bool diacritic_sensitive() const { return diacritic_sensitive_; }

  // Installed by the text search when the query runs (before any document reaches a
  // projection); the node is otherwise immutable. Thread-safe.
  void SetScorer(std::shared_ptr<const TextScorer> scorer) const {
    MutexLock lock(&scorer_mutex_);
    scorer_ = std::move(scorer);
  }
  // The document's textScore, or null when no text search ran.
  std::shared_ptr<const TextScorer> scorer() const {
    MutexLock lock(&scorer_mutex_);
    return scorer_;
  }

 private:
  std::string search_;
  std::string language_;
  bool case_sensitive_;
  bool diacritic_sensitive_;
  mutable Mutex scorer_mutex_;
  mutable std::shared_ptr<const TextScorer> scorer_;
};

// The filter's $text clause (top level or under a top-level $and), or null when it has none.
// BadValue "Too many text expressions" for a second one, "text expression not allowed in nor"
// under $nor; under $or, NoQueryExecutionPlans as MongoDB answers when the $or's other branches
// are not indexed (Cairn never plans $text inside an $or).
Result<const TextMatchExpression*> FindTextClause(const MatchExpression* root);

}  // namespace cairn::query
