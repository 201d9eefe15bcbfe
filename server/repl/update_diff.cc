// AppendDocumentDiff (see update_diff.h).
#include "server/repl/update_diff.h"

#include "common/bson_element.h"

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
  // Elements are held as BsonElement: bson_iter_t is 128-byte aligned, which std containers do
  // not honour.
  std::unordered_map<std::string_view, BsonElement> old_fields;
  bson_iter_t it;
  before.Init(&it);
  while (bson_iter_next(&it)) old_fields.emplace(IterKey(&it), BsonElement(&it));
  std::vector<BsonElement> updated, inserted, nested;
  after.Init(&it);
  while (bson_iter_next(&it)) {
    auto found = old_fields.find(IterKey(&it));
    if (found == old_fields.end()) {
      inserted.emplace_back(&it);
      continue;
    }
    bson_iter_t old = found->second.iter();
    old_fields.erase(found);
    if (ElementBytes(&old) == ElementBytes(&it)) continue;
    if (BSON_ITER_HOLDS_DOCUMENT(&old) && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      nested.emplace_back(&old);
      nested.emplace_back(&it);
    } else {
      updated.emplace_back(&it);
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
    for (const BsonElement& element : *list) {
      bson_iter_t field = element.iter();
      AppendIter(&fields, IterKey(&field), &field);
    }
    bson_append_document_end(out, &fields);
    any = true;
  }
  for (size_t i = 0; i < nested.size(); i += 2) {
    bson_iter_t old = nested[i].iter(), now = nested[i + 1].iter();
    std::string key = "s" + std::string(IterKey(&old));
    bson_t sub;
    bson_append_document_begin(out, key.data(), static_cast<int>(key.size()), &sub);
    AppendDiff(IterDocument(&old), IterDocument(&now), &sub);
    bson_append_document_end(out, &sub);
    any = true;
  }
  return any;
}

}  // namespace

void AppendDocumentDiff(BsonView before, BsonView after, bson_t* out) {
  AppendDiff(before, after, out);
}

void ApplyDocumentDiff(BsonView before, BsonView diff, bson_t* out) {
  BsonView removed, updated, inserted;
  bson_iter_t it;
  if (diff.Find("d", &it) && BSON_ITER_HOLDS_DOCUMENT(&it)) removed = IterDocument(&it);
  if (diff.Find("u", &it) && BSON_ITER_HOLDS_DOCUMENT(&it)) updated = IterDocument(&it);
  if (diff.Find("i", &it) && BSON_ITER_HOLDS_DOCUMENT(&it)) inserted = IterDocument(&it);
  std::unordered_map<std::string_view, bool> seen;  // fields of `before` (for "u" of new ones)
  before.Init(&it);
  while (bson_iter_next(&it)) {
    const std::string_view key = IterKey(&it);
    seen.emplace(key, true);
    bson_iter_t change;
    if (removed.Find(key, &change)) continue;
    if (updated.Find(key, &change)) {
      AppendIter(out, key, &change);
      continue;
    }
    const std::string sub_key = "s" + std::string(key);
    if (BSON_ITER_HOLDS_DOCUMENT(&it) && diff.Find(sub_key, &change) &&
        BSON_ITER_HOLDS_DOCUMENT(&change)) {
      bson_t sub;
      bson_append_document_begin(out, key.data(), static_cast<int>(key.size()), &sub);
      ApplyDocumentDiff(IterDocument(&it), IterDocument(&change), &sub);
      bson_append_document_end(out, &sub);
      continue;
    }
    AppendIter(out, key, &it);
  }
  for (BsonView added : {updated, inserted}) {
    added.Init(&it);
    while (bson_iter_next(&it)) {
      if (added.data() == updated.data() && seen.count(IterKey(&it))) continue;
      AppendIter(out, IterKey(&it), &it);
    }
  }
}

}  // namespace cairn::server
