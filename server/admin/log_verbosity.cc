// log_verbosity.h: logComponentVerbosity's nested document, both ways.
#include "server/admin/log_verbosity.h"

#include <string_view>

#include "common/bson_doc.h"
#include "common/logging.h"

namespace cairn::server {

namespace {

std::string Join(std::string_view prefix, std::string_view name) {
  if (prefix.empty()) return std::string(name);
  if (name.empty()) return std::string(prefix);
  return std::string(prefix) + "." + std::string(name);
}

Status ParseLevels(const bson_iter_t* value, const std::string& path, LogVerbosityChanges* out) {
  const std::string where = Join("logComponentVerbosity", path);
  if (BSON_ITER_HOLDS_NUMBER(value)) {  // a component given as a bare number: its verbosity
    out->emplace_back(path, static_cast<int>(bson_iter_as_int64(value)));
    return Status::OK();
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(value)) {
    return Status(ErrorCode::kBadValue, "Expected " + where + " to be a document or a number");
  }
  bson_iter_t child;
  bson_iter_recurse(value, &child);
  while (bson_iter_next(&child)) {
    const std::string_view name(bson_iter_key(&child), bson_iter_key_len(&child));
    if (name == "verbosity") {
      if (!BSON_ITER_HOLDS_NUMBER(&child)) {
        return Status(ErrorCode::kBadValue, "Expected " + where + ".verbosity to be a number");
      }
      const int level = static_cast<int>(bson_iter_as_int64(&child));
      if (path.empty() && level < 0) {
        return Status(ErrorCode::kBadValue,
                      "Invalid value for logComponentVerbosity.verbosity: must be at least 0");
      }
      out->emplace_back(path, level);
      continue;
    }
    const std::string component = Join(path, name);
    int ignored;
    if (!logging::ComponentVerbosity(component, &ignored)) {
      return Status(ErrorCode::kBadValue, "Invalid component name " + Join(where, name));
    }
    CAIRN_RETURN_IF_ERROR(ParseLevels(&child, component, out));
  }
  return Status::OK();
}

// Appends {verbosity, children...} of `component` ("" for the whole tree).
void AppendComponent(bson_t* out, std::string_view component) {
  int level = logging::GlobalVerbosity();
  if (!component.empty()) logging::ComponentVerbosity(component, &level);
  BSON_APPEND_INT32(out, "verbosity", level);
  for (std::string_view child : logging::LogComponents()) {
    const size_t dot = child.rfind('.');
    const std::string_view parent =
        dot == std::string_view::npos ? std::string_view() : child.substr(0, dot);
    if (parent != component) continue;
    const std::string_view name = dot == std::string_view::npos ? child : child.substr(dot + 1);
    bson_t sub;
    bson_append_document_begin(out, name.data(), static_cast<int>(name.size()), &sub);
    AppendComponent(&sub, child);
    bson_append_document_end(out, &sub);
  }
}

}  // namespace

Result<LogVerbosityChanges> ParseLogComponentVerbosity(const bson_iter_t* value) {
  if (!BSON_ITER_HOLDS_DOCUMENT(value)) {
    return Status(ErrorCode::kBadValue, "log component verbosity is not a BSON object");
  }
  LogVerbosityChanges changes;
  CAIRN_RETURN_IF_ERROR(ParseLevels(value, "", &changes));
  return changes;
}

void ApplyLogVerbosity(const LogVerbosityChanges& changes) {
  for (const auto& [component, level] : changes) {
    if (component.empty()) {
      logging::SetGlobalVerbosity(level);
    } else {
      logging::SetComponentVerbosity(component, level);
    }
  }
}

void AppendLogComponentVerbosity(bson_t* out, const char* field) {
  bson_t doc;
  BSON_APPEND_DOCUMENT_BEGIN(out, field, &doc);
  AppendComponent(&doc, "");
  bson_append_document_end(out, &doc);
}

}  // namespace cairn::server
