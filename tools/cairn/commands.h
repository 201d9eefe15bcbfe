// The subcommands of the cairn tool; each takes its arguments (after the subcommand's name)
// and returns the process exit status.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "tools/cairn/args.h"

namespace cairn::tools {

int RunDump(const std::vector<std::string>& argv);
int RunRestore(const std::vector<std::string>& argv);
int RunExport(const std::vector<std::string>& argv);
int RunImport(const std::vector<std::string>& argv);

// What every subcommand does around its work: parses `argv` against the connection options and
// `specs`, answers --help with `usage`, refuses positional arguments beyond `max_positional`,
// runs `body`, and turns its Status into the exit status ("cairn <command>: <reason>" and 1).
int RunSubcommand(const char* command, const std::vector<std::string>& argv,
                  const std::vector<ArgSpec>& specs, const char* usage, size_t max_positional,
                  Status (*body)(const Args&));

}  // namespace cairn::tools
