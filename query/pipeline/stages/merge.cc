// $merge: writes each input document into a target collection, where a document is found by
// its 'on' fields (default _id; others need a unique index on exactly them, which the server
// checks when the target opens: 51183). whenMatched replace (a replacement update: the target
// keeps its _id) / keepExisting / merge (default: {$set: <the new document>}) / fail (an
// insert, so DuplicateKey 11000) / a pipeline (a pipeline-style update run with `let`, default
// {new: "$$ROOT"}; on no match with whenNotMatched insert it runs on the 'on' fields' seed, as
// MongoDB's upsert does); whenNotMatched insert (default) / discard / fail
// (MergeStageNoMatchingDocument 13113). Updates reuse query/update (its _id and storage rules);
// an attempt to change _id is ImmutableField 66 with MongoDB's $merge context. Returns no
// documents. An _id is generated for a document without one only when 'on' includes _id.
// Position (last only, 40601) is pipeline.cc's.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "common/field_path.h"
#include "query/expression/expression.h"
#include "query/pipeline/output_target.h"
#include "query/pipeline/stages/stage_parsers.h"
#include "query/update/update.h"

namespace cairn::query::stages {

namespace {

enum class WhenMatched { kReplace, kKeepExisting, kMerge, kFail, kPipeline };
enum class WhenNotMatched { kInsert, kDiscard, kFail };

constexpr std::string_view WhenMatchedName(WhenMatched mode) {
  switch (mode) {
    case WhenMatched::kReplace:
      return "replace";
    case WhenMatched::kKeepExisting:
      return "keepExisting";
    case WhenMatched::kMerge:
      return "merge";
    case WhenMatched::kFail:
      return "fail";
    case WhenMatched::kPipeline:
      return "pipeline";
  }
  return "";
}

constexpr std::string_view WhenNotMatchedName(WhenNotMatched mode) {
  switch (mode) {
    case WhenNotMatched::kInsert:
      return "insert";
    case WhenNotMatched::kDiscard:
      return "discard";
    case WhenNotMatched::kFail:
      return "fail";
  }
  return "";
}

struct LetVariable {
  std::string name;
  std::shared_ptr<const Expression> expr;
};

struct MergeSpec {
  TargetNamespace into;
  // The 'on' paths, sorted and distinct (MongoDB keeps them as a set); {"_id"} by default.
  std::vector<std::string> on{"_id"};
  std::vector<std::vector<std::string>> on_parts{{"_id"}};
  bool on_includes_id = true;
  WhenMatched when_matched = WhenMatched::kMerge;
  WhenNotMatched when_not_matched = WhenNotMatched::kInsert;
  // whenMatched pipeline: the stages array (its bytes as a document) and the `let` variables,
  // evaluated against each incoming document; `new` is always that document (51273 when `let`
  // gives it another value).
  BsonDoc pipeline;
  std::vector<LetVariable> let;
  size_t let_slots = 0;
  std::shared_ptr<const ExpressionContext> context;
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

Status MissingOnField() {
  return Status(ErrorCode::kLocation51132,
                "$merge write error: 'on' field cannot be missing, null, undefined or an array");
}

// The element at `parts` in `doc`, walking embedded documents only (MongoDB's getNestedField: an
// array on the way makes the path missing). 51132 when missing, null or undefined; 51185 when
// the value itself is an array.
Status FindOnValue(BsonView doc, const std::vector<std::string>& parts, bson_iter_t* value) {
  BsonView current = doc;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!current.Find(parts[i], value)) return MissingOnField();
    if (i + 1 < parts.size()) {
      if (!BSON_ITER_HOLDS_DOCUMENT(value)) return MissingOnField();
      current = IterDocument(value);
    }
  }
  if (BSON_ITER_HOLDS_NULL(value) || BSON_ITER_HOLDS_UNDEFINED(value)) return MissingOnField();
  if (BSON_ITER_HOLDS_ARRAY(value)) {
    return Status(ErrorCode::kLocation51185,
                  "$merge write error: 'on' field cannot be missing, null, undefined or an "
                  "array");
  }
  return Status::OK();
}

// The context MongoDB gives a write of $merge that failed: on a changed _id, and on a duplicate
// key (whenMatched fail's own when the key is exactly the 'on' fields, as its keyPattern says).
Status WriteFailed(Status status, const MergeSpec& spec) {
  if (status.code() == ErrorCode::kImmutableField) {
    return status.WithContext(
        "$merge failed to update the matching document, did you attempt to modify the _id or "
        "the shard key?");
  }
  if (status.code() != ErrorCode::kDuplicateKey) return status;
  bool on_fields_key = false;
  bson_iter_t pattern;
  if (status.extra() != nullptr && status.extra()->view().Find("keyPattern", &pattern) &&
      BSON_ITER_HOLDS_DOCUMENT(&pattern)) {
    BsonView key = IterDocument(&pattern);
    bson_iter_t field;
    on_fields_key = key.CountKeys() == spec.on.size() &&
                    std::all_of(spec.on.begin(), spec.on.end(),
                                [&](const std::string& name) { return key.Find(name, &field); });
  }
  if (on_fields_key && spec.when_matched == WhenMatched::kFail) {
    return status.WithContext(
        "$merge with whenMatched: fail found an existing document with the same values for the "
        "'on' fields");
  }
  return status.WithContext("$merge failed due to a DuplicateKey error");
}

// Drains its input into the sink on the first Next() and ends the stream.
class MergeExecutor final : public ChildSource {
 public:
  MergeExecutor(const MergeStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage), vars_(stage.spec().let_slots) {}

  bool Next() override {
    if (done_) return false;
    done_ = true;
    if (stage_.targets() == nullptr) {
      return Fail(Status(ErrorCode::kBadValue, "$merge is not supported in this context"));
    }
    const MergeSpec& spec = stage_.spec();
    std::string_view db =
        spec.into.db.empty() ? stage_.targets()->default_db() : std::string_view(spec.into.db);
    auto sink = stage_.targets()->OpenMerge(db, spec.into.coll, spec.on);
    if (!sink.ok()) return Fail(sink.status());
    while (child_->Next()) {
      Status written = WriteOne(**sink, child_->document());
      if (!written.ok()) return Fail(WriteFailed(std::move(written), spec));
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
    if (spec.on_includes_id && !doc.Find("_id", &id)) {
      with_id_ = BsonDoc();
      bson_oid_t oid;
      bson_oid_init(&oid, nullptr);
      bson_append_oid(with_id_.get(), "_id", 3, &oid);
      bson_t fields = input.AsBson();
      bson_concat(with_id_.get(), &fields);
      doc = with_id_.view();
    }
    on_filter_ = BsonDoc();
    for (size_t i = 0; i < spec.on.size(); ++i) {
      bson_iter_t value;
      CAIRN_RETURN_IF_ERROR(FindOnValue(doc, spec.on_parts[i], &value));
      AppendIter(on_filter_.get(), spec.on[i], &value);
    }
    if (spec.when_matched == WhenMatched::kFail &&
        spec.when_not_matched == WhenNotMatched::kInsert) {
      return sink.Insert(doc);  // a match answers the DuplicateKey MongoDB answers
    }
    CAIRN_ASSIGN_OR_RETURN(bool matched, sink.Find(on_filter_.view(), &existing_));
    if (!matched) {
      switch (spec.when_not_matched) {
        case WhenNotMatched::kInsert:
          if (spec.when_matched == WhenMatched::kPipeline) return InsertThroughPipeline(sink, doc);
          return sink.Insert(doc);
        case WhenNotMatched::kDiscard:
          return Status::OK();
        case WhenNotMatched::kFail:
          return Status(ErrorCode::kMergeStageNoMatchingDocument,
                        "$merge could not find a matching document in the target collection "
                        "for at least one document in the source collection");
      }
    }
    Update update;
    switch (spec.when_matched) {
      case WhenMatched::kKeepExisting:
        return Status::OK();
      case WhenMatched::kFail:
        return sink.Insert(doc);
      case WhenMatched::kReplace: {
        CAIRN_ASSIGN_OR_RETURN(update, Update::Parse(doc));
        break;
      }
      case WhenMatched::kMerge: {
        set_ = BsonDoc();
        bson_t fields = doc.AsBson();
        BSON_APPEND_DOCUMENT(set_.get(), "$set", &fields);
        CAIRN_ASSIGN_OR_RETURN(update, Update::Parse(set_.view()));
        break;
      }
      case WhenMatched::kPipeline: {
        CAIRN_ASSIGN_OR_RETURN(update, PipelineUpdate(doc));
        break;
      }
    }
    updated_ = BsonDoc();
    auto changed = update.Apply(existing_.view(), updated_.get(), Update::ApplyOptions());
    CAIRN_RETURN_IF_ERROR(changed.status());
    if (!*changed) return Status::OK();
    return sink.Replace(updated_.view());
  }

  // The whenMatched pipeline as an update, with the `let` variables evaluated against `doc`.
  Result<Update> PipelineUpdate(BsonView doc) {
    const MergeSpec& spec = stage_.spec();
    std::vector<std::pair<std::string, Value>> values;
    values.emplace_back("new", Value::DocumentView(doc));
    vars_.SetRoot(doc);
    for (const LetVariable& variable : spec.let) {
      CAIRN_ASSIGN_OR_RETURN(Value value, variable.expr->Evaluate(&vars_));
      values.emplace_back(variable.name, value.missing() ? Value() : value.Owned());
    }
    return Update::ParsePipeline(spec.pipeline.view(), BsonView(),
                                 spec.context->WithVariables(std::move(values)));
  }

  // No match, whenNotMatched insert: the pipeline runs on the document the 'on' fields seed
  // (an upsert's), and the result is inserted.
  Status InsertThroughPipeline(MergeSink& sink, BsonView doc) {
    CAIRN_ASSIGN_OR_RETURN(Update update, PipelineUpdate(doc));
    CAIRN_ASSIGN_OR_RETURN(BsonDoc seed, Update::SeedFromFilter(on_filter_.view()));
    updated_ = BsonDoc();
    Update::ApplyOptions options;
    options.is_upsert_insert = true;
    CAIRN_RETURN_IF_ERROR(update.Apply(seed.view(), updated_.get(), options).status());
    return sink.Insert(updated_.view());
  }

  const MergeStage& stage_;
  bool done_ = false;
  Variables vars_;
  BsonDoc with_id_, on_filter_, existing_, set_, updated_;  // reused between documents
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
  return Status(ErrorCode::kTypeMismatch, "BSON field '$merge." + std::string(field) +
                                              "' is the wrong type '" +
                                              std::string(BsonTypeName(bson_iter_type(it))) +
                                              "', expected type '" + std::string(expected) + "'");
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
  std::vector<std::string> fields;
  if (BSON_ITER_HOLDS_UTF8(it)) {
    fields.emplace_back(IterUtf8(it));
  } else if (BSON_ITER_HOLDS_ARRAY(it)) {
    bson_iter_t element;
    bson_iter_recurse(it, &element);
    while (bson_iter_next(&element)) {
      if (!BSON_ITER_HOLDS_UTF8(&element)) {
        return Status(ErrorCode::kLocation51134,
                      "$merge 'on' array elements must be strings, but found " +
                          std::string(BsonTypeName(bson_iter_type(&element))));
      }
      fields.emplace_back(IterUtf8(&element));
    }
    if (fields.empty()) {
      return Status(ErrorCode::kLocation51187,
                    "If explicitly specifying $merge 'on', must include at least one field");
    }
  } else {
    return Status(ErrorCode::kLocation51186,
                  "$merge 'on' field  must be either a string or an array of strings, but found " +
                      std::string(BsonTypeName(bson_iter_type(it))));
  }
  std::sort(fields.begin(), fields.end());
  fields.erase(std::unique(fields.begin(), fields.end()), fields.end());
  spec->on_parts.clear();
  for (const std::string& field : fields) spec->on_parts.push_back(SplitDottedPath(field));
  spec->on_includes_id = std::find(fields.begin(), fields.end(), "_id") != fields.end();
  spec->on = std::move(fields);
  return Status::OK();
}

// The whenMatched pipeline, parsed now (with `let` bound to null) for its errors: the stages'
// own, then InvalidOptions 72 for a stage an update may not run.
Status ParseWhenMatchedPipeline(const bson_iter_t* it, BsonView let, MergeSpec* spec) {
  spec->pipeline = BsonDoc(IterDocument(it));
  ParseContext ctx(spec->context);
  std::vector<std::pair<std::string, Value>> placeholders{{"new", Value::Null()}};
  bson_iter_t let_it;
  if (!let.empty() && let.Init(&let_it)) {
    while (bson_iter_next(&let_it)) {
      std::string name(IterKey(&let_it));
      if (name == "new") {
        // `new` is reserved for the incoming document.
        if (!BSON_ITER_HOLDS_UTF8(&let_it) || IterUtf8(&let_it) != "$$ROOT") {
          return Status(ErrorCode::kLocation51273,
                        "'let' may not define a value for the reserved 'new' variable other than "
                        "'$$ROOT'");
        }
        continue;  // bound to the incoming document anyway
      }
      CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(&let_it, ctx));
      spec->let.push_back({name, std::move(expr)});
      placeholders.emplace_back(std::move(name), Value::Null());
    }
  }
  spec->let_slots = ctx.num_slots();
  return Update::ParsePipeline(spec->pipeline.view(), BsonView(),
                               spec->context->WithVariables(std::move(placeholders)))
      .status();
}

// The target's parse-time checks (OutputTargets::CheckMerge), when there are targets.
Status CheckTarget(const MergeSpec& spec, const PipelineOptions& options) {
  if (options.output_targets == nullptr) return Status::OK();
  std::string_view db =
      spec.into.db.empty() ? options.output_targets->default_db() : std::string_view(spec.into.db);
  return options.output_targets->CheckMerge(db, spec.into.coll, spec.on);
}

}  // namespace

Result<StagePtr> ParseMerge(const bson_iter_t* spec_it, const PipelineOptions& options) {
  MergeSpec spec;
  spec.context =
      options.expression_context ? options.expression_context : ExpressionContext::Make();
  if (BSON_ITER_HOLDS_UTF8(spec_it)) {
    spec.into.coll = std::string(IterUtf8(spec_it));
    CAIRN_RETURN_IF_ERROR(CheckTarget(spec, options));
    return StagePtr(std::make_shared<MergeStage>(std::move(spec), options.output_targets));
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(spec_it)) {
    return Status(ErrorCode::kLocation51182,
                  "$merge only supports a string or object argument, but found " +
                      std::string(BsonTypeName(bson_iter_type(spec_it))));
  }
  bson_iter_t it;
  bson_iter_recurse(spec_it, &it);
  bool has_into = false, has_let = false;
  BsonView let;
  std::optional<BsonElement> pipeline;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "into") {
      CAIRN_RETURN_IF_ERROR(ParseInto(&it, &spec));
      has_into = true;
    } else if (key == "on") {
      CAIRN_RETURN_IF_ERROR(ParseOn(&it, &spec));
    } else if (key == "whenMatched") {
      if (BSON_ITER_HOLDS_ARRAY(&it)) {
        spec.when_matched = WhenMatched::kPipeline;
        pipeline.emplace(&it);
        continue;
      }
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(&it, key, "string");
      std::string_view mode = IterUtf8(&it);
      if (mode == "replace")
        spec.when_matched = WhenMatched::kReplace;
      else if (mode == "keepExisting")
        spec.when_matched = WhenMatched::kKeepExisting;
      else if (mode == "merge")
        spec.when_matched = WhenMatched::kMerge;
      else if (mode == "fail")
        spec.when_matched = WhenMatched::kFail;
      else
        return BadEnum(mode, key);
    } else if (key == "whenNotMatched") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(&it, key, "string");
      std::string_view mode = IterUtf8(&it);
      if (mode == "insert")
        spec.when_not_matched = WhenNotMatched::kInsert;
      else if (mode == "discard")
        spec.when_not_matched = WhenNotMatched::kDiscard;
      else if (mode == "fail")
        spec.when_not_matched = WhenNotMatched::kFail;
      else
        return BadEnum(mode, key);
    } else if (key == "let") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return WrongType(&it, key, "object");
      let = IterDocument(&it);
      has_let = true;
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
  // The mode pairs MongoDB supports: every whenMatched with insert; replace, merge and a
  // pipeline with discard and fail too.
  const bool fail_or_keep =
      spec.when_matched == WhenMatched::kFail || spec.when_matched == WhenMatched::kKeepExisting;
  if (fail_or_keep && spec.when_not_matched != WhenNotMatched::kInsert) {
    return Status(ErrorCode::kLocation51189,
                  "Combination of $merge modes 'whenMatched: " +
                      std::string(WhenMatchedName(spec.when_matched)) + "' and 'whenNotMatched: " +
                      std::string(WhenNotMatchedName(spec.when_not_matched)) +
                      "' is not supported");
  }
  if (has_let && spec.when_matched != WhenMatched::kPipeline) {
    return Status(ErrorCode::kLocation51199, "Cannot use 'let' variables with 'whenMatched: " +
                                                 std::string(WhenMatchedName(spec.when_matched)) +
                                                 "' mode");
  }
  if (pipeline) {
    bson_iter_t stages = pipeline->iter();
    CAIRN_RETURN_IF_ERROR(ParseWhenMatchedPipeline(&stages, let, &spec));
  }
  CAIRN_RETURN_IF_ERROR(CheckTarget(spec, options));
  return StagePtr(std::make_shared<MergeStage>(std::move(spec), options.output_targets));
}

}  // namespace cairn::query::stages
