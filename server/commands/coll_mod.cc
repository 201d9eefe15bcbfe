// collMod: changes a collection's options under its write lock, all of them in one atomic write
// (with a replica set's {collMod} oplog entry). Each option collMod accepts is a row of kOptions
// with its handler; `index` ({name | keyPattern, hidden, expireAfterSeconds}), validator /
// validationLevel / validationAction (collection_validator.h), cappedSize / cappedMax
// (capped_options.h) and changeStreamPreAndPostImages are implemented; the other MongoDB 7.0
// options answer a precise "not supported yet" until they are. Unknown fields are 40415 as
// MongoDB's IDL answers. Reply: what changed ({expireAfterSeconds_old?, expireAfterSeconds_new,
// hidden_old, hidden_new}).
#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/bson_compare.h"
#include "common/mutex.h"
#include "index/index_descriptor.h"
#include "server/capped/capped_options.h"
#include "server/catalog/change_stream_images.h"
#include "server/catalog/collection_validator.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"
#include "server/write/catalog_change.h"

namespace cairn::server {

namespace {

// What the option handlers share: the collection (locked) as it was, the reply being built, and
// the change they make together: the options and index specs it leaves, committed in one write
// (with the oplog entry that records it) once every handler has run.
struct CollModState {
  std::string ns;
  storage::CollectionHandle collection;
  bson_t* reply;
  BsonDoc options;                                           // the collection's options after
  std::vector<std::pair<std::string, BsonDoc>> index_specs;  // changed indexes: name, new spec
  BsonDoc index_options_old;  // the changed index fields' earlier values (the entry's o2)

  // The spec of index `i` as the command has left it so far.
  BsonView IndexSpec(size_t i) const {
    for (const auto& [name, spec] : index_specs) {
      if (name == collection->indexes[i].name) return spec.view();
    }
    return collection->indexes[i].spec.view();
  }
};

using OptionHandler = Status (*)(CollModState& state, const bson_iter_t* value);

Status Unknown(std::string_view path) {
  return Status(ErrorCode::kLocation40415,
                "BSON field '" + std::string(path) + "' is an unknown field.");
}

Status WrongType(std::string_view path, const bson_iter_t* value, std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(path) +
                                              "' is the wrong type '" +
                                              std::string(BsonTypeName(bson_iter_type(value))) +
                                              "', expected " + std::string(expected));
}

Status NotSupportedYet(CollModState&, const bson_iter_t* value) {
  return Status(ErrorCode::kInvalidOptions, "collMod option '" + std::string(IterKey(value)) +
                                                "' is not supported by Cairn yet");
}

// {index: {name | keyPattern, hidden, expireAfterSeconds}}.
Status ModifyIndex(CollModState& state, const bson_iter_t* value) {
  if (!BSON_ITER_HOLDS_DOCUMENT(value)) return WrongType("collMod.index", value, "type 'object'");
  BsonView options = IterDocument(value);
  bson_iter_t name, pattern, hidden, expire;
  bool has_name = false, has_pattern = false, has_hidden = false, has_expire = false;
  bson_iter_t it;
  options.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view field = IterKey(&it);
    std::string path = "collMod.index." + std::string(field);
    if (field == "name") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(path, &it, "type 'string'");
      name = it;
      has_name = true;
    } else if (field == "keyPattern") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return WrongType(path, &it, "type 'object'");
      pattern = it;
      has_pattern = true;
    } else if (field == "hidden") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) return WrongType(path, &it, "type 'bool'");
      hidden = it;
      has_hidden = true;
    } else if (field == "expireAfterSeconds") {
      if (!IterIsNumber(&it)) {
        return WrongType(path, &it, "types '[long, int, decimal, double]'");
      }
      expire = it;
      has_expire = true;
    } else if (field == "unique" || field == "prepareUnique" || field == "forceNonUnique") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) return WrongType(path, &it, "type 'bool'");
      return Status(ErrorCode::kInvalidOptions, "collMod index option '" + std::string(field) +
                                                    "' is not supported by Cairn yet");
    } else {
      return Unknown(path);
    }
  }
  if (has_name && has_pattern) {
    return Status(ErrorCode::kInvalidOptions, "Cannot specify both key pattern and name.");
  }
  if (!has_name && !has_pattern) {
    return Status(ErrorCode::kInvalidOptions, "Must specify either index name or key pattern.");
  }
  if (!has_hidden && !has_expire) {
    return Status(ErrorCode::kInvalidOptions,
                  "no expireAfterSeconds, hidden, unique, or prepareUnique field");
  }
  const std::vector<storage::IndexEntry>& indexes = state.collection->indexes;
  size_t position = indexes.size();
  for (size_t i = 0; i < indexes.size(); ++i) {
    if (index::DecodeIndexState(indexes[i].state.view(), 0).ready == false) continue;
    bson_iter_t key;
    if (has_name ? indexes[i].name == IterUtf8(&name)
                 : indexes[i].spec.view().Find("key", &key) &&
                       CompareDocuments(IterDocument(&key), IterDocument(&pattern)) == 0) {
      position = i;
      break;
    }
  }
  if (position == indexes.size()) {
    std::string which =
        has_name ? std::string(IterUtf8(&name)) : ToShellString(IterDocument(&pattern));
    return Status(ErrorCode::kIndexNotFound, "cannot find index " + which + " for ns " + state.ns);
  }
  const storage::IndexEntry& entry = indexes[position];
  BsonView spec = state.IndexSpec(position);
  bool was_hidden = false;
  bson_iter_t old_expire;
  bool had_expire = spec.Find("expireAfterSeconds", &old_expire);
  if (spec.Find("hidden", &it)) was_hidden = bson_iter_as_bool(&it);
  if (has_hidden && position == 0) {
    return Status(ErrorCode::kBadValue, "can't hide _id index");
  }
  int64_t new_expire = 0;
  if (has_expire) {
    if (position == 0) {
      return Status(ErrorCode::kInvalidOptions,
                    "The field 'expireAfterSeconds' is not valid for an _id index specification");
    }
    bson_iter_t key;
    spec.Find("key", &key);
    if (IterDocument(&key).CountKeys() != 1) {
      return Status(ErrorCode::kInvalidOptions,
                    "TTL indexes are single-field indexes, compound indexes do not support TTL");
    }
    double seconds = 0;
    IterAsDouble(&expire, &seconds);
    if (seconds < 0) {
      return Status(ErrorCode::kInvalidOptions,
                    "TTL index 'expireAfterSeconds' option cannot be less than 0");
    }
    if (seconds > std::numeric_limits<int32_t>::max()) {
      return Status(ErrorCode::kInvalidOptions,
                    "TTL index 'expireAfterSeconds' option must be within an acceptable range, "
                    "try a lower number");
    }
    new_expire = static_cast<int64_t>(seconds);
  }
  const bool now_hidden = has_hidden ? bson_iter_bool(&hidden) : was_hidden;

  // The new spec, as MongoDB's catalog rewrites it: expireAfterSeconds replaced in place (a
  // long) or appended; hidden removed, then appended when true.
  BsonDoc updated;
  spec.Init(&it);
  bool wrote_expire = false;
  while (bson_iter_next(&it)) {
    std::string_view field = IterKey(&it);
    if (field == "hidden" && has_hidden) continue;
    if (field == "expireAfterSeconds" && has_expire) {
      BSON_APPEND_INT64(updated.get(), "expireAfterSeconds", new_expire);
      wrote_expire = true;
      continue;
    }
    AppendIter(updated.get(), field, &it);
  }
  if (has_expire && !wrote_expire)
    BSON_APPEND_INT64(updated.get(), "expireAfterSeconds", new_expire);
  if (has_hidden && now_hidden) BSON_APPEND_BOOL(updated.get(), "hidden", true);
  if (has_expire && had_expire)
    AppendIter(state.index_options_old.get(), "expireAfterSeconds", &old_expire);
  if (has_hidden) BSON_APPEND_BOOL(state.index_options_old.get(), "hidden", was_hidden);
  auto same = std::find_if(state.index_specs.begin(), state.index_specs.end(),
                           [&](const auto& change) { return change.first == entry.name; });
  if (same != state.index_specs.end()) {
    same->second = std::move(updated);
  } else {
    state.index_specs.emplace_back(entry.name, std::move(updated));
  }

  if (has_expire) {
    if (had_expire) {
      double old_seconds = 0;
      IterAsDouble(&old_expire, &old_seconds);
      BSON_APPEND_INT64(state.reply, "expireAfterSeconds_old", static_cast<int64_t>(old_seconds));
    }
    BSON_APPEND_INT64(state.reply, "expireAfterSeconds_new", new_expire);
  }
  if (has_hidden && now_hidden != was_hidden) {
    BSON_APPEND_BOOL(state.reply, "hidden_old", was_hidden);
    BSON_APPEND_BOOL(state.reply, "hidden_new", now_hidden);
  }
  return Status::OK();
}

// validator, validationLevel, validationAction: the option replaced in the collection's options
// after collection_validator.h's checks; writers opened afterwards use the new validator.
Status ModifyValidation(CollModState& state, const bson_iter_t* value) {
  CAIRN_ASSIGN_OR_RETURN(state.options,
                         WithValidationOption(state.ns, state.options.view(), value));
  return Status::OK();
}

// changeStreamPreAndPostImages: {enabled}: stored while it enables the images, removed when it
// turns them off (change_stream_images.h).
Status ModifyPreAndPostImages(CollModState& state, const bson_iter_t* value) {
  CAIRN_ASSIGN_OR_RETURN(bool enabled, ParsePreAndPostImagesOption(value, "collMod"));
  BsonDoc options;
  bson_iter_t it;
  state.options.view().Init(&it);
  while (bson_iter_next(&it)) {
    if (IterKey(&it) != kPreAndPostImagesOption) AppendIter(options.get(), IterKey(&it), &it);
  }
  if (enabled) AppendIter(options.get(), kPreAndPostImagesOption, value);
  state.options = std::move(options);
  return Status::OK();
}

// cappedSize, cappedMax: a capped collection's limits (capped_options.h).
Status ModifyCappedLimit(CollModState& state, const bson_iter_t* value) {
  CAIRN_ASSIGN_OR_RETURN(state.options, WithCappedLimit(state.options.view(), value));
  return Status::OK();
}

struct OptionRow {
  std::string_view name;
  OptionHandler handler;
};

// Every option MongoDB 7.0's collMod accepts.
constexpr OptionRow kOptions[] = {
    {"cappedMax", ModifyCappedLimit},
    {"cappedSize", ModifyCappedLimit},
    {"changeStreamPreAndPostImages", ModifyPreAndPostImages},
    {"collectionUUID", nullptr},
    {"dryRun", NotSupportedYet},
    {"expireAfterSeconds", NotSupportedYet},
    {"index", ModifyIndex},
    {"isTimeseriesNamespace", nullptr},
    {"pipeline", NotSupportedYet},
    {"recordPreImages", NotSupportedYet},
    {"timeseries", NotSupportedYet},
    {"timeseriesBucketsMayHaveMixedSchemaData", NotSupportedYet},
    {"validationAction", ModifyValidation},
    {"validationLevel", ModifyValidation},
    {"validator", ModifyValidation},
    {"viewOn", NotSupportedYet},
};

const OptionRow* FindOption(std::string_view name) {
  for (const OptionRow& row : kOptions) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

}  // namespace

CommandOutcome HandleCollMod(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_RETURN_IF_ERROR(ValidateDatabaseName(request.db));
  // Every field is known before anything changes.
  bson_iter_t it;
  request.body.Init(&it);
  bson_iter_next(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (IsGenericArgument(key)) continue;
    if (FindOption(key) == nullptr) return Unknown("collMod." + std::string(key));
  }
  ctx.state.opcounters().command++;
  std::string ns = MakeNamespace(request.db, collection);
  storage::Catalog& catalog = ctx.state.engine().catalog();
  storage::CollectionHandle handle = catalog.Find(ns);
  if (!handle) return Status(ErrorCode::kNamespaceNotFound, "ns does not exist");
  MutexLock lock(&ctx.state.writes().CollectionLock(handle->prefix));
  CollModState state{ns, catalog.Find(ns), reply};
  if (!state.collection) return Status(ErrorCode::kNamespaceNotFound, "ns does not exist");
  state.options = state.collection->options.Clone();
  // The validation options are checked together before anything changes.
  CAIRN_RETURN_IF_ERROR(
      CheckCollModValidationOptions(ns, state.collection->options.view(), request.body));
  // Every option's handler leaves its change in `state` (the next one sees it); the change is
  // then written at once, with a replica set's {collMod: <coll>, ...options} entry (o2: the
  // options and index fields it replaced).
  std::vector<CommandEntry> entries(1);
  entries[0].set_collection(*state.collection);
  AppendUtf8(entries[0].o.get(), "collMod", collection);
  bool changed = false;
  request.body.Init(&it);
  bson_iter_next(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (IsGenericArgument(key)) continue;
    const OptionRow* row = FindOption(key);
    if (row->handler == nullptr) continue;  // accepted and ignored
    CAIRN_RETURN_IF_ERROR(row->handler(state, &it));
    AppendIter(entries[0].o.get(), key, &it);
    changed = true;
  }
  if (!changed) return Status::OK();
  const bson_t old_options = state.collection->options.view().AsBson();
  BSON_APPEND_DOCUMENT(entries[0].o2.get(), "collectionOptions_old", &old_options);
  if (!state.index_options_old.view().empty()) {
    BSON_APPEND_DOCUMENT(entries[0].o2.get(), "indexOptions_old", state.index_options_old.get());
  }
  return CommitCatalogChange(
      ctx.state.writes(), request.db, entries, [&](storage::WriteUnit* also) {
        return catalog.ModifyCollection(ns, state.options.view(), state.index_specs, also).status();
      });
}

}  // namespace cairn::server
