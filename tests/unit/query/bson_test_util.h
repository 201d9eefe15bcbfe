// Test support shared by the query specifications: documents compared as canonical Extended
// JSON (so int32, int64 and double differ), and BSON arrays written as JSON.
#pragma once

#include <bson/bson.h>
#include <gtest/gtest.h>

#include <string>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::query::testing {

inline std::string Canonical(BsonView view) {
  bson_t b = view.AsBson();
  size_t len = 0;
  char* json = bson_as_canonical_extended_json(&b, &len);
  std::string out(json, len);
  bson_free(json);
  return out;
}

// The JSON array `json` ("[{...}, ...]") as a document whose keys are "0", "1", ... (how a BSON
// array is stored), held in *holder.
inline BsonView JsonArray(const char* json, BsonDoc* holder) {
  *holder = BsonDoc::FromJson("{\"v\": " + std::string(json) + "}");
  bson_iter_t it;
  holder->view().Find("v", &it);
  return IterDocument(&it);
}

// Checks that `status` is MongoDB's error: the code and, when given, the exact message.
inline void ExpectError(const Status& status, int code, const char* message,
                        const std::string& context) {
  ASSERT_FALSE(status.ok()) << context;
  EXPECT_EQ(status.code_number(), code) << context << ": " << status.ToString();
  if (message != nullptr) {
    EXPECT_EQ(status.reason(), message) << context;
  }
}

}  // namespace cairn::query::testing
