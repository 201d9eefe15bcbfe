// Dotted-path traversal for the matcher: which values a path such as "a.b.0.c" reaches in a
// document, following MongoDB's BSONElementIterator (src/mongo/db/matcher/path.cpp) exactly:
// embedded documents are entered, arrays are traversed element by element, numeric components
// index into arrays (and also name a field "0" of a document), and a branch that ends early
// reaches "missing". Owns nothing but the parsed path; no allocation while traversing.
#pragma once

#include <bson/bson.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/bson_doc.h"

namespace cairn::query {

// A dotted field path split into components. Immutable; cheap to read from several threads.
class FieldPath {
 public:
  FieldPath() = default;
  explicit FieldPath(std::string_view dotted);

  const std::string& dotted() const { return dotted_; }
  size_t size() const { return parts_.size(); }
  std::string_view part(size_t i) const {
    return std::string_view(dotted_).substr(parts_[i].offset, parts_[i].length);
  }
  // True when component i is all digits ("0", "12"): it may index an array.
  bool is_index(size_t i) const { return parts_[i].numeric; }

 private:
  struct Part {
    size_t offset;
    size_t length;
    bool numeric;
  };
  std::string dotted_;
  std::vector<Part> parts_;
};

// Whether a path that ends at an array also reaches each of the array's elements (kTraverse:
// equality, comparisons, $in, $exists, $type...) or only the array itself (kNoTraversal: $size,
// $elemMatch). With kTraverse the array itself is reached last.
enum class LeafArrays { kTraverse, kNoTraversal };

// A non-owning reference to a callable `bool(const bson_iter_t*)`; valid for one call.
class ValueVisitor {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, ValueVisitor>>>
  ValueVisitor(F&& f)  // NOLINT: implicit by design
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, const bson_iter_t* v) {
          return (*static_cast<std::remove_reference_t<F>*>(o))(v);
        }) {}
  bool operator()(const bson_iter_t* value) const { return call_(object_, value); }

 private:
  void* object_;
  bool (*call_)(void*, const bson_iter_t*);
};

// Calls `visit` with every value `path` reaches in `doc`, in MongoDB's order; nullptr stands for
// "missing" (the path ends early on some branch). Stops as soon as `visit` returns true and
// returns true then; false when every value was visited without success. Note that a path
// through an array of scalars ("a.b" over {a: [1, 2]}) reaches nothing at all.
// When `array_offset` is given, it holds, before each visit, the index of the outermost array
// element the path implicitly went through to reach the value (empty when none): MongoDB's
// ElementIterator::Context::arrayOffset, the elemMatchKey of the positional `$`. An index
// named by the path itself ("a.0") is not an implicit traversal.
bool AnyPathValue(BsonView doc, const FieldPath& path, LeafArrays leaf, ValueVisitor visit,
                  std::string_view* array_offset = nullptr);

}  // namespace cairn::query
