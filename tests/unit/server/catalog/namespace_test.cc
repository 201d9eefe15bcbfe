// MongoDB's naming rules for databases and collections (InvalidNamespace 73).
#include "server/catalog/namespace.h"

#include <gtest/gtest.h>

namespace cairn::server {
namespace {

struct NameCase {
  const char* db;
  const char* collection;
  bool valid;
};

TEST(Namespace, ShouldFollowMongoDBsNamingRules) {
  const NameCase cases[] = {
      {"shop", "orders", true},
      {"shop", "orders.archive", true},
      {"shop", "", false},
      {"shop", "a$b", false},
      {"shop", "system.users", false},
      {"shop", ".leading", false},
      {"", "c", false},
      {"a.b", "c", false},
      {"a b", "c", false},
      {"a/b", "c", false},
      {"a$", "c", false},
      {"a\"b", "c", false},
      {"0123456789012345678901234567890123456789012345678901234567890123", "c", false},
  };
  for (const NameCase& c : cases) {
    Status status = ValidateCollectionName(c.db, c.collection);
    EXPECT_EQ(status.ok(), c.valid) << c.db << "." << c.collection << ": " << status.ToString();
    if (!c.valid) {
      EXPECT_EQ(status.code(), ErrorCode::kInvalidNamespace);
    }
  }
}

TEST(Namespace, ShouldRefuseNamespacesLongerThan255Bytes) {
  std::string collection(260, 'x');
  EXPECT_EQ(ValidateCollectionName("db", collection).code(), ErrorCode::kInvalidNamespace);
  EXPECT_TRUE(ValidateCollectionName("db", std::string(250, 'x')).ok());
}

}  // namespace
}  // namespace cairn::server
