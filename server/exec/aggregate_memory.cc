// SetMemoryOptions (aggregate_memory.h): reads the parameters once per command, so a setParameter
// applies to the next aggregate, not to cursors already open.
#include "server/exec/aggregate_memory.h"

#include "server/exec/sort_stream.h"
#include "server/server_parameters.h"

namespace cairn::server {

void SetMemoryOptions(ServerState& state, bool allow_disk_use, query::PipelineOptions* options) {
  options->allow_disk_use = allow_disk_use;
  options->spill_dir = SpillDirectory(state.options().dbpath);
  const ServerParameters& parameters = state.parameters();
  options->sort_max_memory_bytes =
      parameters.internal_query_max_blocking_sort_memory_usage_bytes.load();
  options->group_max_memory_bytes =
      parameters.internal_document_source_group_max_memory_bytes.load();
  options->hash_join_max_bytes =
      parameters.internal_query_collection_max_data_size_bytes_to_choose_hash_join.load();
}

}  // namespace cairn::server
