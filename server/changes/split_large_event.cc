// $changeStreamSplitLargeEvent's split (see split_large_event.h).
#include "server/changes/split_large_event.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "common/bson_element.h"

namespace cairn::server {

namespace {

// One top-level field of the event, with its whole element's size (type, key, value).
struct Field {
  size_t size;
  std::string_view key;
  BsonElement element;
};

size_t ElementSize(const bson_iter_t* it) { return it->next_off - it->off; }

// A fragment's first fields: {_id: its token, splitEvent: {fragment: index + 1, of: total}}.
void AppendFragmentHead(ResumePoint point, size_t index, size_t total, bson_t* fragment) {
  point.fragment = static_cast<uint32_t>(index);
  AppendResumeToken(fragment, "_id", point);
  bson_t split;
  BSON_APPEND_DOCUMENT_BEGIN(fragment, "splitEvent", &split);
  BSON_APPEND_INT32(&split, "fragment", static_cast<int32_t>(index + 1));
  BSON_APPEND_INT32(&split, "of", static_cast<int32_t>(total));
  bson_append_document_end(fragment, &split);
}

}  // namespace

Status CheckSplitLargeEventStage(const bson_iter_t* stage_argument, bool is_last) {
  if (!BSON_ITER_HOLDS_DOCUMENT(stage_argument) || !IterDocument(stage_argument).empty()) {
    return Status(ErrorCode::kLocation7182800,
                  "$changeStreamSplitLargeEvent spec should be an empty object");
  }
  if (!is_last) {
    return Status(ErrorCode::kLocation7182802,
                  "$changeStreamSplitLargeEvent must be the last stage in the pipeline");
  }
  return Status::OK();
}

size_t ChangeEventSize(BsonView event) {
  bson_iter_t id;
  return event.size() + (event.Find("_id", &id) ? ElementSize(&id) : 0);
}

Status SplitChangeEvent(BsonView event, ResumePoint point, size_t skip,
                        std::vector<BsonDoc>* fragments, size_t* total) {
  fragments->clear();
  *total = 0;
  std::vector<Field> fields;
  bson_iter_t it;
  event.Init(&it);
  size_t token_size = 0;  // room left in each fragment for the batch's postBatchResumeToken
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "_id") {
      token_size = IterDocument(&it).size();  // as mongod: the token document's size
      continue;
    }
    fields.push_back({ElementSize(&it), key, BsonElement(&it)});
  }
  if (fields.empty()) {
    return Status(ErrorCode::kLocation7182502,
                  "Cannot split an empty event or an event containing solely '_id' field");
  }
  std::sort(fields.begin(), fields.end(), [](const Field& a, const Field& b) {
    return a.size != b.size ? a.size < b.size : a.key < b.key;
  });
  const size_t max_fragment = kMaxChangeEventSize - token_size;

  // Which fields each fragment takes: at least one, then more while they fit.
  std::vector<size_t> first_field;  // fragment i holds fields [first_field[i], first_field[i+1])
  for (size_t next = 0; next < fields.size();) {
    BsonDoc head;
    AppendFragmentHead(point, first_field.size(), 0, head.get());
    first_field.push_back(next);
    size_t size = head.view().size();
    do {
      size += fields[next].size;
    } while (++next < fields.size() && size + fields[next].size <= max_fragment);
    if (size > max_fragment) {
      return Status(ErrorCode::kLocation7182500,
                    "Splitting change event failed: fragment size " + std::to_string(size) +
                        " is greater than maximum allowed fragment size " +
                        std::to_string(max_fragment));
    }
  }
  first_field.push_back(fields.size());
  *total = first_field.size() - 1;
  for (size_t i = skip; i < *total; ++i) {
    BsonDoc& fragment = fragments->emplace_back();
    AppendFragmentHead(point, i, *total, fragment.get());
    for (size_t f = first_field[i]; f < first_field[i + 1]; ++f) {
      bson_iter_t value = fields[f].element.iter();
      AppendIter(fragment.get(), fields[f].key, &value);
    }
  }
  return Status::OK();
}

}  // namespace cairn::server
