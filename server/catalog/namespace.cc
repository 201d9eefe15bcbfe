// Database and collection naming rules.
#include "server/catalog/namespace.h"

namespace cairn::server {

namespace {
constexpr size_t kMaxDatabaseNameLength = 64;  // MongoDB: "db name must be at most 63 characters"
constexpr size_t kMaxNamespaceLength = 255;
}  // namespace

Status ValidateDatabaseName(std::string_view db) {
  if (db.empty()) return Status(ErrorCode::kInvalidNamespace, "Invalid empty database name");
  if (db.size() >= kMaxDatabaseNameLength) {
    return Status(ErrorCode::kInvalidNamespace,
                  "db name must be at most 63 characters, found: " + std::to_string(db.size()));
  }
  for (char c : db) {
    switch (c) {
      case '/':
      case '\\':
      case '.':
      case '"':
      case '$':
      case '*':
      case '<':
      case '>':
      case ':':
      case '|':
      case '?':
      case ' ':
      case '\0':
        return Status(ErrorCode::kInvalidNamespace,
                      "Invalid database name: '" + std::string(db) + "'");
      default:
        break;
    }
  }
  return Status::OK();
}

Status ValidateCollectionName(std::string_view db, std::string_view collection) {
  CAIRN_RETURN_IF_ERROR(ValidateDatabaseName(db));
  std::string ns = std::string(db) + "." + std::string(collection);
  if (collection.empty() || collection.find('\0') != std::string_view::npos ||
      collection.find('$') != std::string_view::npos || collection.front() == '.') {
    return Status(ErrorCode::kInvalidNamespace, "Invalid namespace specified '" + ns + "'");
  }
  if (collection.substr(0, 7) == "system.") {
    return Status(ErrorCode::kInvalidNamespace, "Invalid system namespace: " + ns);
  }
  if (ns.size() > kMaxNamespaceLength) {
    return Status(ErrorCode::kInvalidNamespace,
                  "Fully qualified namespace is too long. Namespace: " + ns + " Max: 255");
  }
  return Status::OK();
}

Status ValidateReadableCollectionName(std::string_view db, std::string_view collection) {
  if (collection == "system.profile") return ValidateDatabaseName(db);
  return ValidateCollectionName(db, collection);
}

}  // namespace cairn::server
