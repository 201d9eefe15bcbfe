// Specification of ExternalSorter: whatever the memory budget (all in memory, a run per record,
// a few runs), the records come back in key order, equal keys in the order they were added;
// without disk use the budget is a 292 error; the run file exists only while the sorter does.
#include "query/sort/external_sorter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "common/bson_compare.h"

namespace cairn::query {
namespace {

// Keys {"": <int>} ordered by value; the value records the insertion index.
int CompareFirst(BsonView a, BsonView b) {
  bson_iter_t x, y;
  a.Init(&x);
  b.Init(&y);
  bson_iter_next(&x);
  bson_iter_next(&y);
  return CompareValues(&x, &y);
}

BsonDoc IntKey(int k) {
  BsonDoc doc;
  bson_append_int32(doc.get(), "", 0, k);
  return doc;
}

// A scratch directory removed with the test.
class ScratchDir {
 public:
  ScratchDir() {
    path_ =
        (std::filesystem::temp_directory_path() /
         ("external_sorter_test-" + std::to_string(getpid()) + "-" + std::to_string(counter_++)))
            .string();
    std::filesystem::remove_all(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  size_t FileCount() const {
    std::error_code ec;
    size_t n = 0;
    for (auto it = std::filesystem::directory_iterator(path_, ec);
         !ec && it != std::filesystem::directory_iterator(); ++it) {
      ++n;
    }
    return n;
  }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

// (key, insertion index) pairs as the sorter returns them.
std::vector<std::pair<int, std::string>> SortAll(const std::vector<int>& keys, int64_t budget,
                                                 const std::string& dir, int64_t* spills) {
  ExternalSorterOptions options;
  options.max_memory_bytes = budget;
  options.spill_dir = dir;
  ExternalSorter sorter(CompareFirst, options);
  for (size_t i = 0; i < keys.size(); ++i) {
    BsonDoc key = IntKey(keys[i]);
    EXPECT_TRUE(sorter.Add(key.view(), std::to_string(i)).ok());
  }
  EXPECT_TRUE(sorter.Sort().ok());
  std::vector<std::pair<int, std::string>> out;
  while (sorter.Next()) {
    bson_iter_t it;
    sorter.key().Init(&it);
    bson_iter_next(&it);
    out.emplace_back(bson_iter_int32(&it), std::string(sorter.value()));
  }
  EXPECT_TRUE(sorter.status().ok()) << sorter.status().ToString();
  *spills = sorter.spills();
  return out;
}

struct BudgetCase {
  const char* name;
  int64_t budget;
  bool spills;
};

class ExternalSorterBudget : public ::testing::TestWithParam<BudgetCase> {};

TEST_P(ExternalSorterBudget, ShouldSortStablyWhateverTheBudget) {
  ScratchDir dir;
  std::vector<int> keys;
  for (int i = 0; i < 2000; ++i) keys.push_back((i * 7919) % 101);  // many duplicates
  std::vector<std::pair<int, std::string>> expected;
  for (size_t i = 0; i < keys.size(); ++i) expected.emplace_back(keys[i], std::to_string(i));
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  int64_t spills = 0;
  EXPECT_EQ(SortAll(keys, GetParam().budget, dir.path(), &spills), expected);
  EXPECT_EQ(spills > 0, GetParam().spills);
  EXPECT_EQ(dir.FileCount(), 0u);  // the run file went with the sorter
}

INSTANTIATE_TEST_SUITE_P(Budgets, ExternalSorterBudget,
                         ::testing::Values(BudgetCase{"InMemory", 100 * 1024 * 1024, false},
                                           BudgetCase{"ARunPerRecord", 1, true},
                                           BudgetCase{"AFewRuns", 5000, true},
                                           BudgetCase{"TwoRuns", 40000, true}),
                         [](const ::testing::TestParamInfo<BudgetCase>& info) {
                           return info.param.name;
                         });

TEST(ExternalSorter, ShouldFailWith292WithoutDiskUse) {
  ExternalSorterOptions options;
  options.max_memory_bytes = 50;
  options.allow_disk_use = false;
  options.no_disk_use_message = "Sort exceeded memory limit";
  ExternalSorter sorter(CompareFirst, options);
  Status status;
  for (int i = 0; i < 10 && status.ok(); ++i) status = sorter.Add(IntKey(i).view(), "");
  EXPECT_EQ(status.code_number(), 292);
  EXPECT_EQ(status.reason(), "Sort exceeded memory limit");
}

TEST(ExternalSorter, ShouldKeepTheRunFileOnlyWhileTheSorterLives) {
  ScratchDir dir;
  {
    ExternalSorterOptions options;
    options.max_memory_bytes = 10;
    options.spill_dir = dir.path();  // created on the first spill
    ExternalSorter sorter(CompareFirst, options);
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(sorter.Add(IntKey(5 - i).view(), "x").ok());
    ASSERT_TRUE(sorter.Sort().ok());
    ASSERT_TRUE(sorter.Next());  // abandoned mid-merge, as a killed cursor is
    EXPECT_EQ(dir.FileCount(), 1u);
  }
  EXPECT_EQ(dir.FileCount(), 0u);
}

TEST(ExternalSorter, ShouldReadBackRecordsLargerThanItsReadWindow) {
  ScratchDir dir;
  ExternalSorterOptions options;
  options.max_memory_bytes = 1;
  options.spill_dir = dir.path();
  ExternalSorter sorter(CompareFirst, options);
  const std::vector<size_t> sizes = {200000, 10, 70000, 0, 1};
  for (size_t i = 0; i < sizes.size(); ++i) {
    ASSERT_TRUE(sorter
                    .Add(IntKey(static_cast<int>(sizes.size() - i)).view(),
                         std::string(sizes[i], static_cast<char>('a' + i)))
                    .ok());
  }
  ASSERT_TRUE(sorter.Sort().ok());
  for (size_t i = sizes.size(); i-- > 0;) {
    ASSERT_TRUE(sorter.Next());
    EXPECT_EQ(sorter.value(), std::string(sizes[i], static_cast<char>('a' + i)));
  }
  EXPECT_FALSE(sorter.Next());
  EXPECT_TRUE(sorter.status().ok());
}

TEST(ExternalSorter, ShouldYieldNothingForNoInput) {
  ExternalSorter sorter(CompareFirst, ExternalSorterOptions{});
  ASSERT_TRUE(sorter.Sort().ok());
  EXPECT_FALSE(sorter.Next());
  EXPECT_EQ(sorter.spills(), 0);
}

}  // namespace
}  // namespace cairn::query
