// validate: {validate: <collection>, full, repair, metadata, checkBSONConformance, background,
// enforceFastCount}: MongoDB 7.0's foreground validation of a collection on a standalone
// (mongodb/mongo src/mongo/db/commands/validate.cpp, catalog/collection_validation.cpp,
// validate_adaptor.cpp, index_consistency.cpp, validate_results.cpp, bson/bson_validate.cpp).
//
// What it checks, under the collection's write lock (mongod holds the collection in MODE_X) so
// documents and index entries are one consistent state:
//  - every record is well-formed BSON, nested at most 200 deep and within 16 MiB + 16 KiB
//    (otherwise corruptRecords / nInvalidDocuments); BSON-specification conformance (deprecated
//    types, UUID/MD5 lengths, array indexes, regex flags; with full or checkBSONConformance also
//    UTF-8 and duplicate field names) and the collection's validator (nNonCompliantDocuments);
//  - every ready index holds exactly the keys its key generator makes from the documents: both
//    sides are counted into hash buckets in one streaming pass each (memory is fixed, the
//    collection is never materialised); only when a bucket disagrees does a second pass collect
//    the entries of the disagreeing buckets and name each missing and extra entry;
//  - the index's multikey metadata covers its documents, key counts fit the documents
//    (_id: one per document; non-multikey: at most one; plain non-sparse non-partial: at least
//    one), and the fast count matches the records (corrected silently, as mongod does).
// Foreground validation on a standalone also tightens multikey metadata to what the documents
// need (mongod's RepairMode::kAdjustMultikey), and with repair: true removes corrupt records
// and extra index entries and inserts missing ones (kFixErrors).
#include <bson/bson.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "common/bson_validate.h"
#include "common/interrupt.h"
#include "common/logging.h"
#include "index/index_descriptor.h"
#include "index/key_string.h"
#include "server/catalog/collection_indexes.h"
#include "server/catalog/collection_validator.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

// Hash buckets of the first pass (mongod's IndexConsistency::kNumHashBuckets).
constexpr size_t kNumBuckets = size_t{1} << 16;
// mongod's maxValidateMemoryUsageMB: what the second pass may hold of the unbalanced buckets'
// keys (counted twice, as each key is in two buckets).
constexpr int64_t kMaxValidateMemoryUsageMB = 200;
// Lists in the reply stay within these many bytes (kMaxErrorSizeBytes of validate_adaptor.cpp;
// per-index error lists as later versions cap them), so the reply stays under 16 MB.
constexpr size_t kMaxListedBytes = 1 << 20;

constexpr std::string_view kInvalidDocuments = "Detected one or more invalid documents. See logs.";
constexpr std::string_view kSchemaNonCompliant =
    "Detected one or more documents not compliant with the collection's schema. Check logs for "
    "log id 5363500.";
constexpr std::string_view kBsonNonConformant =
    "Detected one or more documents in this collection not conformant to BSON specifications. "
    "For more info, see logs with log id 6825900";
constexpr std::string_view kAdvice =
    "A corrupt namespace has been detected. See http://dochub.mongodb.org/core/data-recovery for "
    "recovery steps.";

// ---- options --------------------------------------------------------------------------------

// validate is not an IDL command in 7.0: it reads each option with BSONElement::trueValue() and
// ignores fields it does not know.
struct Options {
  bool full = false;
  bool background = false;
  bool repair = false;
  bool metadata = false;
  bool check_bson = false;
  bool check_bson_given = false;
  bool enforce_fast_count = false;
};

bool Flag(BsonView body, std::string_view name, bool* present = nullptr) {
  bson_iter_t it;
  if (!body.Find(name, &it)) return false;
  if (present != nullptr) *present = true;
  return bson_iter_as_bool(&it);
}

Status InvalidOptions(std::string reason) {
  return Status(ErrorCode::kInvalidOptions, std::move(reason));
}

// The option checks of validate.cpp, in its order.
Result<Options> ParseOptions(BsonView body) {
  Options o;
  o.full = Flag(body, "full");
  o.background = Flag(body, "background");
  o.repair = Flag(body, "repair");
  o.metadata = Flag(body, "metadata");
  o.check_bson = Flag(body, "checkBSONConformance", &o.check_bson_given);
  o.enforce_fast_count = Flag(body, "enforceFastCount");
  const std::string both = "Running the validate command with both { background: true } and ";
  if (o.background && o.full) return InvalidOptions(both + "{ full: true } is not supported.");
  if (o.background && o.enforce_fast_count) {
    return InvalidOptions(both + "{ enforceFastCount: true } is not supported.");
  }
  if (o.check_bson_given && !o.check_bson && (o.full || o.enforce_fast_count)) {
    return InvalidOptions(
        "Cannot explicitly set 'checkBSONConformance: false' with full validation set.");
  }
  if (o.background && o.repair) return InvalidOptions(both + "{ repair: true } is not supported.");
  if (o.enforce_fast_count && o.repair) {
    return InvalidOptions(
        "Running the validate command with both { enforceFastCount: true } and { repair: true } "
        "is not supported.");
  }
  if (o.check_bson && o.repair) {
    return InvalidOptions(
        "Running the validate command with both { checkBSONConformance: true } and { repair: "
        "true } is not supported.");
  }
  if (o.metadata && (o.background || o.full || o.enforce_fast_count || o.check_bson || o.repair)) {
    return InvalidOptions(
        "Running the validate command with { metadata: true } is not supported with any other "
        "options");
  }
  // Background validation reads a checkpoint at a timestamp, which a standalone does not keep.
  if (o.background) {
    return Status(ErrorCode::kCommandNotSupported,
                  "Running the validate command with { background: true } is not supported in "
                  "standalone mode");
  }
  return o;
}

// ---- BSON checks ----------------------------------------------------------------------------

struct RecordCheck {
  Status structure;            // not OK: the record is corrupt
  std::string nonconformance;  // non-empty: the first violation of the BSON specification
};

// A stored record's checks: the structure, nesting and size mongod's validateBSON checks (shared
// with the wire: common/bson_validate.h), then its kExtended conformance checks (kFull with
// `full`), without recursion: one libbson iterator per nesting level.
class BsonChecker {
 public:
  explicit BsonChecker(bool full) : full_(full) {}

  RecordCheck Check(BsonView doc) {
    RecordCheck out;
    if (doc.size() > static_cast<size_t>(kMaxInternalBsonObjectSize)) {
      out.structure = ObjectTooLarge(doc.size(), doc.data(), doc.size());
      return out;
    }
    out.structure = ValidateBson(doc.data(), doc.size());
    if (!out.structure.ok()) return out;
    frames_.clear();
    frames_.emplace_back();
    doc.Init(&frames_.back().it);
    while (!frames_.empty()) {
      Frame& frame = frames_.back();
      if (!bson_iter_next(&frame.it)) {
        if (full_ && !frame.array) CheckDuplicateNames(&frame, &out);
        frames_.pop_back();
        continue;
      }
      CheckName(&frame, &out);
      CheckValue(&frame.it, &out);
    }
    return out;
  }

 private:
  struct Frame {
    bson_iter_t it{};
    bool array = false;
    uint32_t next_index = 0;
    std::vector<std::string_view> names;  // full mode: the object's field names
  };

  static void Note(RecordCheck* out, std::string message) {
    if (out->nonconformance.empty()) out->nonconformance = std::move(message);
  }

  void CheckName(Frame* frame, RecordCheck* out) {
    std::string_view name = IterKey(&frame->it);
    if (frame->array) {
      const std::string expected = std::to_string(frame->next_index++);
      if (name != expected) {
        Note(out, "Indices of BSON Array are invalid. Expected " + expected + ", but got " +
                      std::string(name) + ".");
      }
    }
    if (!full_) return;
    if (!bson_utf8_validate(name.data(), name.size(), false)) {
      Note(out, "Found string that doesn't follow UTF-8 encoding.");
    }
    if (!frame->array) frame->names.push_back(name);
  }

  static void CheckDuplicateNames(Frame* frame, RecordCheck* out) {
    std::sort(frame->names.begin(), frame->names.end());
    auto dup = std::adjacent_find(frame->names.begin(), frame->names.end());
    if (dup != frame->names.end()) {
      Note(out, "A BSON document contains a duplicate field name : " + std::string(*dup));
    }
  }

  // Checks one value; descends into documents, arrays and code-with-scope scopes (the
  // structure is already known good).
  void CheckValue(bson_iter_t* it, RecordCheck* out) {
    const bson_type_t type = bson_iter_type(it);
    switch (type) {
      case BSON_TYPE_DOCUMENT:
      case BSON_TYPE_ARRAY: {
        Push(type == BSON_TYPE_ARRAY,
             [&](bson_iter_t* child) { return bson_iter_recurse(it, child); });
        return;
      }
      case BSON_TYPE_CODEWSCOPE: {
        Note(out, "Use of deprecated BSON type 15");
        uint32_t length = 0, scope_length = 0;
        const uint8_t* scope = nullptr;
        bson_iter_codewscope(it, &length, &scope_length, &scope);
        Push(false, [&](bson_iter_t* child) {
          return scope != nullptr && bson_iter_init_from_data(child, scope, scope_length);
        });
        return;
      }
      case BSON_TYPE_UNDEFINED:
      case BSON_TYPE_DBPOINTER:
      case BSON_TYPE_SYMBOL:
        Note(out, "Use of deprecated BSON type " + std::to_string(static_cast<int>(type)));
        return;
      case BSON_TYPE_BINARY: {
        bson_subtype_t subtype;
        uint32_t length = 0;
        const uint8_t* bytes = nullptr;
        bson_iter_binary(it, &subtype, &length, &bytes);
        if (subtype == BSON_SUBTYPE_BINARY_DEPRECATED || subtype == BSON_SUBTYPE_UUID_DEPRECATED) {
          Note(out, "Use of deprecated BSON binary data subtype " +
                        std::to_string(static_cast<int>(subtype)));
        } else if (subtype == BSON_SUBTYPE_UUID && length != 16) {
          Note(out, "BSON UUID length should be 16 bytes. Found " + std::to_string(length) +
                        " instead.");
        } else if (subtype == BSON_SUBTYPE_MD5 && length != 16) {
          Note(out, "MD5 must be 16 bytes, got " + std::to_string(length) + " instead.");
        } else if (subtype == BSON_SUBTYPE_ENCRYPTED && length == 0) {
          Note(out, "Invalid Encrypted BSON Value length 0");
        }
        return;
      }
      case BSON_TYPE_REGEX: {
        const char* options = nullptr;
        bson_iter_regex(it, &options);
        std::string_view flags = options == nullptr ? "" : options;
        for (size_t i = 0; i < flags.size(); ++i) {
          if (std::string_view("ilmsux").find(flags[i]) == std::string_view::npos) {
            Note(out, std::string("Valid regex options are [ i, l, m, s, u, x], but found '") +
                          flags[i] + "' instead.");
          } else if (i > 0 && flags[i] <= flags[i - 1]) {
            Note(out, "Regex options should be in ascending alphabetical order. Found " +
                          std::string(flags) + " instead.");
          }
        }
        return;
      }
      case BSON_TYPE_UTF8:
        if (full_) {
          std::string_view s = IterUtf8(it);
          if (!bson_utf8_validate(s.data(), s.size(), true)) {
            Note(out, "Found string that doesn't follow UTF-8 encoding.");
          }
        }
        return;
      default:
        return;
    }
  }

  template <typename Init>
  void Push(bool array, Init init) {
    Frame frame;
    frame.array = array;
    if (init(&frame.it)) frames_.push_back(std::move(frame));
  }

  const bool full_;
  std::vector<Frame> frames_;
};

// ---- results --------------------------------------------------------------------------------

// BSONObjBuilder::appendNumber(long long): an int when it fits.
void AppendCount(bson_t* out, std::string_view key, int64_t n) {
  if (n >= INT32_MIN && n <= INT32_MAX) {
    bson_append_int32(out, key.data(), static_cast<int>(key.size()), static_cast<int32_t>(n));
  } else {
    bson_append_int64(out, key.data(), static_cast<int>(key.size()), n);
  }
}

void AppendStrings(bson_t* out, const char* key, const std::vector<std::string>& values) {
  bson_t array;
  bson_append_array_begin(out, key, -1, &array);
  for (size_t i = 0; i < values.size(); ++i) {
    AppendUtf8(&array, std::to_string(i), values[i]);
  }
  bson_append_array_end(out, &array);
}

void AppendDocs(bson_t* out, const char* key, const std::vector<BsonDoc>& values) {
  bson_t array;
  bson_append_array_begin(out, key, -1, &array);
  for (size_t i = 0; i < values.size(); ++i) {
    std::string k = std::to_string(i);
    bson_append_document(&array, k.c_str(), static_cast<int>(k.size()), values[i].get());
  }
  bson_append_array_end(out, &array);
}

void AddOnce(std::vector<std::string>* list, std::string_view message) {
  if (std::find(list->begin(), list->end(), message) == list->end()) {
    list->emplace_back(message);
  }
}

// One ready index being validated (mongod's IndexInfo and IndexValidateResults).
struct IndexCheck {
  std::string name;
  storage::Prefix prefix = 0;
  std::shared_ptr<const index::IndexDescriptor> descriptor;
  index::IndexState state;
  bool unique = false;
  // Cairn's text indexes hold several keys per document by design and never carry multikey
  // metadata (index/text_index_spec.cc), so the multikey rules do not apply to them.
  bool text = false;
  int64_t keys_traversed = 0;
  bool traversed = false;  // reported in keysPerIndex / indexDetails
  bool valid = true;
  std::vector<std::string> warnings;
  std::vector<std::string> errors;
  size_t error_bytes = 0;
  index::MultikeyPaths doc_paths;  // union of the documents' multikey paths
  bool multikey_docs = false;
};

struct Results {
  bool valid = true;
  bool repaired = false;
  std::vector<std::string> warnings;
  std::vector<std::string> errors;
  std::vector<BsonDoc> extra_entries;
  std::vector<BsonDoc> missing_entries;
  std::vector<int64_t> corrupt_records;
  int64_t n_invalid = 0;
  int64_t n_non_compliant = 0;
  int64_t nrecords = 0;
  bool counted = false;  // the record pass ran: nInvalidDocuments/nrecords are reported
  int64_t removed_corrupt = 0;
  int64_t removed_extra = 0;
  int64_t inserted_missing = 0;
};

// ---- the validation -------------------------------------------------------------------------

// An index entry as both passes identify it: which index, the key bytes, the record.
using EntryId = std::tuple<size_t, std::string, storage::RecordId>;

class Validation {
 public:
  Validation(ServerState& state, std::string ns, storage::CollectionHandle collection,
             const Options& options, std::string log_context, const InterruptSlot* interrupt)
      : state_(state),
        engine_(state.engine()),
        interrupt_(interrupt),
        ns_(std::move(ns)),
        collection_(std::move(collection)),
        options_(options),
        checker_(options.full || options.check_bson),
        log_context_(std::move(log_context)) {}

  // Runs everything and answers; a Status raised inside validation becomes an error of the
  // results ("exception during collection validation: ..."), as mongod turns its exceptions into
  // valid: false rather than a failed command, and stops the remaining steps.
  Status Run(bson_t* reply) {
    Status status = Steps();
    // An interrupted validation (maxTimeMS, killOp, shutdown, disconnect) fails the command.
    if (IsInterruption(status.code())) return status;
    if (!status.ok()) {
      results_.errors.push_back("exception during collection validation: " + status.ToString());
      results_.valid = false;
      aborted_ = true;
    }
    return Reply(reply);
  }

 private:
  Status Steps() {
    CheckCatalogEntry();
    if (options_.metadata) return Status::OK();
    CAIRN_RETURN_IF_ERROR(TraverseRecords());
    if (!results_.valid) return Status::OK();
    for (size_t i = 0; i < indexes_.size(); ++i) CAIRN_RETURN_IF_ERROR(TraverseIndex(i));
    if (std::any_of(buckets_.begin(), buckets_.end(), [](int64_t n) { return n != 0; })) {
      CAIRN_RETURN_IF_ERROR(GatherEntryErrors());
    }
    if (!results_.valid) return Status::OK();
    for (IndexCheck& index : indexes_) {
      if (index.valid) CheckKeyCount(&index);
    }
    return Status::OK();
  }

  static bool IsInterruption(ErrorCode code) {
    return code == ErrorCode::kInterrupted || code == ErrorCode::kInterruptedAtShutdown ||
           code == ErrorCode::kMaxTimeMSExpired || code == ErrorCode::kClientDisconnect;
  }

  bool full_index_validation() const { return options_.full || options_.enforce_fast_count; }

  void CheckCatalogEntry() {
    for (const storage::IndexEntry& entry : collection_->indexes) {
      Result<std::shared_ptr<const index::IndexDescriptor>> descriptor =
          index::IndexDescriptor::Make(entry.spec.view());
      if (!descriptor.ok()) {
        results_.valid = false;
        results_.errors.push_back(
            "The index specification for index '" + entry.name + "' contains invalid fields. " +
            descriptor.status().reason() +
            ". Run the 'collMod' command on the collection without any arguments to fix the "
            "invalid index options");
        continue;
      }
      IndexCheck check;
      check.name = entry.name;
      check.prefix = entry.prefix;
      check.descriptor = std::move(descriptor).value();
      check.state = index::DecodeIndexState(entry.state.view(), check.descriptor->num_fields());
      if (!check.state.ready) continue;  // an unfinished build is not validated
      check.unique = check.descriptor->unique();
      check.text = check.descriptor->key_pattern().kind() == index::IndexKind::kText;
      indexes_.push_back(std::move(check));
    }
    Result<std::shared_ptr<const query::DocumentValidator>> validator = ValidatorOf(collection_);
    if (validator.ok()) {
      validator_ = std::move(validator).value();
    } else {
      results_.valid = false;
      results_.errors.push_back("collection options are not valid for storage: " +
                                collection_->options.ToJson());
    }
  }

  // ---- hash buckets ----

  static uint64_t Mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
  }

  static std::pair<size_t, size_t> Buckets(size_t index, std::string_view key,
                                           storage::RecordId id) {
    uint64_t h = std::hash<std::string_view>()(key);
    h = Mix(h ^ Mix(static_cast<uint64_t>(id) + 0x9e3779b97f4a7c15ULL * (index + 1)));
    return {h % kNumBuckets, (h >> 32) % kNumBuckets};
  }

  // The first pass counts document keys up and index entries down; the second looks only at
  // the buckets left unbalanced.
  void Count(size_t index, std::string_view key, storage::RecordId id, int64_t delta) {
    auto [lower, upper] = Buckets(index, key, id);
    buckets_[lower] += delta;
    buckets_[upper] += delta;
    bucket_bytes_[lower] += static_cast<int64_t>(key.size());
    bucket_bytes_[upper] += static_cast<int64_t>(key.size());
  }

  // limitMemoryUsageForSecondPhase: when the unbalanced buckets hold more keys than the second
  // pass may keep, only as many buckets as fit are examined (smallest first when even one
  // does not), and the results say that not everything is reported.
  void LimitSecondPhaseMemory() {
    const int64_t limit = kMaxValidateMemoryUsageMB * 1024 * 1024;
    int64_t needed = 0;
    for (size_t b = 0; b < kNumBuckets; ++b) {
      if (buckets_[b] != 0) needed += bucket_bytes_[b];
    }
    if (needed <= 2 * limit) return;
    size_t smallest = kNumBuckets;
    for (size_t b = 0; b < kNumBuckets; ++b) {
      if (buckets_[b] == 0) continue;
      if (smallest == kNumBuckets || bucket_bytes_[b] < bucket_bytes_[smallest]) smallest = b;
    }
    int64_t kept = 0;
    for (size_t b = 0; b < kNumBuckets; ++b) {
      if (buckets_[b] == 0) continue;
      const bool fits =
          bucket_bytes_[smallest] > limit ? b == smallest : kept + bucket_bytes_[b] <= limit;
      if (fits) {
        kept += bucket_bytes_[b];
      } else {
        buckets_[b] = 0;
      }
    }
    results_.errors.push_back(
        "Not all index entry inconsistencies are reported due to memory limitations. Memory "
        "limit for validation is currently set to " +
        std::to_string(kMaxValidateMemoryUsageMB) +
        "MB and can be configured via the 'maxValidateMemoryUsageMB' parameter.");
    results_.valid = false;
  }

  bool Unbalanced(size_t index, std::string_view key, storage::RecordId id) const {
    auto [lower, upper] = Buckets(index, key, id);
    return buckets_[lower] != 0 || buckets_[upper] != 0;
  }

  // ---- records ----

  Status TraverseRecords() {
    results_.counted = true;
    int64_t data_size = 0;
    std::vector<storage::RecordId> to_remove;
    auto cursor = engine_.ScanRecords(collection_->prefix);
    while (cursor->Next()) {
      CAIRN_RETURN_IF_ERROR(CheckInterrupt(interrupt_));
      const storage::RecordId id = cursor->id();
      const BsonView doc = cursor->value();
      ++results_.nrecords;
      RecordCheck check = checker_.Check(doc);
      if (!check.structure.ok()) {
        LogRecord(4835001, "Document corruption details - Document validation failed with error",
                  id, check.structure.ToString());
        if (options_.repair) {
          to_remove.push_back(id);
          --results_.nrecords;
        } else {
          AddOnce(&results_.errors, kInvalidDocuments);
          results_.valid = false;
          if ((results_.corrupt_records.size() + 1) * sizeof(storage::RecordId) <=
              kMaxListedBytes) {
            results_.corrupt_records.push_back(id);
          } else {
            AddOnce(&results_.warnings,
                    "Not all corrupted records are listed due to size limitations.");
          }
          ++results_.n_invalid;
        }
        continue;
      }
      data_size += static_cast<int64_t>(doc.size());
      if (!check.nonconformance.empty()) {
        LogRecord(6825900, "Document is not conformant to BSON specifications", id,
                  check.nonconformance);
        ++results_.n_non_compliant;
        AddOnce(&results_.warnings, kBsonNonConformant);
      }
      for (size_t i = 0; i < indexes_.size(); ++i) {
        CAIRN_RETURN_IF_ERROR(TraverseRecord(i, id, doc));
      }
      // A validator that cannot be evaluated on the document counts as not matching it.
      if (validator_ && !ValidatorMatches(doc)) {
        LogRecord(5363500, "Document is not compliant with the collection's schema", id, "");
        ++results_.n_non_compliant;
        if (!schema_reported_) {
          schema_reported_ = true;
          if (validator_->action() == query::ValidationAction::kWarn) {
            results_.warnings.emplace_back(kSchemaNonCompliant);
          } else {
            results_.errors.emplace_back(kSchemaNonCompliant);
            results_.valid = false;
          }
        }
      }
    }
    CAIRN_RETURN_IF_ERROR(cursor->status());
    if (!to_remove.empty()) CAIRN_RETURN_IF_ERROR(RemoveCorruptRecords(to_remove));
    const int64_t fast_count = engine_.RecordCount(collection_->prefix);
    if (options_.enforce_fast_count && fast_count != results_.nrecords) {
      results_.errors.push_back(
          "fast count (" + std::to_string(fast_count) + ") does not match number of records (" +
          std::to_string(results_.nrecords) + ") for collection '" + ns_ + "'");
      results_.valid = false;
    }
    // As updateStatsAfterRepair: a valid collection's counters take the counted values.
    if (results_.valid) {
      const int64_t count_delta = results_.nrecords - fast_count;
      const int64_t size_delta = data_size - engine_.DataSize(collection_->prefix);
      if (count_delta != 0 || size_delta != 0) {
        storage::WriteUnit unit = engine_.BeginWrite();
        unit.AdjustCounts(collection_->prefix, count_delta, size_delta);
        CAIRN_RETURN_IF_ERROR(unit.Commit());
      }
    }
    return Status::OK();
  }

  bool ValidatorMatches(BsonView doc) const {
    Result<bool> matched = validator_->Matches(doc);
    return matched.ok() && *matched;
  }

  Status RemoveCorruptRecords(const std::vector<storage::RecordId>& ids) {
    storage::WriteUnit unit = engine_.BeginWrite();
    for (storage::RecordId id : ids) {
      std::string bytes;
      bool found = false;
      CAIRN_RETURN_IF_ERROR(engine_.GetRecord(collection_->prefix, id, &bytes, &found));
      unit.DeleteRecord(collection_->prefix, id);
      unit.AdjustCounts(collection_->prefix, -1, -static_cast<int64_t>(bytes.size()));
    }
    CAIRN_RETURN_IF_ERROR(unit.Commit());
    for (storage::RecordId id : ids) state_.id_cache().InvalidateDocument(collection_->prefix, id);
    results_.removed_corrupt += static_cast<int64_t>(ids.size());
    results_.repaired = true;
    results_.warnings.push_back("Removed " + std::to_string(ids.size()) + " invalid documents.");
    return Status::OK();
  }

  // One document's keys in index i: counted, and its multikey paths checked (first pass), or
  // its keys in unbalanced buckets remembered as candidates for missing entries (second pass).
  Status TraverseRecord(size_t i, storage::RecordId id, BsonView doc) {
    IndexCheck& index = indexes_[i];
    keys_.clear();
    paths_.clear();
    CAIRN_RETURN_IF_ERROR(index.descriptor->GetKeys(doc, &keys_, &paths_));
    if (second_phase_) {
      for (const std::string& key : keys_) {
        if (!Unbalanced(i, key, id)) continue;
        BsonDoc id_key;
        bson_iter_t it;
        if (doc.Find("_id", &it)) AppendIter(id_key.get(), "_id", &it);
        missing_.emplace(EntryId{i, key, id}, std::move(id_key));
      }
      return Status::OK();
    }
    for (const std::string& key : keys_) Count(i, key, id, 1);
    if (index.text) return Status::OK();
    const bool should_be_multikey = keys_.size() > 1 || index::IsMultikey(paths_);
    if (should_be_multikey && !index::IsMultikey(index.state.multikey)) {
      if (options_.repair) {
        CAIRN_RETURN_IF_ERROR(SetMultikey(i, Union(index.state.multikey, paths_)));
        results_.warnings.push_back("Index " + index.name + " set to multikey.");
      } else {
        AddIndexError(&index, "Index " + index.name + " is not multikey but document with " +
                                  RecordIdString(id) + " and " + IdString(doc) +
                                  " has multikey data, " + std::to_string(keys_.size()) +
                                  " key(s)");
      }
    } else if (index::IsMultikey(index.state.multikey) && !Covers(index.state.multikey, paths_)) {
      if (options_.repair) {
        CAIRN_RETURN_IF_ERROR(SetMultikey(i, Union(index.state.multikey, paths_)));
        results_.warnings.push_back("Index " + index.name + " multikey paths updated.");
      } else {
        AddIndexError(&index, "Index " + index.name +
                                  " multikey paths do not cover a document with " +
                                  RecordIdString(id) + " and " + IdString(doc));
      }
    }
    if (should_be_multikey) {
      index.multikey_docs = true;
      index.doc_paths = Union(index.doc_paths, paths_);
    }
    return Status::OK();
  }

  // A per-document error of an index: the index is invalid; the list stops growing at
  // kMaxListedBytes.
  static void AddIndexError(IndexCheck* index, std::string message) {
    index->valid = false;
    index->error_bytes += message.size();
    if (index->error_bytes <= kMaxListedBytes) index->errors.push_back(std::move(message));
  }

  // ---- index entries ----

  // The key bytes and record of a stored entry (index/README.md "Entries"); record 0, which no
  // document has, for an entry whose layout is broken, so it reads as extra.
  static std::pair<std::string_view, storage::RecordId> Decode(bool unique,
                                                               std::string_view entry_key,
                                                               std::string_view value) {
    if (unique) {
      return {entry_key, value.size() == 8 ? storage::DecodeRecordId(value) : 0};
    }
    if (entry_key.size() <= 8 || !value.empty()) return {entry_key, 0};
    return {IndexEntryKeyBytes(false, entry_key), IndexEntryRecordId(false, entry_key, value)};
  }

  Status TraverseIndex(size_t i) {
    IndexCheck& index = indexes_[i];
    int64_t keys = 0;
    storage::WriteUnit removals = engine_.BeginWrite();
    auto cursor = engine_.ScanIndex(index.prefix, {}, {});
    while (cursor->Next()) {
      CAIRN_RETURN_IF_ERROR(CheckInterrupt(interrupt_));
      ++keys;
      auto [key, id] = Decode(index.unique, cursor->key(), cursor->value());
      if (!second_phase_) {
        Count(i, key, id, -1);
        continue;
      }
      if (!Unbalanced(i, key, id)) continue;
      auto found = missing_.find(EntryId{i, std::string(key), id});
      if (found != missing_.end()) {
        missing_.erase(found);
        continue;
      }
      if (options_.repair) {
        removals.DeleteIndexEntry(index.prefix, cursor->key());
        --keys;
        ++results_.removed_extra;
        continue;
      }
      extra_.emplace_back(EntryInfo(index, id, key, nullptr));
    }
    CAIRN_RETURN_IF_ERROR(cursor->status());
    if (!removals.empty()) {
      CAIRN_RETURN_IF_ERROR(removals.Commit());
      results_.repaired = true;
    }
    index.keys_traversed = keys;
    index.traversed = true;
    return second_phase_ ? Status::OK() : AdjustMultikey(i);
  }

  // The second phase of collection_validation.cpp: both sides again, remembering only the
  // entries of unbalanced buckets, then naming each missing and extra entry.
  Status GatherEntryErrors() {
    second_phase_ = true;
    LimitSecondPhaseMemory();
    auto cursor = engine_.ScanRecords(collection_->prefix);
    while (cursor->Next()) {
      CAIRN_RETURN_IF_ERROR(CheckInterrupt(interrupt_));
      const BsonView doc = cursor->value();
      if (!checker_.Check(doc).structure.ok()) continue;
      for (size_t i = 0; i < indexes_.size(); ++i) {
        CAIRN_RETURN_IF_ERROR(TraverseRecord(i, cursor->id(), doc));
      }
    }
    CAIRN_RETURN_IF_ERROR(cursor->status());
    for (size_t i = 0; i < indexes_.size(); ++i) CAIRN_RETURN_IF_ERROR(TraverseIndex(i));
    if (results_.removed_extra > 0) {
      results_.warnings.push_back("Removed " + std::to_string(results_.removed_extra) +
                                  " extra index entries.");
    }
    if (options_.repair) CAIRN_RETURN_IF_ERROR(InsertMissingEntries());
    ReportEntryErrors();
    return Status::OK();
  }

  Status InsertMissingEntries() {
    storage::WriteUnit unit = engine_.BeginWrite();
    std::string id_bound;
    for (auto it = missing_.begin(); it != missing_.end();) {
      const auto& [i, key, id] = it->first;
      IndexCheck& index = indexes_[i];
      if (index.unique) {
        // A unique key another record holds stays missing: mongod would move one of the two
        // documents to local.lost_and_found, which Cairn does not have.
        std::string value;
        bool found = false;
        CAIRN_RETURN_IF_ERROR(engine_.GetIndexEntry(index.prefix, key, &value, &found));
        if (found) {
          ++it;
          continue;
        }
        if (index.descriptor->is_id_index()) id_bound = std::max(id_bound, key);
      }
      unit.PutIndexEntry(index.prefix, IndexEntryKey(index.unique, key, id),
                         IndexEntryValue(index.unique, id));
      ++index.keys_traversed;
      ++results_.inserted_missing;
      it = missing_.erase(it);
    }
    if (unit.empty()) return Status::OK();
    CAIRN_RETURN_IF_ERROR(unit.Commit());
    // Inserts skip the duplicate-_id probe above this bound (write/write_context.h): keep it a
    // bound.
    CollectionWriteState& shared = state_.writes().CollectionWrite(collection_->prefix);
    shared.lock.AssertHeld();  // validate runs under the collection's lock (HandleValidate)
    if (!id_bound.empty() && shared.id_bound && *shared.id_bound < id_bound) {
      shared.id_bound = id_bound;
    }
    results_.repaired = true;
    results_.warnings.push_back("Inserted " + std::to_string(results_.inserted_missing) +
                                " missing index entries.");
    return Status::OK();
  }

  // index_consistency.cpp addIndexEntryErrors: entries listed smallest first within 1 MB each.
  void ReportEntryErrors() {
    for (auto& [entry, id_key] : missing_) {
      const auto& [i, key, id] = entry;
      missing_list_.emplace_back(EntryInfo(indexes_[i], id, key, &id_key));
    }
    const size_t n_missing = missing_list_.size();
    const size_t n_extra = extra_.size();
    bool first = true;
    auto list = [&](std::vector<BsonDoc>* from, std::vector<BsonDoc>* to, const char* what) {
      std::stable_sort(from->begin(), from->end(), [](const BsonDoc& a, const BsonDoc& b) {
        return a.get()->len < b.get()->len;
      });
      size_t bytes = 0;
      bool limited = false;
      for (BsonDoc& info : *from) {
        bytes += info.get()->len;
        bson_iter_t it;
        std::string name = info.view().Find("indexName", &it) ? std::string(IterUtf8(&it)) : "";
        if (first || bytes <= kMaxListedBytes) {
          to->push_back(std::move(info));
          first = false;
        } else if (!limited) {
          results_.errors.push_back(std::string("Not all ") + what +
                                    " index entry inconsistencies are listed due to size "
                                    "limitations.");
          limited = true;
        }
        for (IndexCheck& index : indexes_) {
          if (index.name != name || !index.valid) continue;
          results_.errors.push_back("Index with name '" + name + "' has inconsistencies.");
          index.valid = false;
        }
      }
    };
    list(&missing_list_, &results_.missing_entries, "missing");
    list(&extra_, &results_.extra_entries, "extra");
    if (n_missing > 0) {
      results_.warnings.push_back("Detected " + std::to_string(n_missing) +
                                  " missing index entries.");
      results_.valid = false;
    }
    if (n_extra > 0) {
      results_.warnings.push_back("Detected " + std::to_string(n_extra) + " extra index entries.");
      results_.valid = false;
    }
  }

  // {indexName, recordId, idKey?, indexKey: {<pattern field>: value, ...}}.
  static BsonDoc EntryInfo(const IndexCheck& index, storage::RecordId id, std::string_view key,
                           const BsonDoc* id_key) {
    BsonDoc info;
    AppendUtf8(info.get(), "indexName", index.name);
    BSON_APPEND_INT64(info.get(), "recordId", id);
    if (id_key != nullptr && !id_key->view().empty()) {
      BSON_APPEND_DOCUMENT(info.get(), "idKey", id_key->get());
    }
    BsonDoc index_key;
    const index::KeyPattern& pattern = index.descriptor->key_pattern();
    Result<BsonDoc> decoded = index::DecodeKey(key, pattern.descending());
    if (decoded.ok()) {
      bson_iter_t it;
      decoded->view().Init(&it);
      for (const index::KeyField& field : pattern.fields()) {
        if (!bson_iter_next(&it)) break;
        AppendIter(index_key.get(), field.path, &it);
      }
    }
    BSON_APPEND_DOCUMENT(info.get(), "indexKey", index_key.get());
    return info;
  }

  // ---- multikey metadata ----

  static index::MultikeyPaths Union(index::MultikeyPaths a, const index::MultikeyPaths& b) {
    a.resize(std::max(a.size(), b.size()), 0);
    for (size_t f = 0; f < b.size(); ++f) a[f] |= b[f];
    return a;
  }

  static bool Covers(const index::MultikeyPaths& index, const index::MultikeyPaths& doc) {
    for (size_t f = 0; f < doc.size(); ++f) {
      const uint64_t have = f < index.size() ? index[f] : 0;
      if ((doc[f] & ~have) != 0) return false;
    }
    return true;
  }

  Status SetMultikey(size_t i, index::MultikeyPaths paths) {
    IndexCheck& index = indexes_[i];
    index::IndexState state = index.state;
    state.multikey = std::move(paths);
    state.multikey.resize(index.descriptor->num_fields(), 0);
    CAIRN_ASSIGN_OR_RETURN(storage::CollectionHandle handle,
                           engine_.catalog().UpdateIndex(ns_, index.name, index.descriptor->spec(),
                                                         index::EncodeIndexState(state).view()));
    collection_ = std::move(handle);
    index.state = std::move(state);
    results_.repaired = true;
    return Status::OK();
  }

  // Foreground validation on a standalone tightens multikey metadata to what the documents need
  // (index_consistency.cpp traverseIndex, RepairMode::kAdjustMultikey).
  Status AdjustMultikey(size_t i) {
    IndexCheck& index = indexes_[i];
    if (index.text || !index.traversed) return Status::OK();
    const bool index_multikey = index::IsMultikey(index.state.multikey);
    index::MultikeyPaths doc_paths = index.doc_paths;
    doc_paths.resize(index.descriptor->num_fields(), 0);
    index::MultikeyPaths index_paths = index.state.multikey;
    index_paths.resize(index.descriptor->num_fields(), 0);
    if (index.multikey_docs && doc_paths != index_paths) {
      CAIRN_RETURN_IF_ERROR(SetMultikey(i, doc_paths));
      results_.warnings.push_back("Updated index multikey metadata: " + index.name);
    } else if (index_multikey && !index.multikey_docs) {
      CAIRN_RETURN_IF_ERROR(SetMultikey(i, {}));
      results_.warnings.push_back("Unset index multikey metadata: " + index.name);
    }
    return Status::OK();
  }

  // ---- key counts (index_consistency.cpp validateIndexKeyCount) ----

  void CheckKeyCount(IndexCheck* index) {
    const int64_t keys = index->keys_traversed;
    const int64_t records = results_.nrecords;
    const bool errors_on_too_few = full_index_validation();
    const std::string counts = " (" + std::to_string(keys) + ") than documents in the index (" +
                               std::to_string(records) + ")";
    bool too_few = false;
    if (index->descriptor->is_id_index() && keys != records) {
      too_few = keys < records;
      std::string message = "number of _id index entries (" + std::to_string(keys) +
                            ") does not match the number of documents in the index (" +
                            std::to_string(records) + ")";
      if (!errors_on_too_few && too_few) {
        index->warnings.push_back(std::move(message));
      } else {
        index->errors.push_back(std::move(message));
        index->valid = false;
      }
    }
    const bool multikey = index->text || index::IsMultikey(index->state.multikey);
    if (index->valid && !multikey && keys > records) {
      index->errors.push_back("index " + index->name + " is not multi-key, but has more entries" +
                              counts);
      index->valid = false;
    }
    const index::IndexDescriptor& d = *index->descriptor;
    if (index->valid && !d.sparse() && d.partial_filter() == nullptr && !d.is_id_index() &&
        !index->text && keys < records) {
      too_few = true;
      std::string message =
          "index " + index->name + " is not sparse or partial, but has fewer entries" + counts;
      if (errors_on_too_few) {
        index->errors.push_back(std::move(message));
        index->valid = false;
      } else {
        index->warnings.push_back(std::move(message));
      }
    }
    if (!errors_on_too_few && too_few) {
      index->warnings.push_back("index " + index->name +
                                " has fewer keys than records. Please re-run the validate "
                                "command with {full: true}");
    }
  }

  // ---- reply ----

  Status Reply(bson_t* reply) {
    AppendUtf8(reply, "ns", ns_);
    bson_append_binary(reply, "uuid", 4, BSON_SUBTYPE_UUID, collection_->uuid, 16);
    if (results_.counted) {
      AppendCount(reply, "nInvalidDocuments", results_.n_invalid);
      AppendCount(reply, "nNonCompliantDocuments", results_.n_non_compliant);
      AppendCount(reply, "nrecords", results_.nrecords);
    }
    if (results_.counted && !aborted_) AppendIndexes(reply);
    bson_append_bool(reply, "valid", 5, results_.valid);
    bson_append_bool(reply, "repaired", 8, results_.repaired);
    AppendStrings(reply, "warnings", results_.warnings);
    AppendStrings(reply, "errors", results_.errors);
    AppendDocs(reply, "extraIndexEntries", results_.extra_entries);
    AppendDocs(reply, "missingIndexEntries", results_.missing_entries);
    bson_t corrupt;
    bson_append_array_begin(reply, "corruptRecords", -1, &corrupt);
    for (size_t i = 0; i < results_.corrupt_records.size(); ++i) {
      std::string key = std::to_string(i);
      bson_append_int64(&corrupt, key.c_str(), -1, results_.corrupt_records[i]);
    }
    bson_append_array_end(reply, &corrupt);
    if (results_.repaired) {
      AppendCount(reply, "numRemovedCorruptRecords", results_.removed_corrupt);
      AppendCount(reply, "numRemovedExtraIndexEntries", results_.removed_extra);
      AppendCount(reply, "numInsertedMissingIndexEntries", results_.inserted_missing);
      AppendCount(reply, "numDocumentsMovedToLostAndFound", 0);
      AppendCount(reply, "numOutdatedMissingIndexEntry", 0);
    }
    if (!results_.valid) {
      AppendUtf8(reply, "advice", kAdvice);
      logging::Log(logging::Severity::kInfo, "INDEX", 20302, log_context_,
                   "Validation complete -- Corruption found", Attr().get());
    }
    return Status::OK();
  }

  // _reportValidationResults: nIndexes, keysPerIndex and indexDetails of the indexes that were
  // traversed or met per-index errors; their warnings and errors join the collection's.
  void AppendIndexes(bson_t* reply) {
    BsonDoc keys_per_index;
    BsonDoc index_details;
    for (IndexCheck& index : indexes_) {
      if (!index.traversed && index.errors.empty() && index.warnings.empty()) continue;
      if (!index.valid) results_.valid = false;
      AppendCount(keys_per_index.get(), index.name, index.keys_traversed);
      BsonDoc details;
      bson_append_bool(details.get(), "valid", 5, index.valid);
      if (!index.warnings.empty()) AppendStrings(details.get(), "warnings", index.warnings);
      if (!index.errors.empty()) AppendStrings(details.get(), "errors", index.errors);
      bson_append_document(index_details.get(), index.name.data(),
                           static_cast<int>(index.name.size()), details.get());
      results_.warnings.insert(results_.warnings.end(), index.warnings.begin(),
                               index.warnings.end());
      results_.errors.insert(results_.errors.end(), index.errors.begin(), index.errors.end());
    }
    BSON_APPEND_INT32(reply, "nIndexes", static_cast<int32_t>(indexes_.size()));
    BSON_APPEND_DOCUMENT(reply, "keysPerIndex", keys_per_index.get());
    BSON_APPEND_DOCUMENT(reply, "indexDetails", index_details.get());
  }

  // ---- logging and messages ----

  BsonDoc Attr() const {
    BsonDoc attr;
    AppendUtf8(attr.get(), "namespace", ns_);
    return attr;
  }

  void LogRecord(int id, std::string_view msg, storage::RecordId record,
                 const std::string& reason) const {
    BsonDoc attr = Attr();
    BSON_APPEND_INT64(attr.get(), "recordId", record);
    if (!reason.empty()) AppendUtf8(attr.get(), "reason", reason);
    logging::Log(logging::Severity::kWarning, "STORAGE", id, log_context_, msg, attr.get());
  }

  static std::string RecordIdString(storage::RecordId id) {
    return "RecordId(" + std::to_string(id) + ")";
  }

  // The _id element as mongod's BSONElement::toString prints it ("_id: 1").
  static std::string IdString(BsonView doc) {
    bson_iter_t it;
    if (!doc.Find("_id", &it)) return "EOO";
    return "_id: " + ValueToShellString(&it);
  }

  ServerState& state_;
  storage::Engine& engine_;
  const InterruptSlot* interrupt_;  // the command's: its scans stop at a kill or deadline
  const std::string ns_;
  storage::CollectionHandle collection_;
  const Options options_;
  BsonChecker checker_;
  const std::string log_context_;
  std::vector<IndexCheck> indexes_;
  std::shared_ptr<const query::DocumentValidator> validator_;
  Results results_;
  bool aborted_ = false;
  bool schema_reported_ = false;
  bool second_phase_ = false;
  std::vector<int64_t> buckets_ = std::vector<int64_t>(kNumBuckets, 0);
  std::vector<int64_t> bucket_bytes_ = std::vector<int64_t>(kNumBuckets, 0);
  std::map<EntryId, BsonDoc> missing_;
  std::vector<BsonDoc> missing_list_;
  std::vector<BsonDoc> extra_;
  index::KeySet keys_;
  index::MultikeyPaths paths_;
};

Status NotFound(const std::string& ns) {
  return Status(ErrorCode::kNamespaceNotFound,
                "Collection '" + ns + "' does not exist to validate.");
}

}  // namespace

CommandOutcome HandleValidate(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
  CAIRN_ASSIGN_OR_RETURN(Options options, ParseOptions(request.body));
  const std::string ns = MakeNamespace(request.db, collection);
  const std::string log_context = "conn" + std::to_string(ctx.connection.id);
  {
    BsonDoc attr;
    AppendUtf8(attr.get(), "namespace", ns);
    BSON_APPEND_BOOL(attr.get(), "background", options.background);
    BSON_APPEND_BOOL(attr.get(), "full", options.full);
    BSON_APPEND_BOOL(attr.get(), "enforceFastCount", options.enforce_fast_count);
    BSON_APPEND_BOOL(attr.get(), "checkBSONConformance", options.check_bson);
    BSON_APPEND_BOOL(attr.get(), "repair", options.repair);
    logging::Log(logging::Severity::kInfo, "COMMAND", 20514, log_context, "CMD: validate",
                 attr.get());
  }
  storage::Catalog& catalog = ctx.state.engine().catalog();
  storage::CollectionHandle handle = catalog.Find(ns);
  if (!handle) return NotFound(ns);
  // Writers commit under the collection's lock; holding it makes the record scan and every
  // index scan see one state (mongod validates in the foreground under a MODE_X lock). The
  // collection may have been dropped or re-created while this waited for the lock.
  for (;;) {
    MutexLock lock(&ctx.state.writes().CollectionLock(handle->prefix));
    storage::CollectionHandle current = catalog.Find(ns);
    if (!current) return NotFound(ns);
    if (current->prefix != handle->prefix) {
      handle = std::move(current);
      continue;
    }
    Validation validation(ctx.state, ns, std::move(current), options, log_context,
                          ctx.interrupt.get());
    return validation.Run(reply);
  }
}

}  // namespace cairn::server
