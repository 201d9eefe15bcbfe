// cairn dump: mongodump's output from any server. A directory <out>/<db>/<coll>.bson (the
// documents back to back) + <coll>.metadata.json (metadata.h), each gzipped with --gzip, or
// one --archive stream (archive.h). Views are dumped as metadata only; timeseries collections
// are refused (mongodump dumps their system.buckets collection, which cairn does not expose).
#include <filesystem>
#include <iostream>

#include "tools/cairn/archive.h"
#include "tools/cairn/catalog.h"
#include "tools/cairn/commands.h"
#include "tools/cairn/connection.h"
#include "tools/cairn/metadata.h"
#include "tools/cairn/progress.h"
#include "tools/cairn/streams.h"

namespace cairn::tools {

namespace {

const char kUsage[] =
    "usage: cairn dump [--uri URI | --host H --port P] [-d DB [-c COLL [-q QUERY]]]\n"
    "                  [--excludeCollection C]... [-o DIR | --archive[=FILE]] [--gzip] [--quiet]\n"
    "Writes mongodump's layout: DIR/<db>/<coll>.bson and <coll>.metadata.json (default dump/),\n"
    "or one archive to FILE (stdout without =FILE). --query is Extended JSON.\n";

struct Namespace {
  std::string db;
  BsonPtr entry;  // listCollections entry
  std::vector<BsonPtr> indexes;
  std::string name() const { return GetString(entry.get(), "name"); }
  bool is_view() const { return GetString(entry.get(), "type") == "view"; }
};

// Where the documents go: a directory's .bson file, or the archive.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual Status Begin(const Namespace& ns) = 0;
  virtual Status Add(const Namespace& ns, const bson_t* doc) = 0;
  virtual Status End(const Namespace& ns) = 0;
};

class DirectorySink : public Sink {
 public:
  DirectorySink(std::string out, bool gzip) : out_(std::move(out)), gzip_(gzip) {}
  Status Begin(const Namespace& ns) override {
    std::filesystem::path dir = std::filesystem::path(out_) / ns.db;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
      return Status(ErrorCode::kInternalError,
                    "cannot create " + dir.string() + ": " + ec.message());
    std::string base = (dir / EscapeCollectionName(ns.name())).string();
    std::string gz = gzip_ ? ".gz" : "";
    CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<OutStream> meta,
                           OutStream::Open(base + ".metadata.json" + gz, gzip_));
    CAIRN_RETURN_IF_ERROR(meta->Write(MetadataJson(ns.entry.get(), ns.indexes)));
    CAIRN_RETURN_IF_ERROR(meta->Close());
    data_.reset();
    if (ns.is_view()) return Status::OK();
    CAIRN_ASSIGN_OR_RETURN(data_, OutStream::Open(base + ".bson" + gz, gzip_));
    return Status::OK();
  }
  Status Add(const Namespace&, const bson_t* doc) override {
    return data_->Write(bson_get_data(doc), doc->len);
  }
  Status End(const Namespace&) override {
    if (!data_) return Status::OK();
    Status status = data_->Close();
    data_.reset();
    return status;
  }

 private:
  std::string out_;
  bool gzip_;
  std::unique_ptr<OutStream> data_;
};

class ArchiveSink : public Sink {
 public:
  explicit ArchiveSink(ArchiveWriter* writer) : writer_(writer) {}
  Status Begin(const Namespace&) override { return Status::OK(); }
  Status Add(const Namespace& ns, const bson_t* doc) override {
    return writer_->Add(ns.db, ns.name(), bson_get_data(doc), doc->len);
  }
  Status End(const Namespace& ns) override { return writer_->End(ns.db, ns.name()); }

 private:
  ArchiveWriter* writer_;
};

// collStats' size, for the archive's prelude (mongorestore shows progress against it).
int64_t DataSize(mongoc_client_t* client, const Namespace& ns) {
  BsonPtr cmd = NewBson();
  BSON_APPEND_UTF8(cmd.get(), "collStats", ns.name().c_str());
  bson_t reply;
  int64_t size = 0;
  if (RunCommand(client, ns.db, cmd.get(), &reply).ok()) {
    bson_iter_t it;
    if (bson_iter_init_find(&it, &reply, "size") && BSON_ITER_HOLDS_NUMBER(&it)) {
      size = bson_iter_as_int64(&it);
    }
  }
  bson_destroy(&reply);
  return size;
}

Status DumpOne(mongoc_client_t* client, const Namespace& ns, const bson_t* query, bool quiet,
               Sink* sink) {
  CAIRN_RETURN_IF_ERROR(sink->Begin(ns));
  if (ns.is_view()) {
    if (!quiet) std::cerr << ns.db << "." << ns.name() << ": view (metadata only)\n";
    return sink->End(ns);
  }
  mongoc_collection_t* coll =
      mongoc_client_get_collection(client, ns.db.c_str(), ns.name().c_str());
  bson_error_t error;
  int64_t total =
      bson_empty(query)
          ? mongoc_collection_estimated_document_count(coll, nullptr, nullptr, nullptr, &error)
          : mongoc_collection_count_documents(coll, query, nullptr, nullptr, nullptr, &error);
  Progress progress(ns.db + "." + ns.name(), total, -1, quiet);
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(coll, query, nullptr, nullptr);
  mongoc_collection_destroy(coll);
  const bson_t* doc;
  Status status;
  while (status.ok() && mongoc_cursor_next(cursor, &doc)) {
    status = sink->Add(ns, doc);
    progress.Add(1, doc->len);
  }
  if (status.ok() && mongoc_cursor_error(cursor, &error)) {
    status = Status(ErrorCode::kUnknownError,
                    "reading " + ns.db + "." + ns.name() + ": " + error.message);
  }
  mongoc_cursor_destroy(cursor);
  CAIRN_RETURN_IF_ERROR(status);
  CAIRN_RETURN_IF_ERROR(sink->End(ns));
  progress.Finish();
  return Status::OK();
}

Status Dump(const Args& args) {
  bool quiet = args.Has("quiet");
  std::string db = args.Get("db"), collection = args.Get("collection");
  if (!collection.empty() && db.empty()) {
    return Status(ErrorCode::kBadValue, "--collection needs --db");
  }
  if (args.Has("query") && collection.empty()) {
    return Status(ErrorCode::kBadValue, "--query needs --db and --collection");
  }
  if (args.Has("archive") && args.Has("out")) {
    return Status(ErrorCode::kBadValue, "--archive and --out cannot be used together");
  }
  if (args.Get("out") == "-") {
    // mongodump's "--out -" writes one collection's bare BSON to stdout; --archive covers it.
    return Status(ErrorCode::kBadValue, "--out - is not supported: use --archive (stdout)");
  }
  BsonPtr query = NewBson();
  if (args.Has("query")) {
    CAIRN_ASSIGN_OR_RETURN(query, BsonFromJson(args.Get("query"), "--query"));
  }
  CAIRN_ASSIGN_OR_RETURN(Client client, Connect(args, "cairn-dump"));

  std::vector<std::string> dbs;
  if (!db.empty()) {
    dbs.push_back(db);
  } else {
    CAIRN_ASSIGN_OR_RETURN(dbs, ListUserDatabases(client.get()));
  }
  std::vector<std::string> excluded = args.GetAll("excludeCollection");
  std::vector<Namespace> namespaces;
  for (const std::string& name : dbs) {
    CAIRN_ASSIGN_OR_RETURN(std::vector<BsonPtr> entries,
                           ListCollections(client.get(), name, collection));
    if (!collection.empty() && entries.empty()) {
      return Status(ErrorCode::kNamespaceNotFound, name + "." + collection + " does not exist");
    }
    for (BsonPtr& entry : entries) {
      Namespace ns{name, std::move(entry), {}};
      if (std::find(excluded.begin(), excluded.end(), ns.name()) != excluded.end()) continue;
      std::string type = GetString(ns.entry.get(), "type");
      if (type == "timeseries") {
        return Status(ErrorCode::kBadValue,
                      name + "." + ns.name() +
                          " is a timeseries collection, which cairn dump "
                          "does not support (exclude it with --excludeCollection)");
      }
      if (!ns.is_view()) {
        CAIRN_ASSIGN_OR_RETURN(ns.indexes, ListIndexes(client.get(), name, ns.name()));
      }
      namespaces.push_back(std::move(ns));
    }
  }

  std::unique_ptr<OutStream> archive_out;
  std::unique_ptr<ArchiveWriter> writer;
  std::unique_ptr<Sink> sink;
  bool gzip = args.Has("gzip");
  if (args.Has("archive")) {
    std::string file = args.Get("archive");
    CAIRN_ASSIGN_OR_RETURN(archive_out, OutStream::Open(file.empty() ? "-" : file, gzip));
    writer = std::make_unique<ArchiveWriter>(archive_out.get());
    std::vector<ArchiveCollection> prelude;
    for (const Namespace& ns : namespaces) {
      prelude.push_back({ns.db, ns.name(), MetadataJson(ns.entry.get(), ns.indexes),
                         ns.is_view() ? 0 : DataSize(client.get(), ns),
                         ns.is_view() ? "view" : "collection"});
    }
    CAIRN_RETURN_IF_ERROR(writer->WritePrelude(ServerVersion(client.get()), prelude));
    sink = std::make_unique<ArchiveSink>(writer.get());
  } else {
    sink = std::make_unique<DirectorySink>(args.Get("out", "dump"), gzip);
  }
  for (const Namespace& ns : namespaces) {
    CAIRN_RETURN_IF_ERROR(DumpOne(client.get(), ns, query.get(), quiet, sink.get()));
  }
  if (archive_out) CAIRN_RETURN_IF_ERROR(archive_out->Close());
  if (!quiet) std::cerr << "dumped " << namespaces.size() << " collection(s)\n";
  return Status::OK();
}

}  // namespace

int RunDump(const std::vector<std::string>& argv) {
  return RunSubcommand("dump", argv,
                       {{"db", "d", ArgKind::kValue},
                        {"collection", "c", ArgKind::kValue},
                        {"query", "q", ArgKind::kValue},
                        {"excludeCollection", "", ArgKind::kValue},
                        {"out", "o", ArgKind::kValue},
                        {"archive", "", ArgKind::kOptionalValue},
                        {"gzip", "", ArgKind::kFlag}},
                       kUsage, 0, Dump);
}

}  // namespace cairn::tools
