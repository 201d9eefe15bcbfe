// Update::SeedFromFilter: the document an upsert starts from, built from the filter's equality
// predicates as MongoDB's UpdateDriver::populateDocumentWithQueryFields does after query
// canonicalisation: top-level {a: v} and {a: {$eq: v}}, a single-valued $in, the values of $all,
// all of these inside top-level $and (and a one-clause $or, which canonicalisation unwraps).
// Paths are set in sorted order (dotted paths create embedded documents), _id first.
#include <algorithm>
#include <optional>

#include "common/bson_compare.h"
#include "query/update/update.h"
#include "query/update/update_internal.h"

namespace cairn::query {

using update_internal::AppendNode;
using update_internal::Node;

namespace {

struct Equality {
  Equality(std::string p, const bson_iter_t& v) : path(std::move(p)), value(&v) {}
  std::string path;
  BsonElement value;  // not a bson_iter_t: see common/bson_element.h
};

bool IsOperatorDocument(const bson_iter_t* it) {
  if (!BSON_ITER_HOLDS_DOCUMENT(it)) return false;
  bson_iter_t first;
  BsonView doc = IterDocument(it);
  return doc.Init(&first) && bson_iter_next(&first) && !IterKey(&first).empty() &&
         IterKey(&first)[0] == '$';
}

void CollectFromOperators(std::string_view path, const bson_iter_t* ops,
                          std::vector<Equality>* out) {
  bson_iter_t op;
  if (!bson_iter_recurse(ops, &op)) return;
  while (bson_iter_next(&op)) {
    std::string_view name = IterKey(&op);
    if (name == "$eq") {
      out->push_back({std::string(path), op});
    } else if (name == "$in" && BSON_ITER_HOLDS_ARRAY(&op)) {
      // A $in whose distinct values are one (and not a regex) is optimised into an equality.
      bson_iter_t item;
      bson_iter_recurse(&op, &item);
      bson_iter_t single;  // a plain local, not std::optional (see common/bson_element.h)
      bool has_single = false;
      bool ok = true;
      while (bson_iter_next(&item)) {
        if (BSON_ITER_HOLDS_REGEX(&item)) {
          ok = false;
          break;
        }
        if (!has_single) {
          single = item;
          has_single = true;
        } else if (CompareValues(&single, &item) != 0) {
          ok = false;
          break;
        }
      }
      if (ok && has_single) out->push_back({std::string(path), single});
    } else if (name == "$all" && BSON_ITER_HOLDS_ARRAY(&op)) {
      // {$all: [x, y]} is an $and of equalities (regexes and $elemMatch clauses aside).
      bson_iter_t item;
      bson_iter_recurse(&op, &item);
      while (bson_iter_next(&item)) {
        if (BSON_ITER_HOLDS_REGEX(&item)) continue;
        if (BSON_ITER_HOLDS_DOCUMENT(&item)) {
          bson_iter_t inner;
          if (IterDocument(&item).Find("$elemMatch", &inner)) continue;
        }
        out->push_back({std::string(path), item});
      }
    }
  }
}

void Collect(BsonView filter, std::vector<Equality>* out) {
  bson_iter_t it;
  if (!filter.Init(&it)) return;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (!key.empty() && key[0] == '$') {
      if ((key == "$and" || key == "$or") && BSON_ITER_HOLDS_ARRAY(&it)) {
        BsonView clauses = IterDocument(&it);
        if (key == "$or" && clauses.CountKeys() != 1) continue;
        bson_iter_t clause;
        clauses.Init(&clause);
        while (bson_iter_next(&clause)) {
          if (BSON_ITER_HOLDS_DOCUMENT(&clause)) Collect(IterDocument(&clause), out);
        }
      }
      continue;
    }
    if (IsOperatorDocument(&it)) {
      CollectFromOperators(key, &it, out);
    } else if (!BSON_ITER_HOLDS_REGEX(&it)) {
      out->push_back({std::string(key), it});
    }
  }
}

// True when `prefix` is `path` or a component-wise prefix of it.
bool IsPathPrefix(const std::string& prefix, const std::string& path) {
  if (prefix.size() > path.size()) return false;
  if (path.compare(0, prefix.size(), prefix) != 0) return false;
  return prefix.size() == path.size() || path[prefix.size()] == '.';
}

}  // namespace

Result<BsonDoc> Update::SeedFromFilter(BsonView filter) {
  std::vector<Equality> equalities;
  Collect(filter, &equalities);
  std::stable_sort(equalities.begin(), equalities.end(),
                   [](const Equality& a, const Equality& b) { return a.path < b.path; });
  for (size_t i = 0; i < equalities.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      const std::string& earlier = equalities[j].path;
      const std::string& path = equalities[i].path;
      if (!IsPathPrefix(earlier, path)) continue;
      if (earlier == path) {
        return Status(ErrorCode::kNotSingleValueField,
                      "cannot infer query fields to set, path '" + path + "' is matched twice");
      }
      return Status(ErrorCode::kNotSingleValueField,
                    "cannot infer query fields to set, both paths '" + path + "' and '" + earlier +
                        "' are matched");
    }
  }

  Node root = Node::NewDocument();
  for (const Equality& eq : equalities) {
    std::vector<std::string> parts = SplitDottedPath(eq.path);
    Node* current = &root;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      Node* next = current->Child(parts[i]);
      if (next == nullptr || !next->IsDocument()) {
        current->kids.emplace_back(parts[i], Node::NewDocument());
        next = &current->kids.back().second;
      }
      current = next;
    }
    bson_iter_t value = eq.value.iter();
    current->kids.emplace_back(parts.back(), Node::FromIter(&value));
  }

  BsonDoc seed;
  for (const auto& [name, kid] : root.kids) {
    if (name == "_id") AppendNode(seed.get(), name, kid);
  }
  for (const auto& [name, kid] : root.kids) {
    if (name != "_id") AppendNode(seed.get(), name, kid);
  }
  return seed;
}

}  // namespace cairn::query
