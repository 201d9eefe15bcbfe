// OwnedValue (value.h).
#include "query/pipeline/value.h"

#include "common/bson_compare.h"
#include "common/bson_doc.h"

namespace cairn::query {

OwnedValue::OwnedValue(const bson_iter_t* value) {
  bson_t doc;
  bson_init(&doc);
  bson_append_iter(&doc, "", 0, value);
  bytes_.assign(reinterpret_cast<const char*>(bson_get_data(&doc)), doc.len);
  bson_destroy(&doc);
}

bool OwnedValue::Iter(bson_iter_t* it) const {
  if (bytes_.empty()) return false;
  return bson_iter_init_from_data(it, reinterpret_cast<const uint8_t*>(bytes_.data()),
                                  bytes_.size()) &&
         bson_iter_next(it);
}

void OwnedValue::AppendTo(bson_t* out, std::string_view key) const {
  bson_iter_t it;
  if (Iter(&it)) {
    AppendIter(out, key, &it);
  } else {
    bson_append_null(out, key.data(), static_cast<int>(key.size()));
  }
}

const bson_iter_t* NullValue() {
  struct Holder {
    BsonDoc doc = BsonDoc::FromJson(R"({"": null})");
    bson_iter_t it;
    Holder() {
      doc.view().Init(&it);
      bson_iter_next(&it);
    }
  };
  static const Holder* holder = new Holder();
  return &holder->it;
}

int CompareOwned(const OwnedValue& a, const bson_iter_t* b, const StringComparator* strings) {
  bson_iter_t it;
  if (!a.Iter(&it)) return -1;
  return CompareValues(&it, b, strings);
}

}  // namespace cairn::query
