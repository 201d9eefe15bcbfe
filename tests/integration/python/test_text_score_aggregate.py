"""{$meta: "textScore"} in aggregation through pymongo: after a leading {$match: {$text}}, the
score each document got reaches $project, $addFields/$set, $sort ({$meta: "textScore"}: highest
first) and $group accumulators, equal to what find's projection gives; without a $text search
the pipeline fails with 40218."""

import unittest

from pymongo import TEXT
from pymongo.errors import OperationFailure

from harness import ServerTestCase

NOT_AVAILABLE = "query requires text score metadata, but it is not available"


class TextScoreAggregateTest(ServerTestCase):

    def setUp(self):
        self.db = self.client["py_text_score_agg"]
        self.coll = self.db.articles
        self.coll.drop()
        self.coll.insert_many([
            {"_id": 1, "title": "coffee", "body": "coffee coffee coffee and more coffee"},
            {"_id": 2, "title": "Coffee shop", "body": "a small coffee shop in the old town"},
            {"_id": 3, "title": "Tea", "body": "green tea and coffee cake"},
            {"_id": 4, "title": "Cake", "body": "a cake with no drink"},
            {"_id": 5, "title": "no text", "n": 5},
        ])
        self.coll.create_index([("title", TEXT), ("body", TEXT)])
        self.search = {"$match": {"$text": {"$search": "coffee cake"}}}

    def find_scores(self):
        return {doc["_id"]: doc["score"]
                for doc in self.coll.find({"$text": {"$search": "coffee cake"}},
                                          {"score": {"$meta": "textScore"}})}

    def test_project_and_sort_by_score(self):
        got = list(self.coll.aggregate([
            self.search,
            {"$project": {"title": 1, "score": {"$meta": "textScore"}}},
            {"$sort": {"score": {"$meta": "textScore"}}},
        ]))
        expected = self.find_scores()
        self.assertEqual({doc["_id"]: doc["score"] for doc in got}, expected)
        scores = [doc["score"] for doc in got]
        self.assertEqual(scores, sorted(scores, reverse=True))
        self.assertEqual(list(got[0].keys()), ["_id", "title", "score"])
        self.assertEqual(got[0]["_id"], max(expected, key=expected.get))

    def test_sort_by_score_then_limit_keeps_documents_whole(self):
        got = list(self.coll.aggregate([
            self.search, {"$sort": {"s": {"$meta": "textScore"}}}, {"$limit": 1}]))
        expected = self.find_scores()
        top = max(expected, key=expected.get)
        self.assertEqual(got, [self.coll.find_one({"_id": top})])

    def test_meta_alone_adds_to_the_whole_document(self):
        got = list(self.coll.aggregate([
            {"$match": {"$text": {"$search": "drink"}}},
            {"$project": {"score": {"$meta": "textScore"}}}]))
        self.assertEqual(len(got), 1)
        self.assertEqual(set(got[0].keys()), {"_id", "title", "body", "score"})
        self.assertEqual(got[0]["score"], self.coll.find_one(
            {"$text": {"$search": "drink"}}, {"score": {"$meta": "textScore"}})["score"])

    def test_add_fields_then_match_on_score(self):
        expected = self.find_scores()
        threshold = sorted(expected.values())[len(expected) // 2]
        got = list(self.coll.aggregate([
            self.search,
            {"$addFields": {"score": {"$meta": "textScore"}}},
            {"$match": {"score": {"$gte": threshold}}},
            {"$sort": {"_id": 1}},
        ]))
        self.assertEqual([doc["_id"] for doc in got],
                         sorted(k for k, v in expected.items() if v >= threshold))
        for doc in got:
            self.assertEqual(doc["score"], expected[doc["_id"]])
        got = list(self.coll.aggregate([
            self.search, {"$set": {"score": {"$meta": "textScore"}}}, {"$sort": {"_id": 1}}]))
        self.assertEqual({doc["_id"]: doc["score"] for doc in got}, expected)

    def test_group_accumulates_scores(self):
        expected = self.find_scores()
        got = list(self.coll.aggregate([
            self.search,
            {"$group": {"_id": None, "avg": {"$avg": {"$meta": "textScore"}},
                        "total": {"$sum": {"$meta": "textScore"}}, "n": {"$sum": 1}}},
        ]))
        self.assertEqual(len(got), 1)
        self.assertEqual(got[0]["n"], len(expected))
        self.assertAlmostEqual(got[0]["avg"], sum(expected.values()) / len(expected))
        self.assertAlmostEqual(got[0]["total"], sum(expected.values()))

    def test_scores_survive_unwind_skip_and_lookup(self):
        expected = self.find_scores()
        self.db.tags.drop()
        self.db.tags.insert_many([{"_id": i, "tag": "t%d" % i} for i in range(1, 5)])
        got = list(self.coll.aggregate([
            self.search,
            {"$lookup": {"from": "tags", "localField": "_id", "foreignField": "_id",
                         "as": "tags"}},
            {"$unwind": "$tags"},
            {"$sort": {"_id": 1}},
            {"$skip": 1},
            {"$project": {"score": {"$meta": "textScore"}, "tag": "$tags.tag"}},
        ]))
        ids = sorted(expected)[1:]
        self.assertEqual([doc["_id"] for doc in got], ids)
        for doc in got:
            self.assertEqual(doc["score"], expected[doc["_id"]])
            self.assertEqual(doc["tag"], "t%d" % doc["_id"])

    def test_without_text_search_is_40218(self):
        pipelines = [
            [{"$project": {"score": {"$meta": "textScore"}}}],
            [{"$match": {"n": 5}}, {"$addFields": {"score": {"$meta": "textScore"}}}],
            [{"$sort": {"score": {"$meta": "textScore"}}}],
            [{"$group": {"_id": None, "avg": {"$avg": {"$meta": "textScore"}}}}],
        ]
        for pipeline in pipelines:
            with self.assertRaises(OperationFailure, msg=str(pipeline)) as caught:
                list(self.coll.aggregate(pipeline))
            self.assertEqual(caught.exception.code, 40218, str(pipeline))
            self.assertIn(NOT_AVAILABLE, str(caught.exception), str(pipeline))


if __name__ == "__main__":
    unittest.main()
