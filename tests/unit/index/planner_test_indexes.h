// Test support for the planner specifications (planner_test.cc, planner_extras_test.cc): a
// collection's index descriptors with their multikey bits, and the PlannerInput over them.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "index/planner.h"

namespace cairn::index {

class TestIndexes {
 public:
  // Adds an index from its stored spec; `multikey` per key field (missing fields: 0).
  TestIndexes& Add(const char* spec_json, MultikeyPaths multikey = {}) {
    BsonDoc spec = BsonDoc::FromJson(spec_json);
    auto descriptor = IndexDescriptor::Make(spec.view());
    EXPECT_TRUE(descriptor.ok()) << descriptor.status().ToString();
    descriptors_.push_back(*descriptor);
    multikey.resize((*descriptor)->num_fields(), 0);
    multikey_.push_back(std::move(multikey));
    return *this;
  }

  const IndexDescriptor& index(size_t i) const { return *descriptors_[i]; }
  const MultikeyPaths& multikey(size_t i) const { return multikey_[i]; }

  // Every index added, for planning `filter`.
  PlannerInput Input(const query::MatchExpression* filter) const {
    PlannerInput input;
    input.filter = filter;
    for (size_t i = 0; i < descriptors_.size(); ++i) {
      input.indexes.push_back({descriptors_[i].get(), multikey_[i]});
    }
    return input;
  }

 private:
  std::vector<std::shared_ptr<const IndexDescriptor>> descriptors_;
  std::vector<MultikeyPaths> multikey_;
};

}  // namespace cairn::index
