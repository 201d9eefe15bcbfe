// create: explicit collection creation. As MongoDB 7.0: creating a collection that exists with
// identical options succeeds and does nothing; with different options it answers
// NamespaceExists 48. Capped collections are created with their limits (capped_options.h).
// Validation options are checked by collection_validator.h. Options that need later issues
// (views, time series, clustered, a collection default collation other than "simple", ...) are
// refused with a precise error instead of being ignored.
#include <string>

#include "common/bson_compare.h"
#include "query/collation/collator.h"
#include "server/capped/capped_options.h"
#include "server/catalog/change_stream_images.h"
#include "server/catalog/collection_validator.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"
#include "server/txn/transaction_scope.h"
#include "server/write/catalog_change.h"

namespace cairn::server {

CommandOutcome HandleCreate(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_RETURN_IF_ERROR(CommandArgs::Parse(request, {{"capped", kArgBool},
                                                     {"size", kArgNumber},
                                                     {"max", kArgNumber},
                                                     {"autoIndexId", kArgBool},
                                                     {"validator", kArgDocument},
                                                     {"validationLevel", kArgString},
                                                     {"validationAction", kArgString},
                                                     {"collation", kArgDocument},
                                                     {"idIndex", kArgDocument},
                                                     {"viewOn", kArgString},
                                                     {"pipeline", kArgArray},
                                                     {"timeseries", kArgDocument},
                                                     {"clusteredIndex", kArgAny},
                                                     {"changeStreamPreAndPostImages", kArgDocument},
                                                     {"expireAfterSeconds", kArgNumber},
                                                     {"storageEngine", kArgDocument},
                                                     {"indexOptionDefaults", kArgDocument},
                                                     {"encryptedFields", kArgDocument},
                                                     {"flags", kArgNumber},
                                                     {"recordPreImages", kArgBool}})
                            .status());  // validation only
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
  // A collation is checked as MongoDB checks it ({} lacks its locale here); {locale: "simple"}
  // is the default and is not stored, any other is refused below (no collection default
  // collation yet).
  bool simple_collation = false;
  bson_iter_t collation;
  if (request.body.Find("collation", &collation) && BSON_ITER_HOLDS_DOCUMENT(&collation)) {
    CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const query::Collator> collator,
                           query::Collator::Make(IterDocument(&collation)));
    simple_collation = collator == nullptr;
  }

  // Capped limits come first in the stored options, normalised (capped_options.h).
  CAIRN_ASSIGN_OR_RETURN(std::optional<CappedLimits> capped,
                         ParseCreateCappedOptions(request.body));
  // The options as stored: every non-generic field but the command's own, defaults left out.
  BsonDoc options;
  if (capped) AppendCappedOptions(options.get(), *capped);
  std::string unsupported;
  bson_iter_t it;
  request.body.Init(&it);
  bson_iter_next(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (IsGenericArgument(key)) continue;
    if (key == "autoIndexId" && bson_iter_as_bool(&it)) continue;    // the default
    if (key == "capped" || key == "size" || key == "max") continue;  // stored above
    if (key == "collation" && simple_collation) continue;            // the default
    if (key == kPreAndPostImagesOption) {
      // Stored when it enables the images; {enabled: false} is the default.
      CAIRN_ASSIGN_OR_RETURN(bool enabled, ParsePreAndPostImagesOption(&it, "create"));
      if (enabled) AppendIter(options.get(), key, &it);
      continue;
    }
    AppendIter(options.get(), key, &it);
    const bool validation = key == "validator" || key == "validationLevel" ||
                            key == "validationAction";  // collection_validator.h
    if (unsupported.empty() && !validation) unsupported = key;
  }

  std::string ns = MakeNamespace(request.db, collection);
  CAIRN_RETURN_IF_ERROR(CheckCreateValidationOptions(ns, options.view()));
  storage::Catalog& catalog = ctx.state.engine().catalog();
  // As MongoDB 7.0: an existing collection with identical options is success, else 48.
  auto answer_existing = [&](const storage::CollectionHandle& existing) {
    if (CompareDocuments(existing->options.view(), options.view()) == 0) return Status::OK();
    return Status(ErrorCode::kNamespaceExists, "namespace " + ns +
                                                   " already exists, but with different options: " +
                                                   ToShellString(existing->options.view()));
  };
  if (storage::CollectionHandle existing = catalog.Find(ns)) {
    // In a transaction an existing collection is an error, whatever its options (7.0).
    if (ctx.txn != nullptr) {
      return Status(ErrorCode::kNamespaceExists, "Collection " + ns + " already exists.");
    }
    return answer_existing(existing);
  }
  if (!unsupported.empty()) {
    return Status(ErrorCode::kInvalidOptions,
                  "the '" + unsupported + "' option of create is not supported by Cairn yet");
  }
  Result<storage::CollectionHandle> created =
      CreateCollectionLogged(ctx.state.writes(), ns, options.view());
  if (created.ok()) {
    // Created at once, outside the transaction (README, known differences 2): the transaction
    // may still build indexes on it while it is empty.
    if (TransactionWrites* writes = WritesFor(ctx)) writes->created.insert(created.value()->prefix);
    return Status::OK();
  }
  if (created.status().code() != ErrorCode::kNamespaceExists) return created.status();
  // Created meanwhile by another connection.
  if (storage::CollectionHandle existing = catalog.Find(ns)) return answer_existing(existing);
  return created.status();
}

}  // namespace cairn::server
