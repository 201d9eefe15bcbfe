// Test failpoints, as mongod's FailPoint (util/fail_point.h) and the failCommand failpoint its
// command dispatch consults: each failpoint's mode (off, alwaysOn, {times}, {skip},
// {activationProbability}) and data as configureFailPoint sets them, the count of times it was
// entered, and what failCommand does to a command. The registry (FailPoints) lives in ServerState;
// configureFailPoint exists only with --setParameter enableTestCommands=1. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "common/bson_doc.h"
#include "common/mutex.h"
#include "common/status.h"
#include "server/command.h"

namespace cairn::server {

// How a failpoint fires, as configureFailPoint's `mode` gives it.
struct FailPointMode {
  enum class Kind { kOff, kAlwaysOn, kTimes, kSkip, kRandom };
  Kind kind = Kind::kOff;
  // kTimes: hits left; kSkip: passes still to skip; kRandom: the activation threshold out of
  // INT32_MAX (activationProbability scaled, as mongod scales it).
  int64_t value = 0;
};

struct FailPointSettings {
  FailPointMode mode;
  BsonDoc data;
};

// configureFailPoint's `mode` and `data` read from the command, with the errors of mongod's
// FailPoint::parseBSON (IllegalOperation without a mode, BadValue/TypeMismatch for a bad one).
Result<FailPointSettings> ParseFailPointSettings(BsonView command);

class FailPoint {
 public:
  explicit FailPoint(std::string_view name) : name_(name) {}
  FailPoint(const FailPoint&) = delete;
  FailPoint& operator=(const FailPoint&) = delete;

  std::string_view name() const { return name_; }

  // Sets the mode and data; returns the times entered so far (configureFailPoint's `count`).
  int64_t Configure(FailPointSettings settings);

  // One pass over the failpoint. When it is on and `matches` (if given) accepts its data, the
  // mode decides: {times} counts down (and turns the failpoint off at 0), {skip} lets passes
  // through until its count is used, activationProbability draws. A hit counts as an entry and
  // returns the data; anything else returns null. Passes the predicate refuses count for nothing,
  // as in mongod.
  std::shared_ptr<const BsonDoc> Evaluate(const std::function<bool(BsonView)>& matches = {});

  int64_t times_entered() const { return entered_.load(); }
  // {mode, data, timesEntered}, as mongod logs a failpoint it sets.
  BsonDoc Describe() const;

 private:
  const std::string_view name_;
  std::atomic<bool> on_{false};  // the fast path of every pass while the failpoint is off
  mutable Mutex mu_;
  FailPointMode mode_ GUARDED_BY(mu_);
  std::shared_ptr<const BsonDoc> data_ GUARDED_BY(mu_);
  std::atomic<int64_t> entered_{0};
};

// The failpoints Cairn implements, each doing what the mongod failpoint of that name does.
class FailPoints {
 public:
  // The failpoint named `name`, or null (configureFailPoint answers FailPointSetFailed 266).
  FailPoint* Find(std::string_view name);

  // Commands fail, close their connection, block or report a writeConcernError (dispatcher).
  FailPoint fail_command{"failCommand"};
  // A getMore fails once its cursor is checked out (get_more.cc).
  FailPoint fail_get_more_after_cursor_checkout{"failGetMoreAfterCursorCheckout"};
  // A command with maxTimeMS fails with MaxTimeMSExpired before it runs (dispatcher).
  FailPoint max_time_always_time_out{"maxTimeAlwaysTimeOut"};
  // A retryable write statement closes its connection and/or fails before it commits
  // (retryable_write.cc).
  FailPoint on_primary_transactional_write{"onPrimaryTransactionalWrite"};
};

// What failCommand looks at in a command (mongod's shouldActivateFailCommandFailPoint).
struct FailCommandTarget {
  const CommandDef* def = nullptr;
  const CommandRequest* request = nullptr;
  const ConnectionInfo* connection = nullptr;
  // The command table's lookup: a listed name matches the command or any of its aliases (the
  // rows with the same handler). The dispatcher passes FindCommand.
  const CommandDef* (*find_command)(std::string_view name) = nullptr;
};

// Whether failCommand's `data` applies to the target, apart from the command names: the
// connection's appName, threadName ("conn<id>"), the command's namespace, and internal clients
// (only with failInternalCommands). configureFailPoint itself is never failed.
bool FailCommandTargets(BsonView data, const FailCommandTarget& target);
// The above, and the command is in failCommands (or failAllCommands is set).
bool FailCommandApplies(BsonView data, const FailCommandTarget& target);

// What a failCommand hit does to the command it caught (mongod's evaluateFailCommandFailPoint).
struct FailCommandHit {
  std::shared_ptr<const BsonDoc> data;  // null: no hit
  bool close_connection = false;
  bool block_connection = false;
  bool has_error_code = false;
  int64_t error_code = 0;

  explicit operator bool() const { return data != nullptr; }
  // Reads the flags from `data` as mongod's predicate does (a non-boolean closeConnection or
  // blockConnection, a non-integral errorCode count as absent).
  static FailCommandHit FromData(std::shared_ptr<const BsonDoc> data);
  // How long blockConnection holds the command: InvalidOptions 72 without a non-negative
  // integral blockTimeMS.
  Result<int64_t> BlockTimeMs() const;
  // The outcome once any block is over: closeConnection sets `connection->end_session` (the
  // connection closes without a reply) and fails with 50985; errorCode fails with that code
  // ("Failing command via 'failCommand' failpoint", errorExtraInfo's fields beside it); OK when
  // the hit only blocked.
  Status Outcome(ConnectionInfo* connection) const;
};

// failCommand for a command about to run: a hit when the failpoint is on, its data applies to
// the command, and it closes, blocks or fails it.
FailCommandHit EvaluateFailCommand(FailPoint& fail_command, const FailCommandTarget& target);

// failCommand's writeConcernError for a command that takes a write concern, after it ran: the
// data when the failpoint hits and its data has one (its errorLabels then replace the reply's).
std::shared_ptr<const BsonDoc> EvaluateFailCommandWriteConcernError(
    FailPoint& fail_command, const FailCommandTarget& target);

// failCommand's errorLabels when `data` gives them as an array: they replace the labels the
// server would add (an empty array: none).
std::optional<BsonView> FailCommandErrorLabels(const BsonDoc& data);

}  // namespace cairn::server
