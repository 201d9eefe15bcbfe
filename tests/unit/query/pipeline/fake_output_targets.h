// An in-memory OutputTargets for the writing stages' tests ($out, $merge): collections as
// ordered lists of documents keyed "db.coll", with the unique indexes a $merge 'on' needs
// declared per collection. It stands in for server/exec/output_targets.cc.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "query/matcher/matcher.h"
#include "query/pipeline/output_target.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query::testing {

struct FakeStore {
  std::map<std::string, std::vector<BsonDoc>> collections;
  // "db.coll" → the field sets (sorted) of its unique indexes besides _id.
  std::map<std::string, std::set<std::vector<std::string>>> unique_indexes;

  std::vector<std::string> Contents(const std::string& ns) const {
    std::vector<std::string> out;
    auto it = collections.find(ns);
    if (it == collections.end()) return out;
    for (const BsonDoc& doc : it->second) out.push_back(Canonical(doc.view()));
    return out;
  }
};

class FakeOutSink final : public OutSink {
 public:
  FakeOutSink(FakeStore* store, std::string ns) : store_(store), ns_(std::move(ns)) {}
  Status Add(BsonView doc) override {
    pending_.push_back(BsonDoc(doc));
    return Status::OK();
  }
  Status Finish() override {
    store_->collections[ns_] = std::move(pending_);
    return Status::OK();
  }

 private:
  FakeStore* store_;
  std::string ns_;
  std::vector<BsonDoc> pending_;
};

// Finds through the matcher; Insert refuses a document that equals another on _id or on any
// declared unique field set (DuplicateKey), as the server's indexes would.
class FakeMergeSink final : public MergeSink {
 public:
  FakeMergeSink(std::vector<BsonDoc>* docs, std::set<std::vector<std::string>> unique)
      : docs_(docs), unique_(std::move(unique)) {
    unique_.insert({"_id"});
  }
  Result<bool> Find(BsonView on_filter, BsonDoc* existing) override {
    CAIRN_ASSIGN_OR_RETURN(Matcher matcher, Matcher::Parse(on_filter));
    for (size_t i = 0; i < docs_->size(); ++i) {
      if (*matcher.Matches((*docs_)[i].view())) {
        *existing = (*docs_)[i].Clone();
        found_ = i;
        return true;
      }
    }
    return false;
  }
  Status Insert(BsonView doc) override {
    BsonDoc stored;
    bson_iter_t id;
    if (!doc.Find("_id", &id)) {
      bson_oid_t oid;
      bson_oid_init(&oid, nullptr);
      bson_append_oid(stored.get(), "_id", 3, &oid);
    }
    bson_t fields = doc.AsBson();
    bson_concat(stored.get(), &fields);
    for (const std::vector<std::string>& keys : unique_) {
      BsonDoc filter;
      bool complete = true;
      for (const std::string& key : keys) {
        bson_iter_t value;
        complete = complete && bson_iter_init(&value, &fields) &&
                   bson_iter_find_descendant(&value, key.c_str(), &value);
        if (complete) AppendIter(filter.get(), key, &value);
      }
      if (!complete) continue;
      CAIRN_ASSIGN_OR_RETURN(Matcher matcher, Matcher::Parse(filter.view()));
      for (const BsonDoc& other : *docs_) {
        if (*matcher.Matches(other.view())) {
          BsonDoc extra, pattern;
          for (const std::string& key : keys) BSON_APPEND_INT32(pattern.get(), key.c_str(), 1);
          bson_t pattern_bson = pattern.view().AsBson();
          BSON_APPEND_DOCUMENT(extra.get(), "keyPattern", &pattern_bson);
          return Status(ErrorCode::kDuplicateKey, "E11000 duplicate key error")
              .WithExtra(std::move(extra));
        }
      }
    }
    docs_->push_back(std::move(stored));
    return Status::OK();
  }
  Status Replace(BsonView doc) override {
    (*docs_)[found_] = BsonDoc(doc);
    return Status::OK();
  }
  Status Finish() override { return Status::OK(); }

 private:
  std::vector<BsonDoc>* docs_;
  std::set<std::vector<std::string>> unique_;
  size_t found_ = 0;
};

class FakeTargets final : public OutputTargets {
 public:
  explicit FakeTargets(FakeStore* store) : store_(store) {}
  Result<std::unique_ptr<OutSink>> OpenOut(std::string_view db, std::string_view coll) override {
    return std::unique_ptr<OutSink>(
        std::make_unique<FakeOutSink>(store_, std::string(db) + "." + std::string(coll)));
  }
  Status CheckMerge(std::string_view db, std::string_view coll,
                    const std::vector<std::string>& on_fields) override {
    const auto& unique = store_->unique_indexes[std::string(db) + "." + std::string(coll)];
    if (on_fields != std::vector<std::string>{"_id"} && unique.count(on_fields) == 0) {
      return Status(ErrorCode::kLocation51183,
                    "Cannot find index to verify that join fields will be unique");
    }
    return Status::OK();
  }
  Result<std::unique_ptr<MergeSink>> OpenMerge(std::string_view db, std::string_view coll,
                                               const std::vector<std::string>& on_fields) override {
    CAIRN_RETURN_IF_ERROR(CheckMerge(db, coll, on_fields));
    std::string ns = std::string(db) + "." + std::string(coll);
    const auto& unique = store_->unique_indexes[ns];
    return std::unique_ptr<MergeSink>(
        std::make_unique<FakeMergeSink>(&store_->collections[ns], unique));
  }
  std::string_view default_db() const override { return "test"; }

 private:
  FakeStore* store_;
};

// Runs `pipeline` over `input` with `store` as the collections; the pipeline must output nothing.
inline Status RunWriting(FakeStore* store, const std::string& pipeline,
                         const std::vector<std::string>& input) {
  PipelineOptions options;
  options.output_targets = std::make_shared<FakeTargets>(store);
  Result<std::vector<std::string>> out = RunPipeline(pipeline, input, options);
  if (!out.ok()) return out.status();
  EXPECT_TRUE(out->empty()) << pipeline;
  return Status::OK();
}

}  // namespace cairn::query::testing
