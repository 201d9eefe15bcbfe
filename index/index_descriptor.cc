// Index descriptors compiled from stored specs, and the per-index state document.
#include "index/index_descriptor.h"

#include "index/text_index_spec.h"

namespace cairn::index {

Result<std::shared_ptr<const IndexDescriptor>> IndexDescriptor::Make(BsonView spec) {
  std::shared_ptr<IndexDescriptor> d(new IndexDescriptor());
  d->spec_.assign(reinterpret_cast<const char*>(spec.data()), spec.size());
  bson_iter_t it;
  bool has_key = false;
  if (d->spec().Init(&it)) {
    while (bson_iter_next(&it)) {
      std::string_view field = IterKey(&it);
      if (field == "key" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
        CAIRN_ASSIGN_OR_RETURN(d->pattern_, KeyPattern::Parse(IterDocument(&it)));
        d->id_index_ = IsIdIndexPattern(IterDocument(&it));
        has_key = true;
      } else if (field == "name" && BSON_ITER_HOLDS_UTF8(&it)) {
        d->name_ = std::string(IterUtf8(&it));
      } else if (field == "unique") {
        d->unique_ = bson_iter_as_bool(&it);
      } else if (field == "sparse") {
        d->sparse_ = bson_iter_as_bool(&it);
      } else if (field == "hidden") {
        d->hidden_ = bson_iter_as_bool(&it);
      } else if (field == "v") {
        int64_t v = 2;
        if (IterAsInt64(&it, &v)) d->version_ = static_cast<int>(v);
      } else if (field == "expireAfterSeconds" && IterIsNumber(&it)) {
        double seconds = 0;
        IterAsDouble(&it, &seconds);
        d->expire_after_seconds_ = static_cast<int64_t>(seconds);
      } else if (field == "partialFilterExpression" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
        CAIRN_ASSIGN_OR_RETURN(query::Matcher filter, query::Matcher::Parse(IterDocument(&it)));
        d->partial_filter_ = std::make_shared<const query::Matcher>(std::move(filter));
      }
    }
  }
  if (!has_key) {
    return Status(ErrorCode::kCannotCreateIndex,
                  "index spec without a key pattern: " + ToShellString(spec));
  }
  if (d->id_index_) d->unique_ = true;
  if (d->pattern_.kind() == IndexKind::kText) {
    // (term, score) keys from the stored FTSSpec; the write path maintains them like any other.
    CAIRN_ASSIGN_OR_RETURN(d->generator_, MakeTextKeyGenerator(d->spec()));
    return std::shared_ptr<const IndexDescriptor>(std::move(d));
  }
  if (d->pattern_.kind() != IndexKind::kBtree) {
    return Status(
        ErrorCode::kCannotCreateIndex,
        "Index type '" + PluginName(d->pattern_.pattern()) + "' is not supported by Cairn yet");
  }
  d->generator_ = MakeBtreeKeyGenerator(d->pattern_, d->sparse_);
  return std::shared_ptr<const IndexDescriptor>(std::move(d));
}

Status IndexDescriptor::GetKeys(BsonView doc, KeySet* keys, MultikeyPaths* multikey) const {
  bool indexed = true;
  if (partial_filter_) {
    CAIRN_ASSIGN_OR_RETURN(indexed, partial_filter_->Matches(doc));
  }
  if (!indexed) {
    keys->clear();
    multikey->resize(num_fields(), 0);
    return Status::OK();
  }
  return generator_->GetKeys(doc, keys, multikey);
}

BsonDoc EncodeIndexState(const IndexState& state) {
  BsonDoc doc;
  BSON_APPEND_BOOL(doc.get(), "ready", state.ready);
  bson_t array;
  BSON_APPEND_ARRAY_BEGIN(doc.get(), "multikey", &array);
  for (size_t i = 0; i < state.multikey.size(); ++i) {
    std::string key = std::to_string(i);
    BSON_APPEND_INT64(&array, key.c_str(), static_cast<int64_t>(state.multikey[i]));
  }
  bson_append_array_end(doc.get(), &array);
  return doc;
}

IndexState DecodeIndexState(BsonView doc, size_t num_fields) {
  IndexState state;
  state.multikey.assign(num_fields, 0);
  bson_iter_t it;
  if (!doc.Init(&it)) return state;
  while (bson_iter_next(&it)) {
    if (IterKey(&it) == "ready" && BSON_ITER_HOLDS_BOOL(&it)) {
      state.ready = bson_iter_bool(&it);
    } else if (IterKey(&it) == "multikey" && BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_iter_t element;
      bson_iter_recurse(&it, &element);
      for (size_t i = 0; i < num_fields && bson_iter_next(&element); ++i) {
        state.multikey[i] = static_cast<uint64_t>(bson_iter_as_int64(&element));
      }
    }
  }
  return state;
}

}  // namespace cairn::index
