// ForeignCollections: how a stage reads a collection other than the pipeline's input ($lookup's
// `from`), without query/ knowing storage. The server implements it over BuildQueryStream, so a
// filtered read goes through its planner (an equality on an indexed field uses the index).
// One instance per aggregate command; used by one cursor at a time.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <bson/bson.h>

#include "common/status.h"
#include "query/pipeline/document_source.h"

namespace cairn::query {

class Matcher;

class ForeignCollections {
 public:
  virtual ~ForeignCollections() = default;

  // A stream over the documents of `collection` (in the command's database) matching `filter`
  // (nullptr: all), in natural order. A collection that does not exist is empty.
  virtual Result<std::unique_ptr<DocumentSource>> Open(std::string_view collection,
                                                       std::shared_ptr<const Matcher> filter) = 0;

  // Whether `collection` has an index whose first key field is `field`, neither partial nor
  // sparse: then an equality lookup on `field` is an index probe (IndexedLoopJoin).
  virtual bool HasIndexOn(std::string_view collection, std::string_view field) = 0;
  // The name of that index, for explain (empty when unknown).
  virtual std::string IndexNameOn(std::string_view collection, std::string_view field) {
    (void)collection, (void)field;
    return std::string();
  }

  // The document of `collection` whose _id is `id` (a value IsIdPointLookupValue accepts), read
  // into *document by a point lookup of the _id index: true when found. An implementation that
  // has no such lookup answers false from SupportsReadById, and IndexedLoopJoin opens a filtered
  // stream instead.
  virtual bool SupportsReadById() const { return false; }
  virtual Result<bool> ReadById(std::string_view collection, const bson_iter_t* id,
                                std::string* document) {
    (void)collection, (void)id, (void)document;
    return false;
  }
};

}  // namespace cairn::query
