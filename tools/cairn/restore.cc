// cairn restore: loads what mongodump (or cairn dump) wrote: a dump directory (every <db>/
// below it, or one database's directory, or one .bson file) or an --archive. Collections are
// created first with their metadata's options (capped, validator, collation, ...), then the
// documents go in batches (inserter.h), then each collection's indexes are built, and the
// views are created last, after everything they may read from.
#include <filesystem>
#include <iostream>
#include <map>

#include "tools/cairn/archive.h"
#include "tools/cairn/catalog.h"
#include "tools/cairn/commands.h"
#include "tools/cairn/connection.h"
#include "tools/cairn/inserter.h"
#include "tools/cairn/metadata.h"
#include "tools/cairn/progress.h"
#include "tools/cairn/streams.h"

namespace cairn::tools {

namespace {

namespace fs = std::filesystem;

const char kUsage[] =
    "usage: cairn restore [--uri URI | --host H --port P] [PATH | --dir PATH | --archive[=FILE]]\n"
    "                     [-d DB [-c COLL]] [--nsInclude PATTERN]... [--drop] [--gzip]\n"
    "                     [--noIndexRestore] [--stopOnError] [--quiet]\n"
    "PATH: a dump directory (default dump/), one database's directory, or one .bson file.\n";

// Failed documents printed per collection (the others are counted).
constexpr int64_t kFailuresShown = 10;

struct Item {
  std::string db, collection;  // where it goes
  CollectionMetadata meta;     // type "collection" with no options when there was no metadata
  std::string bson_path;       // directory restores: the data file, "" for none
  int64_t bytes = 0;
};

std::string Key(const std::string& db, const std::string& collection) {
  return db + "." + collection;
}

// mongorestore's --nsInclude patterns: '*' matches any run of characters.
bool GlobMatch(const std::string& pattern, const std::string& text) {
  size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

Result<std::string> ReadWholeFile(const std::string& path, bool gzip) {
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<InStream> in, InStream::Open(path, gzip));
  std::string text;
  char buf[65536];
  for (;;) {
    CAIRN_ASSIGN_OR_RETURN(size_t got, in->Read(buf, sizeof buf));
    if (got == 0) break;
    text.append(buf, got);
  }
  return text;
}

CollectionMetadata PlainMetadata() {
  CollectionMetadata meta;
  meta.type = "collection";
  meta.options = NewBson();
  return meta;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The collections of one database directory: <coll>.bson[.gz] and <coll>.metadata.json[.gz].
Status ScanDatabaseDir(const fs::path& dir, const std::string& db, bool gzip,
                       std::vector<Item>* items) {
  std::string gz = gzip ? ".gz" : "";
  std::map<std::string, Item> by_name;
  std::error_code ec;
  for (const fs::directory_entry& file : fs::directory_iterator(dir, ec)) {
    if (!file.is_regular_file()) continue;
    std::string name = file.path().filename().string();
    bool is_meta = EndsWith(name, ".metadata.json" + gz);
    bool is_bson = EndsWith(name, ".bson" + gz);
    if (!is_meta && !is_bson) continue;
    std::string base = name.substr(0, name.size() - (is_meta ? 14 : 5) - gz.size());
    Item& item = by_name[base];
    item.db = db;
    if (item.collection.empty()) item.collection = UnescapeCollectionName(base);
    if (is_bson) {
      item.bson_path = file.path().string();
      item.bytes = static_cast<int64_t>(file.file_size());
    } else {
      CAIRN_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(file.path().string(), gzip));
      CAIRN_ASSIGN_OR_RETURN(item.meta, ParseMetadata(text, file.path().string()));
      if (!item.meta.name.empty()) item.collection = item.meta.name;
    }
  }
  if (ec)
    return Status(ErrorCode::kInternalError, "cannot read " + dir.string() + ": " + ec.message());
  for (auto& [base, item] : by_name) {
    if (!item.meta.options) item.meta = PlainMetadata();
    if (item.collection.rfind("system.", 0) == 0) continue;
    items->push_back(std::move(item));
  }
  return Status::OK();
}

bool HoldsCollections(const fs::path& dir, bool gzip) {
  std::error_code ec;
  for (const fs::directory_entry& file : fs::directory_iterator(dir, ec)) {
    std::string name = file.path().filename().string();
    if (file.is_regular_file() && (EndsWith(name, gzip ? ".bson.gz" : ".bson") ||
                                   EndsWith(name, gzip ? ".metadata.json.gz" : ".metadata.json"))) {
      return true;
    }
  }
  return false;
}

// What a directory restore loads: `path` is a dump root, a database directory or a file.
Result<std::vector<Item>> ScanPath(const std::string& path, const Args& args, bool gzip) {
  std::vector<Item> items;
  std::string db = args.Get("db"), collection = args.Get("collection");
  fs::path root(path);
  std::error_code ec;
  if (fs::is_regular_file(root, ec)) {
    // One collection's data file: names from -d/-c, else from the directory and file names.
    std::string name = root.filename().string();
    std::string suffix = gzip ? ".bson.gz" : ".bson";
    if (!EndsWith(name, suffix)) {
      return Status(ErrorCode::kBadValue, path + " is not a " + suffix + " file");
    }
    Item item;
    item.db = db.empty() ? root.parent_path().filename().string() : db;
    item.collection = collection.empty()
                          ? UnescapeCollectionName(name.substr(0, name.size() - suffix.size()))
                          : collection;
    item.bson_path = path;
    item.bytes = static_cast<int64_t>(fs::file_size(root, ec));
    item.meta = PlainMetadata();
    std::string meta_path =
        path.substr(0, path.size() - suffix.size()) + ".metadata.json" + (gzip ? ".gz" : "");
    if (fs::exists(meta_path, ec)) {
      CAIRN_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(meta_path, gzip));
      CAIRN_ASSIGN_OR_RETURN(item.meta, ParseMetadata(text, meta_path));
    }
    if (item.db.empty()) return Status(ErrorCode::kBadValue, "restoring one file needs --db");
    items.push_back(std::move(item));
    return items;
  }
  if (!fs::is_directory(root, ec)) return Status(ErrorCode::kBadValue, path + " does not exist");
  if (HoldsCollections(root, gzip)) {
    // One database's directory: -d renames it.
    std::string target =
        db.empty() ? fs::absolute(root).lexically_normal().filename().string() : db;
    if (target.empty()) target = fs::absolute(root).parent_path().filename().string();
    CAIRN_RETURN_IF_ERROR(ScanDatabaseDir(root, target, gzip, &items));
  } else {
    for (const fs::directory_entry& sub : fs::directory_iterator(root, ec)) {
      if (!sub.is_directory()) continue;
      std::string name = sub.path().filename().string();
      if (name == "admin" || name == "config" || name == "local") continue;
      if (!db.empty() && name != db) continue;
      CAIRN_RETURN_IF_ERROR(ScanDatabaseDir(sub.path(), name, gzip, &items));
    }
  }
  if (!collection.empty()) {
    std::vector<Item> kept;
    for (Item& item : items) {
      if (item.collection == collection) kept.push_back(std::move(item));
    }
    items = std::move(kept);
  }
  return items;
}

bool Included(const Args& args, const std::string& db, const std::string& collection) {
  std::vector<std::string> patterns = args.GetAll("nsInclude");
  if (patterns.empty()) return true;
  for (const std::string& pattern : patterns) {
    if (GlobMatch(pattern, Key(db, collection))) return true;
  }
  return false;
}

Status Drop(mongoc_client_t* client, const Item& item) {
  BsonPtr cmd = NewBson();
  BSON_APPEND_UTF8(cmd.get(), "drop", item.collection.c_str());
  Status status = RunCommand(client, item.db, cmd.get());
  // A missing collection is what --drop wants anyway (servers before 7.0 answer ns not found).
  if (!status.ok() && status.reason().find("ns not found") == std::string::npos) return status;
  return Status::OK();
}

// create with the metadata's options, unless the collection exists (mongorestore then adds
// to it as it is).
Status Create(mongoc_client_t* client, const Item& item) {
  CAIRN_ASSIGN_OR_RETURN(std::vector<BsonPtr> existing,
                         ListCollections(client, item.db, item.collection));
  if (!existing.empty()) return Status::OK();
  BsonPtr cmd = NewBson();
  BSON_APPEND_UTF8(cmd.get(), "create", item.collection.c_str());
  bson_concat(cmd.get(), item.meta.options.get());
  Status status = RunCommand(client, item.db, cmd.get());
  if (!status.ok()) return status.WithContext("creating " + Key(item.db, item.collection));
  return Status::OK();
}

Status BuildIndexes(mongoc_client_t* client, const Item& item, bool quiet) {
  BsonPtr cmd = NewBson();
  BSON_APPEND_UTF8(cmd.get(), "createIndexes", item.collection.c_str());
  bson_t array;
  BSON_APPEND_ARRAY_BEGIN(cmd.get(), "indexes", &array);
  int n = 0;
  std::string names;
  for (const BsonPtr& index : item.meta.indexes) {
    std::string name = GetString(index.get(), "name");
    if (name == "_id_") continue;
    // "ns" was part of index specs before 4.4; createIndexes refuses it now.
    bson_t spec = BSON_INITIALIZER;
    bson_copy_to_excluding_noinit(index.get(), &spec, "ns", nullptr);
    std::string key = std::to_string(n++);
    bson_append_document(&array, key.c_str(), -1, &spec);
    bson_destroy(&spec);
    names += (names.empty() ? "" : ", ") + name;
  }
  bson_append_array_end(cmd.get(), &array);
  if (n == 0) return Status::OK();
  std::string ns = Key(item.db, item.collection);
  if (!quiet) std::cerr << ns << ": building " << n << " index(es): " << names << "\n";
  auto start = std::chrono::steady_clock::now();
  Status status = RunCommand(client, item.db, cmd.get());
  if (!status.ok()) return status.WithContext("building the indexes of " + ns);
  if (!quiet) {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << ns << ": " << n << " index(es) built in " << seconds << " s\n";
  }
  return Status::OK();
}

struct Totals {
  int64_t restored = 0, failed = 0, hard_failed = 0;
  void Add(const Inserter& inserter) {
    restored += inserter.inserted();
    failed += inserter.failed();
    hard_failed += inserter.hard_failures();
  }
};

Status LoadFile(mongoc_client_t* client, const Item& item, bool gzip, const Args& args,
                Totals* totals) {
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<InStream> in, InStream::Open(item.bson_path, gzip));
  // The file's size bounds the progress of an uncompressed file; a gzipped one's is unknown.
  Progress progress(Key(item.db, item.collection), -1, gzip ? -1 : item.bytes, args.Has("quiet"));
  Inserter inserter(client, item.db, item.collection, args.Has("stopOnError"), "document",
                    &progress, kFailuresShown);
  std::string doc;
  int64_t position = 0;
  Status status;
  for (;;) {
    Result<bool> more = ReadBsonDocument(in.get(), &doc);
    if (!more.ok()) {
      status = more.status();
      break;
    }
    if (!*more) break;
    status = inserter.Add(reinterpret_cast<const uint8_t*>(doc.data()), doc.size(), ++position);
    if (!status.ok()) break;
  }
  if (status.ok()) status = inserter.Flush();
  totals->Add(inserter);
  progress.Finish();
  return status;
}

Status LoadArchive(mongoc_client_t* client, ArchiveReader* reader,
                   const std::map<std::string, const Item*>& wanted, const Args& args,
                   Totals* totals) {
  struct Open {
    std::unique_ptr<Progress> progress;
    std::unique_ptr<Inserter> inserter;
    int64_t position = 0;
  };
  std::map<std::string, Open> open;
  std::string db, collection, doc;
  for (;;) {
    CAIRN_ASSIGN_OR_RETURN(ArchiveReader::Event event, reader->Next(&db, &collection, &doc));
    if (event == ArchiveReader::Event::kEnd) break;
    auto item = wanted.find(Key(db, collection));
    if (item == wanted.end()) continue;  // filtered out, or a view's empty namespace
    Open& ns = open[item->first];
    if (!ns.inserter) {
      ns.progress =
          std::make_unique<Progress>(item->first, -1, item->second->bytes, args.Has("quiet"));
      ns.inserter = std::make_unique<Inserter>(client, item->second->db, item->second->collection,
                                               args.Has("stopOnError"), "document",
                                               ns.progress.get(), kFailuresShown);
    }
    if (event == ArchiveReader::Event::kDocument) {
      CAIRN_RETURN_IF_ERROR(ns.inserter->Add(reinterpret_cast<const uint8_t*>(doc.data()),
                                             doc.size(), ++ns.position));
      continue;
    }
    CAIRN_RETURN_IF_ERROR(ns.inserter->Flush());
    totals->Add(*ns.inserter);
    ns.progress->Finish();
    open.erase(item->first);
  }
  if (!open.empty()) {
    return Status(ErrorCode::kInvalidBSON,
                  "the archive ended before the end of " + open.begin()->first);
  }
  return Status::OK();
}

Status Restore(const Args& args) {
  bool quiet = args.Has("quiet"), gzip = args.Has("gzip");
  if (args.Has("collection") && !args.Has("db")) {
    return Status(ErrorCode::kBadValue, "--collection needs --db");
  }
  std::string path = args.positional().empty() ? args.Get("dir", "dump") : args.positional()[0];
  if (args.Has("archive") && (!args.positional().empty() || args.Has("dir"))) {
    return Status(ErrorCode::kBadValue, "--archive cannot be combined with a directory");
  }
  CAIRN_ASSIGN_OR_RETURN(Client client, Connect(args, "cairn-restore"));

  std::vector<Item> items;
  std::unique_ptr<InStream> archive_in;
  std::unique_ptr<ArchiveReader> reader;
  if (args.Has("archive")) {
    std::string file = args.Get("archive");
    CAIRN_ASSIGN_OR_RETURN(archive_in, InStream::Open(file.empty() ? "-" : file, gzip));
    reader = std::make_unique<ArchiveReader>(archive_in.get());
    CAIRN_RETURN_IF_ERROR(reader->ReadPrelude());
    for (const ArchiveCollection& c : reader->collections()) {
      if (c.type == "timeseries") {
        return Status(ErrorCode::kBadValue, Key(c.db, c.collection) +
                                                " is a timeseries collection, which cairn restore "
                                                "does not support");
      }
      if (c.db == "admin" || c.db == "config" || c.db == "local") continue;
      if (c.collection.rfind("system.", 0) == 0) continue;
      if (args.Has("db") && c.db != args.Get("db")) continue;
      if (args.Has("collection") && c.collection != args.Get("collection")) continue;
      Item item;
      item.db = c.db;
      item.collection = c.collection;
      item.bytes = c.size;
      if (c.metadata.empty()) {
        item.meta = PlainMetadata();
      } else {
        CAIRN_ASSIGN_OR_RETURN(
            item.meta, ParseMetadata(c.metadata, "the metadata of " + Key(c.db, c.collection)));
      }
      if (c.type == "view") item.meta.type = "view";
      items.push_back(std::move(item));
    }
  } else {
    CAIRN_ASSIGN_OR_RETURN(items, ScanPath(path, args, gzip));
  }
  std::vector<Item> kept;
  for (Item& item : items) {
    if (Included(args, item.db, item.collection)) kept.push_back(std::move(item));
  }
  items = std::move(kept);

  // Collections (and, with --drop, the views to be recreated) go first.
  for (const Item& item : items) {
    if (args.Has("drop")) CAIRN_RETURN_IF_ERROR(Drop(client.get(), item));
    if (!item.meta.is_view()) CAIRN_RETURN_IF_ERROR(Create(client.get(), item));
  }
  Totals totals;
  if (reader) {
    std::map<std::string, const Item*> wanted;
    for (const Item& item : items) {
      if (!item.meta.is_view()) wanted[Key(item.db, item.collection)] = &item;
    }
    CAIRN_RETURN_IF_ERROR(LoadArchive(client.get(), reader.get(), wanted, args, &totals));
  } else {
    for (const Item& item : items) {
      if (item.meta.is_view() || item.bson_path.empty()) continue;
      CAIRN_RETURN_IF_ERROR(LoadFile(client.get(), item, gzip, args, &totals));
    }
  }
  if (!args.Has("noIndexRestore")) {
    for (const Item& item : items) {
      if (!item.meta.is_view()) CAIRN_RETURN_IF_ERROR(BuildIndexes(client.get(), item, quiet));
    }
  }
  for (const Item& item : items) {
    if (item.meta.is_view()) CAIRN_RETURN_IF_ERROR(Create(client.get(), item));
  }
  std::cerr << totals.restored << " document(s) restored successfully. " << totals.failed
            << " document(s) failed to restore.\n";
  if (totals.hard_failed > 0) {
    return Status(ErrorCode::kBadValue, std::to_string(totals.hard_failed) +
                                            " document(s) failed for reasons other than a "
                                            "duplicate key");
  }
  return Status::OK();
}

}  // namespace

int RunRestore(const std::vector<std::string>& argv) {
  return RunSubcommand("restore", argv,
                       {{"db", "d", ArgKind::kValue},
                        {"collection", "c", ArgKind::kValue},
                        {"nsInclude", "", ArgKind::kValue},
                        {"dir", "", ArgKind::kValue},
                        {"archive", "", ArgKind::kOptionalValue},
                        {"gzip", "", ArgKind::kFlag},
                        {"drop", "", ArgKind::kFlag},
                        {"noIndexRestore", "", ArgKind::kFlag},
                        {"stopOnError", "", ArgKind::kFlag}},
                       kUsage, 1, Restore);
}

}  // namespace cairn::tools
