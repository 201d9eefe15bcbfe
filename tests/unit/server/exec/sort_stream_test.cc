// SortStream: full and top-k sorts, stable ties, the 292 error without disk use, and spilled
// runs merged back in order (a tiny memory limit forces many runs).
#include "server/exec/sort_stream.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace cairn::server {
namespace {

// Yields prepared documents with RecordIds 1, 2, ...
class VectorStream final : public DocumentStream {
 public:
  explicit VectorStream(std::vector<BsonDoc> docs) : docs_(std::move(docs)) {}
  bool Next() override { return ++position_ <= docs_.size(); }
  BsonView document() const override { return docs_[position_ - 1].view(); }
  storage::RecordId record_id() const override { return static_cast<int64_t>(position_); }

 private:
  std::vector<BsonDoc> docs_;
  size_t position_ = 0;
};

std::vector<BsonDoc> Documents(int count) {
  std::vector<BsonDoc> docs;
  for (int i = 0; i < count; ++i) {
    BsonDoc doc;
    BSON_APPEND_INT32(doc.get(), "_id", i);
    BSON_APPEND_INT32(doc.get(), "k", (i * 7919) % 101);  // many ties
    docs.push_back(std::move(doc));
  }
  return docs;
}

std::shared_ptr<const query::SortPattern> Pattern(const char* json) {
  BsonDoc spec = BsonDoc::FromJson(json);
  auto parsed = query::SortPattern::Parse(spec.view());
  EXPECT_TRUE(parsed.ok());
  return std::make_shared<const query::SortPattern>(std::move(parsed).value());
}

// (k, _id) of every document the stream yields.
std::vector<std::pair<int, int>> Drain(DocumentStream& stream) {
  std::vector<std::pair<int, int>> out;
  while (stream.Next()) {
    bson_iter_t k, id;
    EXPECT_TRUE(stream.document().Find("k", &k));
    EXPECT_TRUE(stream.document().Find("_id", &id));
    out.emplace_back(bson_iter_int32(&k), bson_iter_int32(&id));
  }
  EXPECT_TRUE(stream.status().ok()) << stream.status().ToString();
  return out;
}

std::vector<std::pair<int, int>> Expected(int count, bool descending) {
  std::vector<std::pair<int, int>> all;
  for (int i = 0; i < count; ++i) all.emplace_back((i * 7919) % 101, i);
  std::stable_sort(all.begin(), all.end(), [&](const auto& a, const auto& b) {
    return descending ? a.first > b.first : a.first < b.first;
  });
  return all;
}

class SortStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cairn-sort-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  size_t FilesLeft() const {
    if (!std::filesystem::exists(dir_)) return 0;
    return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir_),
                                             std::filesystem::directory_iterator()));
  }
  std::filesystem::path dir_;
};

TEST_F(SortStreamTest, ShouldSortInMemoryStablyByRecordOrder) {
  auto stream =
      MakeSortStream(std::make_unique<VectorStream>(Documents(500)), Pattern("{\"k\": 1}"), 0, "");
  EXPECT_EQ(Drain(*stream), Expected(500, false));
}

TEST_F(SortStreamTest, ShouldKeepOnlyTheTopK) {
  auto stream = MakeSortStream(std::make_unique<VectorStream>(Documents(500)),
                               Pattern("{\"k\": -1}"), 10, "");
  auto expected = Expected(500, true);
  expected.resize(10);
  EXPECT_EQ(Drain(*stream), expected);
}

TEST_F(SortStreamTest, ShouldFailWith292WithoutDiskUse) {
  auto stream = MakeSortStream(std::make_unique<VectorStream>(Documents(500)),
                               Pattern("{\"k\": 1}"), 0, "", /*memory_limit=*/1000);
  EXPECT_FALSE(stream->Next());
  EXPECT_EQ(stream->status().code(), ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed);
  EXPECT_NE(stream->status().reason().find("Sort exceeded memory limit of 1000 bytes"),
            std::string::npos);
}

TEST_F(SortStreamTest, ShouldSpillRunsAndMergeThemInOrder) {
  auto stream = MakeSortStream(std::make_unique<VectorStream>(Documents(2000)),
                               Pattern("{\"k\": 1}"), 0, dir_.string(), /*memory_limit=*/4000);
  EXPECT_EQ(Drain(*stream), Expected(2000, false));
  EXPECT_GT(FilesLeft(), 0u) << "runs live while the stream does";
  stream.reset();
  EXPECT_EQ(FilesLeft(), 0u) << "runs are removed with the stream";
}

TEST_F(SortStreamTest, ShouldSpillATopKSortToo) {
  auto stream = MakeSortStream(std::make_unique<VectorStream>(Documents(2000)),
                               Pattern("{\"k\": -1}"), 1500, dir_.string(), /*memory_limit=*/4000);
  auto got = Drain(*stream);
  auto expected = Expected(2000, true);
  got.resize(1500);  // the limit above the sort keeps the first 1,500
  expected.resize(1500);
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace cairn::server
