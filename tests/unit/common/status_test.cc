// Specification of common/status.h: Status, Result<T> and the early-return macros.
#include "common/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace cairn {
namespace {

TEST(Status, ShouldBeOkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(Status::OK().ok());
  EXPECT_EQ(s.code(), ErrorCode::kOK);
  EXPECT_EQ(s.code_number(), 0);
  EXPECT_EQ(s.reason(), "");
  EXPECT_EQ(s.extra(), nullptr);
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(Status, ShouldCarryCodeReasonAndCodeName) {
  Status s(ErrorCode::kBadValue, "unknown operator: $foo");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kBadValue);
  EXPECT_EQ(s.code_number(), 2);
  EXPECT_EQ(s.code_name(), "BadValue");
  EXPECT_EQ(s.reason(), "unknown operator: $foo");
  EXPECT_EQ(s.ToString(), "BadValue: unknown operator: $foo");
}

TEST(Status, ShouldNameCodesTheTableDoesNotAsLocations) {
  // failCommand's errorCode may be any number: mongod prints an unnamed one as Location<N>.
  EXPECT_EQ(CodeName(static_cast<ErrorCode>(12345)), "Location12345");
  EXPECT_EQ(CodeName(static_cast<ErrorCode>(12345)).data(),
            CodeName(static_cast<ErrorCode>(12345)).data());  // made once, kept
  EXPECT_EQ(Status(static_cast<ErrorCode>(987), "x").ToString(), "Location987: x");
}

TEST(Status, ShouldTreatCodeOkAsOk) { EXPECT_TRUE(Status(ErrorCode::kOK, "ignored").ok()); }

TEST(Status, ShouldShareStateOnCopy) {
  Status a(ErrorCode::kDuplicateKey, "E11000");
  Status b = a;
  EXPECT_EQ(b.code_number(), 11000);
  EXPECT_EQ(&a.reason(), &b.reason());
}

TEST(Status, ShouldAttachExtraFieldsWithoutChangingTheOriginal) {
  Status s(ErrorCode::kDuplicateKey, "E11000 duplicate key error");
  Status with = s.WithExtra(BsonDoc::FromJson(R"({"keyPattern": {"a": 1}, "keyValue": {"a": 1}})"));
  EXPECT_EQ(s.extra(), nullptr);
  ASSERT_NE(with.extra(), nullptr);
  EXPECT_EQ(with.code(), ErrorCode::kDuplicateKey);
  EXPECT_EQ(with.reason(), s.reason());
  bson_iter_t it;
  EXPECT_TRUE(with.extra()->view().Find("keyPattern", &it));
  EXPECT_TRUE(with.extra()->view().Find("keyValue", &it));
}

TEST(Status, ShouldIgnoreExtraAndContextOnOk) {
  Status ok;
  EXPECT_TRUE(ok.WithExtra(BsonDoc::FromJson(R"({"a": 1})")).ok());
  EXPECT_EQ(ok.WithExtra(BsonDoc::FromJson(R"({"a": 1})")).extra(), nullptr);
  EXPECT_TRUE(ok.WithContext("ctx").ok());
  EXPECT_EQ(ok.WithContext("ctx").reason(), "");
}

TEST(Status, ShouldPrefixContextKeepingCodeAndExtra) {
  Status s = Status(ErrorCode::kBSONObjectTooLarge,
                    "Resulting document after update is larger than 16777216")
                 .WithExtra(BsonDoc::FromJson(R"({"errInfo": 1})"));
  Status c = s.WithContext("Plan executor error during update");
  EXPECT_EQ(c.reason(),
            "Plan executor error during update :: caused by :: Resulting document after update is "
            "larger than 16777216");
  EXPECT_EQ(c.code(), ErrorCode::kBSONObjectTooLarge);
  ASSERT_NE(c.extra(), nullptr);
  bson_iter_t it;
  EXPECT_TRUE(c.extra()->view().Find("errInfo", &it));
  EXPECT_EQ(s.reason(), "Resulting document after update is larger than 16777216");
}

TEST(Result, ShouldHoldAValue) {
  Result<std::string> r(std::string("abc"));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.status().ok());
  EXPECT_EQ(r.value(), "abc");
  EXPECT_EQ(*r, "abc");
  EXPECT_EQ(r->size(), 3u);
  std::string moved = std::move(r).value();
  EXPECT_EQ(moved, "abc");
}

TEST(Result, ShouldHoldAnError) {
  Result<int> r(ErrorCode::kBadValue, "nope");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(r.status().reason(), "nope");
  Result<int> from_status = Status(ErrorCode::kInvalidBSON, "bad");
  EXPECT_EQ(from_status.status().code(), ErrorCode::kInvalidBSON);
}

TEST(Result, ShouldHoldMoveOnlyValues) {
  Result<std::unique_ptr<int>> r(std::make_unique<int>(5));
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 5);
}

Result<int> Parse(int v) {
  if (v < 0) return Status(ErrorCode::kBadValue, "negative");
  return v * 2;
}

Result<int> AddParsed(int a, int b) {
  CAIRN_ASSIGN_OR_RETURN(int x, Parse(a));
  CAIRN_ASSIGN_OR_RETURN(int y, Parse(b));
  return x + y;
}

Status Check(int v) {
  if (v == 0) return Status(ErrorCode::kBadValue, "zero");
  return Status::OK();
}

Status CheckBoth(int a, int b, int* calls) {
  ++*calls;
  CAIRN_RETURN_IF_ERROR(Check(a));
  ++*calls;
  CAIRN_RETURN_IF_ERROR(Check(b));
  ++*calls;
  return Status::OK();
}

TEST(Macros, ShouldAssignOrReturnTheError) {
  Result<int> ok = AddParsed(1, 2);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 6);
  Result<int> err = AddParsed(1, -2);
  EXPECT_FALSE(err.ok());
  EXPECT_EQ(err.status().reason(), "negative");
}

TEST(Macros, ShouldAssignIntoAnExistingVariable) {
  auto f = [](int v) -> Status {
    int out = 0;
    CAIRN_ASSIGN_OR_RETURN(out, Parse(v));
    return out == 2 * v ? Status::OK() : Status(ErrorCode::kInternalError, "wrong");
  };
  EXPECT_TRUE(f(4).ok());
  EXPECT_EQ(f(-1).code(), ErrorCode::kBadValue);
}

TEST(Macros, ShouldReturnIfError) {
  int calls = 0;
  EXPECT_TRUE(CheckBoth(1, 2, &calls).ok());
  EXPECT_EQ(calls, 3);
  calls = 0;
  EXPECT_EQ(CheckBoth(0, 2, &calls).reason(), "zero");
  EXPECT_EQ(calls, 1);
  calls = 0;
  EXPECT_EQ(CheckBoth(1, 0, &calls).reason(), "zero");
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace cairn
