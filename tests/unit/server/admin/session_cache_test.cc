// ParseSessionId: the session id of a command's lsid, as drivers send it ({id: UUID}) and in any
// other layout MongoDB accepts ({id: UUID, uid: ...}); anything else is no session.
#include "server/admin/session_cache.h"

#include <gtest/gtest.h>

#include "common/bson_doc.h"

namespace cairn::server {
namespace {

std::optional<SessionId> ParseLsid(const char* json) {
  BsonDoc command = BsonDoc::FromJson(json);
  bson_iter_t lsid;
  if (!command.view().Find("lsid", &lsid)) return std::nullopt;
  return ParseSessionId(&lsid);
}

constexpr const char* kUuid =
    R"({"$binary": {"base64": "AAECAwQFBgcICQoLDA0ODw==", "subType": "04"}})";

TEST(ParseSessionId, ShouldReadTheIdOfADriversLsid) {
  auto id = ParseLsid((std::string(R"({"lsid": {"id": )") + kUuid + "}}").c_str());
  ASSERT_TRUE(id.has_value());
  for (int i = 0; i < 16; ++i) EXPECT_EQ((*id)[i], i);
}

TEST(ParseSessionId, ShouldReadTheIdBesideOtherFields) {
  auto id = ParseLsid(
      (std::string(R"({"lsid": {"uid": {"$binary": {"base64": "", "subType": "00"}}, "id": )") +
       kUuid + "}}")
          .c_str());
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ((*id)[15], 15);
}

TEST(ParseSessionId, ShouldFindNoSessionInOtherShapes) {
  EXPECT_FALSE(ParseLsid(R"({"lsid": {"id": 5}})").has_value());
  EXPECT_FALSE(
      ParseLsid(
          R"({"lsid": {"id": {"$binary": {"base64": "AAECAwQFBgcICQoLDA0ODw==", "subType": "00"}}}})")
          .has_value());
  EXPECT_FALSE(ParseLsid(R"({"lsid": 1})").has_value());
  EXPECT_FALSE(ParseLsid(R"({"lsid": {}})").has_value());
}

}  // namespace
}  // namespace cairn::server
