// CSV/TSV writing, reading and mongoimport's type inference.
#include "tools/cairn/csv.h"

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <utility>

#include "tools/cairn/bson_util.h"

namespace cairn::tools {

namespace {

// Relaxed Extended JSON of one value: libbson renders documents, so wrap it in {"v": ...}.
std::string ValueJson(const bson_iter_t* value) {
  BsonPtr wrapper = NewBson();
  bson_append_iter(wrapper.get(), "v", 1, value);
  std::string json = BsonToJson(wrapper.get(), false);
  const std::string prefix = "{ \"v\" : ";
  if (json.rfind(prefix, 0) == 0 && json.size() >= prefix.size() + 2) {
    return json.substr(prefix.size(), json.size() - prefix.size() - 2);
  }
  return json;
}

std::string IsoDate(int64_t millis) {
  int64_t seconds = millis / 1000;
  int64_t ms = millis % 1000;
  if (ms < 0) {
    ms += 1000;
    --seconds;
  }
  auto t = static_cast<time_t>(seconds);
  struct tm tm;
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

void AppendTyped(bson_t* doc, const std::string& key, const std::string& text) {
  if (!text.empty()) {
    errno = 0;
    char* end = nullptr;
    long long integer = std::strtoll(text.c_str(), &end, 10);
    if (errno == 0 && *end == '\0' && text.find_first_of(" \t") == std::string::npos) {
      if (integer >= INT32_MIN && integer <= INT32_MAX) {
        bson_append_int32(doc, key.c_str(), -1, static_cast<int32_t>(integer));
      } else {
        bson_append_int64(doc, key.c_str(), -1, integer);
      }
      return;
    }
    errno = 0;
    double number = std::strtod(text.c_str(), &end);
    bool plain = text.find_first_not_of("0123456789.eE+-") == std::string::npos;
    if (errno == 0 && *end == '\0' && plain) {
      bson_append_double(doc, key.c_str(), -1, number);
      return;
    }
  }
  bson_append_utf8(doc, key.c_str(), -1, text.data(), static_cast<int>(text.size()));
}

// Appends `fields` (path, value) to `doc`, grouping the paths that share a first component
// into one subdocument, in the order the first of them appears.
void AppendNested(bson_t* doc,
                  const std::vector<std::pair<std::string, const std::string*>>& fields) {
  std::vector<std::string> done;
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string& path = fields[i].first;
    std::string head = path.substr(0, path.find('.'));
    bool seen = false;
    for (const std::string& d : done) seen = seen || d == head;
    if (seen) continue;
    done.push_back(head);
    std::vector<std::pair<std::string, const std::string*>> children;
    const std::string* leaf = nullptr;
    for (size_t j = i; j < fields.size(); ++j) {
      const std::string& other = fields[j].first;
      std::string other_head = other.substr(0, other.find('.'));
      if (other_head != head) continue;
      if (other.size() == head.size()) {
        leaf = fields[j].second;
      } else {
        children.emplace_back(other.substr(head.size() + 1), fields[j].second);
      }
    }
    if (children.empty()) {
      AppendTyped(doc, head, *leaf);
    } else {
      bson_t child;
      bson_append_document_begin(doc, head.c_str(), -1, &child);
      AppendNested(&child, children);
      bson_append_document_end(doc, &child);
    }
  }
}

}  // namespace

std::string CsvValue(const bson_iter_t* value) {
  switch (bson_iter_type(value)) {
    case BSON_TYPE_UTF8: {
      uint32_t length = 0;
      const char* s = bson_iter_utf8(value, &length);
      return std::string(s, length);
    }
    case BSON_TYPE_OID: {
      char hex[25];
      bson_oid_to_string(bson_iter_oid(value), hex);
      return std::string("ObjectId(") + hex + ")";
    }
    case BSON_TYPE_DATE_TIME:
      return IsoDate(bson_iter_date_time(value));
    case BSON_TYPE_BOOL:
      return bson_iter_bool(value) ? "true" : "false";
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED:
      return "";
    default:
      return ValueJson(value);
  }
}

std::string CsvRecord(const std::vector<std::string>& fields, char separator) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += separator;
    const std::string& f = fields[i];
    if (separator == ',' && f.find_first_of(",\"\r\n") != std::string::npos) {
      out += '"';
      for (char c : f) {
        if (c == '"') out += '"';
        out += c;
      }
      out += '"';
    } else {
      out += f;
    }
  }
  return out;
}

Result<bool> ReadCsvRecord(LineReader* in, char separator, std::vector<std::string>* fields,
                           int64_t* line) {
  fields->clear();
  char c;
  CAIRN_ASSIGN_OR_RETURN(bool any, in->Peek(&c));
  if (!any) return false;
  *line = in->line();
  std::string field;
  bool quoted = false, was_quoted = false;
  for (;;) {
    CAIRN_ASSIGN_OR_RETURN(bool more, in->Get(&c));
    if (!more) {
      if (quoted) {
        return Status(ErrorCode::kFailedToParse,
                      "line " + std::to_string(*line) + ": a quoted field is not closed");
      }
      break;
    }
    if (quoted) {
      if (c == '"') {
        char next;
        CAIRN_ASSIGN_OR_RETURN(bool has_next, in->Peek(&next));
        if (has_next && next == '"') {
          CAIRN_RETURN_IF_ERROR(in->Get(&next).status());
          field += '"';
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
      continue;
    }
    if (c == '"' && separator == ',' && field.empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (c == separator) {
      fields->push_back(std::move(field));
      field.clear();
      was_quoted = false;
    } else if (c == '\n') {
      break;
    } else if (c != '\r') {
      field += c;
    }
  }
  fields->push_back(std::move(field));
  return true;
}

void AppendCsvFields(bson_t* doc, const std::vector<std::string>& names,
                     const std::vector<std::string>& values, bool ignore_blanks) {
  std::vector<std::pair<std::string, const std::string*>> fields;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    if (ignore_blanks && values[i].empty()) continue;
    fields.emplace_back(names[i], &values[i]);
  }
  AppendNested(doc, fields);
}

}  // namespace cairn::tools
