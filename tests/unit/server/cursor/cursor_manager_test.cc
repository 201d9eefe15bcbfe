// CursorManager: ids, check-out/check-in, kills while checked out, discards, idle reaping; and
// CursorPin: a checked-out cursor goes back on every path (the pin's end included) unless
// discarded, and a pin moved elsewhere hands over that duty.
#include "server/cursor/cursor_manager.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <utility>

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

TEST(CursorPin, ShouldAnswerAsCheckOutForUnknownIdsAndOtherNamespaces) {
  CursorManager manager;
  Result<CursorPin> unknown = manager.Pin(42, "db.c");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), ErrorCode::kCursorNotFound);
  EXPECT_EQ(unknown.status().reason(), "cursor id 42 not found");
  int64_t id = manager.Register(NewCursor("db.c"));
  Result<CursorPin> other = manager.Pin(id, "db.other");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), ErrorCode::kUnauthorized);
  EXPECT_TRUE(manager.Pin(id, "db.c").ok());  // the refused pin left it idle
}

TEST(CursorPin, ShouldCheckTheCursorBackInWhenItEnds) {
  CursorManager manager;
  int64_t id = manager.Register(NewCursor("db.c"));
  {
    Result<CursorPin> pin = manager.Pin(id, "db.c");
    ASSERT_TRUE(pin.ok());
    EXPECT_EQ((*pin)->id, id);
    EXPECT_EQ(manager.Pin(id, "db.c").status().code(), ErrorCode::kCursorNotFound);  // in use
    EXPECT_FALSE(manager.TryPin(id));
  }
  EXPECT_EQ(manager.open_count(), 1u);
  EXPECT_TRUE(manager.Pin(id, "db.c").ok());
}

TEST(CursorPin, ShouldForgetADiscardedCursor) {
  CursorManager manager;
  int64_t id = manager.Register(NewCursor("db.c"));
  {
    Result<CursorPin> pin = manager.Pin(id, "db.c");
    ASSERT_TRUE(pin.ok());
    pin->Discard();
    EXPECT_FALSE(*pin);
  }
  EXPECT_EQ(manager.open_count(), 0u);
  EXPECT_FALSE(manager.Kill(id));
}

TEST(CursorPin, ShouldCheckInOnceWhenCheckedInEarly) {
  CursorManager manager;
  int64_t id = manager.Register(NewCursor("db.c"));
  Result<CursorPin> pin = manager.Pin(id, "db.c");
  ASSERT_TRUE(pin.ok());
  pin->CheckIn();
  EXPECT_FALSE(*pin);
  Result<CursorPin> again = manager.Pin(id, "db.c");  // idle again, before the first pin ends
  EXPECT_TRUE(again.ok());
}

TEST(CursorPin, ShouldHandItsDutyToThePinItMovesTo) {
  CursorManager manager;
  int64_t id = manager.Register(NewCursor("db.c"));
  CursorPin outer;
  {
    Result<CursorPin> pin = manager.Pin(id, "db.c");
    ASSERT_TRUE(pin.ok());
    outer = std::move(*pin);
  }
  EXPECT_FALSE(manager.TryPin(id));  // still out: `outer` holds it
  outer = CursorPin();               // assigning over a pin checks its cursor in
  EXPECT_TRUE(manager.TryPin(id));
}

TEST(CursorPin, ShouldDestroyACursorKilledWhileOutWhenItComesBack) {
  CursorManager manager;
  int64_t id = manager.Register(NewCursor("db.c"));
  {
    Result<CursorPin> pin = manager.Pin(id, "db.c");
    ASSERT_TRUE(pin.ok());
    EXPECT_TRUE(manager.Kill(id));
  }
  EXPECT_EQ(manager.open_count(), 0u);
  EXPECT_FALSE(manager.Kill(id));
}

TEST(CursorPin, ShouldLetAGetMoreWaitForAReadAheadPinToEnd) {
  CursorManager manager;
  int64_t id = manager.Register(NewCursor("db.c"));
  CursorPin reading = manager.TryPin(id);
  ASSERT_TRUE(reading);
  std::atomic<bool> ended{false};
  std::thread read_ahead([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ended = true;
    CursorPin done = std::move(reading);  // ends here, on the read-ahead's thread
  });
  Result<CursorPin> pin = manager.Pin(id, "db.c");  // from another connection, meanwhile
  EXPECT_TRUE(ended);
  EXPECT_TRUE(pin.ok());
  read_ahead.join();
}

}  // namespace
}  // namespace cairn::server
