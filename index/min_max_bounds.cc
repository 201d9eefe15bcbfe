// find's min/max key range (min_max_bounds.h).
#include "index/min_max_bounds.h"

#include "index/key_string.h"

namespace cairn::index {

namespace {

Status NotCompatible() {
  return Status(ErrorCode::kLocation51174, "The index chosen is not compatible with min/max");
}

// The key bytes of `bound` on `index`, whose fields it must name in key pattern order.
Status EncodeBound(const IndexDescriptor& index, BsonView bound, std::string* out) {
  const std::vector<KeyField>& fields = index.key_pattern().fields();
  bson_iter_t it;
  bound.Init(&it);
  size_t i = 0;
  while (bson_iter_next(&it)) {
    if (i >= fields.size() || IterKey(&it) != fields[i].path) return NotCompatible();
    AppendValue(out, &it, fields[i].descending);
    ++i;
  }
  return i == fields.size() ? Status::OK() : NotCompatible();
}

}  // namespace

Status ValidateFindMinMax(BsonView min, BsonView max, bool hinted) {
  if (!min.empty() && !max.empty()) {
    bson_iter_t a, b;
    min.Init(&a);
    max.Init(&b);
    bool same = true;
    while (same) {
      const bool more_a = bson_iter_next(&a);
      const bool more_b = bson_iter_next(&b);
      if (!more_a && !more_b) break;
      same = more_a == more_b && IterKey(&a) == IterKey(&b);
    }
    if (!same) {
      return Status(ErrorCode::kLocation51176, "min and max must have the same field names");
    }
  }
  if ((!min.empty() || !max.empty()) && !hinted) {
    return Status(ErrorCode::kLocation51173,
                  "When using min()/max() a hint of which index to use must be provided");
  }
  return Status::OK();
}

Result<IndexScanRanges> MinMaxRanges(const IndexDescriptor& index, BsonView min, BsonView max) {
  if (index.key_pattern().kind() != IndexKind::kBtree) return NotCompatible();
  std::string start, end;
  if (!min.empty()) CAIRN_RETURN_IF_ERROR(EncodeBound(index, min, &start));
  if (!max.empty()) CAIRN_RETURN_IF_ERROR(EncodeBound(index, max, &end));
  if (!min.empty() && !max.empty() && start >= end) {
    return Status(ErrorCode::kLocation51175,
                  "The value provided for min() does not come before the value provided for "
                  "max() in the hinted index");
  }
  return IndexScanRanges::KeyRange(std::move(start), std::move(end));
}

void AppendMinMaxBounds(bson_t* out, const char* key, const IndexDescriptor& index, BsonView min,
                        BsonView max) {
  const std::vector<KeyField>& fields = index.key_pattern().fields();
  // An absent bound is the first (or last) key: MinKey (MaxKey) on ascending fields.
  auto append = [&](const char* name, BsonView bound, bool is_max, bson_t* doc) {
    bson_t sub;
    bson_append_document_begin(doc, name, -1, &sub);
    if (!bound.empty()) {
      bson_iter_t it;
      bound.Init(&it);
      while (bson_iter_next(&it)) AppendIter(&sub, IterKey(&it), &it);
    } else {
      for (const KeyField& field : fields) {
        if (is_max != field.descending) {
          bson_append_maxkey(&sub, field.path.c_str(), static_cast<int>(field.path.size()));
        } else {
          bson_append_minkey(&sub, field.path.c_str(), static_cast<int>(field.path.size()));
        }
      }
    }
    bson_append_document_end(doc, &sub);
  };
  bson_t doc;
  bson_append_document_begin(out, key, -1, &doc);
  append("startKey", min, false, &doc);
  BSON_APPEND_BOOL(&doc, "startKeyInclusive", true);
  append("endKey", max, true, &doc);
  BSON_APPEND_BOOL(&doc, "endKeyInclusive", false);
  bson_append_document_end(out, &doc);
}

}  // namespace cairn::index
