// Dotted-path traversal (see path.h). The structure mirrors MongoDB's BSONElementIterator:
// FromDocument is getFieldDottedOrArray + the BEGIN state, ArrayElements the IN_ARRAY state.
#include "query/matcher/path.h"

namespace cairn::query {

FieldPath::FieldPath(std::string_view dotted) : dotted_(dotted) {
  size_t start = 0;
  while (true) {
    size_t dot = dotted_.find('.', start);
    size_t end = dot == std::string::npos ? dotted_.size() : dot;
    Part part{start, end - start, end > start};
    for (size_t i = start; i < end; ++i) {
      if (dotted_[i] < '0' || dotted_[i] > '9') {
        part.numeric = false;
        break;
      }
    }
    parts_.push_back(part);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
}

namespace {

bool FindField(BsonView doc, std::string_view key, bson_iter_t* it) {
  if (!doc.Init(it)) return false;
  return bson_iter_find_w_len(it, key.data(), static_cast<int>(key.size()));
}

class Walker {
 public:
  Walker(const FieldPath& path, LeafArrays leaf, ValueVisitor visit, std::string_view* offset_out)
      : path_(path), leaf_(leaf), visit_(visit), offset_out_(offset_out) {}

  // Follows the path from component k inside `doc` through embedded documents until it ends,
  // goes missing, or meets an array.
  bool FromDocument(BsonView doc, size_t k) {
    bson_iter_t it;
    for (size_t j = k;; ++j) {
      if (!FindField(doc, path_.part(j), &it)) return Visit(nullptr, {});
      bson_type_t type = bson_iter_type(&it);
      if (type == BSON_TYPE_ARRAY) return AtArray(&it, j + 1);
      if (j + 1 == path_.size()) return Visit(&it, {});
      if (type != BSON_TYPE_DOCUMENT) return Visit(nullptr, {});
      doc = IterDocument(&it);
    }
  }

 private:
  // Visits `value`, reporting as its array offset the outermost one the walk went through, else
  // `own` (the value's own index when it is an element reached by traversing its array).
  bool Visit(const bson_iter_t* value, std::string_view own) {
    if (offset_out_ != nullptr) *offset_out_ = outer_offset_.empty() ? own : outer_offset_;
    return visit_(value);
  }

  // FromDocument inside the array element `key`: whatever it reaches was reached through that
  // element (unless an enclosing array already claims the offset).
  bool FromElement(BsonView doc, size_t k, std::string_view key) {
    if (offset_out_ == nullptr || !outer_offset_.empty()) return FromDocument(doc, k);
    outer_offset_ = key;
    bool found = FromDocument(doc, k);
    outer_offset_ = {};
    return found;
  }

  // An array met with components [k, n) of the path still to follow.
  bool AtArray(const bson_iter_t* array, size_t k) {
    bool at_leaf = k == path_.size();
    if (at_leaf && leaf_ == LeafArrays::kNoTraversal) return Visit(array, {});
    if (ArrayElements(array, k)) return true;
    return at_leaf && Visit(array, {});  // the whole array comes last
  }

  bool ArrayElements(const bson_iter_t* array, size_t k) {
    const size_t n = path_.size();
    bson_iter_t child;
    if (!bson_iter_recurse(array, &child)) return false;
    while (bson_iter_next(&child)) {
      if (k == n) {
        if (Visit(&child, IterKey(&child))) return true;
        continue;
      }
      bool offset_match = path_.is_index(k) && IterKey(&child) == path_.part(k);
      bson_type_t type = bson_iter_type(&child);
      if (type == BSON_TYPE_DOCUMENT) {
        // The element's own fields first ("a.0.b" over {a: [{"0": {b: 1}}]}), then, when the
        // component is this element's index, the element itself.
        if (FromElement(IterDocument(&child), k, IterKey(&child))) return true;
        if (offset_match) {
          if (k + 1 == n) {
            if (Visit(&child, {})) return true;
          } else if (FromElement(IterDocument(&child), k + 1, IterKey(&child))) {
            return true;
          }
        }
      } else if (offset_match) {
        if (k + 1 == n) {
          if (Visit(&child, {})) return true;
        } else if (type == BSON_TYPE_ARRAY) {
          if (ArrayElements(&child, k + 1)) return true;
        }
      }
    }
    return false;
  }

  const FieldPath& path_;
  LeafArrays leaf_;
  ValueVisitor visit_;
  std::string_view* offset_out_;   // null: offsets are not wanted (the common, fast case)
  std::string_view outer_offset_;  // the outermost array element entered, if any
};

}  // namespace

bool AnyPathValue(BsonView doc, const FieldPath& path, LeafArrays leaf, ValueVisitor visit,
                  std::string_view* array_offset) {
  return Walker(path, leaf, visit, array_offset).FromDocument(doc, 0);
}

}  // namespace cairn::query
