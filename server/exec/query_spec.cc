// The index hint (query_spec.h).
#include "server/exec/query_spec.h"

namespace cairn::server {

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

}  // namespace cairn::server
