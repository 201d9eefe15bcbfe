// Recursion over client input is bounded by maxBSONDepth (200 levels: the server refuses deeper
// BSON before any parser sees it, Overflow 15). The parsers and evaluators recurse once per
// level; this checks they handle input at that cap — filters nested through $and, $or, $nor,
// $not and $elemMatch, $expr and aggregation expressions, projections and $project specs —
// on a thread with a 1 MiB stack, an eighth of what the server's threads have.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>

#include <pthread.h>

#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "query/projection/projection.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

constexpr int kMaxBsonDepth = 200;

// Runs `body` on a thread with a 1 MiB stack.
void OnSmallStack(const std::function<void()>& body) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 20);
  pthread_t thread;
  auto run = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, const_cast<std::function<void()>*>(&body)), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

// A document built through libbson by `level` (libbson's JSON reader stops at 100 levels).
BsonDoc Build(int n, void (*level)(bson_t*, int)) {
  BsonDoc doc;
  level(doc.get(), n);
  return doc;
}

// {"$and": [{"$and": [ ... {"a": 1} ... ]}]}: two BSON levels per tree level.
void AndChain(bson_t* out, int n) {
  if (n == 0) {
    BSON_APPEND_INT32(out, "a", 1);
    return;
  }
  bson_t array, element;
  BSON_APPEND_ARRAY_BEGIN(out, n % 3 == 0 ? "$and" : n % 3 == 1 ? "$or" : "$nor", &array);
  BSON_APPEND_DOCUMENT_BEGIN(&array, "0", &element);
  AndChain(&element, n - 1);
  bson_append_document_end(&array, &element);
  bson_append_array_end(out, &array);
}

// `key` nested `n` times over {leaf: 1}: {"$not": {"$not": ... {"$eq": 1}}} or
// {"a": {"a": ... {"a": 1}}}.
void KeyChain(bson_t* out, const char* key, const char* leaf, int n) {
  if (n == 0) {
    BSON_APPEND_INT32(out, leaf, 1);
    return;
  }
  bson_t sub;
  BSON_APPEND_DOCUMENT_BEGIN(out, key, &sub);
  KeyChain(&sub, key, leaf, n - 1);
  bson_append_document_end(out, &sub);
}

// {"a": {"a": ... {"a": 1}}} (n levels in all).
void PathChain(bson_t* out, int n) { KeyChain(out, "a", "a", n - 1); }

// {"$add": [{"$add": [ ... "$a" ... , 1]}, 1]}: two levels per operator.
void AddChain(bson_t* out, const char* key, int n) {
  if (n == 0) {
    BSON_APPEND_UTF8(out, key, "$a");
    return;
  }
  bson_t op, args;
  BSON_APPEND_DOCUMENT_BEGIN(out, key, &op);
  BSON_APPEND_ARRAY_BEGIN(&op, "$add", &args);
  AddChain(&args, "0", n - 1);
  BSON_APPEND_INT32(&args, "1", 1);
  bson_append_array_end(&op, &args);
  bson_append_document_end(out, &op);
}

TEST(DepthAtTheBsonCap, ShouldParseAndMatchDeepFilters) {
  OnSmallStack([] {
    BsonDoc logical = Build(kMaxBsonDepth / 2 - 1, AndChain);
    Result<Matcher> m = Matcher::Parse(logical.view());
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    BsonDoc doc = BsonDoc::FromJson(R"({"a": 1})");
    EXPECT_TRUE(m->Matches(doc.view()).ok());

    BsonDoc nots;
    bson_t sub;
    BSON_APPEND_DOCUMENT_BEGIN(nots.get(), "a", &sub);
    KeyChain(&sub, "$not", "$eq", kMaxBsonDepth - 3);
    bson_append_document_end(nots.get(), &sub);
    Result<Matcher> n = Matcher::Parse(nots.view());
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_TRUE(n->Matches(doc.view()).ok());

    BsonDoc expr;
    AddChain(expr.get(), "$expr", kMaxBsonDepth / 2 - 1);
    Result<Matcher> e = Matcher::Parse(expr.view());
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    Result<bool> matched = e->Matches(doc.view());
    ASSERT_TRUE(matched.ok());
    EXPECT_TRUE(*matched);

    // A dotted path as long as the document is deep, over a document at the storage cap.
    BsonDoc deep = Build(180, PathChain);
    std::string path = "a";
    for (int i = 1; i < 180; ++i) path += ".a";
    BsonDoc by_path;
    BSON_APPEND_INT32(by_path.get(), path.c_str(), 1);
    Result<Matcher> p = Matcher::Parse(by_path.view());
    ASSERT_TRUE(p.ok());
    Result<bool> found = p->Matches(deep.view());
    ASSERT_TRUE(found.ok());
    EXPECT_TRUE(*found);
  });
}

TEST(DepthAtTheBsonCap, ShouldParseAndRunDeepProjectionsAndPipelines) {
  OnSmallStack([] {
    // {$project: {a: {a: ... {a: 1}}}} as deep as a command allows.
    BsonDoc spec = Build(kMaxBsonDepth - 4, PathChain);
    Result<Projection> projection = Projection::Parse(spec.view());
    ASSERT_TRUE(projection.ok()) << projection.status().ToString();
    BsonDoc deep = Build(180, PathChain);
    BsonDoc out;
    EXPECT_TRUE(projection->Apply(deep.view(), out.get()).ok());

    BsonDoc stage;
    bson_t pipeline, project, body;
    BSON_APPEND_ARRAY_BEGIN(stage.get(), "p", &pipeline);
    BSON_APPEND_DOCUMENT_BEGIN(&pipeline, "0", &project);
    BSON_APPEND_DOCUMENT_BEGIN(&project, "$project", &body);
    AddChain(&body, "r", kMaxBsonDepth / 2 - 4);
    bson_append_document_end(&project, &body);
    bson_append_document_end(&pipeline, &project);
    bson_append_array_end(stage.get(), &pipeline);
    bson_iter_t it;
    ASSERT_TRUE(stage.view().Find("p", &it));
    Result<Pipeline> parsed = Pipeline::Parse(IterDocument(&it));
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    std::unique_ptr<DocumentSource> exec = parsed->Bind(
        std::make_unique<testing::VectorSource>(testing::Docs({R"({"a": 1})"})), false);
    ASSERT_TRUE(exec->Next()) << exec->status().ToString();
  });
}

}  // namespace
}  // namespace cairn::query
