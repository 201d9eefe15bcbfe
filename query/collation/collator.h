// Collator: MongoDB's collation support (CollatorFactoryICU / CollatorInterfaceICU) over ICU. It
// turns a collation document into an ICU collator with MongoDB's checks — the locale must be one
// ICU knows exactly (BadValue "Field 'locale' is invalid in: ...", with "Did you mean ...?"), the
// version must be MongoDB's (IncompatibleCollationVersion 161), backwards needs strength > 1 and
// caseFirst needs strength > 2 or caseLevel (BadValue) — fills the fields not given with the
// locale's defaults (spec(): the normalised form), and compares UTF-8 strings with it.
//
// Thread-safety: immutable after Make. Compare and AppendComparisonKey only call ICU's const
// collator APIs (compareUTF8, getSortKey), which ICU documents as safe to call concurrently on
// one instance ("Thread-safe const APIs", ICU User Guide, Design); MongoDB shares one ICU collator
// across operations the same way. So one Collator serves every thread of a command or cursor.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/bson_doc.h"
#include "common/status.h"
#include "common/string_comparator.h"
#include "query/collation/collation_spec.h"

namespace cairn::query {

class Collator final : public StringComparator {
 public:
  // A collator for the collation document `spec` (CollatorFactoryICU::makeFromBSON): nullptr for
  // {locale: "simple"} (binary comparison); errors as described above and in collation_spec.h.
  static Result<std::shared_ptr<const Collator>> Make(BsonView spec);

  ~Collator() override;
  Collator(const Collator&) = delete;
  Collator& operator=(const Collator&) = delete;

  // The collation with every field filled in (the locale as ICU canonicalises it, defaults from
  // the locale for fields not given).
  const CollationSpec& spec() const { return spec_; }

  int Compare(std::string_view a, std::string_view b) const override;
  // ICU's sort key for `s`, without its trailing NUL byte.
  void AppendComparisonKey(std::string_view s, std::string* out) const override;

 private:
  struct Icu;  // the icu::Collator: ICU's headers stay in collator.cc
  Collator(CollationSpec spec, std::unique_ptr<Icu> icu);

  CollationSpec spec_;
  std::unique_ptr<Icu> icu_;
};

// A query command's `collation` option (find, count, distinct, aggregate, update and delete
// statements, findAndModify): an empty document means none was given, so nullptr (binary, as
// long as collections have no default collation); otherwise Collator::Make.
Result<std::shared_ptr<const Collator>> ParseQueryCollation(BsonView spec);

class ExpressionContext;  // query/expression/expression.h

// A command's ExpressionContext (`let`, $$NOW; may be nullptr) carrying its `collation` option
// (ParseQueryCollation), which the matcher, sort and pipeline read from it; `context` itself
// (even nullptr) when the option is empty or {locale: "simple"}.
Result<std::shared_ptr<const ExpressionContext>> ApplyQueryCollation(
    std::shared_ptr<const ExpressionContext> context, BsonView collation);

}  // namespace cairn::query
