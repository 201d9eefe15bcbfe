// LoadJson (load_json.h): libbson parses (bson_json_reader for a stream of documents,
// bson_init_from_json for an array); WireClient sends ordered inserts of at most kBatchDocs
// documents or kBatchBytes bytes, each waited for before the next.
#include "server/net/load_json.h"

#include <cctype>
#include <chrono>
#include <fstream>
#include <sstream>

#include "common/bson_doc.h"
#include "server/net/wire_client.h"

namespace cairn::server {

namespace {

constexpr int kBatchDocs = 1000;
constexpr uint32_t kBatchBytes = 8 * 1024 * 1024;
constexpr std::chrono::milliseconds kConnectTimeout(5000);
constexpr std::chrono::milliseconds kInsertTimeout(120000);

// Sends the inserts; a document's number (1-based) names it in errors.
class BatchInserter {
 public:
  BatchInserter(WireClient& client, std::string db, std::string collection)
      : client_(client), db_(std::move(db)), collection_(std::move(collection)) {}

  Status Add(const bson_t* doc) {
    if (count_ > 0 && (count_ == kBatchDocs || bytes_ + doc->len > kBatchBytes)) {
      CAIRN_RETURN_IF_ERROR(Flush());
    }
    const std::string key = std::to_string(count_++);
    bson_append_document(documents_.get(), key.c_str(), static_cast<int>(key.size()), doc);
    bytes_ += doc->len;
    return Status::OK();
  }

  Status Flush() {
    if (count_ == 0) return Status::OK();
    BsonDoc command;
    AppendUtf8(command.get(), "insert", collection_);
    bson_append_array(command.get(), "documents", -1, documents_.get());
    BSON_APPEND_BOOL(command.get(), "ordered", true);
    AppendUtf8(command.get(), "$db", db_);
    CAIRN_ASSIGN_OR_RETURN(BsonDoc reply, client_.Command(command.view(), kInsertTimeout));
    bson_iter_t it;
    int64_t n = 0;
    if (reply.view().Find("n", &it) && BSON_ITER_HOLDS_NUMBER(&it)) n = bson_iter_as_int64(&it);
    inserted_ += n;
    const int64_t first = inserted_ - n + 1;
    if (!reply.view().Find("ok", &it) || bson_iter_as_double(&it) != 1) {
      return Status(ErrorCode::kBadValue,
                    "inserting documents " + std::to_string(first) + "..: " + reply.ToJson());
    }
    bson_iter_t errors, error;
    if (reply.view().Find("writeErrors", &errors) && BSON_ITER_HOLDS_ARRAY(&errors) &&
        bson_iter_recurse(&errors, &error) && bson_iter_next(&error)) {
      BsonView first_error = IterDocument(&error);
      int64_t index = 0;
      if (first_error.Find("index", &it)) index = bson_iter_as_int64(&it);
      std::string message = first_error.ToJson();
      if (first_error.Find("errmsg", &it) && BSON_ITER_HOLDS_UTF8(&it)) {
        message = std::string(IterUtf8(&it));
      }
      return Status(ErrorCode::kBadValue,
                    "document " + std::to_string(inserted_ - n + index + 1) + ": " + message);
    }
    documents_ = BsonDoc();
    count_ = 0;
    bytes_ = 0;
    return Status::OK();
  }

  int64_t inserted() const { return inserted_; }

 private:
  WireClient& client_;
  std::string db_, collection_;
  BsonDoc documents_;
  int count_ = 0;
  uint32_t bytes_ = 0;
  int64_t inserted_ = 0;
};

// A stream of documents (JSON lines, or documents one after another).
Status LoadStream(const std::string& path, BatchInserter& out) {
  bson_error_t error;
  bson_json_reader_t* reader = bson_json_reader_new_from_file(path.c_str(), &error);
  if (reader == nullptr) return Status(ErrorCode::kBadValue, path + ": " + error.message);
  Status status;
  for (int64_t number = 1;; ++number) {
    bson_t doc = BSON_INITIALIZER;
    const int read = bson_json_reader_read(reader, &doc, &error);
    if (read == 1) status = out.Add(&doc);
    bson_destroy(&doc);
    if (read == 0) break;
    if (read < 0) {
      status = Status(ErrorCode::kFailedToParse,
                      path + ": document " + std::to_string(number) + ": " + error.message);
    }
    if (!status.ok()) break;
  }
  bson_json_reader_destroy(reader);
  return status;
}

// One JSON array of documents (mongoimport --jsonArray).
Status LoadArray(const std::string& path, const std::string& text, BatchInserter& out) {
  const std::string wrapped = "{\"documents\": " + text + "}";
  bson_error_t error;
  bson_t parsed;
  if (!bson_init_from_json(&parsed, wrapped.data(), static_cast<ssize_t>(wrapped.size()), &error)) {
    return Status(ErrorCode::kFailedToParse, path + ": " + error.message);
  }
  const BsonDoc holder{BsonView(&parsed)};
  bson_destroy(&parsed);
  bson_iter_t array, element;
  if (!holder.view().Find("documents", &array) || !BSON_ITER_HOLDS_ARRAY(&array)) {
    return Status(ErrorCode::kFailedToParse, path + ": not a JSON array");
  }
  bson_iter_recurse(&array, &element);
  for (int64_t number = 1; bson_iter_next(&element); ++number) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&element)) {
      return Status(ErrorCode::kFailedToParse, path + ": element " + std::to_string(number) +
                                                   " of the array is not a document");
    }
    const bson_t doc = IterDocument(&element).AsBson();
    CAIRN_RETURN_IF_ERROR(out.Add(&doc));
  }
  return Status::OK();
}

}  // namespace

int LoadJsonFile(const ServerOptions& options, const std::string& ns, const std::string& path,
                 int64_t* inserted, std::string* error) {
  *inserted = 0;
  const size_t dot = ns.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == ns.size()) {
    *error = "\"" + ns + "\" is not a DATABASE.COLLECTION namespace";
    return kLoadJsonFailed;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    *error = "cannot read " + path;
    return kLoadJsonFailed;
  }
  // An array is read whole; a stream is parsed as it is read. The first character decides.
  char first = ' ';
  while (file.get(first) && std::isspace(static_cast<unsigned char>(first))) {
  }
  auto client = WireClient::Connect(LocalServerAddress(options), options.port, kConnectTimeout);
  if (!client.ok()) {
    *error = client.status().reason();
    return kLoadJsonFailed;
  }
  BatchInserter inserter(**client, ns.substr(0, dot), ns.substr(dot + 1));
  Status status;
  if (file && first == '[') {
    std::ostringstream text;
    text << first << file.rdbuf();
    status = LoadArray(path, text.str(), inserter);
  } else {
    status = LoadStream(path, inserter);
  }
  if (status.ok()) status = inserter.Flush();
  *inserted = inserter.inserted();
  if (!status.ok()) {
    *error = status.reason();
    return kLoadJsonFailed;
  }
  return kLoadJsonDone;
}

}  // namespace cairn::server
