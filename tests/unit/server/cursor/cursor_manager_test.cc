// CursorManager: ids, check-out/check-in, kills while checked out, discards, idle reaping.
#include "server/cursor/cursor_manager.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace cairn::server {
namespace {

std::unique_ptr<Cursor> NewCursor(const std::string& ns) {
  auto cursor = std::make_unique<Cursor>();
  cursor->ns = ns;
  return cursor;
}

TEST(CursorManager, ShouldHandOutDistinctPositiveIds) {
  CursorManager manager;
  int64_t a = manager.Register(NewCursor("db.c"));
  int64_t b = manager.Register(NewCursor("db.c"));
  EXPECT_GT(a, 0);
  EXPECT_GT(b, 0);
  EXPECT_NE(a, b);
  EXPECT_EQ(manager.open_count(), 2u);
}

TEST(CursorManager, ShouldAnswerCursorNotFoundForUnknownIds) {
  CursorManager manager;
  auto result = manager.CheckOut(42, "db.c");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kCursorNotFound);
  EXPECT_EQ(result.status().reason(), "cursor id 42 not found");
}

TEST(CursorManager, ShouldRefuseAGetMoreFromAnotherNamespace) {
  CursorManager manager;
  int64_t id = manager.Register(NewCursor("db.c"));
  auto result = manager.CheckOut(id, "db.other");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kUnauthorized);
  EXPECT_TRUE(manager.CheckOut(id, "db.c").ok());
}

TEST(CursorManager, ShouldNotLendOneCursorTwiceAtOnce) {
  CursorManager manager;
  int64_t id = manager.Register(NewCursor("db.c"));
  auto first = manager.CheckOut(id, "db.c");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(manager.CheckOut(id, "db.c").status().code(), ErrorCode::kCursorNotFound);
  manager.CheckIn(std::move(first).value());
  EXPECT_TRUE(manager.CheckOut(id, "db.c").ok());
}

TEST(CursorManager, ShouldLetAGetMoreWaitForTheServersReadAhead) {
  CursorManager manager;
  int64_t id = manager.Register(NewCursor("db.c"));
  std::unique_ptr<Cursor> reading = manager.TryCheckOut(id);
  ASSERT_NE(reading, nullptr);
  std::atomic<bool> checked_in{false};
  std::thread read_ahead([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    checked_in = true;
    manager.CheckIn(std::move(reading));
  });
  auto result = manager.CheckOut(id, "db.c");  // from another connection, meanwhile
  EXPECT_TRUE(checked_in);
  EXPECT_TRUE(result.ok());
  read_ahead.join();
}

TEST(CursorManager, ShouldDestroyACursorKilledWhileCheckedOutWhenItComesBack) {
  CursorManager manager;
  int64_t id = manager.Register(NewCursor("db.c"));
  auto out = manager.CheckOut(id, "db.c");
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(manager.Kill(id));
  manager.CheckIn(std::move(out).value());
  EXPECT_EQ(manager.open_count(), 0u);
  EXPECT_FALSE(manager.Kill(id));
}

TEST(CursorManager, ShouldForgetADiscardedCursor) {
  CursorManager manager;
  int64_t id = manager.Register(NewCursor("db.c"));
  auto out = manager.CheckOut(id, "db.c");
  ASSERT_TRUE(out.ok());
  manager.Discard(std::move(out).value());
  EXPECT_EQ(manager.open_count(), 0u);
  EXPECT_FALSE(manager.Kill(id));
}

TEST(CursorManager, ShouldReapOnlyCursorsIdleLongerThanTheTimeout) {
  CursorManager manager;
  manager.Register(NewCursor("db.c"));
  EXPECT_EQ(manager.ReapIdle(std::chrono::hours(1)), 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(manager.ReapIdle(std::chrono::milliseconds(1)), 1u);
  EXPECT_EQ(manager.open_count(), 0u);
  EXPECT_EQ(manager.timed_out_total(), 1);
}

}  // namespace
}  // namespace cairn::server
