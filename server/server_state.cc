// ServerState implementation.
#include "server/server_state.h"

namespace cairn::server {

ServerState::ServerState(ServerOptions options, std::unique_ptr<storage::Engine> engine)
    : options_(std::move(options)), engine_(std::move(engine)) {}

ServerState::~ServerState() = default;

std::mutex& ServerState::CollectionLock(storage::Prefix collection) {
  std::lock_guard<std::mutex> lock(locks_mu_);
  auto& slot = locks_[collection];
  if (!slot) slot = std::make_unique<std::mutex>();
  return *slot;
}

void ServerState::CloseEngine() {
  cursors_.ReapIdle(std::chrono::steady_clock::duration::zero());
  engine_.reset();
}

}  // namespace cairn::server
