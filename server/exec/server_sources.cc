// server_sources.h: query::ServerSources over the server's catalog, operations and sessions.
#include "server/exec/server_sources.h"

#include <string_view>
#include <vector>

#include "server/admin/current_op.h"
#include "server/admin/session_cache.h"
#include "server/catalog/collection_stats.h"

namespace cairn::server {

namespace {

class ServerSourcesImpl final : public query::ServerSources {
 public:
  explicit ServerSourcesImpl(ServerState& state) : state_(state) {}

  Result<BsonDoc> CollStats(std::string_view ns, const query::CollStatsSpec& spec) override {
    return CollStatsDocument(state_, ns, spec);
  }

  Result<std::vector<BsonDoc>> CurrentOp(const query::CurrentOpSpec& spec) override {
    return CurrentOpDocuments(state_, spec);
  }

  // Without authentication every session belongs to the one (absent) user, so each form of the
  // argument lists them all.
  Result<std::vector<BsonDoc>> ListLocalSessions(
      const query::ListLocalSessionsSpec& /*spec*/) override {
    return state_.sessions().List();
  }

 private:
  ServerState& state_;
};

}  // namespace

std::shared_ptr<query::ServerSources> MakeServerSources(ServerState& state) {
  return std::make_shared<ServerSourcesImpl>(state);
}

}  // namespace cairn::server
