// Catalog: create/find/list/drop/rename of collections and indexes, prefix allocation, and what
// survives a reopen.
#include "storage/catalog.h"

#include <gtest/gtest.h>

#include <set>

#include "storage/engine.h"
#include "storage_test_util.h"

namespace cairn::storage {
namespace {

using testing::Doc;
using testing::InsertDocs;
using testing::OpenOrDie;
using testing::TempDir;

std::vector<std::string> Names(const std::vector<CollectionHandle>& handles) {
  std::vector<std::string> out;
  for (const CollectionHandle& h : handles) out.push_back(h->ns);
  return out;
}

CollectionHandle Create(Engine& engine, std::string_view ns) {
  auto r = engine.catalog().CreateCollection(ns, BsonView());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

TEST(Catalog, ShouldCreateACollectionWithItsIdIndex) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  BsonDoc options = BsonDoc::FromJson(R"({"capped": true, "size": 4096})");
  auto r = engine->catalog().CreateCollection("db.c", options.view());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  CollectionHandle c = *r;
  EXPECT_EQ(c->ns, "db.c");
  EXPECT_EQ(c->db(), "db");
  EXPECT_EQ(c->collection(), "c");
  EXPECT_NE(c->prefix, 0u);
  ASSERT_EQ(c->indexes.size(), 1u);
  EXPECT_EQ(c->indexes[0].name, "_id_");
  EXPECT_NE(c->indexes[0].prefix, c->prefix);
  EXPECT_EQ(c->indexes[0].spec.ToJson(), R"({ "v" : 2, "key" : { "_id" : 1 }, "name" : "_id_" })");
  EXPECT_EQ(c->options.ToJson(), options.ToJson());
  EXPECT_EQ(engine->catalog().Find("db.c"), c);
  EXPECT_EQ(engine->catalog().Find("db.d"), nullptr);
}

TEST(Catalog, ShouldGiveEachCollectionARandomVersion4Uuid) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  CollectionHandle a = Create(*engine, "db.a");
  CollectionHandle b = Create(*engine, "db.b");
  EXPECT_NE(std::string(reinterpret_cast<const char*>(a->uuid), 16),
            std::string(reinterpret_cast<const char*>(b->uuid), 16));
  EXPECT_EQ(a->uuid[6] >> 4, 4);
  EXPECT_EQ(a->uuid[8] & 0xc0, 0x80);
}

TEST(Catalog, ShouldRejectCreatingAnExistingCollectionWithNamespaceExists) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  Create(*engine, "db.c");
  auto r = engine->catalog().CreateCollection("db.c", BsonView());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNamespaceExists);
}

TEST(Catalog, ShouldSplitNamespacesAtTheFirstDot) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  CollectionHandle c = Create(*engine, "a.b.c");
  EXPECT_EQ(c->db(), "a");
  EXPECT_EQ(c->collection(), "b.c");
  EXPECT_EQ(Names(engine->catalog().ListCollections("a")), std::vector<std::string>{"a.b.c"});
  EXPECT_TRUE(engine->catalog().ListCollections("a.b").empty());
  EXPECT_EQ(engine->catalog().Find("a.b.c"), c);
}

TEST(Catalog, ShouldListCollectionsOfOneDatabaseSortedByName) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  for (const char* ns : {"db.zeta", "db.alpha", "db.m.x", "db.m", "other.beta", "db2.gamma"}) {
    Create(*engine, ns);
  }
  EXPECT_EQ(Names(engine->catalog().ListCollections("db")),
            (std::vector<std::string>{"db.alpha", "db.m", "db.m.x", "db.zeta"}));
  EXPECT_EQ(Names(engine->catalog().ListCollections("other")),
            std::vector<std::string>{"other.beta"});
  EXPECT_TRUE(engine->catalog().ListCollections("nothing").empty());
}

TEST(Catalog, ShouldNotConfuseADatabaseWithAnotherWhoseNameItPrefixes) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  Create(*engine, "a.x");
  Create(*engine, "ab.y");
  Create(*engine, "a.b.z");
  EXPECT_EQ(Names(engine->catalog().ListCollections("a")),
            (std::vector<std::string>{"a.b.z", "a.x"}));
  EXPECT_EQ(Names(engine->catalog().ListCollections("ab")), std::vector<std::string>{"ab.y"});
  EXPECT_EQ(engine->catalog().ListDatabases(), (std::vector<std::string>{"a", "ab"}));

  ASSERT_TRUE(engine->catalog().DropDatabase("a").ok());
  EXPECT_EQ(engine->catalog().ListDatabases(), std::vector<std::string>{"ab"});
  EXPECT_NE(engine->catalog().Find("ab.y"), nullptr);
}

TEST(Catalog, ShouldListDatabasesSortedAndUnique) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  EXPECT_TRUE(engine->catalog().ListDatabases().empty());
  for (const char* ns : {"z.a", "b.a", "b.b", "m.x.y"}) Create(*engine, ns);
  EXPECT_EQ(engine->catalog().ListDatabases(), (std::vector<std::string>{"b", "m", "z"}));
}

TEST(Catalog, ShouldDropACollection) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  Create(*engine, "db.c");
  ASSERT_TRUE(engine->catalog().DropCollection("db.c").ok());
  EXPECT_EQ(engine->catalog().Find("db.c"), nullptr);
  EXPECT_TRUE(engine->catalog().ListCollections("db").empty());
}

// A catalog change handed a WriteUnit commits the unit's writes with it (a replica set's oplog
// entry), and neither when the change fails.
TEST(Catalog, ShouldCommitAUnitInTheSameWriteAsTheChange) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  CollectionHandle log = Create(*engine, "local.log");
  Create(*engine, "db.c");
  WriteUnit unit = engine->BeginWrite();
  BsonDoc entry = BsonDoc::FromJson(R"({"op": "c", "o": {"drop": "c"}})");
  unit.PutRecord(log->prefix, 1, entry.view());
  unit.AdjustCounts(log->prefix, 1, static_cast<int64_t>(entry.view().size()));
  ASSERT_TRUE(engine->catalog().DropCollection("db.c", &unit).ok());
  EXPECT_EQ(engine->catalog().Find("db.c"), nullptr);
  EXPECT_EQ(engine->RecordCount(log->prefix), 1);
  std::string stored;
  bool found = false;
  ASSERT_TRUE(engine->GetRecord(log->prefix, 1, &stored, &found).ok());
  EXPECT_TRUE(found);

  WriteUnit failing = engine->BeginWrite();
  failing.PutRecord(log->prefix, 2, entry.view());
  EXPECT_EQ(engine->catalog().DropCollection("db.none", &failing).code(),
            ErrorCode::kNamespaceNotFound);
  ASSERT_TRUE(engine->GetRecord(log->prefix, 2, &stored, &found).ok());
  EXPECT_FALSE(found);
}

// collMod's change: new options and index specs in one write, the index states kept.
TEST(Catalog, ShouldModifyOptionsAndIndexSpecsAtOnce) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  Create(*engine, "db.c");
  BsonDoc spec = BsonDoc::FromJson(R"({"v": 2, "key": {"a": 1}, "name": "a_1"})");
  ASSERT_TRUE(engine->catalog().CreateIndex("db.c", "a_1", spec.view()).ok());
  std::vector<std::pair<std::string, BsonDoc>> specs;
  specs.emplace_back(
      "a_1", BsonDoc::FromJson(R"({"v": 2, "key": {"a": 1}, "name": "a_1", "hidden": true})"));
  BsonDoc options = BsonDoc::FromJson(R"({"validator": {"a": 1}})");
  auto modified = engine->catalog().ModifyCollection("db.c", options.view(), specs);
  ASSERT_TRUE(modified.ok()) << modified.status().ToString();
  EXPECT_EQ((*modified)->options.ToJson(), options.ToJson());
  EXPECT_EQ((*modified)->indexes[1].spec.ToJson(), specs[0].second.ToJson());
  specs[0].first = "none";
  EXPECT_EQ(engine->catalog().ModifyCollection("db.c", options.view(), specs).status().code(),
            ErrorCode::kIndexNotFound);
}

TEST(Catalog, ShouldAnswerNamespaceNotFoundWhenDroppingAMissingCollection) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  Status s = engine->catalog().DropCollection("db.none");
  EXPECT_EQ(s.code(), ErrorCode::kNamespaceNotFound);
}

TEST(Catalog, ShouldDropAllOfADatabaseAndAcceptAnEmptyOne) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  Create(*engine, "db.a");
  Create(*engine, "db.b.c");
  Create(*engine, "keep.a");
  ASSERT_TRUE(engine->catalog().DropDatabase("db").ok());
  EXPECT_TRUE(engine->catalog().ListCollections("db").empty());
  EXPECT_NE(engine->catalog().Find("keep.a"), nullptr);
  EXPECT_TRUE(engine->catalog().DropDatabase("db").ok());
  EXPECT_TRUE(engine->catalog().DropDatabase("never").ok());
}

TEST(Catalog, ShouldRemoveDocumentsAndIndexEntriesOnDrop) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  CollectionHandle c = Create(*engine, "db.c");
  InsertDocs(*engine, c->prefix, 1, 50);
  {
    WriteUnit unit = engine->BeginWrite();
    unit.PutIndexEntry(c->indexes[0].prefix, "k1", "v1");
    ASSERT_TRUE(unit.Commit().ok());
  }
  ASSERT_TRUE(engine->catalog().DropCollection("db.c").ok());

  EXPECT_FALSE(engine->ScanRecords(c->prefix)->Next());
  EXPECT_FALSE(engine->ScanIndex(c->indexes[0].prefix, "", "")->Next());
  EXPECT_EQ(engine->RecordCount(c->prefix), 0);
  EXPECT_EQ(engine->DataSize(c->prefix), 0);

  CollectionHandle again = Create(*engine, "db.c");
  EXPECT_NE(again->prefix, c->prefix);
  EXPECT_FALSE(engine->ScanRecords(again->prefix)->Next());
  EXPECT_FALSE(engine->ScanIndex(again->indexes[0].prefix, "", "")->Next());
  EXPECT_EQ(engine->RecordCount(again->prefix), 0);
}

TEST(Catalog, ShouldKeepDroppedDataGoneAfterReopen) {
  TempDir dir;
  Prefix p;
  {
    auto engine = OpenOrDie(dir.db());
    CollectionHandle c = Create(*engine, "db.c");
    p = c->prefix;
    InsertDocs(*engine, p, 1, 20);
    ASSERT_TRUE(engine->Flush().ok());  // some of it in an SST, some in the WAL
    InsertDocs(*engine, p, 21, 30);
    ASSERT_TRUE(engine->catalog().DropCollection("db.c").ok());
  }
  auto engine = OpenOrDie(dir.db());
  EXPECT_EQ(engine->catalog().Find("db.c"), nullptr);
  EXPECT_FALSE(engine->ScanRecords(p)->Next());
  EXPECT_EQ(engine->RecordCount(p), 0);
}

TEST(Catalog, ShouldAllocatePrefixesMonotonically) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  std::set<Prefix> seen;
  Prefix last = 0;
  for (int i = 0; i < 10; ++i) {
    CollectionHandle c = Create(*engine, "db.c" + std::to_string(i));
    EXPECT_GT(c->prefix, last);
    EXPECT_GT(c->indexes[0].prefix, c->prefix);
    last = c->indexes[0].prefix;
    EXPECT_TRUE(seen.insert(c->prefix).second);
    EXPECT_TRUE(seen.insert(c->indexes[0].prefix).second);
  }
}

TEST(Catalog, ShouldPersistEntriesAndPrefixesAcrossReopen) {
  TempDir dir;
  Prefix prefix, id_prefix;
  std::string uuid;
  {
    auto engine = OpenOrDie(dir.db());
    BsonDoc options = BsonDoc::FromJson(R"({"validator": {"a": {"$gt": 1}}})");
    auto r = engine->catalog().CreateCollection("db.c.d", options.view());
    ASSERT_TRUE(r.ok());
    prefix = (*r)->prefix;
    id_prefix = (*r)->indexes[0].prefix;
    uuid.assign(reinterpret_cast<const char*>((*r)->uuid), 16);
  }
  auto engine = OpenOrDie(dir.db());
  CollectionHandle c = engine->catalog().Find("db.c.d");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->prefix, prefix);
  EXPECT_EQ(c->indexes[0].prefix, id_prefix);
  EXPECT_EQ(c->indexes[0].name, "_id_");
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(c->uuid), 16), uuid);
  EXPECT_EQ(c->options.ToJson(), R"({ "validator" : { "a" : { "$gt" : 1 } } })");

  CollectionHandle next = Create(*engine, "db.e");
  EXPECT_GT(next->prefix, id_prefix);
}

TEST(Catalog, ShouldNeverReuseAPrefixAfterDrop) {
  TempDir dir;
  std::set<Prefix> used;
  {
    auto engine = OpenOrDie(dir.db());
    for (int i = 0; i < 3; ++i) {
      CollectionHandle c = Create(*engine, "db.c" + std::to_string(i));
      used.insert(c->prefix);
      used.insert(c->indexes[0].prefix);
    }
    // Drop the newest ones: the high-water mark must not fall back.
    ASSERT_TRUE(engine->catalog().DropCollection("db.c2").ok());
    ASSERT_TRUE(engine->catalog().DropDatabase("db").ok());
  }
  auto engine = OpenOrDie(dir.db());
  for (int i = 0; i < 3; ++i) {
    CollectionHandle c = Create(*engine, "db.c" + std::to_string(i));
    EXPECT_EQ(used.count(c->prefix), 0u) << c->prefix;
    EXPECT_EQ(used.count(c->indexes[0].prefix), 0u) << c->indexes[0].prefix;
    EXPECT_GT(c->prefix, *used.rbegin());
  }
}

TEST(Catalog, ShouldRenameKeepingPrefixesAndData) {
  TempDir dir;
  Prefix prefix;
  {
    auto engine = OpenOrDie(dir.db());
    CollectionHandle c = Create(*engine, "db.from");
    prefix = c->prefix;
    InsertDocs(*engine, prefix, 1, 5);
    ASSERT_TRUE(engine->catalog().RenameCollection("db.from", "other.to.x", false).ok());
    EXPECT_EQ(engine->catalog().Find("db.from"), nullptr);
    CollectionHandle r = engine->catalog().Find("other.to.x");
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->prefix, prefix);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(r->uuid), 16),
              std::string(reinterpret_cast<const char*>(c->uuid), 16));
    EXPECT_EQ(r->db(), "other");
    // The old handle is an immutable snapshot: still readable.
    EXPECT_EQ(c->ns, "db.from");
  }
  auto engine = OpenOrDie(dir.db());
  EXPECT_EQ(engine->catalog().Find("db.from"), nullptr);
  CollectionHandle r = engine->catalog().Find("other.to.x");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->prefix, prefix);
  EXPECT_EQ(engine->RecordCount(prefix), 5);
  int n = 0;
  for (auto cur = engine->ScanRecords(prefix); cur->Next();) ++n;
  EXPECT_EQ(n, 5);
}

TEST(Catalog, ShouldRefuseRenamingOntoAnExistingCollectionWithoutDropTarget) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  Create(*engine, "db.a");
  Create(*engine, "db.b");
  EXPECT_EQ(engine->catalog().RenameCollection("db.a", "db.b", false).code(),
            ErrorCode::kNamespaceExists);
  EXPECT_EQ(engine->catalog().RenameCollection("db.none", "db.c", false).code(),
            ErrorCode::kNamespaceNotFound);
  EXPECT_EQ(engine->catalog().RenameCollection("db.a", "db.a", true).code(),
            ErrorCode::kNamespaceExists);
  EXPECT_NE(engine->catalog().Find("db.a"), nullptr);
  EXPECT_NE(engine->catalog().Find("db.b"), nullptr);
}

TEST(Catalog, ShouldDropTheTargetWhenRenamingWithDropTarget) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  CollectionHandle a = Create(*engine, "db.a");
  CollectionHandle b = Create(*engine, "db.b");
  InsertDocs(*engine, a->prefix, 1, 3);
  InsertDocs(*engine, b->prefix, 100, 109);
  ASSERT_TRUE(engine->catalog().RenameCollection("db.a", "db.b", true).ok());
  CollectionHandle now = engine->catalog().Find("db.b");
  ASSERT_NE(now, nullptr);
  EXPECT_EQ(now->prefix, a->prefix);
  EXPECT_EQ(engine->catalog().Find("db.a"), nullptr);
  EXPECT_FALSE(engine->ScanRecords(b->prefix)->Next());
  EXPECT_EQ(engine->RecordCount(b->prefix), 0);
  EXPECT_EQ(engine->RecordCount(a->prefix), 3);
}

TEST(Catalog, ShouldCreateAndDropSecondaryIndexes) {
  TempDir dir;
  Prefix index_prefix;
  {
    auto engine = OpenOrDie(dir.db());
    CollectionHandle c = Create(*engine, "db.c");
    BsonDoc spec = BsonDoc::FromJson(R"({"v": 2, "key": {"a": 1}, "name": "a_1"})");
    auto r = engine->catalog().CreateIndex("db.c", "a_1", spec.view());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ((*r)->indexes.size(), 2u);
    EXPECT_EQ((*r)->indexes[1].name, "a_1");
    index_prefix = (*r)->indexes[1].prefix;
    EXPECT_GT(index_prefix, c->indexes[0].prefix);
    EXPECT_EQ(c->indexes.size(), 1u);  // the old snapshot is untouched

    EXPECT_EQ(engine->catalog().CreateIndex("db.c", "a_1", spec.view()).status().code(),
              ErrorCode::kNamespaceExists);
    EXPECT_EQ(engine->catalog().CreateIndex("db.x", "a_1", spec.view()).status().code(),
              ErrorCode::kNamespaceNotFound);
    WriteUnit unit = engine->BeginWrite();
    unit.PutIndexEntry(index_prefix, "key", "value");
    ASSERT_TRUE(unit.Commit().ok());
  }
  auto engine = OpenOrDie(dir.db());
  CollectionHandle c = engine->catalog().Find("db.c");
  ASSERT_EQ(c->indexes.size(), 2u);
  EXPECT_EQ(c->indexes[1].prefix, index_prefix);
  EXPECT_EQ(c->indexes[1].spec.ToJson(), R"({ "v" : 2, "key" : { "a" : 1 }, "name" : "a_1" })");

  EXPECT_EQ(engine->catalog().DropIndex("db.c", "_id_").code(), ErrorCode::kInvalidOptions);
  EXPECT_EQ(engine->catalog().DropIndex("db.c", "b_1").code(), ErrorCode::kIndexNotFound);
  EXPECT_EQ(engine->catalog().DropIndex("db.x", "a_1").code(), ErrorCode::kNamespaceNotFound);
  ASSERT_TRUE(engine->catalog().DropIndex("db.c", "a_1").ok());
  EXPECT_EQ(engine->catalog().Find("db.c")->indexes.size(), 1u);
  EXPECT_FALSE(engine->ScanIndex(index_prefix, "", "")->Next());
}

TEST(Catalog, ShouldKeepAnIndexStateBesideItsSpecAndUpdateBothAtomically) {
  TempDir dir;
  {
    auto engine = OpenOrDie(dir.db());
    Create(*engine, "db.c");
    BsonDoc spec = BsonDoc::FromJson(R"({"v": 2, "key": {"a": 1}, "name": "a_1"})");
    BsonDoc building = BsonDoc::FromJson(R"({"ready": false})");
    auto r = engine->catalog().CreateIndex("db.c", "a_1", spec.view(), building.view());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ((*r)->indexes[1].state.ToJson(), R"({ "ready" : false })");
    EXPECT_TRUE((*r)->indexes[0].state.view().empty());

    BsonDoc hidden =
        BsonDoc::FromJson(R"({"v": 2, "hidden": true, "key": {"a": 1}, "name": "a_1"})");
    BsonDoc ready = BsonDoc::FromJson(R"({"ready": true})");
    auto u = engine->catalog().UpdateIndex("db.c", "a_1", hidden.view(), ready.view());
    ASSERT_TRUE(u.ok()) << u.status().ToString();
    EXPECT_EQ((*u)->indexes[1].prefix, (*r)->indexes[1].prefix);
    EXPECT_EQ(
        engine->catalog().UpdateIndex("db.c", "b_1", hidden.view(), ready.view()).status().code(),
        ErrorCode::kIndexNotFound);
    EXPECT_EQ(
        engine->catalog().UpdateIndex("db.x", "a_1", hidden.view(), ready.view()).status().code(),
        ErrorCode::kNamespaceNotFound);
  }
  auto engine = OpenOrDie(dir.db());
  CollectionHandle c = engine->catalog().Find("db.c");
  ASSERT_EQ(c->indexes.size(), 2u);
  EXPECT_EQ(c->indexes[1].spec.ToJson(),
            R"({ "v" : 2, "hidden" : true, "key" : { "a" : 1 }, "name" : "a_1" })");
  EXPECT_EQ(c->indexes[1].state.ToJson(), R"({ "ready" : true })");
}

}  // namespace
}  // namespace cairn::storage
