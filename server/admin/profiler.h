// Profiler: what happens when a command ends, from what it did (CommandContext::debug, OpDebug):
// serverStatus's document, queryExecutor and operation metrics are added to; the "Slow query"
// line (id 51803) is logged for a command over slowms (sampled by slowOpSampleRate; every command
// at -v), or one its database's profiling filter matches; and at profiling level 1 (the same
// commands) or 2 (every command) its entry is written to <db>.system.profile, in mongod's shape:
//   {op, ns, command, cursorid, keysExamined, docsExamined, nMatched, nModified, nUpserted,
//    ninserted, ndeleted, cursorExhausted, numYield, nreturned, ok/errMsg/errName/errCode,
//    responseLength, protocol, millis, planSummary, ts, client, appName, allUsers, user}.
// system.profile is created on the first entry as mongod creates it: capped at 1 MiB, and never
// logged in the oplog. Decisions where Cairn differs: one entry per command (mongod writes one per
// update or delete statement); entries carry an _id (Cairn's collections all have one); no
// locks/flowControl/storage/execStats sections, as Cairn keeps no such counters; a command over
// 50 KiB is shown as {$truncated: "<its start as JSON>", ...}, as mongod does; a failed profile
// write is logged, never the command's failure; none is written while fsyncLock holds writes.
#pragma once

#include <cstddef>

#include "common/status.h"
#include "server/admin/profile_settings.h"
#include "server/command.h"

namespace cairn::server {

// Called by the dispatcher once the handler of `request` has returned `status`, with the reply
// built so far `reply_length` bytes long. `settings`: its database's profiling settings when the
// command started (as mongod, which fixes them as an operation begins: the profile command that
// turns profiling on is not profiled, the one that turns it off is).
void FinishOperation(CommandContext& ctx, const CommandRequest& request, const Status& status,
                     size_t reply_length, const ProfileSettings::Settings& settings);

// The capped size of the system.profile collection the profiler creates (mongod's default).
inline constexpr int64_t kProfileCollectionBytes = 1024 * 1024;

}  // namespace cairn::server
