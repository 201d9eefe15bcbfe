// The btree key generator (MongoDB's BtreeKeyGenerator semantics, designed from its documented
// behaviour): one recursion level per array met, every field looked up from the same sub-document
// so fields sharing an array prefix stay correlated.
#include "index/key_generator.h"

#include <algorithm>

#include "common/bson_element.h"
#include "index/key_string.h"

namespace cairn::index {

namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

size_t CountParts(std::string_view path) {
  return path.empty() ? 0 : static_cast<size_t>(std::count(path.begin(), path.end(), '.')) + 1;
}

std::string_view Head(std::string_view path) { return path.substr(0, path.find('.')); }
std::string_view Tail(std::string_view path) {
  size_t dot = path.find('.');
  return dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
}

// Where following a path from a document ends.
enum class Reached { kMissing, kValue, kArray };

// Follows `*rest` from `obj` through embedded documents. A component that indexes an existing
// array position ("a.0" over an array) selects that element without expanding the array. Stops
// at an array to expand (kArray; *rest becomes the path after it, possibly empty), at the end
// (kValue), or where the path leaves the document (kMissing). *value is the element reached.
Reached Follow(BsonView obj, std::string_view* rest, bson_iter_t* value) {
  while (true) {
    std::string_view component = Head(*rest);
    std::string_view after = Tail(*rest);
    if (!obj.Find(component, value)) return Reached::kMissing;
    while (BSON_ITER_HOLDS_ARRAY(value) && !after.empty() && AllDigits(Head(after))) {
      bson_iter_t element;
      if (!IterDocument(value).Find(Head(after), &element)) break;  // no such position: expand
      *value = element;
      after = Tail(after);
    }
    if (after.empty()) {
      *rest = after;
      return BSON_ITER_HOLDS_ARRAY(value) ? Reached::kArray : Reached::kValue;
    }
    if (BSON_ITER_HOLDS_ARRAY(value)) {
      *rest = after;
      return Reached::kArray;
    }
    if (!BSON_ITER_HOLDS_DOCUMENT(value)) return Reached::kMissing;
    obj = IterDocument(value);
    *rest = after;
  }
}

class BtreeKeyGenerator final : public KeyGenerator {
 public:
  BtreeKeyGenerator(const KeyPattern& pattern, bool sparse) : sparse_(sparse) {
    for (const KeyField& field : pattern.fields()) {
      paths_.push_back(field.path);
      descending_.push_back(field.descending);
      part_counts_.push_back(field.parts.size());
    }
  }

  Status GetKeys(BsonView doc, KeySet* keys, MultikeyPaths* multikey) const override {
    keys->clear();
    multikey->resize(paths_.size(), 0);
    std::vector<FieldState> states(paths_.size());
    for (size_t i = 0; i < paths_.size(); ++i) states[i].rest = paths_[i];
    CAIRN_RETURN_IF_ERROR(Expand(doc, &states, 0, keys, multikey));
    std::sort(keys->begin(), keys->end());
    keys->erase(std::unique(keys->begin(), keys->end()), keys->end());
    if (keys->empty() && !sparse_) {
      std::string null_key;
      for (bool desc : descending_) AppendNull(&null_key, desc);
      keys->push_back(std::move(null_key));
    }
    return Status::OK();
  }

 private:
  // One key field while its value is being found: the path still to follow, or the value.
  struct FieldState {
    enum class Fixed : uint8_t { kNone, kElement, kNull, kUndefined };
    std::string_view rest;
    Fixed fixed = Fixed::kNone;
    BsonElement element;
  };

  // Looks every unfixed field up from `obj`; with no array met emits one key, else recurses once
  // per element of the (single) array met, the fields that reached it taking that element.
  Status Expand(BsonView obj, std::vector<FieldState>* states, size_t not_found, KeySet* keys,
                MultikeyPaths* multikey) const {
    const uint8_t* array_id = nullptr;
    BsonElement array;
    std::string array_name;
    uint64_t at_array = 0;  // fields that reached the array
    for (size_t i = 0; i < states->size(); ++i) {
      FieldState& state = (*states)[i];
      if (state.fixed != FieldState::Fixed::kNone) continue;
      bson_iter_t value;
      std::string_view rest = state.rest;
      switch (Follow(obj, &rest, &value)) {
        case Reached::kMissing:
          state.fixed = FieldState::Fixed::kNull;
          ++not_found;
          break;
        case Reached::kValue:
          state.fixed = FieldState::Fixed::kElement;
          state.element = BsonElement(&value);
          break;
        case Reached::kArray: {
          const uint8_t* id = value.raw + value.off;
          if (array_id == nullptr) {
            array_id = id;
            array = BsonElement(&value);
            array_name = std::string(IterKey(&value));
          } else if (id != array_id) {
            return Status(ErrorCode::kCannotIndexParallelArrays, "cannot index parallel arrays [" +
                                                                     std::string(IterKey(&value)) +
                                                                     "] [" + array_name + "]");
          }
          state.rest = rest;
          at_array |= uint64_t{1} << i;
          size_t component = part_counts_[i] - CountParts(rest) - 1;
          (*multikey)[i] |= uint64_t{1} << std::min<size_t>(component, 63);
          break;
        }
      }
    }
    if (array_id == nullptr) {
      if (sparse_ && not_found == states->size()) return Status::OK();
      std::string key;
      for (size_t i = 0; i < states->size(); ++i) {
        const FieldState& state = (*states)[i];
        if (state.fixed == FieldState::Fixed::kElement) {
          bson_iter_t it = state.element.iter();
          AppendValue(&key, &it, descending_[i]);
        } else if (state.fixed == FieldState::Fixed::kUndefined) {
          AppendUndefined(&key, descending_[i]);
        } else {
          AppendNull(&key, descending_[i]);
        }
      }
      keys->push_back(std::move(key));
      return Status::OK();
    }
    bson_iter_t array_it = array.iter();
    BsonView elements = IterDocument(&array_it);
    bson_iter_t element;
    bool any = elements.Init(&element) && bson_iter_next(&element);
    if (!any) {
      // An empty array keys as undefined where the path ends at it; a path going on through it
      // reaches nothing (null).
      std::vector<FieldState> next = *states;
      for (size_t i = 0; i < next.size(); ++i) {
        if ((at_array >> i & 1) != 0 && next[i].rest.empty()) {
          next[i].fixed = FieldState::Fixed::kUndefined;
        }
      }
      return Expand(BsonView(), &next, not_found, keys, multikey);
    }
    do {
      std::vector<FieldState> next = *states;
      for (size_t i = 0; i < next.size(); ++i) {
        if ((at_array >> i & 1) != 0 && next[i].rest.empty()) {
          next[i].fixed = FieldState::Fixed::kElement;
          next[i].element = BsonElement(&element);
        }
      }
      BsonView sub = BSON_ITER_HOLDS_DOCUMENT(&element) ? IterDocument(&element) : BsonView();
      CAIRN_RETURN_IF_ERROR(Expand(sub, &next, not_found, keys, multikey));
    } while (bson_iter_next(&element));
    return Status::OK();
  }

  std::vector<std::string> paths_;
  std::vector<bool> descending_;
  std::vector<size_t> part_counts_;
  bool sparse_;
};

}  // namespace

bool IsMultikey(const MultikeyPaths& paths) {
  for (uint64_t bits : paths) {
    if (bits != 0) return true;
  }
  return false;
}

std::unique_ptr<KeyGenerator> MakeBtreeKeyGenerator(const KeyPattern& pattern, bool sparse) {
  return std::make_unique<BtreeKeyGenerator>(pattern, sparse);
}

}  // namespace cairn::index
