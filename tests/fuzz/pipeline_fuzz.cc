// Fuzz target `pipeline`: the aggregation pipeline parser (every stage's arguments, expressions,
// accumulators) and its execution over a few documents. Input (fuzz_support.h): a first document
// {pipeline: [...], collation: ..., let: ..., allowDiskUse: <bool>, spill: <bool>} as the
// aggregate command gives them, then the collection's documents. $lookup and $unionWith read
// the same documents as every foreign collection (one named "indexed" claims an index on every
// field, so the indexed join runs too); $out and $merge have no target and fail when they run.
// `spill: true` sets the $sort/$group memory budgets to a few KiB so they spill to disk.
// Checks: every output document is valid BSON.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "query/pipeline/foreign_collections.h"
#include "query/pipeline/pipeline.h"
#include "query/pipeline/stages/buffered_input.h"
#include "tests/fuzz/fuzz_support.h"

using namespace cairn;

namespace {

// Output documents read per input at most: enough for every stage to see all of its input,
// few enough that a $documents/$unwind explosion does not turn into a timeout.
constexpr int kMaxOutput = 2000;

class SameDocuments final : public query::ForeignCollections {
 public:
  explicit SameDocuments(std::vector<BsonView> docs) : docs_(std::move(docs)) {}

  Result<std::unique_ptr<query::DocumentSource>> Open(
      std::string_view collection, std::shared_ptr<const query::Matcher> filter) override {
    std::vector<BsonView> matched;
    for (BsonView doc : docs_) {
      if (filter == nullptr) {
        matched.push_back(doc);
        continue;
      }
      Result<bool> match = filter->Matches(doc);
      if (!match.ok()) return match.status();
      if (match.value()) matched.push_back(doc);
    }
    return std::unique_ptr<query::DocumentSource>(
        std::make_unique<query::stages::ViewSource>(std::move(matched)));
  }
  bool HasIndexOn(std::string_view collection, std::string_view field) override {
    return collection == "indexed";
  }

 private:
  std::vector<BsonView> docs_;
};

std::string* spill_dir = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  // Sorted runs of spilling stages go to a directory of this process, removed at exit.
  std::string templ = std::filesystem::temp_directory_path().string() + "/cairn-fuzz-spill-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) std::abort();
  spill_dir = new std::string(templ);
  std::atexit([] { std::filesystem::remove_all(*spill_dir); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::CommandInput input;
  if (!fuzz::ReadCommand(data, size, 12, &input)) return 0;
  BsonView command = input.command;
  const auto& context = input.context;

  query::PipelineOptions options;
  options.expression_context = context;
  options.spill_dir = *spill_dir;
  bson_iter_t allow;
  if (command.Find("allowDiskUse", &allow)) options.allow_disk_use = bson_iter_as_bool(&allow);
  if (fuzz::Flag(command, "spill")) {
    options.sort_max_memory_bytes = 4096;
    options.group_max_memory_bytes = 4096;
    options.max_memory_bytes = 64 * 1024;
  }
  options.foreign = std::make_shared<SameDocuments>(input.docs);

  auto pipeline =
      query::Pipeline::Parse(fuzz::SubDocument(command, "pipeline", /*array=*/true), options);
  if (!pipeline.ok()) return 0;
  auto run = [&](bool skip_leading_match) {
    std::vector<BsonView> source = input.docs;
    if (skip_leading_match) {
      auto leading = query::Matcher::Parse(pipeline->leading_match(), context);
      if (!leading.ok()) fuzz::Fail("a pipeline's leading $match does not parse alone", {command});
      source.clear();
      for (BsonView doc : input.docs) {
        Result<bool> match = leading->Matches(doc);
        if (!match.ok()) return;  // the server fails the aggregate with that error
        if (match.value()) source.push_back(doc);
      }
    }
    auto executor =
        pipeline->Bind(std::make_unique<query::stages::ViewSource>(source), skip_leading_match);
    for (int n = 0; n < kMaxOutput && executor->Next(); ++n) {
      if (!fuzz::IsValidResult(executor->document())) {
        fuzz::Fail("a pipeline produced invalid BSON", {command});
      }
    }
    (void)executor->status();
  };
  run(false);
  // As the server runs it: the leading $match answered by the collection scan.
  if (!pipeline->leading_match().empty()) run(true);
  return 0;
}
