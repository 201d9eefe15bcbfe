// Status: the result of an operation that returns no value: OK, or a MongoDB ErrorCode with a
// reason (the errmsg of the reply) and optional extra reply fields. Exceptions never cross a
// module boundary; Status and Result<T> do. Copying a Status is cheap (shared, immutable state).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/bson_doc.h"
#include "common/error_codes.h"
#include "common/invariant.h"

namespace cairn {

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(ErrorCode code, std::string reason);

  static Status OK() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  ErrorCode code() const;
  int code_number() const { return CodeNumber(code()); }
  std::string_view code_name() const { return CodeName(code()); }
  const std::string& reason() const;

  // Fields appended to the error reply beside errmsg/code/codeName, e.g. keyPattern and keyValue
  // for DuplicateKey or errInfo. Null when there are none.
  const BsonDoc* extra() const;
  Status WithExtra(BsonDoc extra) const;

  // Prefixes the reason ("<context> :: caused by :: <reason>"), keeping code and extra.
  Status WithContext(std::string_view context) const;

  // "<codeName>: <reason>" for logs and test failures.
  std::string ToString() const;

  // Marks a Status deliberately not acted upon.
  void IgnoreError() const {}

 private:
  struct State {
    ErrorCode code;
    std::string reason;
    std::shared_ptr<const BsonDoc> extra;
  };
  std::shared_ptr<const State> state_;
};

// Result<T>: a T or a non-OK Status. Dereferencing one that holds an error is an invariant
// failure in every build. Builds with CAIRN_CHECK_RESULTS (Debug and the sanitizer builds)
// also fail when a Result is dereferenced before ok() or status() was asked (RocksDB's
// ASSERT_STATUS_CHECKED), so a path that forgets the check fails in CI even when the value
// happens to be there.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    CAIRN_INVARIANT(!status_.ok());                     // an OK Result carries a value
  }
  Result(ErrorCode code, std::string reason) : status_(code, std::move(reason)) {}

  bool ok() const {
    MarkChecked();
    return status_.ok();
  }
  const Status& status() const {
    MarkChecked();
    return status_;
  }

  T& value() & { return *Checked(); }
  const T& value() const& { return *Checked(); }
  T&& value() && { return std::move(*Checked()); }
  T* operator->() { return Checked(); }
  const T* operator->() const { return Checked(); }
  T& operator*() & { return *Checked(); }
  const T& operator*() const& { return *Checked(); }

 private:
  T* Checked() {
    CAIRN_INVARIANT(value_.has_value());
#ifdef CAIRN_CHECK_RESULTS
    CAIRN_INVARIANT(checked_);
#endif
    return &*value_;
  }
  const T* Checked() const { return const_cast<Result*>(this)->Checked(); }
  void MarkChecked() const {
#ifdef CAIRN_CHECK_RESULTS
    checked_ = true;
#endif
  }

  std::optional<T> value_;
  Status status_;
#ifdef CAIRN_CHECK_RESULTS
  mutable bool checked_ = false;
#endif
};

}  // namespace cairn

#define CAIRN_CONCAT_INNER(a, b) a##b
#define CAIRN_CONCAT(a, b) CAIRN_CONCAT_INNER(a, b)

// Returns the Status of `expr` from the enclosing function when it is not OK.
#define CAIRN_RETURN_IF_ERROR(expr)                \
  do {                                             \
    ::cairn::Status cairn_status_ = (expr);        \
    if (!cairn_status_.ok()) return cairn_status_; \
  } while (0)

// Evaluates a Result<T> expression; returns its Status when not OK, else moves the value to lhs.
#define CAIRN_ASSIGN_OR_RETURN(lhs, expr) \
  CAIRN_ASSIGN_OR_RETURN_IMPL(CAIRN_CONCAT(cairn_result_, __LINE__), lhs, expr)
#define CAIRN_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
