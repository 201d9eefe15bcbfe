// Specification of $group and $sort spilling (allowDiskUse): with budgets so small that nearly
// every group or document goes to disk, each pipeline gives exactly the results it gives in
// memory ($sort in the same order, ties included; $group the same groups, whose order MongoDB
// leaves unspecified), and no run file outlives the pipeline.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "query/pipeline/pipeline.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

using testing::RunPipeline;

// 600 documents over 37 keys of several types, with values of several types (and missing ones).
std::vector<std::string> MixedDocs() {
  std::vector<std::string> docs;
  for (int i = 0; i < 600; ++i) {
    std::string k;
    switch (i % 37 % 5) {
      case 0:
        k = std::to_string(i % 37);
        break;
      case 1:
        k = "{\"$numberLong\": \"" + std::to_string(i % 37) + "\"}";
        break;
      case 2:
        k = "\"s" + std::to_string(i % 37) + "\"";
        break;
      case 3:
        k = "{\"a\": " + std::to_string(i % 37) + ", \"b\": [1, 2]}";
        break;
      default:
        k = "null";
        break;
    }
    std::string v;
    switch (i % 4) {
      case 0:
        v = ", \"v\": " + std::to_string(i);
        break;
      case 1:
        v = ", \"v\": " + std::to_string(i) + ".5";
        break;
      case 2:
        v = ", \"v\": \"str" + std::to_string(i % 11) + "\"";
        break;
      default:
        break;  // missing
    }
    docs.push_back("{\"i\": " + std::to_string(i) + ", \"k\": " + k + v + ", \"o\": {\"f" +
                   std::to_string(i % 3) + "\": " + std::to_string(i) + "}}");
  }
  // 1, 1.0 and NumberLong(1) are one group; a spilled group shows its first-seen key too.
  docs.push_back(R"({"i": 1000, "k": 1.0, "v": 1})");
  docs.push_back(R"({"i": 1001, "k": {"$numberLong": "1"}, "v": 2})");
  return docs;
}

// A scratch spill directory removed with the test.
class SpillDir {
 public:
  SpillDir()
      : path_((std::filesystem::temp_directory_path() / ("spill_test-" + std::to_string(getpid())))
                  .string()) {
    std::filesystem::remove_all(path_);
  }
  ~SpillDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  bool Empty() const {
    std::error_code ec;
    return std::filesystem::directory_iterator(path_, ec) == std::filesystem::directory_iterator();
  }

 private:
  std::string path_;
};

struct SpillCase {
  const char* name;
  const char* pipeline;
  bool ordered;  // $sort: the order must match too
};

void PrintTo(const SpillCase& c, std::ostream* os) { *os << c.pipeline; }

class SpillGivesTheInMemoryResult : public ::testing::TestWithParam<SpillCase> {};

TEST_P(SpillGivesTheInMemoryResult, WhateverTheBudget) {
  const SpillCase& c = GetParam();
  const std::vector<std::string> docs = MixedDocs();
  Result<std::vector<std::string>> in_memory = RunPipeline(c.pipeline, docs);
  ASSERT_TRUE(in_memory.ok()) << in_memory.status().ToString();
  ASSERT_FALSE(in_memory->empty());
  if (!c.ordered) std::sort(in_memory->begin(), in_memory->end());
  for (int64_t budget : {int64_t{1}, int64_t{3000}, int64_t{20000}}) {
    SpillDir dir;
    PipelineOptions options;
    options.group_max_memory_bytes = budget;
    options.sort_max_memory_bytes = budget;
    options.spill_dir = dir.path();
    Result<std::vector<std::string>> spilled = RunPipeline(c.pipeline, docs, options);
    ASSERT_TRUE(spilled.ok()) << "budget " << budget << ": " << spilled.status().ToString();
    if (!c.ordered) std::sort(spilled->begin(), spilled->end());
    EXPECT_EQ(*spilled, *in_memory) << "budget " << budget;
    EXPECT_TRUE(dir.Empty()) << "budget " << budget;
  }
}

const SpillCase kSpillCases[] = {
    {"SumCountAvg",
     R"([{"$group": {"_id": "$k", "s": {"$sum": "$v"}, "n": {"$count": {}}, "a": {"$avg": "$v"}}}])",
     false},
    {"MinMax", R"([{"$group": {"_id": "$k", "lo": {"$min": "$v"}, "hi": {"$max": "$v"}}}])", false},
    {"FirstLast", R"([{"$group": {"_id": "$k", "f": {"$first": "$v"}, "l": {"$last": "$v"}}}])",
     false},
    {"PushAddToSet",
     R"([{"$group": {"_id": "$k", "p": {"$push": "$v"}, "s": {"$addToSet": "$v"}}}])", false},
    {"PushRoot", R"([{"$group": {"_id": "$k", "docs": {"$push": "$$ROOT"}}}])", false},
    {"StdDev",
     R"([{"$group": {"_id": "$k", "p": {"$stdDevPop": "$i"}, "s": {"$stdDevSamp": "$i"}}}])",
     false},
    {"TopBottom",
     R"([{"$group": {"_id": "$k", "t": {"$top": {"sortBy": {"i": -1}, "output": "$v"}},
         "b": {"$bottomN": {"n": 3, "sortBy": {"i": -1}, "output": ["$i", "$v"]}}}}])",
     false},
    {"NAccumulators",
     R"([{"$group": {"_id": "$k", "f": {"$firstN": {"n": 2, "input": "$v"}},
         "l": {"$lastN": {"n": 3, "input": "$i"}}, "mx": {"$maxN": {"n": 2, "input": "$v"}},
         "mn": {"$minN": {"n": 2, "input": "$i"}}}}])",
     false},
    {"CompoundId",
     R"([{"$group": {"_id": {"k": "$k", "m": {"$mod": ["$i", 3]}}, "n": {"$sum": 1}}}])", false},
    {"NoAccumulators", R"([{"$group": {"_id": "$v"}}])", false},
    {"ThenSort", R"([{"$group": {"_id": "$k", "n": {"$sum": 1}}}, {"$sort": {"n": -1, "_id": 1}}])",
     true},
    {"SortWithTies", R"([{"$sort": {"k": 1}}, {"$project": {"i": 1, "k": 1}}])", true},
    {"SortCompound", R"([{"$sort": {"v": -1, "o.f1": 1}}])", true},
    // A top-k heap that outgrows the budget goes through the sorter too.
    {"SortLimit", R"([{"$sort": {"k": 1}}, {"$limit": 200}])", true},
    {"SortSkipLimit", R"([{"$sort": {"v": -1}}, {"$skip": 5}, {"$limit": 300}])", true},
};

INSTANTIATE_TEST_SUITE_P(Pipelines, SpillGivesTheInMemoryResult, ::testing::ValuesIn(kSpillCases),
                         [](const ::testing::TestParamInfo<SpillCase>& info) {
                           return info.param.name;
                         });

TEST(Spill, ShouldFailWith292WhenDiskUseIsNotAllowed) {
  const std::vector<std::string> docs = MixedDocs();
  PipelineOptions options;
  options.group_max_memory_bytes = 1000;
  options.sort_max_memory_bytes = 1000;
  options.allow_disk_use = false;
  Result<std::vector<std::string>> out =
      RunPipeline(R"([{"$group": {"_id": "$i"}}])", docs, options);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code_number(), 292);
  EXPECT_EQ(out.status().reason(),
            "Exceeded memory limit for $group, but didn't allow external sort. Pass "
            "allowDiskUse:true to opt in.");
  out = RunPipeline(R"([{"$sort": {"i": 1}}])", docs, options);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code_number(), 292);
  EXPECT_EQ(out.status().reason(),
            "Sort exceeded memory limit of 1000 bytes, but did not opt in to external sorting.");
}

TEST(Spill, ShouldKeepTheFirstSeenKeyOfASpilledGroup) {
  // The frozen table holds the first group only; 1.0 and NumberLong(1) both spill.
  PipelineOptions options;
  options.group_max_memory_bytes = 1;
  SpillDir dir;
  options.spill_dir = dir.path();
  Result<std::vector<std::string>> out =
      RunPipeline(R"([{"$group": {"_id": "$k", "v": {"$push": "$v"}}}])",
                  {R"({"k": "x", "v": 0})", R"({"k": 1.0, "v": 1})",
                   R"({"k": {"$numberLong": "1"}, "v": 2})", R"({"k": 1, "v": 3})"},
                  options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, testing::C(std::vector<std::string>{R"({"_id": "x", "v": [0]})",
                                                      R"({"_id": 1.0, "v": [1, 2, 3]})"}));
}

TEST(Spill, ShouldRemoveTheRunFileWhenAPipelineIsAbandoned) {
  SpillDir dir;
  PipelineOptions options;
  options.sort_max_memory_bytes = 100;
  options.spill_dir = dir.path();
  Result<Pipeline> pipeline = testing::ParseJson(R"([{"$sort": {"i": -1}}])", options);
  ASSERT_TRUE(pipeline.ok());
  {
    std::unique_ptr<DocumentSource> exec =
        pipeline->Bind(std::make_unique<testing::VectorSource>(testing::Docs(MixedDocs())), false);
    ASSERT_TRUE(exec->Next());
    EXPECT_FALSE(dir.Empty());  // spilled, and still reading
  }
  EXPECT_TRUE(dir.Empty());
}

}  // namespace
}  // namespace cairn::query
