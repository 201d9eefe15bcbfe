// WriteContext (write_context.h): the per-collection write-state table.
#include "server/write/write_context.h"
#include "common/mutex.h"

namespace cairn::server {

CollectionWriteState& WriteContext::CollectionWrite(storage::Prefix collection) {
  MutexLock lock(&states_mu_);
  std::unique_ptr<CollectionWriteState>& slot = states_[collection];
  if (!slot) slot = std::make_unique<CollectionWriteState>();
  return *slot;
}

}  // namespace cairn::server
