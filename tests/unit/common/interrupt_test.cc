// Specification of common/interrupt: what stops an operation at its safe points (a kill, a
// deadline, the client's disconnect), with mongod's codes and messages, and the per-thread
// current operation.
#include "common/interrupt.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <thread>

namespace cairn {
namespace {

// The status of the first failing check among `n` (checks read the clock only now and then).
Status CheckTimes(Interruptible& op, int n) {
  for (int i = 0; i < n; ++i) {
    Status s = op.Check();
    if (!s.ok()) return s;
  }
  return Status::OK();
}

TEST(Interruptible, ShouldLetARunningOperationGoOn) {
  Interruptible op;
  EXPECT_TRUE(CheckTimes(op, 1000).ok());
  EXPECT_FALSE(op.killed());
}

TEST(Interruptible, ShouldStopAKilledOperationAtItsNextCheck) {
  Interruptible op;
  op.Kill(ErrorCode::kInterrupted);
  Status s = op.Check();
  EXPECT_EQ(s.code(), ErrorCode::kInterrupted);
  EXPECT_EQ(s.reason(), "operation was interrupted");
  // The first kill wins.
  op.Kill(ErrorCode::kInterruptedAtShutdown);
  EXPECT_EQ(op.Check().code(), ErrorCode::kInterrupted);
}

TEST(Interruptible, ShouldSayShutdownInterruptsAsMongodDoes) {
  Interruptible op;
  op.Kill(ErrorCode::kInterruptedAtShutdown);
  EXPECT_EQ(op.Check().reason(), "interrupted at shutdown");
}

TEST(Interruptible, ShouldStopAnOperationPastItsDeadline) {
  Interruptible op;
  op.set_deadline(Interruptible::Clock::now() - std::chrono::milliseconds(1));
  Status s = CheckTimes(op, 1000);
  EXPECT_EQ(s.code(), ErrorCode::kMaxTimeMSExpired);
  EXPECT_EQ(s.reason(), "operation exceeded time limit");
  EXPECT_TRUE(op.killed());
}

TEST(Interruptible, ShouldNoticeAClientThatHasGone) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  Interruptible op;
  op.set_client_socket(fds[0]);
  EXPECT_TRUE(CheckTimes(op, 1000).ok());
  close(fds[1]);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));  // past the poll interval
  Status s = CheckTimes(op, 1000);
  EXPECT_EQ(s.code(), ErrorCode::kClientDisconnect);
  EXPECT_EQ(s.reason(), "operation was interrupted because a client disconnected");
  close(fds[0]);
}

TEST(Interruptible, ShouldNotTakeBytesWaitingForADisconnect) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  ASSERT_EQ(write(fds[1], "x", 1), 1);  // a pipelined request
  Interruptible op;
  op.set_client_socket(fds[0]);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_TRUE(CheckTimes(op, 1000).ok());
  close(fds[0]);
  close(fds[1]);
}

TEST(CheckForInterrupt, ShouldCheckTheCallingThreadsCurrentOperation) {
  EXPECT_TRUE(CheckForInterrupt().ok());  // none current
  Interruptible op;
  op.Kill(ErrorCode::kInterrupted);
  {
    ScopedInterrupt current(&op);
    EXPECT_EQ(CurrentInterruptible(), &op);
    EXPECT_EQ(CheckForInterrupt().code(), ErrorCode::kInterrupted);
    // Another thread has its own current operation (none).
    std::thread other([] { EXPECT_TRUE(CheckForInterrupt().ok()); });
    other.join();
  }
  EXPECT_EQ(CurrentInterruptible(), nullptr);
  EXPECT_TRUE(CheckForInterrupt().ok());
}

}  // namespace
}  // namespace cairn
