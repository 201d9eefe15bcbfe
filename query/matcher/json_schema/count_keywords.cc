// $jsonSchema's size bounds, one rule for three keyword pairs: minLength / maxLength (a
// string's length in code points), minItems / maxItems (an array's elements) and
// minProperties / maxProperties (an object's fields). Each bounds only its own type; other
// values pass. The argument is a non-negative integer, with MongoDB's parse errors.
#include "query/matcher/json_schema/keywords.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query::json_schema {

namespace {

class CountKeyword final : public Keyword {
 public:
  CountKeyword(const bson_iter_t* spec, bson_type_t counted, bool is_max, int64_t bound)
      : Keyword(IterKey(spec), spec), counted_(counted), is_max_(is_max), bound_(bound) {}

  bool Validate(const SchemaValue& value, Status*) const override {
    if (value.type() != counted_) return true;
    const int64_t n = Count(value);
    return is_max_ ? n <= bound_ : n >= bound_;
  }

 private:
  int64_t Count(const SchemaValue& value) const {
    if (counted_ != BSON_TYPE_UTF8) return value.document().CountKeys();
    int64_t code_points = 0;
    for (unsigned char c : IterUtf8(value.element())) {
      if ((c & 0xC0) != 0x80) ++code_points;  // not a UTF-8 continuation byte
    }
    return code_points;
  }

  bson_type_t counted_;
  bool is_max_;
  int64_t bound_;
};

}  // namespace

Status ParseCountKeyword(const KeywordMap& map, KeywordId id, bson_type_t counted, bool is_max,
                         SchemaContext context, Schema* schema) {
  bson_iter_t spec;
  if (!map.Get(id, &spec)) return Status::OK();
  CAIRN_ASSIGN_OR_RETURN(int64_t bound, internal::ParseNonNegativeLong(&spec));
  // The top-level value is the document: only an object bound can apply to it.
  if (context.top_level && counted != BSON_TYPE_DOCUMENT) return Status::OK();
  schema->Add(std::make_unique<CountKeyword>(&spec, counted, is_max, bound));
  return Status::OK();
}

}  // namespace cairn::query::json_schema
