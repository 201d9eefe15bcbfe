// --fork and --pidfilepath, as mongod does them: the parent waits until the forked server is
// ready for connections (or has failed) and exits with its status; the pid file names the
// server's process.
#pragma once

#include <string>

namespace cairn::server {

// Forks. Returns in the child, detached from the terminal (a new session). The parent never
// returns: it prints mongod's lines and exits 0 once the child calls NotifyForkedParent(0), or
// with the child's exit status when it ends first. Call before any thread starts. False (with
// `error`) when the fork fails.
bool ForkServer(std::string* error);

// In the forked child: tells the waiting parent the server is ready (0) and lets standard
// input, output and error go (to /dev/null). Does nothing without --fork.
void NotifyForkedParent();

// Writes this process's pid and a newline to `path`. False (with `error`) when it cannot.
bool WritePidFile(const std::string& path, std::string* error);

}  // namespace cairn::server
