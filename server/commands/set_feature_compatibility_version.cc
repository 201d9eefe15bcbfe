// setFeatureCompatibilityVersion: {setFeatureCompatibilityVersion: "7.0", confirm: true}.
// Cairn implements MongoDB 7.0 only, so its featureCompatibilityVersion is always "7.0"
// (getParameter reports it): setting "7.0" succeeds with nothing to change; a downgrade to
// "6.0" needs confirm: true, as mongod 7.0 requires (7369100), and is then refused, since Cairn
// has no 6.0 behaviour to fall back to; any other version answers mongod's BadValue.
#include <string>

#include "server/commands/command_args.h"

namespace cairn::server {

CommandOutcome HandleSetFeatureCompatibilityVersion(CommandContext& /*ctx*/,
                                                    const CommandRequest& request,
                                                    bson_t* /*reply*/) {
  CAIRN_ASSIGN_OR_RETURN(
      CommandArgs args,
      CommandArgs::Parse(
          request, {{"confirm", kArgBool}, {"fromConfigServer", kArgBool}, {"dryRun", kArgBool}}));
  if (!BSON_ITER_HOLDS_UTF8(&args.first())) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'setFeatureCompatibilityVersion' is the wrong type '" +
                      std::string(BsonTypeName(bson_iter_type(&args.first()))) +
                      "', expected type 'string'");
  }
  const std::string_view version = IterUtf8(&args.first());
  if (version == "7.0") return Status::OK();  // the version Cairn is at, always
  if (version != "6.0") {
    return Status(ErrorCode::kBadValue,
                  "Invalid feature compatibility version value '" + std::string(version) +
                      "'; expected '6.0' or '7.0'. See "
                      "https://docs.mongodb.com/master/release-notes/7.0-compatibility/"
                      "#feature-compatibility.");
  }
  if (!args.GetBool("confirm", false)) {
    // mongod's uassert location 7369100 (codeName Location7369100, common/error_codes.h).
    return Status(static_cast<ErrorCode>(7369100),
                  "Once you have upgraded to 7.0, you will not be able to downgrade FCV and "
                  "binary version without support assistance. Please re-run this command with "
                  "'confirm: true' to acknowledge this and continue with the FCV downgrade.");
  }
  return Status(ErrorCode::kIllegalOperation,
                "cannot downgrade the featureCompatibilityVersion to 6.0: Cairn implements "
                "MongoDB 7.0's behaviour only");
}

}  // namespace cairn::server
