// Key patterns: splitting, MongoDB's creation-time validation, default names.
#include "index/key_pattern.h"

#include <cmath>

#include "common/field_path.h"

namespace cairn::index {

namespace {

Status CannotCreate(std::string reason) {
  return Status(ErrorCode::kCannotCreateIndex, std::move(reason));
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A number as the shell prints it inside a default index name: integers without a decimal
// point (1, -1), other doubles shortest ("1.5").
std::string NumberForName(const bson_iter_t* it) {
  if (BSON_ITER_HOLDS_INT32(it) || BSON_ITER_HOLDS_INT64(it)) {
    return std::to_string(bson_iter_as_int64(it));
  }
  double d = 0;
  IterAsDouble(it, &d);
  if (std::trunc(d) == d && std::fabs(d) < 1e15) return std::to_string(static_cast<int64_t>(d));
  return ValueToShellString(it);
}

}  // namespace

std::string PluginName(BsonView pattern) {
  bson_iter_t it;
  if (!pattern.Init(&it)) return {};
  while (bson_iter_next(&it)) {
    if (BSON_ITER_HOLDS_UTF8(&it)) return std::string(IterUtf8(&it));
    std::string_view name = IterKey(&it);
    if (name == "$**" || name.ends_with(".$**")) return "wildcard";
  }
  return {};
}

bool KindOfPlugin(std::string_view plugin, IndexKind* kind) {
  if (plugin.empty()) {
    *kind = IndexKind::kBtree;
  } else if (plugin == "text") {
    *kind = IndexKind::kText;
  } else if (plugin == "hashed") {
    *kind = IndexKind::kHashed;
  } else if (plugin == "2d") {
    *kind = IndexKind::k2d;
  } else if (plugin == "2dsphere") {
    *kind = IndexKind::k2dsphere;
  } else if (plugin == "columnstore") {
    *kind = IndexKind::kColumnstore;
  } else if (plugin == "wildcard") {
    *kind = IndexKind::kWildcard;
  } else {
    return false;
  }
  return true;
}

Status ValidateKeyPattern(BsonView pattern) {
  if (pattern.size() > 2048) return CannotCreate("Index key pattern too large.");
  if (pattern.empty()) return CannotCreate("Index keys cannot be empty.");
  std::string plugin = PluginName(pattern);
  const bool wildcard = plugin == "wildcard";
  IndexKind kind;
  if (!plugin.empty() && plugin != "geoHaystack" && !KindOfPlugin(plugin, &kind)) {
    return CannotCreate("Unknown index plugin '" + plugin + "'");
  }
  if (plugin == "geoHaystack") {
    return CannotCreate("GeoHaystack indexes cannot be created in version 5.0 and above");
  }
  if (pattern.CountKeys() > kMaxKeyPatternFields) {
    return Status(ErrorCode::kLocation13103, "too many compound keys");
  }
  bson_iter_t it;
  pattern.Init(&it);
  while (bson_iter_next(&it)) {
    if (IterIsNumber(&it)) {
      double value = 0;
      IterAsDouble(&it, &value);
      if (std::isnan(value)) return CannotCreate("Values in the index key pattern cannot be NaN.");
      if (value == 0.0) return CannotCreate("Values in the index key pattern cannot be 0.");
    } else if (!BSON_ITER_HOLDS_UTF8(&it)) {
      return CannotCreate("Values in v:2 index key pattern cannot be of type " +
                          std::string(BsonTypeName(bson_iter_type(&it))) +
                          ". Only numbers > 0, numbers < 0, and strings are allowed.");
    }
    if (BSON_ITER_HOLDS_UTF8(&it) && IterUtf8(&it) != plugin) {
      return CannotCreate("Can't use more than one index plugin for a single index.");
    }
    if (BSON_ITER_HOLDS_UTF8(&it) && IterUtf8(&it) == "wildcard") {
      return CannotCreate(
          "The key pattern value for an 'wildcard' index must be a non-zero number, not a string.");
    }
    std::string_view name = IterKey(&it);
    std::vector<std::string> parts = SplitDottedPath(name);
    if (name.empty()) return CannotCreate("Index keys cannot be an empty field.");
    if (name == "$**" && (IterIsNumber(&it) || plugin == "text" || plugin == "columnstore")) {
      continue;
    }
    if (name == "_fts" && plugin != "text") {
      return CannotCreate("Index key contains an illegal field name: '_fts'");
    }
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string& part = parts[i];
      if (part.empty()) return CannotCreate("Index keys cannot contain an empty field.");
      if (part[0] != '$') continue;
      bool dbref = i != 0 && (part == "$db" || part == "$id" || part == "$ref");
      bool wildcard_tail = wildcard && i == parts.size() - 1 && part == "$**";
      if (!dbref && !wildcard_tail) {
        return CannotCreate(
            "Index key contains an illegal field name: field name starts with '$'.");
      }
    }
  }
  return Status::OK();
}

bool IsIdIndexPattern(BsonView pattern) {
  bson_iter_t it;
  if (!pattern.Init(&it) || !bson_iter_next(&it) || IterKey(&it) != "_id") return false;
  double value = 0;
  // mongod's numberInt() == 1: a value that truncates to 1 (checked without casting an
  // out-of-range double to int).
  if (!IterAsDouble(&it, &value) || !(value >= 1.0 && value < 2.0)) return false;
  return !bson_iter_next(&it);
}

std::string DefaultIndexName(BsonView pattern) {
  std::string name;
  bson_iter_t it;
  if (!pattern.Init(&it)) return name;
  while (bson_iter_next(&it)) {
    if (!name.empty()) name += '_';
    name += IterKey(&it);
    name += '_';
    if (BSON_ITER_HOLDS_UTF8(&it)) {
      name += IterUtf8(&it);
    } else if (IterIsNumber(&it)) {
      name += NumberForName(&it);
    } else {
      name += ValueToShellString(&it);
    }
  }
  return name;
}

Result<KeyPattern> KeyPattern::Parse(BsonView pattern) {
  KeyPattern out;
  out.bytes_.assign(reinterpret_cast<const char*>(pattern.data()), pattern.size());
  std::string plugin = PluginName(pattern);
  if (!KindOfPlugin(plugin, &out.kind_)) {
    return CannotCreate("Unknown index plugin '" + plugin + "'");
  }
  bson_iter_t it;
  if (!out.pattern().Init(&it)) return CannotCreate("Index keys cannot be empty.");
  while (bson_iter_next(&it)) {
    KeyField field;
    field.path = std::string(IterKey(&it));
    field.parts = SplitDottedPath(field.path);
    for (const std::string& part : field.parts) {
      if (AllDigits(part)) field.has_positional_part = true;
    }
    double direction = 1;
    if (IterIsNumber(&it)) {
      IterAsDouble(&it, &direction);
    } else if (!BSON_ITER_HOLDS_UTF8(&it)) {
      return CannotCreate("Index keys must have numeric type or string type.");
    }
    field.descending = direction < 0;
    out.descending_.push_back(field.descending);
    out.fields_.push_back(std::move(field));
  }
  if (out.fields_.empty()) return CannotCreate("Index keys cannot be empty.");
  return out;
}

}  // namespace cairn::index
