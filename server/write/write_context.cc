// WriteContext (write_context.h): the per-collection write-state table.
#include "server/write/write_context.h"

namespace cairn::server {

CollectionWriteState& WriteContext::CollectionWrite(storage::Prefix collection) {
  std::lock_guard<std::mutex> lock(states_mu_);
  std::unique_ptr<CollectionWriteState>& slot = states_[collection];
  if (!slot) slot = std::make_unique<CollectionWriteState>();
  return *slot;
}

}  // namespace cairn::server
