// A collection's <coll>.metadata.json, as mongodump writes and mongorestore reads it, and the
// names of the dump files.
//
// Source: mongo-tools mongodump/metadata_dump.go (the Metadata struct) and the mongodump
// manual (https://www.mongodb.com/docs/database-tools/mongodump/#output-format), read for the
// format only. The file is one canonical Extended JSON v2 document:
//   {"options": {<listCollections' options: capped, size, max, validator, validationLevel,
//                 validationAction, collation, viewOn, pipeline, ...>},
//    "indexes": [<listIndexes' documents: v, key, name, unique, expireAfterSeconds, ...>],
//    "uuid": "<32 lowercase hex digits>", "collectionName": "<name>",
//    "type": "collection" | "view" | "timeseries"}
// Views have no indexes and no data (their .bson is absent in a directory dump).
// With --gzip the files are <coll>.bson.gz and <coll>.metadata.json.gz (each file gzipped).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "tools/cairn/bson_util.h"

namespace cairn::tools {

struct CollectionMetadata {
  std::string name;  // collectionName, when the file says
  std::string type;  // "collection" unless the file says otherwise (or options.viewOn is set)
  BsonPtr options;
  std::vector<BsonPtr> indexes;
  bool is_view() const { return type == "view"; }
};

// metadata.json text from a listCollections entry and the collection's listIndexes documents.
std::string MetadataJson(const bson_t* list_collections_entry, const std::vector<BsonPtr>& indexes);

Result<CollectionMetadata> ParseMetadata(const std::string& json, const std::string& what);

// A collection name as a file name: '/' and '%' percent-encoded (they cannot, or would be
// ambiguous, in a file name), as mongo-tools' EscapeCollectionName does; and back.
std::string EscapeCollectionName(const std::string& name);
std::string UnescapeCollectionName(const std::string& file_name);

}  // namespace cairn::tools
