// Specification of common/interrupt: what stops an operation at its safe points (a kill, a
// deadline, the client's disconnect), with mongod's codes and messages, and the slot through
// which a command's or cursor's streams find the operation pulling them.
#include "common/interrupt.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <memory>
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

TEST(InterruptSlot, ShouldCheckTheOperationItPointsAt) {
  InterruptSlot slot;
  EXPECT_TRUE(slot.Check().ok());  // none: nothing interrupts
  EXPECT_TRUE(CheckInterrupt(nullptr).ok());
  Interruptible op;
  op.Kill(ErrorCode::kInterrupted);
  {
    ScopedInterrupt current(&slot, &op);
    EXPECT_EQ(slot.op(), &op);
    EXPECT_EQ(slot.Check().code(), ErrorCode::kInterrupted);
    EXPECT_EQ(CheckInterrupt(&slot).code(), ErrorCode::kInterrupted);
    // The slot is passed, not the thread's: another thread checking it sees the same operation.
    std::thread other([&] { EXPECT_EQ(slot.Check().code(), ErrorCode::kInterrupted); });
    other.join();
  }
  EXPECT_EQ(slot.op(), nullptr);  // never left pointing at an operation that has ended
  EXPECT_TRUE(slot.Check().ok());
}

TEST(InterruptSlot, ShouldLeaveAnOuterScopeOfTheSameOperationInPlace) {
  InterruptSlot slot;
  Interruptible op;
  ScopedInterrupt command(&slot, &op);
  { ScopedInterrupt batch(&slot, &op); }  // a command's first batch, inside the command
  EXPECT_EQ(slot.op(), &op);
}

TEST(InterruptSlot, ShouldNotClearAnotherOperationsPointing) {
  // A command registers its cursor before its scope ends; a getMore may take the cursor and
  // point the slot at itself first. The command's end leaves the getMore's operation in place.
  InterruptSlot slot;
  Interruptible command_op, get_more_op;
  auto command = std::make_unique<ScopedInterrupt>(&slot, &command_op);
  {
    ScopedInterrupt get_more(&slot, &get_more_op);
    command.reset();
    EXPECT_EQ(slot.op(), &get_more_op);
  }
  EXPECT_EQ(slot.op(), nullptr);
}

}  // namespace
}  // namespace cairn
