// Text search: the execution of a filter's $text clause over the collection's text index, as
// MongoDB's TEXT_MATCH / FETCH / TEXT_OR / IXSCAN plan runs it. Each positive term of the query
// (index/text_query.h) is looked up in the index, the RecordIds are united with their scores
// summed over the terms (the document's textScore), each document is fetched once, and kept when
// it passes the query's document test (phrases, negations, case/diacritic sensitivity) and the
// whole filter (the Matcher's $text node matches everything: this stage has decided it). A
// query whose terms are all stop words finds nothing. Errors: IndexNotFound 27 without a text
// index, BadValue for a $language text search does not know.
#pragma once

#include <memory>

#include "common/status.h"
#include "query/matcher/text_expression.h"
#include "server/exec/document_stream.h"
#include "server/exec/query_spec.h"
#include "storage/reader.h"

namespace cairn::server {

// A DocumentStream of $text's matches, in RecordId order, each with its score: text_score()
// (DocumentSource's) always has a value, which a pipeline over this stream carries on.
class TextSearchStream : public DocumentStream {
 protected:
  TextSearchStream() : DocumentStream(StageType::kTextMatch) {}
};

// The stream for `text` (the clause FindTextClause found in spec.matcher) over `collection`
// (not null). The stream is TEXT_MATCH, above FETCH → IXSCAN (or → OR → IXSCAN per term).
Result<std::unique_ptr<TextSearchStream>> MakeTextSearchStream(
    const storage::Reader& reader, const storage::CollectionHandle& collection,
    const query::TextMatchExpression& text, const QuerySpec& spec);

// A textScore sort ({f: {$meta: "textScore"}}) orders documents by the score they carry in
// query::SortPattern::kTextScoreField: the first adds it to each document of the text search,
// the second (after the sort) removes it again. Each copies the document (a textScore sort
// holds copies anyway).
std::unique_ptr<DocumentStream> WithTextScoreField(std::unique_ptr<TextSearchStream> text);
std::unique_ptr<DocumentStream> WithoutTextScoreField(std::unique_ptr<DocumentStream> sorted);

}  // namespace cairn::server
