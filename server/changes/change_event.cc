// Change events, their resume tokens and the $changeStream stage's spec (see change_event.h).
#include "server/changes/change_event.h"

#include <cstdio>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "server/repl/update_diff.h"

namespace cairn::server {

namespace {

constexpr char kTokenTag[] = "82";  // the first byte of every Cairn resume token
constexpr size_t kTokenHexLength = 2 + 16 + 8 + 2;
constexpr size_t kFragmentHexLength = 8;  // a fragment's token adds its number

// Hex digit value, or -1.
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool ParseHex(std::string_view text, uint64_t* out) {
  uint64_t value = 0;
  for (char c : text) {
    int digit = HexValue(c);
    if (digit < 0) return false;
    value = value << 4 | static_cast<uint64_t>(digit);
  }
  *out = value;
  return true;
}

Status BadToken(std::string_view why) {
  return Status(ErrorCode::kFailedToParse, "Bad resume token: " + std::string(why));
}

Status WrongType(std::string_view field, const bson_iter_t* it, std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field '$changeStream." + std::string(field) +
                                              "' is the wrong type '" +
                                              std::string(BsonTypeName(bson_iter_type(it))) +
                                              "', expected type '" + std::string(expected) + "'");
}

// A string option naming one of `values` (IDL's enumerations: BadValue otherwise).
template <typename Enum>
Result<Enum> ParseEnum(std::string_view field, const bson_iter_t* it,
                       std::initializer_list<std::pair<std::string_view, Enum>> values) {
  if (!BSON_ITER_HOLDS_UTF8(it)) return WrongType(field, it, "string");
  const std::string_view value = IterUtf8(it);
  for (const auto& [name, parsed] : values) {
    if (name == value) return parsed;
  }
  return Status(ErrorCode::kBadValue, "Enumeration value '" + std::string(value) +
                                          "' for field '$changeStream." + std::string(field) +
                                          "' is not a valid value.");
}

bool IsInternalDb(std::string_view db) { return db == "admin" || db == "config" || db == "local"; }

// updateDescription from a $v:2 diff: {u: {...}, i: {...}} are updated fields, {d: {...}}
// removed ones, s<field> a diff of a subdocument, under `prefix`.
void WalkDiff(BsonView diff, const std::string& prefix, bson_t* updated, bson_t* removed,
              uint32_t* removed_count) {
  bson_iter_t it;
  if (!diff.Init(&it)) return;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if ((key == "u" || key == "i") && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_iter_t field;
      IterDocument(&it).Init(&field);
      while (bson_iter_next(&field))
        AppendIter(updated, prefix + std::string(IterKey(&field)), &field);
    } else if (key == "d" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_iter_t field;
      IterDocument(&it).Init(&field);
      while (bson_iter_next(&field)) {
        char index[16];
        std::snprintf(index, sizeof index, "%u", (*removed_count)++);
        AppendUtf8(removed, index, prefix + std::string(IterKey(&field)));
      }
    } else if (key.size() > 1 && key[0] == 's' && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      WalkDiff(IterDocument(&it), prefix + std::string(key.substr(1)) + ".", updated, removed,
               removed_count);
    }
  }
}

// `key`: {db, coll} of "db.coll", or {db} of a database name alone (dropDatabase).
void AppendNamespace(bson_t* event, const char* key, std::string_view ns) {
  const size_t dot = ns.find('.');
  bson_t doc;
  bson_append_document_begin(event, key, -1, &doc);
  AppendUtf8(&doc, "db", ns.substr(0, dot));
  if (dot != std::string_view::npos) AppendUtf8(&doc, "coll", ns.substr(dot + 1));
  bson_append_document_end(event, &doc);
}

// {_id: <the document's _id>} from a document that has one.
void AppendDocumentKey(bson_t* event, BsonView doc_with_id) {
  bson_t key;
  BSON_APPEND_DOCUMENT_BEGIN(event, "documentKey", &key);
  bson_iter_t id;
  if (doc_with_id.Find("_id", &id)) AppendIter(&key, "_id", &id);
  bson_append_document_end(event, &key);
}

// What a catalog entry {op: "c", o} is, for change streams.
struct CommandChange {
  std::string_view type;       // drop, rename, dropDatabase; empty: none
  std::string ns;              // the namespace it changes ("db.coll"; "db" for dropDatabase)
  std::string to;              // rename: the new namespace
  bool expanded_only = false;  // create, createIndexes, dropIndexes, modify: showExpandedEvents
};

CommandChange DescribeCommand(std::string_view cmd_ns, BsonView o) {
  CommandChange change;
  const std::string_view db = cmd_ns.substr(0, cmd_ns.find('.'));
  bson_iter_t it;
  if (o.Find("drop", &it) && BSON_ITER_HOLDS_UTF8(&it)) {
    change.type = "drop";
    change.ns = std::string(db) + "." + std::string(IterUtf8(&it));
  } else if (o.Find("renameCollection", &it) && BSON_ITER_HOLDS_UTF8(&it)) {
    bson_iter_t to;
    if (!o.Find("to", &to) || !BSON_ITER_HOLDS_UTF8(&to)) return change;
    change.type = "rename";
    change.ns = IterUtf8(&it);
    change.to = IterUtf8(&to);
  } else if (o.Find("dropDatabase", &it)) {
    change.type = "dropDatabase";
    change.ns = db;
  } else {
    // Shown only with showExpandedEvents.
    for (std::string_view type : {"create", "createIndexes", "dropIndexes", "collMod"}) {
      if (o.Find(type, &it) && BSON_ITER_HOLDS_UTF8(&it)) {
        change.type = type == "collMod" ? std::string_view("modify") : type;
        change.ns = std::string(db) + "." + std::string(IterUtf8(&it));
        change.expanded_only = true;
      }
    }
  }
  return change;
}

// `doc` without its field `skip`, appended under `key` (an operationDescription's parts).
void AppendWithout(bson_t* out, const char* key, BsonView doc, std::string_view skip) {
  bson_t copy;
  bson_append_document_begin(out, key, -1, &copy);
  bson_iter_t it;
  doc.Init(&it);
  while (bson_iter_next(&it)) {
    if (IterKey(&it) != skip) AppendIter(&copy, IterKey(&it), &it);
  }
  bson_append_document_end(out, &copy);
}

// showExpandedEvents' operationDescription of a catalog entry's event (none for drop and
// dropDatabase).
void AppendOperationDescription(const CommandChange& change, BsonView entry, bson_t* event) {
  bson_iter_t o_it, o2_it;
  if (!entry.Find("o", &o_it) || !BSON_ITER_HOLDS_DOCUMENT(&o_it)) return;
  const BsonView o = IterDocument(&o_it);
  if (change.type == "create") {
    AppendWithout(event, "operationDescription", o, "create");
  } else if (change.type == "modify") {
    // The options given, and what they replaced (the entry's o2).
    AppendWithout(event, "operationDescription", o, "collMod");
    bson_t before;
    BSON_APPEND_DOCUMENT_BEGIN(event, "stateBeforeChange", &before);
    bson_iter_t old;
    if (entry.Find("o2", &o2_it) && BSON_ITER_HOLDS_DOCUMENT(&o2_it)) {
      if (IterDocument(&o2_it).Find("collectionOptions_old", &old)) {
        AppendIter(&before, "collectionOptions", &old);
      }
      if (IterDocument(&o2_it).Find("indexOptions_old", &old)) {
        AppendIter(&before, "indexOptions", &old);
      }
    }
    bson_append_document_end(event, &before);
  } else if (change.type == "createIndexes" || change.type == "dropIndexes") {
    BsonView spec = o;
    if (change.type == "dropIndexes") {
      if (!entry.Find("o2", &o2_it) || !BSON_ITER_HOLDS_DOCUMENT(&o2_it)) return;
      spec = IterDocument(&o2_it);
    }
    bson_t description, indexes;
    BSON_APPEND_DOCUMENT_BEGIN(event, "operationDescription", &description);
    BSON_APPEND_ARRAY_BEGIN(&description, "indexes", &indexes);
    AppendWithout(&indexes, "0", spec, change.type);
    bson_append_array_end(&description, &indexes);
    bson_append_document_end(event, &description);
  } else if (change.type == "rename") {
    bson_t description;
    BSON_APPEND_DOCUMENT_BEGIN(event, "operationDescription", &description);
    AppendNamespace(&description, "to", change.to);
    bson_iter_t target;
    if (o.Find("dropTarget", &target) && BSON_ITER_HOLDS_BINARY(&target)) {
      AppendIter(&description, "dropTarget", &target);
    }
    bson_append_document_end(event, &description);
  }
}

bool DatabaseInScope(const ChangeStreamSpec& spec, std::string_view db) {
  switch (spec.scope) {
    case ChangeStreamScope::kCollection:
      return false;  // its collection's drop comes first and invalidates it
    case ChangeStreamScope::kDatabase:
      return db == spec.db;
    case ChangeStreamScope::kCluster:
      return !IsInternalDb(db);
  }
  return false;
}

// A catalog entry's change, if the stream sees it.
CommandChange CommandInScope(const ChangeStreamSpec& spec, BsonView entry) {
  bson_iter_t ns_it, o_it;
  if (!entry.Find("ns", &ns_it) || !BSON_ITER_HOLDS_UTF8(&ns_it) || !entry.Find("o", &o_it) ||
      !BSON_ITER_HOLDS_DOCUMENT(&o_it)) {
    return {};
  }
  CommandChange change = DescribeCommand(IterUtf8(&ns_it), IterDocument(&o_it));
  if (change.expanded_only && !spec.show_expanded_events) return {};
  const bool seen = change.type == "dropDatabase" ? DatabaseInScope(spec, change.ns)
                    : change.type == "rename" ? InScope(spec, change.ns) || InScope(spec, change.to)
                                              : !change.type.empty() && InScope(spec, change.ns);
  return seen ? change : CommandChange{};
}

// What every event starts with: _id (the resume token at `point`), operationType, clusterTime
// (the entry's ts), collectionUUID (its ui, when `with_uuid`: showExpandedEvents) and wallTime.
void AppendEventHead(BsonView entry, const ResumePoint& point, std::string_view type,
                     bool with_uuid, bson_t* event) {
  AppendResumeToken(event, "_id", point);
  AppendUtf8(event, "operationType", type);
  AppendTimestamp(event, "clusterTime", point.ts);
  bson_iter_t uuid, wall;
  if (with_uuid && entry.Find("ui", &uuid)) AppendIter(event, "collectionUUID", &uuid);
  if (entry.Find("wall", &wall) && BSON_ITER_HOLDS_DATE_TIME(&wall)) {
    AppendIter(event, "wallTime", &wall);
  }
}

ResumePoint PointOf(BsonView entry) {
  ResumePoint point;
  bson_iter_t ts;
  if (entry.Find("ts", &ts) && BSON_ITER_HOLDS_TIMESTAMP(&ts)) point.ts = IterTimestamp(&ts);
  return point;
}

// The pre-image recorded for an update or delete entry (changeStreamPreAndPostImages): the
// no-op entry its preImageOpTime names holds it in "o". *found false when none was recorded.
Status ReadPreImage(BsonView entry, const ChangeEventReads& reads, std::string* holder,
                    BsonView* pre_image, bool* found) {
  *found = false;
  bson_iter_t optime, ts;
  if (!entry.Find("preImageOpTime", &optime) || !BSON_ITER_HOLDS_DOCUMENT(&optime) ||
      !IterDocument(&optime).Find("ts", &ts) || !BSON_ITER_HOLDS_TIMESTAMP(&ts)) {
    return Status::OK();
  }
  bool exists = false;
  CAIRN_RETURN_IF_ERROR(reads.oplog_entry(IterTimestamp(&ts), holder, &exists));
  if (!exists) return Status::OK();  // truncated from the oplog meanwhile
  BsonView noop(reinterpret_cast<const uint8_t*>(holder->data()), holder->size());
  bson_iter_t o;
  if (!noop.Find("o", &o) || !BSON_ITER_HOLDS_DOCUMENT(&o)) return Status::OK();
  *pre_image = IterDocument(&o);
  *found = true;
  return Status::OK();
}

Status ImageRequired(std::string_view which, std::string_view ns) {
  return Status(ErrorCode::kNoMatchingDocument,
                "Change stream was configured to require a " + std::string(which) +
                    " for all update, delete and replace events, but the " + std::string(which) +
                    " was not found for event: " + std::string(ns));
}

}  // namespace

bool InvalidatesStream(const ChangeStreamSpec& spec, BsonView entry) {
  bson_iter_t op;
  if (!entry.Find("op", &op) || !BSON_ITER_HOLDS_UTF8(&op) || IterUtf8(&op) != "c") return false;
  CommandChange change = CommandInScope(spec, entry);
  if (change.type.empty()) return false;
  return spec.scope == ChangeStreamScope::kCollection
             ? change.type == "drop" || change.type == "rename"
             : spec.scope == ChangeStreamScope::kDatabase && change.type == "dropDatabase";
}

void AppendInvalidateEvent(BsonView entry, bson_t* event) {
  ResumePoint point = PointOf(entry);
  point.from_invalidate = true;
  AppendEventHead(entry, point, "invalidate", /*with_uuid=*/false, event);
}

void AppendResumeToken(bson_t* out, const char* key, const ResumePoint& point) {
  char data[kTokenHexLength + kFragmentHexLength + 1];
  std::snprintf(data, sizeof data, "%s%016llX%08X%02X", kTokenTag,
                static_cast<unsigned long long>(point.ts.value), point.op_index,
                point.from_invalidate ? 1u : 0u);
  size_t length = kTokenHexLength;
  if (point.fragment) {
    std::snprintf(data + length, sizeof data - length, "%08X", *point.fragment);
    length += kFragmentHexLength;
  }
  bson_t token;
  bson_append_document_begin(out, key, -1, &token);
  AppendUtf8(&token, "_data", std::string_view(data, length));
  bson_append_document_end(out, &token);
}

Result<ResumePoint> ParseResumeToken(const bson_iter_t* token) {
  if (!BSON_ITER_HOLDS_DOCUMENT(token)) return BadToken("not an object");
  bson_iter_t data;
  if (!IterDocument(token).Find("_data", &data) || !BSON_ITER_HOLDS_UTF8(&data)) {
    return BadToken("_data of missing or of wrong type");
  }
  std::string_view hex = IterUtf8(&data);
  uint64_t ts = 0, index = 0, flags = 0, fragment = 0;
  const bool has_fragment = hex.size() == kTokenHexLength + kFragmentHexLength;
  if ((hex.size() != kTokenHexLength && !has_fragment) || hex.substr(0, 2) != kTokenTag ||
      !ParseHex(hex.substr(2, 16), &ts) || !ParseHex(hex.substr(18, 8), &index) ||
      !ParseHex(hex.substr(26, 2), &flags) || flags > 1 ||
      (has_fragment && !ParseHex(hex.substr(kTokenHexLength, 8), &fragment))) {
    return BadToken("the token was not made by this server");
  }
  ResumePoint point;
  point.ts = Timestamp{ts};
  point.op_index = static_cast<uint32_t>(index);
  point.from_invalidate = flags == 1;
  if (has_fragment) point.fragment = static_cast<uint32_t>(fragment);
  return point;
}

Result<ChangeStreamSpec> ParseChangeStreamSpec(const bson_iter_t* stage, std::string_view db,
                                               std::string_view collection) {
  if (!BSON_ITER_HOLDS_DOCUMENT(stage)) {
    return Status(ErrorCode::kLocation50808, "$changeStream stage expects a document as argument");
  }
  ChangeStreamSpec spec;
  spec.db = db;
  spec.collection = collection;
  bool all_changes_for_cluster = false;
  bson_iter_t it;
  IterDocument(stage).Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "resumeAfter" || key == "startAfter") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return WrongType(key, &it, "object");
      CAIRN_ASSIGN_OR_RETURN(ResumePoint point, ParseResumeToken(&it));
      (key == "resumeAfter" ? spec.resume_after : spec.start_after) = point;
    } else if (key == "startAtOperationTime") {
      if (!BSON_ITER_HOLDS_TIMESTAMP(&it)) return WrongType(key, &it, "timestamp");
      spec.start_at_operation_time = IterTimestamp(&it);
    } else if (key == "fullDocument") {
      CAIRN_ASSIGN_OR_RETURN(
          spec.full_document,
          ParseEnum<FullDocumentMode>(key, &it,
                                      {{"default", FullDocumentMode::kDefault},
                                       {"updateLookup", FullDocumentMode::kUpdateLookup},
                                       {"whenAvailable", FullDocumentMode::kWhenAvailable},
                                       {"required", FullDocumentMode::kRequired}}));
    } else if (key == "fullDocumentBeforeChange") {
      CAIRN_ASSIGN_OR_RETURN(
          spec.before_change,
          ParseEnum<BeforeChangeMode>(key, &it,
                                      {{"off", BeforeChangeMode::kOff},
                                       {"whenAvailable", BeforeChangeMode::kWhenAvailable},
                                       {"required", BeforeChangeMode::kRequired}}));
    } else if (key == "allChangesForCluster" || key == "showExpandedEvents" ||
               key == "allowToRunOnConfigDB" || key == "allowToRunOnSystemNS" ||
               key == "showSystemEvents" || key == "showMigrationEvents" ||
               key == "showRawUpdateDescription") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) return WrongType(key, &it, "bool");
      if (key == "allChangesForCluster") all_changes_for_cluster = bson_iter_bool(&it);
      if (key == "showExpandedEvents") spec.show_expanded_events = bson_iter_bool(&it);
    } else {
      return Status(ErrorCode::kLocation40415,
                    "BSON field '$changeStream." + std::string(key) + "' is an unknown field.");
    }
  }
  if (spec.resume_after && spec.start_after) {
    return Status(ErrorCode::kLocation50865,
                  "Do not specify both 'startAfter' and 'resumeAfter' in a $changeStream stage.");
  }
  if ((spec.resume_after || spec.start_after) && spec.start_at_operation_time) {
    return Status(ErrorCode::kLocation40674,
                  "Only one type of resume option is allowed, but multiple were found.");
  }
  if (spec.resume_after && spec.resume_after->from_invalidate) {
    return Status(ErrorCode::kInvalidResumeToken,
                  "Attempting to resume a change stream using 'resumeAfter' is not allowed from "
                  "an invalidate notification.");
  }
  // Which namespaces the stream watches.
  if (all_changes_for_cluster) {
    if (db != "admin" || !collection.empty()) {
      return Status(ErrorCode::kInvalidNamespace,
                    "$changeStream must be run against the 'admin' database with {aggregate: 1} "
                    "when allChangesForCluster is true");
    }
    spec.scope = ChangeStreamScope::kCluster;
  } else if (collection.empty()) {
    if (IsInternalDb(db)) {
      return Status(
          ErrorCode::kInvalidNamespace,
          "$changeStream may not be opened on the internal " + std::string(db) + " database");
    }
    spec.scope = ChangeStreamScope::kDatabase;
  } else {
    if (IsInternalDb(db)) {
      return Status(
          ErrorCode::kInvalidNamespace,
          "$changeStream may not be opened on the internal " + std::string(db) + " database");
    }
    if (collection.starts_with("system.")) {
      return Status(ErrorCode::kInvalidNamespace,
                    "$changeStream may not be opened on the internal " + std::string(db) + "." +
                        std::string(collection) + " collection");
    }
    spec.scope = ChangeStreamScope::kCollection;
  }
  return spec;
}

bool InScope(const ChangeStreamSpec& spec, std::string_view ns) {
  const size_t dot = ns.find('.');
  if (dot == std::string_view::npos) return false;
  std::string_view db = ns.substr(0, dot), coll = ns.substr(dot + 1);
  switch (spec.scope) {
    case ChangeStreamScope::kCollection:
      return db == spec.db && coll == spec.collection;
    case ChangeStreamScope::kDatabase:
      return db == spec.db && !coll.starts_with("system.");
    case ChangeStreamScope::kCluster:
      return !IsInternalDb(db) && !coll.starts_with("system.");
  }
  return false;
}

bool IsTransactionEntry(BsonView entry, BsonView* ops) {
  bson_iter_t op, o, apply_ops, lsid;
  if (!entry.Find("op", &op) || !BSON_ITER_HOLDS_UTF8(&op) || IterUtf8(&op) != "c" ||
      !entry.Find("lsid", &lsid) || !entry.Find("o", &o) || !BSON_ITER_HOLDS_DOCUMENT(&o) ||
      !IterDocument(&o).Find("applyOps", &apply_ops) || !BSON_ITER_HOLDS_ARRAY(&apply_ops)) {
    return false;
  }
  *ops = IterDocument(&apply_ops);
  return true;
}

Result<bool> BuildChangeEvent(const ChangeStreamSpec& spec, BsonView entry,
                              const ChangeEventReads& reads, bson_t* event,
                              const TransactionOrigin* txn) {
  bson_iter_t op_it, ns_it, o_it, ts_it;
  if (!entry.Find("op", &op_it) || !BSON_ITER_HOLDS_UTF8(&op_it) || !entry.Find("ns", &ns_it) ||
      !BSON_ITER_HOLDS_UTF8(&ns_it) || !entry.Find("o", &o_it) ||
      !BSON_ITER_HOLDS_DOCUMENT(&o_it) || !entry.Find("ts", &ts_it) ||
      !BSON_ITER_HOLDS_TIMESTAMP(&ts_it)) {
    return false;
  }
  const std::string_view op = IterUtf8(&op_it);
  if (op == "c") {
    CommandChange change = CommandInScope(spec, entry);
    if (change.type.empty()) return false;
    AppendEventHead(entry, PointOf(entry), change.type,
                    spec.show_expanded_events && change.type != "dropDatabase", event);
    AppendNamespace(event, "ns", change.ns);
    if (change.type == "rename") AppendNamespace(event, "to", change.to);
    if (spec.show_expanded_events) AppendOperationDescription(change, entry, event);
    return true;
  }
  if (op != "i" && op != "u" && op != "d") return false;
  const std::string_view ns = IterUtf8(&ns_it);
  if (!InScope(spec, ns)) return false;
  const BsonView o = IterDocument(&o_it);

  // An update is logged as {$v: 2, diff}; a replacement as the whole new document.
  bson_iter_t version;
  const bool is_update = op == "u" && o.Find("$v", &version);
  std::string_view type = op == "i"   ? "insert"
                          : op == "d" ? "delete"
                          : is_update ? "update"
                                      : "replace";
  BsonView key_source = o;  // where documentKey's _id is: o, or o2 for updates and replacements
  bson_iter_t o2_it;
  if (op == "u") {
    if (!entry.Find("o2", &o2_it) || !BSON_ITER_HOLDS_DOCUMENT(&o2_it)) return false;
    key_source = IterDocument(&o2_it);
  }

  ResumePoint point;
  point.ts = IterTimestamp(&ts_it);
  if (txn != nullptr) point.op_index = txn->op_index;
  AppendEventHead(entry, point, type, spec.show_expanded_events, event);
  // The pre-image, when the stream asks for one (or derives the post-image from it).
  std::string pre_image_entry;
  BsonView pre_image;
  bool has_pre_image = false;
  const bool wants_post_image =
      is_update && (spec.full_document == FullDocumentMode::kWhenAvailable ||
                    spec.full_document == FullDocumentMode::kRequired);
  if (op != "i" && (spec.before_change != BeforeChangeMode::kOff || wants_post_image)) {
    CAIRN_RETURN_IF_ERROR(ReadPreImage(entry, reads, &pre_image_entry, &pre_image, &has_pre_image));
  }
  if (op == "i" || type == "replace") {
    const bson_t full = o.AsBson();
    BSON_APPEND_DOCUMENT(event, "fullDocument", &full);
  } else if (wants_post_image) {
    // The post-image: the pre-image with the update's diff applied.
    bson_iter_t diff;
    if (!has_pre_image || !o.Find("diff", &diff) || !BSON_ITER_HOLDS_DOCUMENT(&diff)) {
      if (spec.full_document == FullDocumentMode::kRequired) {
        return ImageRequired("post-image", ns);
      }
      BSON_APPEND_NULL(event, "fullDocument");
    } else {
      bson_t post;
      BSON_APPEND_DOCUMENT_BEGIN(event, "fullDocument", &post);
      ApplyDocumentDiff(pre_image, IterDocument(&diff), &post);
      bson_append_document_end(event, &post);
    }
  } else if (is_update && spec.full_document == FullDocumentMode::kUpdateLookup) {
    // The document as it is now (null once deleted).
    bool found = false;
    std::string current;
    bson_iter_t id;
    if (key_source.Find("_id", &id)) {
      CAIRN_RETURN_IF_ERROR(reads.document(ns, &id, &current, &found));
    }
    if (found) {
      bson_t doc;
      bson_init_static(&doc, reinterpret_cast<const uint8_t*>(current.data()), current.size());
      BSON_APPEND_DOCUMENT(event, "fullDocument", &doc);
    } else {
      BSON_APPEND_NULL(event, "fullDocument");
    }
  }
  if (op != "i" && spec.before_change == BeforeChangeMode::kRequired && !has_pre_image) {
    return ImageRequired("pre-image", ns);
  }
  AppendNamespace(event, "ns", ns);
  AppendDocumentKey(event, key_source);
  if (is_update) {
    bson_iter_t diff;
    bson_t description, updated, removed, truncated;
    BSON_APPEND_DOCUMENT_BEGIN(event, "updateDescription", &description);
    BSON_APPEND_DOCUMENT_BEGIN(&description, "updatedFields", &updated);
    bson_t removed_tmp = BSON_INITIALIZER;
    uint32_t removed_count = 0;
    if (o.Find("diff", &diff) && BSON_ITER_HOLDS_DOCUMENT(&diff)) {
      WalkDiff(IterDocument(&diff), "", &updated, &removed_tmp, &removed_count);
    }
    bson_append_document_end(&description, &updated);
    BSON_APPEND_ARRAY_BEGIN(&description, "removedFields", &removed);
    bson_iter_t removed_it;
    bson_iter_init(&removed_it, &removed_tmp);
    while (bson_iter_next(&removed_it)) AppendIter(&removed, IterKey(&removed_it), &removed_it);
    bson_append_array_end(&description, &removed);
    bson_destroy(&removed_tmp);
    BSON_APPEND_ARRAY_BEGIN(&description, "truncatedArrays", &truncated);
    bson_append_array_end(&description, &truncated);
    if (spec.show_expanded_events) {
      // Cairn's diffs never hold array indexes or dotted names: nothing is ambiguous.
      bson_t paths;
      BSON_APPEND_DOCUMENT_BEGIN(&description, "disambiguatedPaths", &paths);
      bson_append_document_end(&description, &paths);
    }
    bson_append_document_end(event, &description);
  }
  if (op != "i" && spec.before_change != BeforeChangeMode::kOff) {
    if (has_pre_image) {
      const bson_t before = pre_image.AsBson();
      BSON_APPEND_DOCUMENT(event, "fullDocumentBeforeChange", &before);
    } else {
      BSON_APPEND_NULL(event, "fullDocumentBeforeChange");
    }
  }
  if (txn != nullptr) {
    const bson_t lsid = txn->lsid.AsBson();
    BSON_APPEND_DOCUMENT(event, "lsid", &lsid);
    BSON_APPEND_INT64(event, "txnNumber", txn->txn_number);
  }
  return true;
}

}  // namespace cairn::server
