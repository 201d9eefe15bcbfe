// output_targets.h: $out through a temporary collection renamed over the target, $merge
// through a CollectionWriter on the target. Each write of $merge commits before the next lookup,
// so a later input document sees what an earlier one wrote, as in MongoDB.
#include "server/exec/output_targets.h"

#include <algorithm>
#include <optional>
#include <random>
#include <vector>

#include "index/index_descriptor.h"
#include "query/matcher/matcher.h"
#include "server/catalog/index_build.h"
#include "server/catalog/namespace.h"
#include "server/exec/stream_builder.h"
#include "server/write/collection_writer.h"

namespace cairn::server {

namespace {

// Documents gathered before a commit of $out's temporary collection.
constexpr size_t kOutCommitBytes = 16 * 1024 * 1024;

std::string TemporaryName() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[32];
  std::snprintf(buf, sizeof buf, "tmp.agg_out.%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

enum class WritingStage { kOut, kMerge };

// $out and $merge refuse system collections with their own messages before the generic rules.
Status ValidateTarget(WritingStage stage, std::string_view db, std::string_view coll) {
  if (coll.substr(0, 7) == "system.") {
    if (stage == WritingStage::kOut) {
      return Status(ErrorCode::kLocation17385,
                    "Can't $out to special collection: " + std::string(coll));
    }
    return Status(ErrorCode::kLocation31319,
                  "Cannot $merge to special collection: " + std::string(coll));
  }
  if (stage == WritingStage::kMerge && (db == "admin" || db == "config" || db == "local")) {
    return Status(ErrorCode::kLocation31320,
                  "Cannot $merge to internal database: " + std::string(db));
  }
  return ValidateCollectionName(db, coll);
}

// True when `target` has an index that proves `on_fields` (sorted, distinct) unique, as
// MongoDB's supportsUniqueKey asks: unique, not partial, with the simple collation (Cairn's
// aggregate collation is not passed here: an index with a collation never qualifies), and keyed
// on exactly those fields in any order. A missing target has none.
bool HasUniqueIndexOn(const storage::CollectionHandle& target,
                      const std::vector<std::string>& on_fields) {
  if (target == nullptr) return false;
  for (const storage::IndexEntry& index : target->indexes) {
    BsonView spec = index.spec.view();
    bson_iter_t it;
    const bool unique =
        index.name == "_id_" || (spec.Find("unique", &it) && bson_iter_as_bool(&it));
    if (!unique || spec.Find("partialFilterExpression", &it) || spec.Find("collation", &it) ||
        !spec.Find("key", &it) || !BSON_ITER_HOLDS_DOCUMENT(&it)) {
      continue;
    }
    std::vector<std::string> keys;
    bson_iter_t key;
    IterDocument(&it).Init(&key);
    while (bson_iter_next(&key)) keys.emplace_back(IterKey(&key));
    std::sort(keys.begin(), keys.end());
    if (keys == on_fields) return true;
  }
  return false;
}

class ServerOutSink final : public query::OutSink {
 public:
  ServerOutSink(WriteContext& state, std::string temp_ns, std::string target_ns,
                std::unique_ptr<CollectionWriter> writer)
      : state_(state),
        temp_ns_(std::move(temp_ns)),
        target_ns_(std::move(target_ns)),
        writer_(std::move(writer)) {}
  ~ServerOutSink() override {
    if (!finished_) {
      writer_.reset();  // releases the collection lock
      state_.engine().catalog().DropCollection(temp_ns_).IgnoreError();
    }
  }

  Status Add(BsonView doc) override {
    std::optional<BsonDoc> storage;
    CAIRN_ASSIGN_OR_RETURN(BsonView prepared, PrepareForInsert(doc, &storage));
    CAIRN_RETURN_IF_ERROR(writer_->Insert(prepared));
    if (writer_->pending_bytes() >= kOutCommitBytes) CAIRN_RETURN_IF_ERROR(writer_->Commit());
    return Status::OK();
  }

  Status Finish() override {
    CAIRN_RETURN_IF_ERROR(writer_->Commit());
    writer_.reset();
    CAIRN_RETURN_IF_ERROR(
        state_.engine().catalog().RenameCollection(temp_ns_, target_ns_, /*drop_target=*/true));
    finished_ = true;
    return Status::OK();
  }

 private:
  WriteContext& state_;
  std::string temp_ns_, target_ns_;
  std::unique_ptr<CollectionWriter> writer_;
  bool finished_ = false;
};

class ServerMergeSink final : public query::MergeSink {
 public:
  ServerMergeSink(WriteContext& state, std::unique_ptr<CollectionWriter> writer,
                  std::shared_ptr<const InterruptSlot> interrupt)
      : state_(state), writer_(std::move(writer)), interrupt_(std::move(interrupt)) {}

  Result<bool> Find(BsonView on_filter, BsonDoc* existing) override {
    CAIRN_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(on_filter));
    QuerySpec spec;
    spec.matcher = std::make_shared<const query::Matcher>(std::move(matcher));
    spec.interrupt = interrupt_;
    CAIRN_ASSIGN_OR_RETURN(auto stream, BuildQueryStream(state_.engine(), writer_->collection(),
                                                         spec, &state_.id_cache()));
    if (!stream->Next()) {
      CAIRN_RETURN_IF_ERROR(stream->status());
      return false;
    }
    *existing = BsonDoc(stream->document());
    found_id_ = stream->record_id();
    found_doc_ = BsonDoc(stream->document());
    return true;
  }

  Status Insert(BsonView doc) override {
    std::optional<BsonDoc> storage;
    CAIRN_ASSIGN_OR_RETURN(BsonView prepared, PrepareForInsert(doc, &storage));
    CAIRN_RETURN_IF_ERROR(writer_->Insert(prepared));
    return writer_->Commit();
  }

  Status Replace(BsonView doc) override {
    std::optional<BsonDoc> storage;
    CAIRN_ASSIGN_OR_RETURN(BsonView prepared, PrepareForInsert(doc, &storage));
    CAIRN_RETURN_IF_ERROR(
        writer_->Replace(found_id_, found_doc_.view(), prepared, /*replacement=*/true));
    return writer_->Commit();
  }

  Status Finish() override { return writer_->Commit(); }

 private:
  WriteContext& state_;
  std::unique_ptr<CollectionWriter> writer_;
  std::shared_ptr<const InterruptSlot> interrupt_;
  storage::RecordId found_id_ = 0;  // the document the last Find found
  BsonDoc found_doc_;
};

class ServerOutputTargets final : public query::OutputTargets {
 public:
  ServerOutputTargets(WriteContext& state, std::string db, bool bypass_validation,
                      std::shared_ptr<const InterruptSlot> interrupt)
      : state_(state),
        db_(std::move(db)),
        bypass_validation_(bypass_validation),
        interrupt_(std::move(interrupt)) {}

  Status CheckOut(std::string_view db, std::string_view coll) override {
    return ValidateTarget(WritingStage::kOut, db, coll);
  }

  Status CheckMerge(std::string_view db, std::string_view coll,
                    const std::vector<std::string>& on_fields) override {
    CAIRN_RETURN_IF_ERROR(ValidateTarget(WritingStage::kMerge, db, coll));
    const bool on_id_only = on_fields.size() == 1 && on_fields[0] == "_id";
    if (!on_id_only &&
        !HasUniqueIndexOn(state_.engine().catalog().Find(MakeNamespace(db, coll)), on_fields)) {
      return Status(ErrorCode::kLocation51183,
                    "Cannot find index to verify that join fields will be unique");
    }
    return Status::OK();
  }

  Result<std::unique_ptr<query::OutSink>> OpenOut(std::string_view db,
                                                  std::string_view coll) override {
    CAIRN_RETURN_IF_ERROR(CheckOut(db, coll));
    std::string target_ns = MakeNamespace(db, coll);
    std::string temp_ns = MakeNamespace(db, TemporaryName());
    storage::Catalog& catalog = state_.engine().catalog();
    storage::CollectionHandle target = catalog.Find(target_ns);
    CAIRN_RETURN_IF_ERROR(
        catalog.CreateCollection(temp_ns, target ? target->options.view() : BsonView()).status());
    // The target's secondary indexes, built (empty) on the temporary collection so the rename
    // keeps them, as MongoDB's $out does.
    if (target != nullptr && target->indexes.size() > 1) {
      std::vector<std::string> names;
      index::IndexState building;
      building.ready = false;
      BsonDoc building_state = index::EncodeIndexState(building);
      for (size_t i = 1; i < target->indexes.size(); ++i) {
        const storage::IndexEntry& index = target->indexes[i];
        Status created =
            catalog.CreateIndex(temp_ns, index.name, index.spec.view(), building_state.view())
                .status();
        if (!created.ok()) {
          catalog.DropCollection(temp_ns).IgnoreError();
          return created;
        }
        names.push_back(index.name);
      }
      Status built = BuildIndexes(state_, temp_ns, names, "$out", interrupt_.get());
      if (!built.ok()) {
        catalog.DropCollection(temp_ns).IgnoreError();
        return built;
      }
    }
    auto writer = CollectionWriter::Open(state_, temp_ns, /*create_if_missing=*/false);
    if (!writer.ok()) {
      catalog.DropCollection(temp_ns).IgnoreError();
      return writer.status();
    }
    (*writer)->set_bypass_document_validation(bypass_validation_);
    return std::unique_ptr<query::OutSink>(std::make_unique<ServerOutSink>(
        state_, std::move(temp_ns), std::move(target_ns), std::move(*writer)));
  }

  Result<std::unique_ptr<query::MergeSink>> OpenMerge(
      std::string_view db, std::string_view coll,
      const std::vector<std::string>& on_fields) override {
    // Checked again: the target may have changed since the pipeline was parsed.
    CAIRN_RETURN_IF_ERROR(CheckMerge(db, coll, on_fields));
    CAIRN_ASSIGN_OR_RETURN(
        std::unique_ptr<CollectionWriter> writer,
        CollectionWriter::Open(state_, MakeNamespace(db, coll), /*create_if_missing=*/true));
    writer->set_bypass_document_validation(bypass_validation_);
    return std::unique_ptr<query::MergeSink>(
        std::make_unique<ServerMergeSink>(state_, std::move(writer), interrupt_));
  }

  std::string_view default_db() const override { return db_; }

 private:
  WriteContext& state_;
  std::string db_;
  bool bypass_validation_;
  std::shared_ptr<const InterruptSlot> interrupt_;
};

}  // namespace

std::shared_ptr<query::OutputTargets> MakeOutputTargets(
    WriteContext& state, std::string db, bool bypass_document_validation,
    std::shared_ptr<const InterruptSlot> interrupt) {
  return std::make_shared<ServerOutputTargets>(state, std::move(db), bypass_document_validation,
                                               std::move(interrupt));
}

}  // namespace cairn::server
