// The logComponentVerbosity and logLevel server parameters (mongosh's db.setLogLevel and
// db.getLogComponents): mongod's nested document of components, each {verbosity: n} with -1 for
// "inherit from the parent", read from and written to the logger's levels (common/logging.h).
#pragma once

#include <bson/bson.h>

#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace cairn::server {

// The levels a logComponentVerbosity value sets, checked before any is applied: pairs of a
// component path ("" for the global level) and a verbosity.
using LogVerbosityChanges = std::vector<std::pair<std::string, int>>;

// Parses setParameter's logComponentVerbosity value. BadValue for a value that is not a
// document, an unknown component, or a verbosity that is not a number.
Result<LogVerbosityChanges> ParseLogComponentVerbosity(const bson_iter_t* value);
// Applies parsed changes to the logger.
void ApplyLogVerbosity(const LogVerbosityChanges& changes);
// Appends the current levels under `field`, nested as mongod reports them.
void AppendLogComponentVerbosity(bson_t* out, const char* field);

}  // namespace cairn::server
