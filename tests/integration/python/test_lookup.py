"""$lookup and $unwind through pymongo: a blog (posts joined to their authors and comments) in
the three $lookup forms, $unwind's options, the $lookup + $unwind pair, and the 16 MiB limit
(BSONObjectTooLarge 10334 when the joined array would pass it; the same join unwound works).
Expected results are MongoDB 7.0's. Each test uses its own database."""

import unittest

from pymongo.errors import OperationFailure

from harness import ServerTestCase

USERS = [{"_id": "u1", "name": "Ann"}, {"_id": "u2", "name": "Ben"}]
POSTS = [
    {"_id": 1, "title": "Hello", "author": "u1", "tags": ["a", "b"]},
    {"_id": 2, "title": "Again", "author": "u2", "tags": []},
    {"_id": 3, "title": "Orphan"},
]
COMMENTS = [
    {"_id": 10, "post": 1, "text": "first"},
    {"_id": 11, "post": 1, "text": "second"},
    {"_id": 12, "post": 2, "text": "third"},
]


class LookupTest(ServerTestCase):
    def setUp(self):
        self.db = self.client["lookup_" + self._testMethodName[len("test_"):][:40]]
        self.db.users.insert_many(USERS)
        self.db.posts.insert_many(POSTS)
        self.db.comments.insert_many(COMMENTS)

    def test_local_foreign_join_with_missing_local_joining_null(self):
        out = list(self.db.posts.aggregate([
            {"$lookup": {"from": "users", "localField": "author", "foreignField": "_id",
                         "as": "author"}},
            {"$project": {"title": 1, "author.name": 1}}]))
        self.assertEqual(out, [
            {"_id": 1, "title": "Hello", "author": [{"name": "Ann"}]},
            {"_id": 2, "title": "Again", "author": [{"name": "Ben"}]},
            {"_id": 3, "title": "Orphan", "author": []}])

    def test_let_pipeline_counts_comments_per_post(self):
        out = list(self.db.posts.aggregate([
            {"$lookup": {"from": "comments", "let": {"p": "$_id"},
                         "pipeline": [{"$match": {"$expr": {"$eq": ["$post", "$$p"]}}},
                                      {"$count": "n"}],
                         "as": "stats"}},
            {"$project": {"stats": 1}}]))
        self.assertEqual(out, [{"_id": 1, "stats": [{"n": 2}]}, {"_id": 2, "stats": [{"n": 1}]},
                               {"_id": 3, "stats": []}])

    def test_explain_reports_each_join_strategy_and_what_it_examined(self):
        def lookup_stats(from_, foreign_field):
            explain = self.db.command("explain", {
                "aggregate": "posts",
                "pipeline": [{"$lookup": {"from": from_, "localField": "_id",
                                          "foreignField": foreign_field, "as": "c"}},
                             {"$unwind": "$c"}],
                "cursor": {}}, verbosity="executionStats")
            self.assertIn("queryPlanner", explain["stages"][0]["$cursor"])
            stage = explain["stages"][1]
            return {k: v for k, v in stage.items() if k != "$lookup"}

        # No index on comments.post: the foreign side is read once into a hash table.
        self.assertEqual(lookup_stats("comments", "post"), {
            "nReturned": 3, "totalDocsExamined": 3, "totalKeysExamined": 0,
            "collectionScans": 1, "indexesUsed": [], "strategy": "HashJoin"})
        # With an index: one probe per post.
        self.db.comments.create_index("post")
        indexed = lookup_stats("comments", "post")
        self.assertEqual((indexed["strategy"], indexed["indexesUsed"], indexed["nReturned"],
                          indexed["totalDocsExamined"], indexed["collectionScans"]),
                         ("IndexedLoopJoin", ["post_1"], 3, 3, 0))
        # The foreign _id: a point lookup per post, one key each.
        by_id = lookup_stats("users", "_id")
        self.assertEqual((by_id["strategy"], by_id["indexesUsed"], by_id["totalKeysExamined"]),
                         ("IndexedLoopJoin", ["_id_"], 3))

    def test_a_match_on_the_unwound_join_filters_the_foreign_side(self):
        pipeline = [{"$lookup": {"from": "users", "localField": "author",
                                 "foreignField": "name_key", "as": "u"}},
                    {"$unwind": "$u"},
                    {"$match": {"u.name": "Ben", "title": {"$ne": "Orphan"}}},
                    {"$project": {"title": 1, "who": "$u.name"}}]
        self.db.users.update_many({}, [{"$set": {"name_key": "$_id"}}])
        self.db.users.create_index("name")
        self.assertEqual(list(self.db.posts.aggregate(pipeline)),
                         [{"_id": 2, "title": "Again", "who": "Ben"}])
        explain = self.db.command("explain", {"aggregate": "posts", "pipeline": pipeline,
                                              "cursor": {}}, verbosity="executionStats")
        lookup = explain["stages"][1]
        # HashJoin (no index on name_key) built from the users named Ben only, through name_1.
        self.assertEqual((lookup["strategy"], lookup["totalDocsExamined"],
                          lookup["totalKeysExamined"]), ("HashJoin", 1, 1))

    def test_local_foreign_with_pipeline(self):
        out = list(self.db.posts.aggregate([
            {"$match": {"_id": 1}},
            {"$lookup": {"from": "comments", "localField": "_id", "foreignField": "post",
                         "pipeline": [{"$project": {"_id": 0, "text": 1}}], "as": "c"}}]))
        self.assertEqual(out[0]["c"], [{"text": "first"}, {"text": "second"}])

    def test_lookup_then_unwind_streams_one_document_per_match(self):
        out = list(self.db.posts.aggregate([
            {"$lookup": {"from": "comments", "localField": "_id", "foreignField": "post",
                         "as": "c"}},
            {"$unwind": {"path": "$c", "preserveNullAndEmptyArrays": True,
                         "includeArrayIndex": "i"}},
            {"$project": {"t": "$c.text", "i": 1}}]))
        self.assertEqual(out, [{"_id": 1, "t": "first", "i": 0}, {"_id": 1, "t": "second", "i": 1},
                               {"_id": 2, "t": "third", "i": 0}, {"_id": 3, "i": None}])

    def test_unwind_tags(self):
        out = list(self.db.posts.aggregate([{"$unwind": "$tags"}, {"$project": {"tags": 1}}]))
        self.assertEqual(out, [{"_id": 1, "tags": "a"}, {"_id": 1, "tags": "b"}])
        with self.assertRaises(OperationFailure) as ctx:
            list(self.db.posts.aggregate([{"$unwind": "tags"}]))
        self.assertEqual(ctx.exception.code, 28818)

    def test_sixteen_mib_limit_and_the_unwound_join(self):
        big = "x" * (1024 * 1024)
        self.db.blobs.insert_many([{"k": 1, "s": big} for _ in range(17)])
        self.db.refs.insert_one({"_id": 1, "k": 1})
        join = {"$lookup": {"from": "blobs", "localField": "k", "foreignField": "k", "as": "b"}}
        with self.assertRaises(OperationFailure) as ctx:
            list(self.db.refs.aggregate([join]))
        self.assertEqual(ctx.exception.code, 10334)
        # mongod's whole message: size in decimal and hex, the limit, the first element.
        self.assertRegex(ctx.exception.details["errmsg"],
                         r"BSONObj size: (\d+) \(0x[0-9A-F]+\) is invalid\. Size must be between 0 "
                         r"and 16793600\(16MB\) First element: _id: 1$")
        out = list(self.db.refs.aggregate([join, {"$unwind": "$b"}, {"$project": {"_id": 1}}]))
        self.assertEqual(len(out), 17)


if __name__ == "__main__":
    unittest.main()
