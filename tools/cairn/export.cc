// cairn export: mongoexport's output: one Extended JSON document per line (relaxed by default,
// --jsonFormat canonical keeps every type exactly), a JSON array with --jsonArray, or CSV with
// --type csv --fields (csv.h for the value conventions; a header line unless --noHeaderLine).
#include <iostream>

#include "tools/cairn/bson_util.h"
#include "tools/cairn/commands.h"
#include "tools/cairn/connection.h"
#include "tools/cairn/csv.h"
#include "tools/cairn/progress.h"
#include "tools/cairn/streams.h"

namespace cairn::tools {

namespace {

const char kUsage[] =
    "usage: cairn export [--uri URI | --host H --port P] -d DB -c COLL [-q QUERY] [-o FILE]\n"
    "                    [--type json|csv] [--fields a,b.c] [--jsonArray]\n"
    "                    [--jsonFormat relaxed|canonical] [--sort JSON] [--skip N] [--limit N]\n"
    "                    [--noHeaderLine] [--quiet]\n";

Status Export(const Args& args) {
  std::string db = args.Get("db"), collection = args.Get("collection");
  if (db.empty() || collection.empty()) {
    return Status(ErrorCode::kBadValue, "--db and --collection are required");
  }
  std::string type = args.Get("type", "json");
  if (type != "json" && type != "csv") {
    return Status(ErrorCode::kBadValue, "--type must be json or csv, not '" + type + "'");
  }
  std::string format = args.Get("jsonFormat", "relaxed");
  if (format != "relaxed" && format != "canonical") {
    return Status(ErrorCode::kBadValue, "--jsonFormat must be relaxed or canonical");
  }
  std::vector<std::string> fields = SplitList(args.Get("fields"));
  if (type == "csv" && fields.empty())
    return Status(ErrorCode::kBadValue, "CSV export needs --fields");
  if (type == "csv" && args.Has("jsonArray")) {
    return Status(ErrorCode::kBadValue, "--jsonArray applies to JSON output only");
  }
  BsonPtr query = NewBson(), opts = NewBson();
  if (args.Has("query")) {
    CAIRN_ASSIGN_OR_RETURN(query, BsonFromJson(args.Get("query"), "--query"));
  }
  if (args.Has("sort")) {
    CAIRN_ASSIGN_OR_RETURN(BsonPtr sort, BsonFromJson(args.Get("sort"), "--sort"));
    BSON_APPEND_DOCUMENT(opts.get(), "sort", sort.get());
  }
  long long limit = -1;
  if (args.Has("limit")) {
    CAIRN_ASSIGN_OR_RETURN(limit, ParseCount(args.Get("limit"), "limit"));
    if (limit > 0) BSON_APPEND_INT64(opts.get(), "limit", limit);
  }
  if (args.Has("skip")) {
    CAIRN_ASSIGN_OR_RETURN(long long skip, ParseCount(args.Get("skip"), "skip"));
    BSON_APPEND_INT64(opts.get(), "skip", skip);
  }
  if (!fields.empty()) {
    bson_t projection;
    BSON_APPEND_DOCUMENT_BEGIN(opts.get(), "projection", &projection);
    for (const std::string& f : fields) bson_append_int32(&projection, f.c_str(), -1, 1);
    bson_append_document_end(opts.get(), &projection);
  }
  CAIRN_ASSIGN_OR_RETURN(Client client, Connect(args, "cairn-export"));
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<OutStream> out,
                         OutStream::Open(args.Get("out", "-"), false));
  mongoc_collection_t* coll =
      mongoc_client_get_collection(client.get(), db.c_str(), collection.c_str());
  bson_error_t error;
  int64_t total =
      mongoc_collection_count_documents(coll, query.get(), nullptr, nullptr, nullptr, &error);
  if (limit > 0 && total > limit) total = limit;
  Progress progress(db + "." + collection, total, -1, args.Has("quiet"));
  mongoc_cursor_t* cursor =
      mongoc_collection_find_with_opts(coll, query.get(), opts.get(), nullptr);
  mongoc_collection_destroy(coll);

  bool canonical = format == "canonical", array = args.Has("jsonArray");
  Status status;
  if (type == "csv" && !args.Has("noHeaderLine"))
    status = out->Write(CsvRecord(fields, ',') + "\n");
  if (status.ok() && array) status = out->Write("[");
  const bson_t* doc;
  int64_t n = 0;
  std::string line;
  while (status.ok() && mongoc_cursor_next(cursor, &doc)) {
    if (type == "csv") {
      std::vector<std::string> values;
      for (const std::string& f : fields) {
        bson_iter_t it, found;
        values.push_back(bson_iter_init(&it, doc) &&
                                 bson_iter_find_descendant(&it, f.c_str(), &found)
                             ? CsvValue(&found)
                             : "");
      }
      line = CsvRecord(values, ',') + "\n";
    } else {
      line = (array && n > 0 ? "," : "") + BsonToJson(doc, canonical) + (array ? "" : "\n");
    }
    status = out->Write(line);
    ++n;
    progress.Add(1, doc->len);
  }
  if (status.ok() && mongoc_cursor_error(cursor, &error)) {
    status = Status(ErrorCode::kUnknownError, std::string("reading: ") + error.message);
  }
  mongoc_cursor_destroy(cursor);
  if (status.ok() && array) status = out->Write("]\n");
  if (status.ok()) status = out->Close();
  CAIRN_RETURN_IF_ERROR(status);
  progress.Finish();
  if (!args.Has("quiet")) std::cerr << "exported " << n << " record(s)\n";
  return Status::OK();
}

}  // namespace

int RunExport(const std::vector<std::string>& argv) {
  return RunSubcommand("export", argv,
                       {{"db", "d", ArgKind::kValue},
                        {"collection", "c", ArgKind::kValue},
                        {"query", "q", ArgKind::kValue},
                        {"fields", "f", ArgKind::kValue},
                        {"type", "", ArgKind::kValue},
                        {"jsonArray", "", ArgKind::kFlag},
                        {"jsonFormat", "", ArgKind::kValue},
                        {"noHeaderLine", "", ArgKind::kFlag},
                        {"out", "o", ArgKind::kValue},
                        {"sort", "", ArgKind::kValue},
                        {"skip", "", ArgKind::kValue},
                        {"limit", "", ArgKind::kValue}},
                       kUsage, 0, Export);
}

}  // namespace cairn::tools
