// $collStats: {$collStats: {latencyStats?: {}, storageStats?: {scale?}, count?: {},
// queryExecStats?: {}}} — the one document of statistics about the aggregate's collection,
// built by the server (ServerSources::CollStats); the later stages read it. Parse: the argument
// must be an object (BadValue 2 "$collStats must take a nested object but found: ..."), each
// field one of those four (40415) and an object (TypeMismatch 14), storageStats.scale a number
// >= 1 (BadValue "scale has to be > 0"). Position (first only, 40602) is pipeline.cc's; in
// $facet it is refused by facet.cc (40600), in a $lookup or $unionWith sub-pipeline it is not
// supported yet.
#include <string>

#include "query/pipeline/stages/server_source.h"
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

Result<StagePtr> ParseCollStats(const bson_iter_t* spec, const PipelineOptions& options) {
  CAIRN_RETURN_IF_ERROR(CheckNotInSubPipeline("$collStats", options));
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    BsonDoc stage;
    AppendIter(stage.get(), "$collStats", spec);
    return Status(ErrorCode::kBadValue,
                  "$collStats must take a nested object but found: " + ToShellString(stage.view()));
  }
  BsonView argument = IterDocument(spec);
  bson_iter_t option;
  argument.Init(&option);
  while (bson_iter_next(&option)) {
    std::string_view name = IterKey(&option);
    if (name != "storageStats" && name != "count" && name != "latencyStats" &&
        name != "queryExecStats") {
      return Status(ErrorCode::kLocation40415,
                    "BSON field '$collStats." + std::string(name) + "' is an unknown field.");
    }
    if (!BSON_ITER_HOLDS_DOCUMENT(&option)) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field '$collStats." + std::string(name) + "' is the wrong type '" +
                        std::string(BsonTypeName(bson_iter_type(&option))) +
                        "', expected type 'object'");
    }
  }
  CollStatsSpec parsed;
  parsed.latency_stats = argument.Find("latencyStats", &option);
  parsed.count = argument.Find("count", &option);
  parsed.query_exec_stats = argument.Find("queryExecStats", &option);
  if (argument.Find("storageStats", &option)) {
    parsed.storage_stats = true;
    bson_iter_t scale;
    if (IterDocument(&option).Find("scale", &scale)) {
      double value = 0;
      if (!IterAsDouble(&scale, &value) || value < 1) {
        return Status(ErrorCode::kBadValue, "scale has to be > 0");
      }
      parsed.scale = static_cast<int64_t>(value);
    }
  }
  std::string ns = options.db + "." + options.collection;
  return MakeServerSourceStage(
      "$collStats", options,
      [ns = std::move(ns), parsed](ServerSources& server) -> Result<std::vector<BsonDoc>> {
        CAIRN_ASSIGN_OR_RETURN(BsonDoc document, server.CollStats(ns, parsed));
        std::vector<BsonDoc> one;
        one.push_back(std::move(document));
        return one;
      });
}

}  // namespace cairn::query::stages
