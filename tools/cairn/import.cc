// cairn import: mongoimport's input: Extended JSON documents (canonical or relaxed, one per line
// or spread over lines), a JSON array with --jsonArray, or CSV/TSV with --fields or
// --headerline. A bad document is reported by its line ("line 7: ...") and skipped; with
// --stopOnError the first failure (bad input or a refused insert) ends the run with exit
// status 1. Inserts go in batches (inserter.h). Only --mode insert exists.
#include <filesystem>
#include <iostream>

#include "tools/cairn/bson_util.h"
#include "tools/cairn/commands.h"
#include "tools/cairn/connection.h"
#include "tools/cairn/csv.h"
#include "tools/cairn/inserter.h"
#include "tools/cairn/json_splitter.h"
#include "tools/cairn/line_reader.h"
#include "tools/cairn/progress.h"
#include "tools/cairn/streams.h"

namespace cairn::tools {

namespace {

const char kUsage[] =
    "usage: cairn import [--uri URI | --host H --port P] [-d DB] [-c COLL] [--file FILE]\n"
    "                    [--type json|csv|tsv] [--jsonArray] [--fields a,b | --headerline]\n"
    "                    [--ignoreBlanks] [--drop] [--stopOnError] [--mode insert] [--quiet]\n"
    "Reads stdin without --file. -d defaults to test, -c to the file's name without extension.\n";

// Where a parse failure goes: reported, counted, and fatal with --stopOnError.
Status BadInput(Inserter* inserter, bool stop, int64_t line, const std::string& why) {
  std::string message = "line " + std::to_string(line) + ": " + why;
  inserter->CountFailure();
  if (stop) return Status(ErrorCode::kFailedToParse, message);
  std::cerr << message << "\n";
  return Status::OK();
}

Status ImportJson(LineReader* reader, bool array, bool stop, Inserter* inserter) {
  JsonSplitter splitter(reader, array);
  std::string text;
  int64_t line = 0;
  for (;;) {
    CAIRN_ASSIGN_OR_RETURN(JsonSplitter::Kind kind, splitter.Next(&text, &line));
    if (kind == JsonSplitter::Kind::kEnd) return Status::OK();
    if (kind == JsonSplitter::Kind::kBad) {
      CAIRN_RETURN_IF_ERROR(BadInput(inserter, stop, line, text));
      continue;
    }
    bson_error_t error;
    bson_t doc;
    if (!bson_init_from_json(&doc, text.data(), static_cast<ssize_t>(text.size()), &error)) {
      CAIRN_RETURN_IF_ERROR(BadInput(inserter, stop, line, error.message));
      continue;
    }
    Status status = inserter->Add(bson_get_data(&doc), doc.len, line);
    bson_destroy(&doc);
    CAIRN_RETURN_IF_ERROR(status);
  }
}

Status ImportCsv(LineReader* reader, char separator, std::vector<std::string> names,
                 bool headerline, bool ignore_blanks, bool stop, Inserter* inserter) {
  std::vector<std::string> values;
  int64_t line = 0;
  if (headerline) {
    CAIRN_ASSIGN_OR_RETURN(bool any, ReadCsvRecord(reader, separator, &values, &line));
    if (!any) return Status::OK();
    names = values;
  }
  for (const std::string& name : names) {
    if (name.empty()) return Status(ErrorCode::kBadValue, "a field name is empty");
  }
  for (;;) {
    Result<bool> more = ReadCsvRecord(reader, separator, &values, &line);
    if (!more.ok()) {
      inserter->CountFailure();  // an unclosed quote: nothing after it can be read
      return more.status();
    }
    if (!*more) return Status::OK();
    if (values.size() == 1 && values[0].empty()) continue;  // a blank line
    if (values.size() > names.size()) {
      CAIRN_RETURN_IF_ERROR(BadInput(inserter, stop, line,
                                     std::to_string(values.size()) + " fields, but only " +
                                         std::to_string(names.size()) + " field names"));
      continue;
    }
    BsonPtr doc = NewBson();
    AppendCsvFields(doc.get(), names, values, ignore_blanks);
    CAIRN_RETURN_IF_ERROR(inserter->Add(bson_get_data(doc.get()), doc->len, line));
  }
}

Status Import(const Args& args) {
  std::string mode = args.Get("mode", "insert");
  if (mode != "insert") {
    return Status(ErrorCode::kBadValue,
                  "--mode " + mode + " is not supported: cairn import only inserts");
  }
  std::string type = args.Get("type", "json");
  if (type != "json" && type != "csv" && type != "tsv") {
    return Status(ErrorCode::kBadValue, "--type must be json, csv or tsv, not '" + type + "'");
  }
  std::vector<std::string> fields = SplitList(args.Get("fields"));
  bool headerline = args.Has("headerline");
  if (type == "json" && (!fields.empty() || headerline)) {
    return Status(ErrorCode::kBadValue, "--fields and --headerline apply to csv and tsv only");
  }
  if (type != "json" && fields.empty() == !headerline) {
    return Status(ErrorCode::kBadValue, "CSV and TSV import need either --fields or --headerline");
  }
  if (type != "json" && args.Has("jsonArray")) {
    return Status(ErrorCode::kBadValue, "--jsonArray applies to JSON input only");
  }
  std::string file = args.Get("file");
  if (file.empty() && args.positional().size() == 1) file = args.positional()[0];
  std::string collection = args.Get("collection");
  if (collection.empty() && !file.empty()) collection = std::filesystem::path(file).stem().string();
  if (collection.empty()) return Status(ErrorCode::kBadValue, "reading stdin needs --collection");
  std::string db = args.Get("db", "test");
  bool stop = args.Has("stopOnError");

  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<InStream> in,
                         InStream::Open(file.empty() ? "-" : file, false));
  CAIRN_ASSIGN_OR_RETURN(Client client, Connect(args, "cairn-import"));
  if (args.Has("drop")) {
    BsonPtr cmd = NewBson();
    BSON_APPEND_UTF8(cmd.get(), "drop", collection.c_str());
    Status dropped = RunCommand(client.get(), db, cmd.get());
    if (!dropped.ok() && dropped.reason().find("ns not found") == std::string::npos) return dropped;
  }
  // A file's size gives the ETA (stdin's is unknown).
  std::error_code ec;
  int64_t size = file.empty() ? -1 : static_cast<int64_t>(std::filesystem::file_size(file, ec));
  Progress progress(db + "." + collection, -1, ec ? -1 : size, args.Has("quiet"));
  Inserter inserter(client.get(), db, collection, stop, "line", &progress);
  LineReader reader(in.get(), &progress);
  Status status = type == "json" ? ImportJson(&reader, args.Has("jsonArray"), stop, &inserter)
                                 : ImportCsv(&reader, type == "csv" ? ',' : '\t', fields,
                                             headerline, args.Has("ignoreBlanks"), stop, &inserter);
  // The documents read before a --stopOnError failure still go in, as mongoimport's do.
  Status flushed = inserter.Flush();
  if (status.ok()) status = flushed;
  progress.Finish();
  std::cerr << inserter.inserted() << " document(s) imported successfully. " << inserter.failed()
            << " document(s) failed to import.\n";
  return status;
}

}  // namespace

int RunImport(const std::vector<std::string>& argv) {
  return RunSubcommand("import", argv,
                       {{"db", "d", ArgKind::kValue},
                        {"collection", "c", ArgKind::kValue},
                        {"file", "", ArgKind::kValue},
                        {"type", "", ArgKind::kValue},
                        {"jsonArray", "", ArgKind::kFlag},
                        {"fields", "f", ArgKind::kValue},
                        {"headerline", "", ArgKind::kFlag},
                        {"ignoreBlanks", "", ArgKind::kFlag},
                        {"drop", "", ArgKind::kFlag},
                        {"stopOnError", "", ArgKind::kFlag},
                        {"mode", "", ArgKind::kValue}},
                       kUsage, 1, Import);
}

}  // namespace cairn::tools
