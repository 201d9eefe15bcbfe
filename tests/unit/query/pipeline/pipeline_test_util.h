// Test support for the pipeline specifications: a vector-backed DocumentSource (the collection
// reader stand-in), and RunPipeline(), which parses a pipeline written as JSON, binds it over
// documents written as JSON and returns the output documents as canonical Extended JSON (so int32,
// int64 and double differ) or the Status that stopped it.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "query/pipeline/document_source.h"
#include "query/pipeline/pipeline.h"
#include "tests/unit/query/bson_test_util.h"

namespace cairn::query::testing {

// Serves documents in order; ends with `end_status` (an error models a failing collection read).
class VectorSource final : public DocumentSource {
 public:
  explicit VectorSource(std::vector<BsonDoc> docs, Status end_status = Status::OK())
      : docs_(std::move(docs)), end_status_(std::move(end_status)) {}

  bool Next() override {
    if (next_ >= docs_.size()) {
      ended_ = true;
      return false;
    }
    current_ = next_++;
    ++pulled_;
    return true;
  }
  BsonView document() const override { return docs_[current_].view(); }
  Status status() const override { return ended_ ? end_status_ : Status::OK(); }

  // How many documents were pulled (to check that $limit stops reading).
  const size_t* pulled_counter() const { return &pulled_; }

 private:
  std::vector<BsonDoc> docs_;
  Status end_status_;
  size_t next_ = 0;
  size_t current_ = 0;
  size_t pulled_ = 0;
  bool ended_ = false;
};

inline std::vector<BsonDoc> Docs(const std::vector<std::string>& json) {
  std::vector<BsonDoc> docs;
  for (const std::string& j : json) docs.push_back(BsonDoc::FromJson(j));
  return docs;
}

// A JSON document (relaxed input syntax) in canonical form, for expectations.
inline std::string C(const std::string& json) { return Canonical(BsonDoc::FromJson(json).view()); }

inline std::vector<std::string> C(const std::vector<std::string>& json) {
  std::vector<std::string> out;
  for (const std::string& j : json) out.push_back(C(j));
  return out;
}

// A pipeline written as a JSON array, kept alive with its array view.
struct PipelineSpec {
  explicit PipelineSpec(const std::string& array_json)
      : doc(BsonDoc::FromJson("{\"p\": " + array_json + "}")) {}
  BsonView array() const {
    bson_iter_t it;
    doc.view().Find("p", &it);
    return IterDocument(&it);
  }
  BsonDoc doc;
};

inline Result<Pipeline> ParseJson(const std::string& array_json,
                                  const PipelineOptions& options = {}) {
  PipelineSpec spec(array_json);
  return Pipeline::Parse(spec.array(), options);
}

// Drains `source`, returning the canonical JSON of each document, or its error.
inline Result<std::vector<std::string>> Drain(DocumentSource* source) {
  std::vector<std::string> out;
  while (source->Next()) out.push_back(Canonical(source->document()));
  Status status = source->status();
  if (!status.ok()) return status;
  return out;
}

inline Result<std::vector<std::string>> RunPipeline(const std::string& pipeline_json,
                                                    const std::vector<std::string>& docs,
                                                    const PipelineOptions& options = {}) {
  CAIRN_ASSIGN_OR_RETURN(Pipeline pipeline, ParseJson(pipeline_json, options));
  std::unique_ptr<DocumentSource> exec =
      pipeline.Bind(std::make_unique<VectorSource>(Docs(docs)), /*skip_leading_match=*/false);
  return Drain(exec.get());
}

// Runs and expects success with exactly `expected` (relaxed JSON, compared type-exactly).
inline void ExpectOutput(const std::string& pipeline_json, const std::vector<std::string>& docs,
                         const std::vector<std::string>& expected) {
  Result<std::vector<std::string>> out = RunPipeline(pipeline_json, docs);
  ASSERT_TRUE(out.ok()) << pipeline_json << ": " << out.status().ToString();
  EXPECT_EQ(*out, C(expected)) << pipeline_json;
}

// Expects Parse or execution to fail with `code` (and, when given, exactly `reason`).
inline void ExpectError(const std::string& pipeline_json, const std::vector<std::string>& docs,
                        int code, const std::string& reason = "") {
  Result<std::vector<std::string>> out = RunPipeline(pipeline_json, docs);
  ASSERT_FALSE(out.ok()) << pipeline_json << " unexpectedly succeeded";
  EXPECT_EQ(out.status().code_number(), code) << pipeline_json << ": " << out.status().ToString();
  if (!reason.empty()) {
    EXPECT_EQ(out.status().reason(), reason) << pipeline_json;
  }
}

}  // namespace cairn::query::testing
