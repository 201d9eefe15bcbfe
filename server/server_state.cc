// ServerState implementation.
#include "server/server_state.h"

namespace cairn::server {

ServerState::ServerState(ServerOptions options, std::unique_ptr<storage::Engine> engine)
    : options_(std::move(options)), engine_(std::move(engine)) {
  // main.cc validated each assignment before the server was made.
  for (const std::string& assignment : options_.set_parameters) {
    SetParameterFromString(&parameters_, assignment).IgnoreError();
  }
  ops_.SetSlowOpThreshold(options_.slow_ms, options_.slow_op_sample_rate);
  if (options_.profile_level != 0) ops_.profile().SetDefault({options_.profile_level, nullptr});
}

ServerState::~ServerState() = default;

void ServerState::CloseEngine() {
  ttl_monitor_.Stop();  // no pass may run on a closed engine
  // Open transactions hold snapshots of the engine: aborted (their cursors go with them).
  repl_.retryable().AbortExpiredTransactions(std::chrono::steady_clock::time_point::max());
  cursors_.ReapIdle(std::chrono::steady_clock::duration::zero());
  // Flushing the memtables on a clean stop spares the next start a WAL replay (2 s for 1 M
  // documents measured, against 30-40 ms after a flush).
  Status flushed = engine_->Flush();
  flushed
      .IgnoreError();  // the WAL still holds everything: a failed flush only slows the next start
  engine_.reset();
}

}  // namespace cairn::server
