// The subcommands of the cairn tool; each takes its arguments (after the subcommand's name)
// and returns the process exit status.
#pragma once

#include <string>
#include <vector>

namespace cairn::tools {

int RunDump(const std::vector<std::string>& argv);
int RunRestore(const std::vector<std::string>& argv);
int RunExport(const std::vector<std::string>& argv);
int RunImport(const std::vector<std::string>& argv);

// Prints "cairn <command>: <reason>" on stderr and returns 1.
int Fail(const char* command, const std::string& reason);

}  // namespace cairn::tools
