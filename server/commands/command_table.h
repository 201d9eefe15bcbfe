// The one command table: every command Cairn answers, sorted by name, each with its handler.
// listCommands is generated from it; a name missing from it answers CommandNotFound (59).
#pragma once

#include <span>
#include <string_view>

#include "server/command.h"

namespace cairn::server {

// The command named `name` (case-sensitive, as MongoDB; aliases such as "buildinfo" and
// "ismaster" are rows of their own), or null.
const CommandDef* FindCommand(std::string_view name);

// Every row, sorted by name.
std::span<const CommandDef> AllCommands();

}  // namespace cairn::server
