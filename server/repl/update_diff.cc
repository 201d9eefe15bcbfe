// AppendDocumentDiff (see update_diff.h).
#include "server/repl/update_diff.h"

#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cairn::server {

namespace {

// An element's bytes (type, key, value): equal bytes under the same key are an unchanged value
// (1 and 1.0 differ here, as a type change must be logged).
std::string_view ElementBytes(const bson_iter_t* it) {
  return {reinterpret_cast<const char*>(it->raw) + it->off, it->next_off - it->off};
}

// Whether the diff would have any field.
bool AppendDiff(BsonView before, BsonView after, bson_t* out) {
  std::unordered_map<std::string_view, bson_iter_t> old_fields;
  bson_iter_t it;
  before.Init(&it);
  while (bson_iter_next(&it)) old_fields.emplace(IterKey(&it), it);
  std::vector<bson_iter_t> updated, inserted, nested;
  after.Init(&it);
  while (bson_iter_next(&it)) {
    auto found = old_fields.find(IterKey(&it));
    if (found == old_fields.end()) {
      inserted.push_back(it);
      continue;
    }
    bson_iter_t old = found->second;
    old_fields.erase(found);
    if (ElementBytes(&old) == ElementBytes(&it)) continue;
    if (BSON_ITER_HOLDS_DOCUMENT(&old) && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      nested.push_back(old);
      nested.push_back(it);
    } else {
      updated.push_back(it);
    }
  }
  bool any = false;
  if (!old_fields.empty()) {
    // Removed fields, in their order in the old document.
    bson_t removed;
    BSON_APPEND_DOCUMENT_BEGIN(out, "d", &removed);
    before.Init(&it);
    while (bson_iter_next(&it)) {
      if (old_fields.count(IterKey(&it))) {
        bson_append_bool(&removed, bson_iter_key(&it), static_cast<int>(bson_iter_key_len(&it)),
                         false);
      }
    }
    bson_append_document_end(out, &removed);
    any = true;
  }
  for (auto [name, list] : {std::pair{"u", &updated}, std::pair{"i", &inserted}}) {
    if (list->empty()) continue;
    bson_t fields;
    BSON_APPEND_DOCUMENT_BEGIN(out, name, &fields);
    for (const bson_iter_t& field : *list) {
      AppendIter(&fields, IterKey(&field), &field);
    }
    bson_append_document_end(out, &fields);
    any = true;
  }
  for (size_t i = 0; i < nested.size(); i += 2) {
    std::string key = "s" + std::string(IterKey(&nested[i]));
    bson_t sub;
    bson_append_document_begin(out, key.data(), static_cast<int>(key.size()), &sub);
    AppendDiff(IterDocument(&nested[i]), IterDocument(&nested[i + 1]), &sub);
    bson_append_document_end(out, &sub);
    any = true;
  }
  return any;
}

}  // namespace

void AppendDocumentDiff(BsonView before, BsonView after, bson_t* out) {
  AppendDiff(before, after, out);
}

}  // namespace cairn::server
