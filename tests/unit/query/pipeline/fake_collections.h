// Test support for stages that read other collections ($lookup, $unionWith): collections held
// in memory behind the ForeignCollections interface, filtered as the server's scan would.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/bson_compare.h"
#include "query/matcher/matcher.h"
#include "query/pipeline/foreign_collections.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query::testing {

// Collections held in memory; Open filters with the matcher as the server's scan would.
class FakeCollections final : public ForeignCollections {
 public:
  std::map<std::string, std::vector<std::string>, std::less<>> collections;
  bool indexed = false;
  int opens = 0;

  Result<std::unique_ptr<DocumentSource>> Open(std::string_view collection,
                                               std::shared_ptr<const Matcher> filter) override {
    ++opens;
    std::vector<BsonDoc> out;
    auto found = collections.find(collection);
    if (found != collections.end()) {
      for (BsonDoc& doc : Docs(found->second)) {
        if (filter == nullptr || *filter->Matches(doc.view())) out.push_back(std::move(doc));
      }
    }
    return std::unique_ptr<DocumentSource>(std::make_unique<VectorSource>(std::move(out)));
  }
  bool HasIndexOn(std::string_view, std::string_view) override { return indexed; }

  // With by_id, the _id point lookup an IndexedLoopJoin on _id uses (counted in reads_by_id).
  bool by_id = false;
  int reads_by_id = 0;
  bool SupportsReadById() const override { return by_id; }
  Result<bool> ReadById(std::string_view collection, const bson_iter_t* id,
                        std::string* document) override {
    ++reads_by_id;
    auto found = collections.find(collection);
    if (found == collections.end()) return false;
    for (BsonDoc& doc : Docs(found->second)) {
      bson_iter_t own;
      if (doc.view().Find("_id", &own) && CompareValues(&own, id) == 0) {
        document->assign(reinterpret_cast<const char*>(doc.view().data()), doc.view().size());
        return true;
      }
    }
    return false;
  }
};

// Runs `pipeline` (a JSON array) over `docs` with `foreign` as the database's other collections.
inline Result<std::vector<std::string>> RunWithCollections(
    const std::string& pipeline, const std::vector<std::string>& docs,
    const std::shared_ptr<FakeCollections>& foreign,
    int64_t hash_join_max_bytes = PipelineOptions().hash_join_max_bytes) {
  PipelineOptions options;
  options.foreign = foreign;
  options.hash_join_max_bytes = hash_join_max_bytes;
  CAIRN_ASSIGN_OR_RETURN(Pipeline parsed, ParseJson(pipeline, options));
  auto exec = parsed.Bind(std::make_unique<VectorSource>(Docs(docs)), false);
  return Drain(exec.get());
}

}  // namespace cairn::query::testing
