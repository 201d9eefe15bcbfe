// Declarations of every command handler (one definition per file in this folder). Only
// command_table.cc uses this header.
#pragma once

#include "server/command.h"

namespace cairn::server {

#define CAIRN_DECLARE_HANDLER(fn) \
  CommandOutcome fn(CommandContext& ctx, const CommandRequest& request, bson_t* reply)

CAIRN_DECLARE_HANDLER(HandleAbortTransaction);
CAIRN_DECLARE_HANDLER(HandleAggregate);
CAIRN_DECLARE_HANDLER(HandleBuildInfo);
CAIRN_DECLARE_HANDLER(HandleCloneCollectionAsCapped);
CAIRN_DECLARE_HANDLER(HandleCollMod);
CAIRN_DECLARE_HANDLER(HandleCollStats);
CAIRN_DECLARE_HANDLER(HandleCommitTransaction);
CAIRN_DECLARE_HANDLER(HandleCompact);
CAIRN_DECLARE_HANDLER(HandleConfigureFailPoint);
CAIRN_DECLARE_HANDLER(HandleConnectionStatus);
CAIRN_DECLARE_HANDLER(HandleConvertToCapped);
CAIRN_DECLARE_HANDLER(HandleCount);
CAIRN_DECLARE_HANDLER(HandleCurrentOp);
CAIRN_DECLARE_HANDLER(HandleCreate);
CAIRN_DECLARE_HANDLER(HandleCreateIndexes);
CAIRN_DECLARE_HANDLER(HandleDbHash);
CAIRN_DECLARE_HANDLER(HandleDbStats);
CAIRN_DECLARE_HANDLER(HandleDelete);
CAIRN_DECLARE_HANDLER(HandleDistinct);
CAIRN_DECLARE_HANDLER(HandleDrop);
CAIRN_DECLARE_HANDLER(HandleDropDatabase);
CAIRN_DECLARE_HANDLER(HandleDropIndexes);
CAIRN_DECLARE_HANDLER(HandleEndSessions);
CAIRN_DECLARE_HANDLER(HandleExplain);
CAIRN_DECLARE_HANDLER(HandleFind);
CAIRN_DECLARE_HANDLER(HandleFindAndModify);
CAIRN_DECLARE_HANDLER(HandleFsync);
CAIRN_DECLARE_HANDLER(HandleFsyncUnlock);
CAIRN_DECLARE_HANDLER(HandleGetCmdLineOpts);
CAIRN_DECLARE_HANDLER(HandleGetDefaultRWConcern);
CAIRN_DECLARE_HANDLER(HandleGetLog);
CAIRN_DECLARE_HANDLER(HandleGetMore);
CAIRN_DECLARE_HANDLER(HandleGetParameter);
CAIRN_DECLARE_HANDLER(HandleHello);
CAIRN_DECLARE_HANDLER(HandleHostInfo);
CAIRN_DECLARE_HANDLER(HandleInsert);
CAIRN_DECLARE_HANDLER(HandleKillCursors);
CAIRN_DECLARE_HANDLER(HandleKillOp);
CAIRN_DECLARE_HANDLER(HandleKillSessions);
CAIRN_DECLARE_HANDLER(HandleListCollections);
CAIRN_DECLARE_HANDLER(HandleListCommands);
CAIRN_DECLARE_HANDLER(HandleListDatabases);
CAIRN_DECLARE_HANDLER(HandleListIndexes);
CAIRN_DECLARE_HANDLER(HandleLockInfo);
CAIRN_DECLARE_HANDLER(HandlePing);
CAIRN_DECLARE_HANDLER(HandleReIndex);
CAIRN_DECLARE_HANDLER(HandleRenameCollection);
CAIRN_DECLARE_HANDLER(HandleReplSetGetConfig);
CAIRN_DECLARE_HANDLER(HandleReplSetGetStatus);
CAIRN_DECLARE_HANDLER(HandleReplSetInitiate);
CAIRN_DECLARE_HANDLER(HandleReplSetReconfig);
CAIRN_DECLARE_HANDLER(HandleServerStatus);
CAIRN_DECLARE_HANDLER(HandleShutdown);
CAIRN_DECLARE_HANDLER(HandleProfile);
CAIRN_DECLARE_HANDLER(HandleSetDefaultRWConcern);
CAIRN_DECLARE_HANDLER(HandleSetFeatureCompatibilityVersion);
CAIRN_DECLARE_HANDLER(HandleTop);
CAIRN_DECLARE_HANDLER(HandleSetParameter);
CAIRN_DECLARE_HANDLER(HandleUpdate);
CAIRN_DECLARE_HANDLER(HandleValidate);
CAIRN_DECLARE_HANDLER(HandleWhatsMyUri);

#undef CAIRN_DECLARE_HANDLER

}  // namespace cairn::server
