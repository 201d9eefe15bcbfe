// The command table: every command Cairn answers, sorted by name (binary search). Aliases are
// rows of their own. listCommands is generated from these rows.
#include "server/commands/command_table.h"

#include <algorithm>
#include <array>

#include "server/commands/handlers.h"

namespace cairn::server {

namespace {

// name, handler, admin_only, requires_auth, help, reads_sequences, on_secondary, test_only,
// writes_data. Keep sorted by name (checked at first use).
constexpr std::array kCommands = {
    CommandDef{"abortTransaction", HandleAbortTransaction, true, true, "Aborts a transaction",
               false, OnSecondary::kNever},
    CommandDef{"aggregate", HandleAggregate, false, true,
               "{ aggregate: <collection>, pipeline: [ ... ], cursor: {} }", false,
               OnSecondary::kOptIn},
    CommandDef{"buildInfo", HandleBuildInfo, false, false, "get version #, etc."},
    CommandDef{"buildinfo", HandleBuildInfo, false, false, "alias of buildInfo"},
    CommandDef{"cloneCollectionAsCapped", HandleCloneCollectionAsCapped, false, true,
               "{ cloneCollectionAsCapped:<fromName>, toCollection:<toName>, size:<sizeInBytes> }",
               false, OnSecondary::kNever},
    CommandDef{"collMod", HandleCollMod, false, true,
               "Sets collection options.\nExample: { collMod: 'foo', index: {name: 'a_1', hidden: "
               "true} }",
               false, OnSecondary::kNever},
    CommandDef{"collStats", HandleCollStats, false, true,
               "{ collStats:\"blog.posts\" , scale : 1 } scale divides sizes e.g. for KB use 1024",
               false, OnSecondary::kOptIn},
    CommandDef{"commitTransaction", HandleCommitTransaction, true, true, "Commits a transaction",
               false, OnSecondary::kNever},
    CommandDef{"compact", HandleCompact, false, true,
               "compact collection\nwarning: this operation locks the database and is slow. you "
               "can cancel with killOp()\n{ compact : <collection_name>, [force:<bool>] }\n  force "
               "- allows to run on a replica set primary\n",
               false, OnSecondary::kAlways, false, /*writes_data=*/true},
    CommandDef{"configureFailPoint", HandleConfigureFailPoint, true, false,
               "modifies the settings of a fail point", false, OnSecondary::kAlways,
               /*test_only=*/true},
    CommandDef{"connectionStatus", HandleConnectionStatus, false, false,
               "Returns connection-specific information such as logged-in users and their roles"},
    CommandDef{"convertToCapped", HandleConvertToCapped, false, true,
               "{ convertToCapped:<fromCollectionName>, size:<sizeInBytes> }", false,
               OnSecondary::kNever},
    CommandDef{"count", HandleCount, false, true, "count objects in collection", false,
               OnSecondary::kOptIn},
    CommandDef{"create", HandleCreate, false, true, "explicitly creates a collection", false,
               OnSecondary::kNever},
    CommandDef{"createIndexes", HandleCreateIndexes, false, true,
               "{ createIndexes: <collection>, indexes: [ { key: {...}, name: ... }, ... ] }",
               false, OnSecondary::kNever},
    CommandDef{"currentOp", HandleCurrentOp, true, true,
               "Reports the server's connections and the operations they are running"},
    CommandDef{"dbHash", HandleDbHash, false, true, "no help defined"},
    CommandDef{"dbStats", HandleDbStats, false, true, "Get stats on a database.", false,
               OnSecondary::kOptIn},
    CommandDef{"dbhash", HandleDbHash, false, true, "alias of dbHash"},
    CommandDef{"dbstats", HandleDbStats, false, true, "alias of dbStats", false,
               OnSecondary::kOptIn},
    CommandDef{"delete", HandleDelete, false, true, "delete documents", true, OnSecondary::kNever},
    CommandDef{"distinct", HandleDistinct, false, true,
               "{ distinct : 'collection name' , key : 'a.b' , query : {} }", false,
               OnSecondary::kOptIn},
    CommandDef{"drop", HandleDrop, false, true, "drop a collection", false, OnSecondary::kNever},
    CommandDef{"dropDatabase", HandleDropDatabase, false, true, "drop (delete) this database",
               false, OnSecondary::kNever},
    CommandDef{"dropIndexes", HandleDropIndexes, false, true, "drop indexes for a collection",
               false, OnSecondary::kNever},
    CommandDef{"endSessions", HandleEndSessions, false, false, "end a set of logical sessions"},
    CommandDef{"explain", HandleExplain, false, true,
               "explain database reads and writes: { explain: { find: ... }, verbosity: ... }",
               false, OnSecondary::kOptIn},
    CommandDef{"find", HandleFind, false, true, "query for documents", false, OnSecondary::kOptIn},
    CommandDef{"findAndModify", HandleFindAndModify, false, true,
               "{ findAndModify: \"collection\", query: {processed:false}, update: {$set: "
               "{processed:true}}, new: true}",
               false, OnSecondary::kNever},
    CommandDef{"findandmodify", HandleFindAndModify, false, true, "alias of findAndModify", false,
               OnSecondary::kNever},
    CommandDef{"fsync", HandleFsync, true, true, "http://dochub.mongodb.org/core/fsynccommand"},
    CommandDef{"fsyncUnlock", HandleFsyncUnlock, true, true, "no help defined"},
    CommandDef{"getCmdLineOpts", HandleGetCmdLineOpts, true, true, "get argv"},
    CommandDef{"getDefaultRWConcern", HandleGetDefaultRWConcern, true, true,
               "get the current read/write concern defaults being applied by this node"},
    CommandDef{"getLog", HandleGetLog, true, true,
               "{ getLog : '*' } OR { getLog : 'global' } OR { getLog : 'startupWarnings' }"},
    CommandDef{"getMore", HandleGetMore, false, true,
               "retrieve more results from an existing cursor"},
    CommandDef{"getParameter", HandleGetParameter, true, true, "get administrative option(s)"},
    CommandDef{"hello", HandleHello, false, false,
               "Check if this server is primary for a replica set"},
    CommandDef{"hostInfo", HandleHostInfo, false, true,
               "returns information about the daemon's host"},
    CommandDef{"insert", HandleInsert, false, true, "insert documents", true, OnSecondary::kNever},
    CommandDef{"isMaster", HandleHello, false, false,
               "Check if this server is primary for a replica set"},
    CommandDef{"ismaster", HandleHello, false, false, "alias of isMaster"},
    CommandDef{"killCursors", HandleKillCursors, false, true, "Kill a list of cursor ids"},
    CommandDef{"killOp", HandleKillOp, true, true, "kill an operation by its opid"},
    CommandDef{"killSessions", HandleKillSessions, false, true,
               "kill a logical session and its operations, cursors and transaction"},
    CommandDef{"listCollections", HandleListCollections, false, true,
               "list collections for this db", false, OnSecondary::kOptIn},
    CommandDef{"listCommands", HandleListCommands, false, false, "get a list of all db commands"},
    CommandDef{"listDatabases", HandleListDatabases, true, true,
               "{ listDatabases:1, [filter: <filterObject>] [, nameOnly: true ] }", false,
               OnSecondary::kOptIn},
    CommandDef{"listIndexes", HandleListIndexes, false, true, "list indexes for a collection",
               false, OnSecondary::kOptIn},
    CommandDef{"lockInfo", HandleLockInfo, true, true, "show all lock info on the server"},
    CommandDef{"ping", HandlePing, false, false, "a way to check that the server is alive"},
    CommandDef{"profile", HandleProfile, false, true,
               "controls the slow operation log: { profile: <n>, slowms: <ms>, sampleRate: <f> }"},
    CommandDef{"reIndex", HandleReIndex, false, true,
               "re-index a collection (can be run on a standalone mongod)", false,
               OnSecondary::kNever},
    CommandDef{"renameCollection", HandleRenameCollection, true, true,
               " example: { renameCollection: foo.a, to: bar.b }", false, OnSecondary::kNever},
    CommandDef{"replSetGetConfig", HandleReplSetGetConfig, true, true,
               "Returns the current replica set configuration"},
    CommandDef{"replSetGetStatus", HandleReplSetGetStatus, true, true,
               "Report status of a replica set from the POV of this server"},
    CommandDef{
        "replSetInitiate", HandleReplSetInitiate, true, true,
        "Initiate/christen a replica set.\nhttp://dochub.mongodb.org/core/replicasetcommands"},
    CommandDef{"replSetReconfig", HandleReplSetReconfig, true, true,
               "Adjust configuration of a replica set\n{ replSetReconfig : config_object }"},
    CommandDef{"serverStatus", HandleServerStatus, false, true,
               "returns lots of administrative server statistics"},
    CommandDef{"setDefaultRWConcern", HandleSetDefaultRWConcern, true, true,
               "set the current read/write concern defaults (cluster-wide)", false,
               OnSecondary::kNever},
    CommandDef{"setFeatureCompatibilityVersion", HandleSetFeatureCompatibilityVersion, true, true,
               "Set the featureCompatibilityVersion used by this cluster (Cairn: 7.0 only)"},
    CommandDef{"setParameter", HandleSetParameter, true, true,
               "set administrative option(s)\n{ setParameter:1, <param>:<value> }"},
    CommandDef{"shutdown", HandleShutdown, true, true,
               "Stops the server cleanly. { shutdown: 1, force: <bool>, timeoutSecs: <int> }"},
    CommandDef{"top", HandleTop, true, true, "usage by collection, in micros "},
    CommandDef{"update", HandleUpdate, false, true, "update documents", true, OnSecondary::kNever},
    CommandDef{"validate", HandleValidate, false, true,
               "Validate contents of a namespace by scanning its data structures for "
               "correctness.\nThis is a slow operation.\n\tAdd {full: true} option to do a more "
               "thorough check.\n\tAdd {background: true} to validate in the background.\n\tAdd "
               "{repair: true} to run repair mode.\n\tAdd {checkBSONConformance: true} to "
               "validate BSON documents more thoroughly.\n\tAdd {metadata: true} to only check "
               "collection metadata.\nCannot specify both {full: true, background: true}.",
               false, OnSecondary::kAlways, false, /*writes_data=*/true},
    CommandDef{"whatsmyuri", HandleWhatsMyUri, false, false, "{whatsmyuri:1}"},
};

bool NameLess(const CommandDef& a, std::string_view b) { return a.name < b; }

// FindCommand binary-searches the table: a name out of order is a compile error.
static_assert(std::is_sorted(kCommands.begin(), kCommands.end(),
                             [](const CommandDef& a, const CommandDef& b) {
                               return a.name < b.name;
                             }),
              "kCommands must be sorted by name");

}  // namespace

const CommandDef* FindCommand(std::string_view name) {
  auto it = std::lower_bound(kCommands.begin(), kCommands.end(), name, NameLess);
  if (it == kCommands.end() || it->name != name) return nullptr;
  return &*it;
}

std::span<const CommandDef> AllCommands() { return kCommands; }

}  // namespace cairn::server
