// $lookup: joins each input document with documents of another collection (ForeignCollections,
// foreign_collections.h), in MongoDB's three forms — localField/foreignField; let + pipeline;
// both — setting the `as` field to the array of matches (replacing what was there). This file
// is the stage: its parsing, OptimizeAt, Bind, and the choice of a join strategy; the executor
// and the strategies have their own files (the map is in lookup_join.h).
//
// Equality semantics (MongoDB's {foreignField: {$in: <local values>}}): a localField array joins
// on any element, a missing or null localField joins foreign documents whose field is null or
// missing; a foreign array field matches on any element. Strategies, chosen once per cursor:
//   IndexedLoopJoin — `from` has a usable index on foreignField: one filtered read per input
//                     document, which the server's planner turns into an index probe;
//   HashJoin        — no index and the foreign collection fits the memory budget: read once,
//                     keyed by every foreignField value, probed per input document;
//   NestedLoopJoin  — otherwise: one filtered scan per input document.
// A pipeline without `let` or localField is uncorrelated: it runs once and its result is cached.
// With `let`, the sub-pipeline is re-parsed per input document with the let values as constants.
//
// A following `$unwind` of the `as` field is absorbed (OptimizeAt): the stage then streams one
// output document per match and never builds the array, so a join whose array would pass
// 16 MiB works when unwound; a `$match` after them on fields of the unwound `as` moves into the
// foreign side of the join (PushDownMatch). An IndexedLoopJoin on the foreign `_id` is a point
// lookup per input document. Under explain, each top-level stage counts its strategy and what it
// read (explain_stats.h). Limits: matches over 100 MiB fail with 4568; an output document
// over 16 MiB + 16 KiB (as every result document) fails with BSONObjectTooLarge (10334).
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "query/pipeline/foreign_collections.h"
#include "query/pipeline/stage_registry.h"
#include "query/pipeline/stages/lookup_join.h"
#include "query/pipeline/stages/stage_parsers.h"
#include "query/pipeline/stages/unwind.h"

namespace cairn::query::stages {

namespace lookup_internal {

Result<std::unique_ptr<EqualityJoin>> ChooseJoin(std::shared_ptr<const LookupSpec> spec) {
  if (spec->options.foreign != nullptr &&
      spec->options.foreign->HasIndexOn(spec->from, spec->foreign_field)) {
    if (spec->stats != nullptr) {
      spec->stats->strategy = "IndexedLoopJoin";
      spec->stats->index_name = spec->options.foreign->IndexNameOn(spec->from, spec->foreign_field);
    }
    return MakeIndexedLoopJoin(std::move(spec));
  }
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<EqualityJoin> hash, BuildHashJoin(spec));
  if (hash != nullptr) return hash;
  return MakeNestedLoopJoin(std::move(spec));
}

}  // namespace lookup_internal

namespace {

using lookup_internal::LookupSpec;

class LookupStage final : public Stage {
 public:
  explicit LookupStage(std::shared_ptr<const LookupSpec> spec) : spec_(std::move(spec)) {}

  std::string_view name() const override { return "$lookup"; }
  size_t OptimizeAt(size_t index, StageList* stages) const override {
    if (spec_->unwind || index + 1 >= stages->size()) return index + 1;
    const UnwindSpec* unwind = AsUnwind(*(*stages)[index + 1]);
    if (unwind == nullptr || unwind->path != spec_->as) return index + 1;
    auto merged = std::make_shared<LookupSpec>(*spec_);
    merged->unwind = *unwind;
    stages->erase(stages->begin() + static_cast<std::ptrdiff_t>(index) + 1);
    PushDownMatch(merged.get(), index, stages);
    (*stages)[index] = std::make_shared<LookupStage>(std::move(merged));
    return index + 1;
  }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override {
    return lookup_internal::MakeLookupExecutor(spec_, std::move(child));
  }

 private:
  // $lookup + $unwind of `as` + $match: the $match's top-level conditions on paths under `as.`
  // hold for an output document exactly when the joined foreign document satisfies them with
  // the prefix removed, so they move into the join (the hash table keeps only matching foreign
  // documents, a probe's filter gains them and can use an index on them), and a join whose
  // unwound output would be filtered away is never built. The rest of the $match stays. Not
  // done when the $unwind keeps unmatched documents (preserveNullAndEmptyArrays: they have no
  // `as` and the $match decides them), when its includeArrayIndex lies under `as`, or for the
  // sub-pipeline forms.
  static void PushDownMatch(LookupSpec* spec, size_t index, StageList* stages) {
    if (index + 1 >= stages->size() || (*stages)[index + 1]->name() != "$match") return;
    if (!spec->equality() || spec->has_pipeline || !spec->let.empty()) return;
    if (spec->unwind->preserve_null_and_empty) return;
    const std::string prefix = spec->as + ".";
    std::string index_path;
    for (const std::string& part : spec->unwind->index_parts) {
      index_path += (index_path.empty() ? "" : ".") + part;
    }
    if (!index_path.empty() && (index_path == spec->as || index_path.starts_with(prefix))) return;
    const Matcher* match = (*stages)[index + 1]->matcher();
    if (match == nullptr) return;
    BsonDoc pushed, rest;
    bson_iter_t it;
    match->filter().Init(&it);
    while (bson_iter_next(&it)) {
      std::string_view key = IterKey(&it);
      if (key.size() > prefix.size() && key.starts_with(prefix) && key[prefix.size()] != '$') {
        AppendIter(pushed.get(), key.substr(prefix.size()), &it);
      } else {
        AppendIter(rest.get(), key, &it);
      }
    }
    if (pushed.view().empty()) return;
    Result<Matcher> foreign = Matcher::Parse(pushed.view(), spec->options.expression_context);
    if (!foreign.ok()) return;  // cannot happen for parts of a filter that parsed; keep as is
    if (!rest.view().empty()) {
      BsonDoc holder;
      bson_t value = rest.view().AsBson();
      BSON_APPEND_DOCUMENT(holder.get(), "$match", &value);
      bson_iter_t spec_it;
      holder.view().Init(&spec_it);
      bson_iter_next(&spec_it);
      Result<StagePtr> residual = ParseMatch(&spec_it, spec->options);
      if (!residual.ok()) return;
      (*stages)[index + 1] = *residual;
    } else {
      stages->erase(stages->begin() + static_cast<std::ptrdiff_t>(index) + 1);
    }
    spec->foreign_matcher = std::make_shared<const Matcher>(std::move(*foreign));
  }

  std::shared_ptr<const LookupSpec> spec_;
};

Status Argument(const bson_iter_t* it) {
  return Status(ErrorCode::kFailedToParse,
                "$lookup argument '" + RenderElement(it) + "' must be a string, is type " +
                    std::to_string(static_cast<int>(bson_iter_type(it))));
}

}  // namespace

Result<StagePtr> ParseLookup(const bson_iter_t* spec, const PipelineOptions& options) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kFailedToParse,
                  "the $lookup specification must be an Object, but found " +
                      std::string(BsonTypeName(bson_iter_type(spec))));
  }
  auto lookup = std::make_shared<LookupSpec>();
  // One sub-pipeline level deeper (232 past 20), as MongoDB's $lookup copies its expression
  // context for the foreign side whether or not it has a pipeline. Explain counts this stage;
  // its sub-pipelines (parsed with these options) are not counted.
  CAIRN_ASSIGN_OR_RETURN(lookup->options, SubPipelineOptions(options));
  if (options.stats != nullptr) {
    lookup->stats = &options.stats->lookups.emplace_back();
    lookup->stats->position = options.stats->parsing_position;
  }
  if (lookup->options.expression_context == nullptr) {
    lookup->options.expression_context = ExpressionContext::Make();
  }
  bool has_from = false, has_local = false, has_foreign = false, has_let = false;
  BsonView let;
  bson_iter_t it;
  IterDocument(spec).Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "from" || key == "as" || key == "localField" || key == "foreignField") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) {
        if (key == "from") {
          return Status(ErrorCode::kFailedToParse,
                        "$lookup 'from' field must be a string or an object, but found " +
                            std::string(BsonTypeName(bson_iter_type(&it))));
        }
        return Argument(&it);
      }
      std::string value(IterUtf8(&it));
      if (key == "from") {
        lookup->from = value;
        has_from = true;
      } else if (key == "as") {
        lookup->as = value;
      } else if (key == "localField") {
        lookup->local_field = value;
        has_local = true;
      } else {
        lookup->foreign_field = value;
        has_foreign = true;
      }
    } else if (key == "let") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Status(ErrorCode::kFailedToParse,
                      "$lookup argument 'let' must be an object, is type " +
                          std::to_string(static_cast<int>(bson_iter_type(&it))));
      }
      let = IterDocument(&it);
      has_let = true;
    } else if (key == "pipeline") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) {
        return Status(ErrorCode::kFailedToParse, "'pipeline' option must be specified as an array");
      }
      lookup->has_pipeline = true;
      BsonDoc holder;
      AppendIter(holder.get(), "p", &it);
      lookup->pipeline = std::make_shared<const BsonDoc>(std::move(holder));
    } else {
      return Status(ErrorCode::kFailedToParse, "unknown argument to $lookup: " + std::string(key));
    }
  }
  if (lookup->as.empty()) {
    return Status(ErrorCode::kFailedToParse, "must specify 'as' field for a $lookup");
  }
  if (!has_from) {
    return Status(ErrorCode::kFailedToParse, "must specify 'from' field for a $lookup");
  }
  if (has_let && !lookup->has_pipeline) {
    return Status(ErrorCode::kFailedToParse,
                  "$lookup with a 'let' argument must also specify 'pipeline'");
  }
  if (has_local != has_foreign) {
    return Status(ErrorCode::kFailedToParse,
                  "$lookup requires both or neither of 'localField' and 'foreignField'");
  }
  if (!has_local && !lookup->has_pipeline) {
    return Status(ErrorCode::kFailedToParse,
                  "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' "
                  "to be specified");
  }
  CAIRN_ASSIGN_OR_RETURN(lookup->as_parts, SplitFieldPath(lookup->as));
  if (has_local) {
    CAIRN_ASSIGN_OR_RETURN(lookup->local_parts, SplitFieldPath(lookup->local_field));
    CAIRN_ASSIGN_OR_RETURN(lookup->foreign_parts, SplitFieldPath(lookup->foreign_field));
  }
  // `let`: expressions over the input document, parsed once.
  ParseContext ctx(lookup->options.expression_context);
  std::vector<std::pair<std::string, Value>> placeholders;
  bson_iter_t let_it;
  if (has_let && let.Init(&let_it)) {
    while (bson_iter_next(&let_it)) {
      std::string name(IterKey(&let_it));
      CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(&let_it, ctx));
      lookup->let.push_back({name, std::move(expr)});
      placeholders.emplace_back(name, Value::Null());
    }
  }
  lookup->let_slots = ctx.num_slots();
  if (lookup->has_pipeline) {
    // Parsed now for its errors (with the let variables bound to null); kept when it does not
    // depend on them.
    PipelineOptions sub = lookup->options;
    if (!placeholders.empty()) {
      sub.expression_context = sub.expression_context->WithVariables(std::move(placeholders));
    }
    std::string_view writing = FirstWritingStageName(lookup->pipeline_array());
    if (!writing.empty()) {
      return Status(ErrorCode::kLocation51047,
                    std::string(writing) + " is not allowed within a $lookup's sub-pipeline");
    }
    CAIRN_ASSIGN_OR_RETURN(Pipeline parsed, Pipeline::Parse(lookup->pipeline_array(), sub));
    if (!has_let) lookup->fixed_pipeline = std::move(parsed);
  }
  return StagePtr(std::make_shared<LookupStage>(std::move(lookup)));
}

}  // namespace cairn::query::stages
