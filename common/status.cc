// Status implementation.
#include "common/status.h"

namespace cairn {

namespace {
const std::string& EmptyString() {
  static const std::string* empty = new std::string();
  return *empty;
}
}  // namespace

Status::Status(ErrorCode code, std::string reason) {
  if (code != ErrorCode::kOK) {
    state_ = std::make_shared<const State>(State{code, std::move(reason), nullptr});
  }
}

ErrorCode Status::code() const { return state_ ? state_->code : ErrorCode::kOK; }

const std::string& Status::reason() const { return state_ ? state_->reason : EmptyString(); }

const BsonDoc* Status::extra() const { return state_ ? state_->extra.get() : nullptr; }

Status Status::WithExtra(BsonDoc extra) const {
  if (!state_) return *this;
  Status s;
  s.state_ = std::make_shared<const State>(
      State{state_->code, state_->reason, std::make_shared<const BsonDoc>(std::move(extra))});
  return s;
}

Status Status::WithContext(std::string_view context) const {
  if (!state_) return *this;
  Status s;
  std::string reason(context);
  reason += " :: caused by :: ";
  reason += state_->reason;
  s.state_ = std::make_shared<const State>(State{state_->code, std::move(reason), state_->extra});
  return s;
}

std::string Status::ToString() const {
  if (!state_) return "OK";
  std::string out(code_name());
  out += ": ";
  out += state_->reason;
  return out;
}

}  // namespace cairn
