// $project: inclusion/exclusion through query/projection's Projection, plus computed fields
// ({a: "$x", b: {$add: [...]}, c: "literal"}) set by query/pipeline/computed_fields.h. Parse: an
// object (15969) with at least one field (51272). MongoDB's rules on mixing, in spec order: a
// computed field makes an inclusion projection, so it is refused after an exclusion (31252
// "Cannot use expression other than $meta in exclusion projection") and an exclusion after it is
// 31254; the projection's other errors (31253, path collisions, field names) are Projection's.
// All errors read "Invalid $project :: caused by :: ...". The output of a projection with
// computed fields is the inclusion's fields in document order (_id kept unless excluded), then
// the computed fields in spec order (a computed _id replaces the document's in place). A $meta
// field ({score: {$meta: "textScore"}}) is computed too but, as in MongoDB, decides nothing: with
// exclusions or alone it is appended to the excluded (or whole) document. Also hosts
// the executor $unset builds (unset.cc).
#include <optional>

#include "query/pipeline/computed_fields.h"
#include "query/pipeline/stages/stage_parsers.h"
#include "query/projection/projection.h"

namespace cairn::query::stages {

namespace {

class ProjectStage final : public Stage {
 public:
  // Without computed fields: `projection` is the whole projection.
  ProjectStage(Projection projection, std::string_view name)
      : projection_(std::move(projection)), name_(name) {}
  // With computed fields: the inclusion or exclusion part (none: only _id, unless `keep_id` is
  // false; or, with `keep_all`, the whole document), then `computed`.
  ProjectStage(std::optional<Projection> inclusion, bool keep_id, ComputedFields computed,
               size_t num_slots, bool keep_all = false)
      : projection_(std::move(inclusion)),
        keep_id_(keep_id),
        keep_all_(keep_all),
        computed_(std::move(computed)),
        num_slots_(num_slots),
        name_("$project") {}

  std::string_view name() const override { return name_; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  const std::optional<Projection>& projection() const { return projection_; }
  bool keep_id() const { return keep_id_; }
  bool keep_all() const { return keep_all_; }
  const std::optional<ComputedFields>& computed() const { return computed_; }
  size_t num_slots() const { return num_slots_; }

 private:
  std::optional<Projection> projection_;
  bool keep_id_ = true;
  bool keep_all_ = false;  // only $meta fields: they are added to the whole document
  std::optional<ComputedFields> computed_;
  size_t num_slots_ = 0;
  std::string_view name_;  // "$project" or "$unset": static strings
};

class ProjectExecutor final : public ChildSource {
 public:
  ProjectExecutor(const ProjectStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage), vars_(stage.num_slots()) {
    vars_.set_metadata(child_.get());  // {$meta: "textScore"} reads the input's score
  }

  bool Next() override {
    if (!child_->Next()) return false;
    BsonView doc = child_->document();
    bson_reinit(out_.get());
    if (!stage_.computed()) {
      // Only a find positional projection can fail; $project refuses those at Parse.
      stage_.projection()->Apply(doc, out_.get()).IgnoreError();
      return true;
    }
    vars_.SetRoot(doc);
    if (stage_.keep_all()) {
      Status status = stage_.computed()->Apply(doc, &vars_, out_.get());
      return status.ok() || Fail(std::move(status));
    }
    bson_reinit(base_.get());
    if (stage_.projection()) {
      stage_.projection()->Apply(doc, base_.get()).IgnoreError();
    } else if (stage_.keep_id()) {
      bson_iter_t id;
      if (doc.Find("_id", &id)) AppendIter(base_.get(), "_id", &id);
    }
    Status status = stage_.computed()->Apply(base_.view(), &vars_, out_.get());
    if (!status.ok()) return Fail(std::move(status));
    return true;
  }
  BsonView document() const override { return out_.view(); }
  // One output per input document, which keeps its metadata.
  std::optional<double> text_score() const override { return child_->text_score(); }

 private:
  const ProjectStage& stage_;
  Variables vars_;
  BsonDoc base_;  // the inclusion's output, before the computed fields
  BsonDoc out_;
};

std::unique_ptr<DocumentSource> ProjectStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<ProjectExecutor>(*this, std::move(child));
}

// Splits a $project spec into its inclusion/exclusion part and its computed fields, checking
// MongoDB's mixing rules in spec order (projection_parser.cpp).
class ProjectSplitter {
 public:
  explicit ProjectSplitter(ParseContext& ctx) : ctx_(ctx) {}

  // Walks `spec` (nested under `prefix`), appending the inclusion/exclusion leaves to
  // `inclusion` and, for the Projection that checks paths, every leaf (computed ones as 1) to
  // `check`.
  Status Split(BsonView spec, const std::string& prefix, bson_t* inclusion, bson_t* check) {
    bson_iter_t it;
    spec.Init(&it);
    while (bson_iter_next(&it)) {
      std::string_view key = IterKey(&it);
      const int key_len = static_cast<int>(key.size());
      std::string path = prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
      if (BSON_ITER_HOLDS_BOOL(&it) || IterIsNumber(&it)) {
        CAIRN_RETURN_IF_ERROR(Leaf(path, TrueNumberOrBool(&it)));
        AppendIter(inclusion, key, &it);
        AppendIter(check, key, &it);
        continue;
      }
      if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
        BsonView sub = IterDocument(&it);
        bson_iter_t first;
        const bool has_first = sub.Init(&first) && bson_iter_next(&first);
        if (!has_first) {  // {}: Projection reports the empty sub-projection
          AppendIter(check, key, &it);
          continue;
        }
        if (IterKey(&first).empty() || IterKey(&first)[0] != '$') {
          bson_t sub_inclusion, sub_check;
          bson_init(&sub_inclusion);
          bson_append_document_begin(check, key.data(), key_len, &sub_check);
          Status status = Split(sub, path, &sub_inclusion, &sub_check);
          bson_append_document_end(check, &sub_check);
          if (status.ok() && sub_inclusion.len > 5) {
            bson_append_document(inclusion, key.data(), key_len, &sub_inclusion);
          }
          bson_destroy(&sub_inclusion);
          CAIRN_RETURN_IF_ERROR(status);
          continue;
        }
        if (IterKey(&first) == "$elemMatch") {
          return Status(ErrorCode::kInvalidPipelineOperator,
                        "Cannot use $elemMatch in this context");
        }
        if (IterKey(&first) == "$meta") {  // computed, in a projection of either kind
          CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(&it, ctx_));
          computed_paths_.emplace_back(path, std::move(expr));  // not in `check`: no kind
          continue;
        }
      }
      // A computed field.
      if (type_ == Type::kExclusion) {
        return Status(ErrorCode::kLocation31252,
                      "Cannot use expression other than $meta in exclusion projection");
      }
      type_ = Type::kInclusion;
      CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(&it, ctx_));
      computed_paths_.emplace_back(path, std::move(expr));
      bson_append_bool(check, key.data(), key_len, true);
    }
    return Status::OK();
  }

  bool has_computed() const { return !computed_paths_.empty(); }
  bool is_inclusion() const { return type_ == Type::kInclusion; }
  bool includes_non_id() const { return includes_non_id_; }
  bool id_excluded() const { return id_excluded_; }
  std::vector<std::pair<std::string, ExpressionPtr>>& computed_paths() { return computed_paths_; }

 private:
  enum class Type { kUnknown, kInclusion, kExclusion };

  static bool TrueNumberOrBool(const bson_iter_t* it) {
    if (BSON_ITER_HOLDS_BOOL(it)) return bson_iter_bool(it);
    double d = 0;
    IterAsDouble(it, &d);
    return d != 0;
  }

  // An inclusion or exclusion leaf: the type it implies must agree with what came before; _id
  // may be excluded from an inclusion and included in an exclusion.
  Status Leaf(const std::string& path, bool include) {
    if (path == "_id") {
      if (!include) id_excluded_ = true;
      return Status::OK();
    }
    if (include) {
      includes_non_id_ = true;
      if (type_ == Type::kExclusion) {
        return Status(ErrorCode::kLocation31253,
                      "Cannot do inclusion on field " + path + " in exclusion projection");
      }
      type_ = Type::kInclusion;
    } else {
      if (type_ == Type::kInclusion) {
        return Status(ErrorCode::kLocation31254,
                      "Cannot do exclusion on field " + path + " in inclusion projection");
      }
      type_ = Type::kExclusion;
    }
    return Status::OK();
  }

  ParseContext& ctx_;
  Type type_ = Type::kUnknown;
  bool includes_non_id_ = false;
  bool id_excluded_ = false;
  std::vector<std::pair<std::string, ExpressionPtr>> computed_paths_;
};

Result<StagePtr> ParseProjectSpec(BsonView spec, const PipelineOptions& options) {
  ParseContext ctx(options.expression_context);
  ProjectSplitter splitter(ctx);
  BsonDoc inclusion, check;
  CAIRN_RETURN_IF_ERROR(splitter.Split(spec, std::string(), inclusion.get(), check.get()));
  if (!splitter.has_computed()) return MakeProjectStage(spec, "$project");
  // Paths and names as Projection checks them, computed fields standing in as inclusions.
  if (!check.view().empty()) CAIRN_RETURN_IF_ERROR(Projection::Parse(check.view()).status());
  ComputedFields computed;
  for (auto& [path, expr] : splitter.computed_paths()) {
    CAIRN_RETURN_IF_ERROR(computed.Add(path, std::move(expr)));
  }
  if (!splitter.is_inclusion()) {
    // Only $meta fields computed: they go onto the excluded document, or the whole one.
    if (inclusion.view().empty()) {
      return StagePtr(std::make_shared<ProjectStage>(std::nullopt, true, std::move(computed),
                                                     ctx.num_slots(), /*keep_all=*/true));
    }
    CAIRN_ASSIGN_OR_RETURN(Projection exclusion, Projection::Parse(inclusion.view()));
    return StagePtr(std::make_shared<ProjectStage>(std::move(exclusion), true, std::move(computed),
                                                   ctx.num_slots()));
  }
  std::optional<Projection> base;
  if (splitter.includes_non_id()) {
    CAIRN_ASSIGN_OR_RETURN(Projection projection, Projection::Parse(inclusion.view()));
    base = std::move(projection);
  }
  return StagePtr(std::make_shared<ProjectStage>(std::move(base), !splitter.id_excluded(),
                                                 std::move(computed), ctx.num_slots()));
}

}  // namespace

Result<StagePtr> MakeProjectStage(BsonView projection_spec, std::string_view stage_name) {
  Result<Projection> projection = Projection::Parse(projection_spec);
  if (!projection.ok()) {
    return projection.status().WithContext("Invalid " + std::string(stage_name));
  }
  std::string_view name = stage_name == "$unset" ? "$unset" : "$project";
  return StagePtr(std::make_shared<ProjectStage>(std::move(projection).value(), name));
}

Result<StagePtr> ParseProject(const bson_iter_t* spec, const PipelineOptions& options) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kLocation15969, "$project specification must be an object");
  }
  BsonView projection = IterDocument(spec);
  if (projection.empty()) {
    return Status(ErrorCode::kLocation51272,
                  "Invalid $project :: caused by :: projection specification must have at least "
                  "one field");
  }
  Result<StagePtr> stage = ParseProjectSpec(projection, options);
  if (!stage.ok() && stage.status().reason().rfind("Invalid $project :: ", 0) != 0) {
    return stage.status().WithContext("Invalid $project");
  }
  return stage;
}

}  // namespace cairn::query::stages
