// The cluster's logical clock (server/repl/logical_clock.h): strictly increasing Timestamps that
// follow the wall clock and never go back.
#include "server/repl/logical_clock.h"

#include <gtest/gtest.h>

namespace cairn::server {
namespace {

TEST(LogicalClock, ShouldHandOutStrictlyIncreasingTimestamps) {
  LogicalClock clock;
  Timestamp last = clock.Reserve();
  EXPECT_GT(last.seconds(), 1'600'000'000u);  // the wall clock's seconds
  for (int i = 0; i < 10'000; ++i) {
    Timestamp next = clock.Reserve();
    EXPECT_GT(next, last);
    last = next;
  }
}

TEST(LogicalClock, ShouldNeverGoBackBelowWhatItLearned) {
  LogicalClock clock;
  const Timestamp future = Timestamp::Of(4'000'000'000u, 7);
  clock.AdvanceTo(future);
  EXPECT_EQ(clock.Now(), future);
  EXPECT_EQ(clock.Reserve(), Timestamp::Of(4'000'000'000u, 8));
  clock.AdvanceTo(Timestamp::Of(1, 1));
  EXPECT_GT(clock.Now(), future);
}

}  // namespace
}  // namespace cairn::server
