// $merge: writes each input document into a target collection, matched on 'on' (default _id):
// whenMatched replace / keepExisting / merge (default: the new document's fields $set into the
// existing one) / fail (an insert, so DuplicateKey 11000), whenNotMatched insert (default) /
// discard / fail (MergeStageNoMatchingDocument 13113). Returns no documents. A document without
// _id is given a new ObjectId, as MongoDB's insert would. Cairn matches on _id only for now:
// other 'on' fields need a unique index check the server refuses (51183); a whenMatched pipeline
// answers a precise BadValue. Position (last only, 40601) is pipeline.cc's.
#include <string>

#include "query/pipeline/output_target.h"
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

enum class WhenMatched { kReplace, kKeepExisting, kMerge, kFail };
enum class WhenNotMatched { kInsert, kDiscard, kFail };

struct MergeSpec {
  TargetNamespace into;
  bool on_id_only = true;
  WhenMatched when_matched = WhenMatched::kMerge;
  WhenNotMatched when_not_matched = WhenNotMatched::kInsert;
};

class MergeStage final : public Stage {
 public:
  MergeStage(MergeSpec spec, std::shared_ptr<OutputTargets> targets)
      : spec_(std::move(spec)), targets_(std::move(targets)) {}

  std::string_view name() const override { return "$merge"; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  const MergeSpec& spec() const { return spec_; }
  OutputTargets* targets() const { return targets_.get(); }

 private:
  MergeSpec spec_;
  std::shared_ptr<OutputTargets> targets_;
};

// `existing` with each top-level field of `update` set: existing fields keep their order, new
// ones follow (the $set MongoDB's merge mode applies).
void MergeInto(BsonView existing, BsonView update, bson_t* out) {
  bson_iter_t it, found;
  existing.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    const bson_iter_t* value = update.Find(key, &found) ? &found : &it;
    bson_append_iter(out, key.data(), static_cast<int>(key.size()), value);
  }
  update.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (!existing.Find(key, &found)) {
      bson_append_iter(out, key.data(), static_cast<int>(key.size()), &it);
    }
  }
}

// Drains its input into the sink on the first Next() and ends the stream.
class MergeExecutor final : public ChildSource {
 public:
  MergeExecutor(const MergeStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage) {}

  bool Next() override {
    if (done_) return false;
    done_ = true;
    if (stage_.targets() == nullptr) {
      return Fail(Status(ErrorCode::kBadValue, "$merge is not supported in this context"));
    }
    const MergeSpec& spec = stage_.spec();
    std::string_view db = spec.into.db.empty() ? stage_.targets()->default_db()
                                               : std::string_view(spec.into.db);
    auto sink = stage_.targets()->OpenMerge(db, spec.into.coll, spec.on_id_only);
    if (!sink.ok()) return Fail(sink.status());
    while (child_->Next()) {
      Status written = WriteOne(**sink, child_->document());
      if (!written.ok()) return Fail(std::move(written));
    }
    if (!child_->status().ok()) return false;
    Status finished = (*sink)->Finish();
    if (!finished.ok()) return Fail(std::move(finished));
    return false;
  }
  BsonView document() const override { return BsonView(); }

 private:
  Status WriteOne(MergeSink& sink, BsonView input) {
    const MergeSpec& spec = stage_.spec();
    BsonView doc = input;
    bson_iter_t id;
    if (!doc.Find("_id", &id)) {
      with_id_ = BsonDoc();
      bson_oid_t oid;
      bson_oid_init(&oid, nullptr);
      bson_append_oid(with_id_.get(), "_id", 3, &oid);
      bson_t fields = input.AsBson();
      bson_concat(with_id_.get(), &fields);
      doc = with_id_.view();
      doc.Find("_id", &id);
    }
    if (BSON_ITER_HOLDS_ARRAY(&id) || BSON_ITER_HOLDS_NULL(&id) || BSON_ITER_HOLDS_UNDEFINED(&id)) {
      return Status(ErrorCode::kLocation51185,
                    "$merge write error: 'on' field cannot be missing, null, undefined or an "
                    "array");
    }
    if (spec.when_matched == WhenMatched::kFail) {
      if (spec.when_not_matched == WhenNotMatched::kInsert) return sink.Insert(doc);
    }
    CAIRN_ASSIGN_OR_RETURN(bool matched, sink.FindById(&id, &existing_));
    if (!matched) {
      switch (spec.when_not_matched) {
        case WhenNotMatched::kInsert: return sink.Insert(doc);
        case WhenNotMatched::kDiscard: return Status::OK();
        case WhenNotMatched::kFail:
          return Status(ErrorCode::kMergeStageNoMatchingDocument,
                        "$merge could not find a matching document in the target collection "
                        "for at least one document in the source collection");
      }
    }
    switch (spec.when_matched) {
      case WhenMatched::kReplace: return sink.Replace(doc);
      case WhenMatched::kKeepExisting: return Status::OK();
      case WhenMatched::kFail: return sink.Insert(doc);  // the DuplicateKey MongoDB answers
      case WhenMatched::kMerge: {
        merged_ = BsonDoc();
        MergeInto(existing_.view(), doc, merged_.get());
        return sink.Replace(merged_.view());
      }
    }
    return Status::OK();
  }

  const MergeStage& stage_;
  bool done_ = false;
  BsonDoc with_id_, existing_, merged_;  // reused between documents
};

std::unique_ptr<DocumentSource> MergeStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<MergeExecutor>(*this, std::move(child));
}

Status BadEnum(std::string_view value, std::string_view field) {
  return Status(ErrorCode::kBadValue, "Enumeration value '" + std::string(value) +
                                          "' for field '$merge." + std::string(field) +
                                          "' is not a valid value.");
}

Status WrongType(const bson_iter_t* it, std::string_view field, std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch,
                "BSON field '$merge." + std::string(field) + "' is the wrong type '" +
                    std::string(BsonTypeName(bson_iter_type(it))) + "', expected type '" +
                    std::string(expected) + "'");
}

Status ParseInto(const bson_iter_t* it, MergeSpec* spec) {
  if (BSON_ITER_HOLDS_UTF8(it)) {
    spec->into.coll = std::string(IterUtf8(it));
    return Status::OK();
  }
  if (BSON_ITER_HOLDS_DOCUMENT(it)) {
    CAIRN_ASSIGN_OR_RETURN(spec->into, ParseTargetNamespace(it, "$merge.into"));
    return Status::OK();
  }
  return Status(ErrorCode::kLocation51178,
                "$merge 'into' field  must be either a string or an object, but found " +
                    std::string(BsonTypeName(bson_iter_type(it))));
}

Status ParseOn(const bson_iter_t* it, MergeSpec* spec) {
  auto bad = [&] {
    return Status(ErrorCode::kLocation51186,
                  "$merge 'on' field  must be either a string or an array of strings, but found " +
                      std::string(BsonTypeName(bson_iter_type(it))));
  };
  if (BSON_ITER_HOLDS_UTF8(it)) {
    spec->on_id_only = IterUtf8(it) == "_id";
    return Status::OK();
  }
  if (!BSON_ITER_HOLDS_ARRAY(it)) return bad();
  bson_iter_t element;
  bson_iter_recurse(it, &element);
  size_t count = 0;
  bool only_id = true;
  while (bson_iter_next(&element)) {
    if (!BSON_ITER_HOLDS_UTF8(&element)) return bad();
    only_id = only_id && IterUtf8(&element) == "_id";
    ++count;
  }
  if (count == 0) {
    return Status(ErrorCode::kLocation51187,
                  "If explicitly specifying $merge 'on', must include at least one field");
  }
  spec->on_id_only = only_id;
  return Status::OK();
}

}  // namespace

Result<StagePtr> ParseMerge(const bson_iter_t* spec_it, const PipelineOptions& options) {
  MergeSpec spec;
  if (BSON_ITER_HOLDS_UTF8(spec_it)) {
    spec.into.coll = std::string(IterUtf8(spec_it));
    return StagePtr(std::make_shared<MergeStage>(std::move(spec), options.output_targets));
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(spec_it)) {
    return Status(ErrorCode::kLocation51182,
                  "$merge only supports a string or object argument, but found " +
                      std::string(BsonTypeName(bson_iter_type(spec_it))));
  }
  bson_iter_t it;
  bson_iter_recurse(spec_it, &it);
  bool has_into = false;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "into") {
      CAIRN_RETURN_IF_ERROR(ParseInto(&it, &spec));
      has_into = true;
    } else if (key == "on") {
      CAIRN_RETURN_IF_ERROR(ParseOn(&it, &spec));
    } else if (key == "whenMatched") {
      if (BSON_ITER_HOLDS_ARRAY(&it)) {
        return Status(ErrorCode::kBadValue,
                      "$merge with a whenMatched pipeline is not supported by Cairn yet");
      }
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(&it, key, "string");
      std::string_view mode = IterUtf8(&it);
      if (mode == "replace") spec.when_matched = WhenMatched::kReplace;
      else if (mode == "keepExisting") spec.when_matched = WhenMatched::kKeepExisting;
      else if (mode == "merge") spec.when_matched = WhenMatched::kMerge;
      else if (mode == "fail") spec.when_matched = WhenMatched::kFail;
      else return BadEnum(mode, key);
    } else if (key == "whenNotMatched") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(&it, key, "string");
      std::string_view mode = IterUtf8(&it);
      if (mode == "insert") spec.when_not_matched = WhenNotMatched::kInsert;
      else if (mode == "discard") spec.when_not_matched = WhenNotMatched::kDiscard;
      else if (mode == "fail") spec.when_not_matched = WhenNotMatched::kFail;
      else return BadEnum(mode, key);
    } else if (key == "let") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return WrongType(&it, key, "object");
      // Variables serve only a whenMatched pipeline, which is refused above.
    } else if (key == "targetCollectionVersion") {
      // Internal (sharding); ignored on a single node.
    } else {
      return Status(ErrorCode::kLocation40415,
                    "BSON field '$merge." + std::string(key) + "' is an unknown field.");
    }
  }
  if (!has_into) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field '$merge.into' is missing but a required field");
  }
  return StagePtr(std::make_shared<MergeStage>(std::move(spec), options.output_targets));
}

}  // namespace cairn::query::stages
