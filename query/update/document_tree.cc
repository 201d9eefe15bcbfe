// The mutable document tree and ApplyContext of update_internal.h: expansion of raw values,
// child lookup, serialisation, and value helpers shared by the modifiers.
#include <cstring>

#include "query/update/update_internal.h"

namespace cairn::query::update_internal {

Node Node::FromIter(const bson_iter_t* it) {
  Node node;
  node.type = bson_iter_type(it);
  node.raw = BsonElement(it);
  return node;
}

Node Node::NewDocument() {
  Node node;
  node.type = BSON_TYPE_DOCUMENT;
  node.expanded = true;
  return node;
}

Node Node::NewArray() {
  Node node;
  node.type = BSON_TYPE_ARRAY;
  node.expanded = true;
  return node;
}

void Node::Expand() {
  if (expanded || !IsContainer()) return;
  bson_iter_t child;
  bson_iter_t self = raw.iter();
  if (bson_iter_recurse(&self, &child)) {
    while (bson_iter_next(&child)) {
      kids.emplace_back(std::string(IterKey(&child)), FromIter(&child));
    }
  }
  expanded = true;
}

bool ParseArrayIndex(std::string_view s, size_t* out) {
  if (s.empty() || s.size() > 18) return false;
  size_t value = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<size_t>(c - '0');
  }
  *out = value;
  return true;
}

bool Node::ChildIndex(std::string_view name, size_t* index) {
  if (IsDocument()) {
    Expand();
    for (size_t i = 0; i < kids.size(); ++i) {
      if (kids[i].first == name) {
        *index = i;
        return true;
      }
    }
    return false;
  }
  if (IsArray()) {
    Expand();
    size_t i;
    if (!ParseArrayIndex(name, &i) || i >= kids.size()) return false;
    *index = i;
    return true;
  }
  return false;
}

Node* Node::Child(std::string_view name) {
  size_t index;
  if (!ChildIndex(name, &index)) return nullptr;
  return &kids[index].second;
}

void AppendNode(bson_t* out, std::string_view key, const Node& node) {
  if (!node.expanded) {
    bson_iter_t it = node.raw.iter();
    bson_append_iter(out, key.data(), static_cast<int>(key.size()), &it);
    return;
  }
  bson_t sub;
  if (node.IsArray()) {
    bson_append_array_begin(out, key.data(), static_cast<int>(key.size()), &sub);
    uint32_t index = 0;
    for (const auto& [name, kid] : node.kids) {
      const char* k;
      char buf[16];
      size_t len = bson_uint32_to_string(index++, &k, buf, sizeof buf);
      AppendNode(&sub, std::string_view(k, len), kid);
    }
    bson_append_array_end(out, &sub);
  } else {
    bson_append_document_begin(out, key.data(), static_cast<int>(key.size()), &sub);
    for (const auto& [name, kid] : node.kids) AppendNode(&sub, name, kid);
    bson_append_document_end(out, &sub);
  }
}

std::string JoinPath(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += '.';
    out += parts[i];
  }
  return out;
}

ApplyContext::ApplyContext(BsonView original, bool is_upsert_insert)
    : is_upsert_insert_(is_upsert_insert) {
  root_ = Node::NewDocument();
  bson_iter_t it;
  if (original.Init(&it)) {
    while (bson_iter_next(&it)) {
      root_.kids.emplace_back(std::string(IterKey(&it)), Node::FromIter(&it));
    }
  }
}

Node ApplyContext::Null() {
  return MakeValue([](bson_t* doc, const char* key) { bson_append_null(doc, key, -1); });
}

bson_iter_t ApplyContext::IterOf(const Node& node) {
  if (!node.expanded) return node.raw.iter();
  BsonDoc& doc = arena_.emplace_back();
  AppendNode(doc.get(), "v", node);
  bson_iter_t it;
  bson_iter_init(&it, doc.get());
  bson_iter_next(&it);
  return it;
}

std::string ApplyContext::Shell(const Node& node) {
  bson_iter_t it = IterOf(node);
  return ValueToShellString(&it);
}

std::string ApplyContext::IdForMessage() {
  Node* id = root_.Child("_id");
  if (id == nullptr) return "no id";
  return "_id: " + Shell(*id);
}

Result<Node> Modifier::NewValue(ApplyContext& ctx) const {
  return Status(ErrorCode::kInternalError, "modifier does not create values");
}

Status Modifier::ApplyAtSite(ApplyContext& ctx, const LeafSite& site, bool* changed) const {
  return Status(ErrorCode::kInternalError, "modifier does not apply at a site");
}

namespace {

// The bytes of one value: type byte followed by the value's encoding.
std::string ValueBytes(const bson_iter_t* it) {
  bson_t doc = BSON_INITIALIZER;
  bson_append_iter(&doc, "", 0, it);
  const uint8_t* data = bson_get_data(&doc);
  // Layout: int32 length, type byte, "" + NUL, value..., trailing NUL.
  std::string out(reinterpret_cast<const char*>(data) + 4, doc.len - 5);
  bson_destroy(&doc);
  return out;
}

}  // namespace

bool BinaryEqualValues(const bson_iter_t* a, const bson_iter_t* b) {
  if (bson_iter_type(a) != bson_iter_type(b)) return false;
  return ValueBytes(a) == ValueBytes(b);
}

std::string ElementToString(std::string_view key, const bson_iter_t* value) {
  return std::string(key) + ": " + ValueToShellString(value);
}

std::shared_ptr<const StringComparator> ModifierArg::collator() const {
  return context != nullptr ? context->shared_collator() : nullptr;
}

}  // namespace cairn::query::update_internal
