// The start-up configuration of an embedded database (cairn_open): cairnd's own option table
// (server/startup/command_line.h), fed the library's fixed flags and the caller's JSON options,
// so the same checks and defaults apply as to cairnd. What the library decides itself (where
// the data lives, that it owns neither the process nor a listening port) is set here.
#pragma once

#include <string>

#include "common/status.h"
#include "server/startup/command_line.h"

namespace cairn::embedded {

// The path cairn_open takes for an in-memory database.
inline constexpr const char* kMemoryPath = ":memory:";

// `path` is a data directory or kMemoryPath; `spill_dir` the directory for sort and group spill
// files of an in-memory database (a private temporary directory: the engine keeps nothing
// on disk, but spills are files). `options_json` may be empty.
Result<server::StartupConfig> EmbeddedConfig(const std::string& path, const std::string& spill_dir,
                                             const std::string& options_json);

}  // namespace cairn::embedded
