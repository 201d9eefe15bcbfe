"""Secondary indexes through pymongo 3.11: createIndexes/listIndexes/dropIndexes/collMod, unique
builds over duplicates, multikey queries, sparse and partial behaviour, index maintenance on every
write path, and explain showing the IXSCAN MongoDB would choose. Conflicting index specs, unique
violations (E11000 with keyPattern/keyValue) and dropIndexes' errors are spec files
(tests/spec/createIndexes/, insert/unique_index_violation.json, dropIndexes/)."""

import unittest

from pymongo import ASCENDING, DESCENDING
from pymongo.errors import OperationFailure

from harness import ServerTestCase


def winning(explain):
    """(stage names from the top, the IXSCAN stage or None) of an explain reply."""
    stages, ixscan = [], None
    node = explain["queryPlanner"]["winningPlan"]
    while node is not None:
        stages.append(node["stage"])
        if node["stage"] in ("IXSCAN", "COUNT_SCAN"):  # count's index scan counts keys
            ixscan = node
        node = node.get("inputStage")
    return stages, ixscan


class IndexCommandsTest(ServerTestCase):

    def setUp(self):
        self.db = self.client["py_indexes"]

    def test_create_list_and_drop_indexes_as_mongodb_prints_them(self):
        coll = self.db.listing
        coll.drop()
        self.assertEqual(coll.create_index([("a", ASCENDING), ("b", DESCENDING)]), "a_1_b_-1")
        coll.create_index("email", unique=True, sparse=True)
        coll.create_index("p", partialFilterExpression={"q": {"$gt": 5}})
        specs = {spec["name"]: spec for spec in coll.list_indexes()}
        self.assertEqual(list(specs), ["_id_", "a_1_b_-1", "email_1", "p_1"])
        self.assertEqual(dict(specs["a_1_b_-1"]), {"v": 2, "key": {"a": 1, "b": -1},
                                                   "name": "a_1_b_-1"})
        self.assertEqual(list(specs["email_1"].keys()), ["v", "unique", "key", "name", "sparse"])
        self.assertEqual(specs["p_1"]["partialFilterExpression"], {"q": {"$gt": 5}})
        again = self.db.command("createIndexes", "listing",
                                indexes=[{"key": {"a": 1, "b": -1}, "name": "a_1_b_-1"}])
        self.assertEqual(again["note"], "all indexes already exist")
        self.assertEqual(again["numIndexesBefore"], again["numIndexesAfter"])
        coll.drop_index("a_1_b_-1")
        coll.drop_index([("p", 1)])
        self.assertEqual([s["name"] for s in coll.list_indexes()], ["_id_", "email_1"])
        # Dropping _id_ (72) or an unknown name (27): tests/spec/dropIndexes/errors.json.
        coll.drop_indexes()
        self.assertEqual([s["name"] for s in coll.list_indexes()], ["_id_"])

    def test_the_simple_collation_is_the_default_and_others_are_refused(self):
        coll = self.db.collated
        coll.drop()
        self.assertEqual(coll.create_index("a", collation={"locale": "simple"}), "a_1")
        spec = next(i for i in coll.list_indexes() if i["name"] == "a_1")
        self.assertNotIn("collation", spec)
        with self.assertRaises(OperationFailure) as caught:
            coll.create_index("b", collation={"locale": "fr"})
        self.assertEqual(caught.exception.code, 67)
        with self.assertRaises(OperationFailure) as caught:
            coll.create_index("c", collation={"strength": 2})
        self.assertNotEqual(caught.exception.code, 67)  # a malformed collation: its own error

    def test_collmod_hides_an_index_from_the_planner(self):
        coll = self.db.hidden
        coll.drop()
        coll.insert_many([{"a": i} for i in range(10)])
        coll.create_index("a")
        reply = self.db.command("collMod", "hidden", index={"name": "a_1", "hidden": True})
        self.assertEqual((reply["hidden_old"], reply["hidden_new"]), (False, True))
        plan = self.db.command("explain", {"find": "hidden", "filter": {"a": 3}},
                               verbosity="queryPlanner")
        self.assertEqual(winning(plan)[0], ["COLLSCAN"])
        self.assertEqual(coll.find_one({"a": 3})["a"], 3)  # still maintained and correct
        self.db.command("collMod", "hidden", index={"keyPattern": {"a": 1}, "hidden": False})
        plan = self.db.command("explain", {"find": "hidden", "filter": {"a": 3}},
                               verbosity="queryPlanner")
        self.assertEqual(winning(plan)[0], ["FETCH", "IXSCAN"])


class UniqueIndexTest(ServerTestCase):

    def test_a_unique_build_over_duplicates_fails_and_leaves_no_index(self):
        coll = self.client.py_indexes.dups
        coll.drop()
        coll.insert_many([{"x": 1}, {"x": 2}, {"x": 1}])
        with self.assertRaises(OperationFailure) as caught:
            coll.create_index("x", unique=True)
        self.assertEqual(caught.exception.code, 11000)
        self.assertIn("dup key: { x: 1 }", str(caught.exception))
        self.assertEqual([s["name"] for s in coll.list_indexes()], ["_id_"])


class QueriesThroughIndexesTest(ServerTestCase):

    def test_multikey_queries_find_each_document_once(self):
        coll = self.client.py_indexes.tags
        coll.drop()
        coll.create_index("tags")
        coll.insert_many([{"_id": 1, "tags": ["a", "b"]}, {"_id": 2, "tags": ["b", "c"]},
                          {"_id": 3, "tags": []}, {"_id": 4}, {"_id": 5, "tags": "a"}])
        self.assertEqual([d["_id"] for d in coll.find({"tags": "a"}).sort("_id", 1)], [1, 5])
        self.assertEqual(sorted(d["_id"] for d in coll.find({"tags": {"$in": ["a", "b"]}})),
                         [1, 2, 5])
        self.assertEqual([d["_id"] for d in coll.find({"tags": []})], [3])
        self.assertEqual([d["_id"] for d in coll.find({"tags": None})], [4])
        self.assertEqual(coll.count_documents({"tags": {"$gt": "a"}}), 2)
        explain = self.client.py_indexes.command(
            "explain", {"find": "tags", "filter": {"tags": {"$in": ["a", "b"]}}},
            verbosity="executionStats")
        stages, ixscan = winning(explain)
        self.assertEqual(stages, ["FETCH", "IXSCAN"])
        self.assertEqual(ixscan["indexName"], "tags_1")
        self.assertTrue(ixscan["isMultiKey"])
        self.assertEqual(explain["executionStats"]["nReturned"], 3)

    def test_writes_keep_the_index_exact(self):
        coll = self.client.py_indexes.kept
        coll.drop()
        coll.create_index([("k", ASCENDING)])
        coll.insert_many([{"_id": i, "k": i % 5} for i in range(50)])
        coll.update_many({"k": 1}, {"$inc": {"k": 10}})
        coll.replace_one({"_id": 2}, {"k": 42})
        coll.delete_many({"k": 3})
        coll.find_one_and_update({"k": 4}, {"$set": {"k": 40}}, sort=[("_id", 1)])
        coll.update_one({"k": 99}, {"$set": {"z": 1}}, upsert=True)
        truth = {}
        for doc in coll.find().hint([("$natural", 1)]):
            truth.setdefault(doc.get("k"), []).append(doc["_id"])
        for key, ids in truth.items():
            found = [d["_id"] for d in coll.find({"k": key}).hint("k_1")]
            self.assertEqual(sorted(found), sorted(ids), key)
        self.assertEqual(coll.count_documents({"k": 1}), 0)
        self.assertEqual(coll.count_documents({"k": 11}), 10)

    def test_sparse_and_partial_indexes_answer_only_what_they_hold(self):
        coll = self.client.py_indexes.partial
        coll.drop()
        coll.insert_many([{"_id": 1, "p": 1, "q": 10}, {"_id": 2, "p": 1, "q": 1},
                          {"_id": 3, "s": None}, {"_id": 4}])
        coll.create_index("p", partialFilterExpression={"q": {"$gt": 5}})
        coll.create_index("s", sparse=True)

        def plan(filter):
            explain = self.client.py_indexes.command(
                "explain", {"find": "partial", "filter": filter}, verbosity="executionStats")
            _, ixscan = winning(explain)
            return (ixscan["indexName"] if ixscan else "COLLSCAN",
                    explain["executionStats"]["nReturned"])

        self.assertEqual(plan({"p": 1, "q": {"$gte": 10}}), ("p_1", 1))
        self.assertEqual(plan({"p": 1}), ("COLLSCAN", 2))  # the filter is not implied
        self.assertEqual(plan({"s": {"$exists": True}}), ("s_1", 1))
        self.assertEqual(plan({"s": None}), ("COLLSCAN", 4))  # missing fields match null
        # A hint forces the index, which answers only what it holds (as MongoDB).
        self.assertEqual([d["_id"] for d in coll.find({"p": 1}).hint("p_1")], [1])

    def test_explain_shows_the_ixscan_mongodb_would_choose(self):
        coll = self.client.py_indexes.orders
        coll.drop()
        coll.insert_many([{"_id": i, "customer": i % 100, "total": i} for i in range(1000)])
        coll.create_index("customer")
        coll.create_index([("customer", ASCENDING), ("total", DESCENDING)])
        explain = self.client.py_indexes.command(
            "explain", {"find": "orders", "filter": {"customer": 7, "total": {"$gt": 500}},
                        "sort": {"total": -1}},
            verbosity="executionStats")
        stages, ixscan = winning(explain)
        self.assertEqual(stages, ["FETCH", "IXSCAN"])  # the index provides the sort
        self.assertEqual(ixscan["indexName"], "customer_1_total_-1")
        self.assertEqual(ixscan["indexBounds"], {"customer": ["[7, 7]"],
                                                 "total": ["[inf.0, 500)"]})
        stats = explain["executionStats"]
        self.assertEqual(stats["nReturned"], 5)
        self.assertEqual(stats["totalKeysExamined"], 5)
        self.assertEqual(stats["totalDocsExamined"], 5)
        self.assertEqual(len(explain["queryPlanner"]["rejectedPlans"]), 1)
        one = self.client.py_indexes.command(
            "explain", {"find": "orders", "filter": {"customer": 7}, "limit": 1},
            verbosity="executionStats")
        self.assertEqual(winning(one)[0], ["LIMIT", "FETCH", "IXSCAN"])
        self.assertEqual(one["executionStats"]["totalKeysExamined"], 1)
        self.assertEqual(one["executionStats"]["totalDocsExamined"], 1)
        with self.assertRaises(OperationFailure) as caught:
            list(coll.find({"customer": 7}).hint("nope"))
        self.assertEqual(caught.exception.code, 2)
        for command in ({"count": "orders", "query": {"customer": 7}},
                        {"delete": "orders", "deletes": [{"q": {"customer": 7}, "limit": 0}]},
                        {"update": "orders",
                         "updates": [{"q": {"customer": 7}, "u": {"$set": {"x": 1}}}]}):
            explain = self.client.py_indexes.command("explain", command,
                                                     verbosity="executionStats")
            stages, ixscan = winning(explain)
            self.assertEqual(ixscan["indexName"], "customer_1", command)
        self.assertEqual(coll.count_documents({"customer": 7}), 10)  # explain wrote nothing
        self.assertEqual(coll.count_documents({"x": 1}), 0)

    def test_aggregate_uses_the_index_for_its_leading_match_and_explains_it(self):
        db = self.client.py_indexes
        coll = db.agg_orders
        coll.drop()
        coll.insert_many([{"_id": i, "customer": i % 100, "total": i} for i in range(1000)])
        coll.create_index("customer")
        # A pipeline that is only a $match explains as find does.
        only = db.command("aggregate", "agg_orders", pipeline=[{"$match": {"customer": 7}}],
                          explain=True)
        self.assertEqual(winning(only)[1]["indexName"], "customer_1")
        # With later stages: {stages: [{$cursor: {queryPlanner, executionStats}}, ...]}.
        pipeline = [{"$match": {"customer": 7}},
                    {"$group": {"_id": "$customer", "n": {"$sum": 1}}},
                    {"$out": "agg_out"}]
        explain = db.command("explain", {"aggregate": "agg_orders", "pipeline": pipeline,
                                         "cursor": {}}, verbosity="executionStats")
        cursor = explain["stages"][0]["$cursor"]
        self.assertEqual(winning(cursor)[0], ["FETCH", "IXSCAN"])
        self.assertEqual(cursor["executionStats"]["totalKeysExamined"], 10)
        self.assertEqual([list(stage)[0] for stage in explain["stages"][1:]], ["$group", "$out"])
        self.assertNotIn("agg_out", db.list_collection_names())  # explain ran nothing
        # hint steers the query part: $natural forces the collection scan.
        hinted = db.command("aggregate", "agg_orders", pipeline=[{"$match": {"customer": 7}}],
                            hint={"$natural": 1}, explain=True)
        self.assertEqual(winning(hinted)[0], ["COLLSCAN"])
        self.assertEqual(len(list(coll.aggregate([{"$match": {"customer": 7}}],
                                                 hint="customer_1"))), 10)
        with self.assertRaises(OperationFailure) as caught:
            list(coll.aggregate([{"$match": {"customer": 7}}], hint="nope"))
        self.assertEqual(caught.exception.code, 2)


if __name__ == "__main__":
    unittest.main()
