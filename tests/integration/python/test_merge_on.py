"""$merge through pymongo 3.11 beyond _id: 'on' fields backed by a unique index (51183 without
one), every whenMatched mode against a document found by them (the target keeps its _id;
changing it is ImmutableField 66), whenNotMatched insert/discard/fail, the mode pairs MongoDB
refuses (51189), whenMatched pipelines with `let` ($$new by default, InvalidOptions 72 for a stage
an update may not run), and the per-document 'on' errors (51132, 51185)."""

import unittest

from pymongo.errors import OperationFailure

from harness import ServerTestCase


def without_id(docs):
    return sorted(({k: v for k, v in d.items() if k != "_id"} for d in docs), key=repr)


class MergeOnFieldsTest(ServerTestCase):

    def setUp(self):
        self.db = self.client["py_merge_on"]
        self.src = self.db.src
        self.dst = self.db.dst
        self.src.drop()
        self.dst.drop()

    def merge(self, spec, pipeline_before=()):
        list(self.src.aggregate(list(pipeline_before) + [{"$merge": spec}]))

    def assertFails(self, code, spec, pipeline_before=(), message=None):
        with self.assertRaises(OperationFailure) as caught:
            self.merge(spec, pipeline_before)
        self.assertEqual(caught.exception.code, code, caught.exception.details)
        if message is not None:
            self.assertIn(message, caught.exception.details["errmsg"])

    def test_on_fields_need_a_unique_index_on_exactly_them(self):
        self.src.insert_one({"_id": 1, "a": 1, "b": 1})
        self.assertFails(51183, {"into": "dst", "on": "a"},
                         message="Cannot find index to verify that join fields will be unique")
        self.dst.create_index("a")  # not unique
        self.assertFails(51183, {"into": "dst", "on": "a"})
        self.dst.create_index([("a", 1), ("b", 1)], unique=True)
        self.assertFails(51183, {"into": "dst", "on": "a"})
        self.dst.create_index("b", unique=True, partialFilterExpression={"b": {"$gt": 0}})
        self.assertFails(51183, {"into": "dst", "on": "b"})
        self.merge({"into": "dst", "on": ["b", "a"]})  # any order
        self.assertEqual(list(self.dst.find()), [{"_id": 1, "a": 1, "b": 1}])

    def test_every_when_matched_mode_on_a_document_found_by_its_on_fields(self):
        cases = [
            ("merge", [{"_id": 10, "k": "x", "old": 1, "new": 2}, {"_id": 2, "k": "y", "new": 3}]),
            ("replace", [{"_id": 10, "k": "x", "new": 2}, {"_id": 2, "k": "y", "new": 3}]),
            ("keepExisting", [{"_id": 10, "k": "x", "old": 1}, {"_id": 2, "k": "y", "new": 3}]),
        ]
        for mode, expected in cases:
            with self.subTest(mode=mode):
                self.src.drop()
                self.dst.drop()
                self.dst.create_index("k", unique=True)
                self.dst.insert_one({"_id": 10, "k": "x", "old": 1})
                self.src.insert_many([{"_id": 1, "k": "x", "new": 2}, {"_id": 2, "k": "y", "new": 3}])
                # The source _id would clash with the target's: project it away.
                self.merge({"into": "dst", "on": "k", "whenMatched": mode},
                           [{"$project": {"_id": {"$cond": [{"$eq": ["$k", "x"]}, "$$REMOVE", "$_id"]},
                                          "k": 1, "new": 1}}])
                self.assertEqual(list(self.dst.find().sort("k")), expected)

    def test_changing_the_id_of_a_matched_document_is_immutable_field(self):
        self.dst.create_index("k", unique=True)
        self.dst.insert_one({"_id": 10, "k": "x"})
        self.src.insert_one({"_id": 1, "k": "x", "v": 1})
        for mode in ("replace", "merge"):
            with self.subTest(mode=mode):
                self.assertFails(66, {"into": "dst", "on": "k", "whenMatched": mode},
                                 message="$merge failed to update the matching document, did you "
                                         "attempt to modify the _id or the shard key?")
        self.assertEqual(list(self.dst.find()), [{"_id": 10, "k": "x"}])

    def test_when_matched_fail_and_when_not_matched_fail(self):
        self.dst.create_index("k", unique=True)
        self.dst.insert_one({"_id": 10, "k": "x"})
        self.src.insert_one({"_id": 1, "k": "x"})
        self.assertFails(11000, {"into": "dst", "on": "k", "whenMatched": "fail"},
                         message="PlanExecutor error during aggregation :: caused by :: $merge "
                                 "with whenMatched: fail found an existing document with the same "
                                 "values for the 'on' fields :: caused by :: E11000 duplicate key")
        self.src.replace_one({"_id": 1}, {"_id": 1, "k": "z"})
        self.assertFails(13113, {"into": "dst", "on": "k", "whenNotMatched": "fail"})
        self.merge({"into": "dst", "on": "k", "whenNotMatched": "discard"})
        self.assertEqual(list(self.dst.find()), [{"_id": 10, "k": "x"}])

    def test_unsupported_mode_pairs_and_let_without_a_pipeline(self):
        self.src.insert_one({"_id": 1})
        self.assertFails(51189, {"into": "dst", "whenMatched": "fail", "whenNotMatched": "discard"})
        self.assertFails(51189, {"into": "dst", "whenMatched": "keepExisting",
                                 "whenNotMatched": "fail"})
        self.assertFails(51199, {"into": "dst", "whenMatched": "replace", "let": {"a": 1}})

    def test_on_values_missing_null_or_arrays_fail(self):
        self.dst.create_index("s.a", unique=True)
        for doc, code in [({"_id": 1}, 51132), ({"_id": 1, "s": None}, 51132),
                          ({"_id": 1, "s": {"a": None}}, 51132), ({"_id": 1, "s": [{"a": 1}]}, 51132),
                          ({"_id": 1, "s": {"a": [1, 2]}}, 51185)]:
            with self.subTest(doc=doc):
                self.src.drop()
                self.src.insert_one(doc)
                self.assertFails(code, {"into": "dst", "on": "s.a"})

    def test_compound_on_fields_upsert_rollups(self):
        self.dst.create_index([("day", 1), ("sensor", 1)], unique=True)
        self.dst.insert_one({"day": "d1", "sensor": "s1", "total": 10, "runs": 1})
        self.src.insert_many([{"day": "d1", "sensor": "s1", "v": 5},
                              {"day": "d1", "sensor": "s2", "v": 7},
                              {"day": "d1", "sensor": "s1", "v": 1}])
        self.merge({"into": "dst", "on": ["day", "sensor"],
                    "whenMatched": [{"$set": {"total": {"$add": ["$total", "$$new.total"]},
                                              "runs": {"$add": ["$runs", 1]}}}],
                    "whenNotMatched": "insert"},
                   [{"$group": {"_id": {"day": "$day", "sensor": "$sensor"}, "total": {"$sum": "$v"}}},
                    {"$project": {"_id": 0, "day": "$_id.day", "sensor": "$_id.sensor",
                                  "total": 1, "runs": {"$literal": 1}}}])
        got = without_id(self.dst.find())
        # No match: the pipeline ran on the 'on' fields' seed ({day, sensor}) and was inserted.
        self.assertEqual(got, without_id([{"day": "d1", "sensor": "s1", "total": 16, "runs": 2},
                                          {"day": "d1", "sensor": "s2", "total": None,
                                           "runs": None}]))

    def test_when_matched_pipeline_with_let(self):
        self.dst.insert_many([{"_id": 1, "qty": 10}, {"_id": 2, "qty": 20}])
        self.src.insert_many([{"_id": 1, "delta": 5}, {"_id": 3, "delta": 1}])
        self.merge({"into": "dst", "let": {"d": "$delta"},
                    "whenMatched": [{"$set": {"qty": {"$add": ["$qty", "$$d"]}}}],
                    "whenNotMatched": "discard"})
        self.assertEqual(list(self.dst.find().sort("_id")), [{"_id": 1, "qty": 15}, {"_id": 2, "qty": 20}])
        self.assertFails(72, {"into": "dst", "whenMatched": [{"$group": {"_id": None}}]},
                         message="$group is not allowed to be used within an update")
        self.src.insert_one({"_id": 2, "delta": 0})
        self.assertFails(66, {"into": "dst", "whenMatched": [{"$set": {"_id": 99}}],
                              "whenNotMatched": "discard"})


if __name__ == "__main__":
    unittest.main()
