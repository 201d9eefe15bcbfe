"""Hostile and extreme queries through pymongo, answered as MongoDB 7.0 answers them: errors are
errors (a failing $expr in find, count, delete, update, validators, listCollections filters and
$lookup reaches the client with its own code, never as "no match"; so does a regular expression
PCRE2 stops at its match limit, 51156, in every filter), values and documents past
MongoDB's limits (64 MiB strings 13548, 200 levels Overflow, 16 MiB results 10334, nested
sub-pipelines 232, 1000 stages), regex execution errors (51156), and the cases that used to hang
or take minutes ($bucketAuto over tiny values, a 100k $in through an index, $regexFindAll with an
empty pattern over a large string) now finishing promptly."""

import re
import time
import unittest

from pymongo.errors import OperationFailure

from harness import ServerTestCase

DIVIDE = {"$expr": {"$gt": [{"$divide": [1, "$z"]}, 0]}}
# False for z: 1 and failing for z: 0, so a write that stops at the error changed nothing before.
NEVER_OR_FAIL = {"$expr": {"$lt": [{"$divide": [1, "$z"]}, 0]}}
DIVIDE_MESSAGE = "can't $divide by zero"
# (a+)+$ backtracks 2^25 times over HARD before "c" is tried: PCRE2's match limit stops it. Over
# EASY the search ends at once and finds "c".
HARD_PATTERN = "(a+)+$|c"
HARD = "a" * 25 + "!c"
EASY = "aaaa!c"
REGEX_MESSAGE = ("Error occurred while executing the regular expression in $regex. "
                 "Result code: match limit exceeded")


class LimitsCase(ServerTestCase):
    """A server per class, its database `db_name`, and `documents` in its collection `coll`."""

    db_name = coll = None
    documents = ()

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.db = cls.client[cls.db_name]
        cls.db.drop_collection(cls.coll)
        cls.db[cls.coll].insert_many(list(cls.documents))


class ExprErrorsTest(LimitsCase):
    """A $expr that fails to evaluate fails the operation with its error (BadValue here). In find,
    count, aggregate and distinct: tests/spec/find/expr_error_fails_the_query.json."""

    db_name, coll = "py_query_limits_errors", "c"
    documents = ({"_id": 1, "z": 1, "a": [1, 2]}, {"_id": 2, "z": 0, "a": [3]})

    def assertDivideError(self, run):
        with self.assertRaises(OperationFailure) as raised:
            run()
        self.assertEqual(raised.exception.code, 2)
        self.assertIn(DIVIDE_MESSAGE, str(raised.exception.details.get("errmsg")))

    def test_writes_fail_without_touching_anything(self):
        self.assertDivideError(lambda: self.db.c.delete_many(NEVER_OR_FAIL))
        self.assertDivideError(lambda: self.db.c.update_many(NEVER_OR_FAIL, {"$set": {"x": 1}}))
        self.assertDivideError(lambda: self.db.c.update_one(
            {"a": 3, "$expr": {"$divide": [1, "$z"]}}, {"$set": {"a.$": 9}}))
        self.assertDivideError(
            lambda: self.db.c.find_one_and_update(NEVER_OR_FAIL, {"$set": {"x": 1}}))
        self.assertEqual(self.db.c.count_documents({}), 2)
        self.assertEqual(self.db.c.count_documents({"x": {"$exists": True}}), 0)

    def test_lookup_pipeline_and_list_collections_filters_fail(self):
        self.assertDivideError(lambda: list(self.db.c.aggregate([
            {"$lookup": {"from": "c", "as": "j", "pipeline": [{"$match": DIVIDE}]}}])))
        self.assertDivideError(lambda: self.db.command(
            "listCollections", filter={"$expr": {"$divide": [1, 0]}}))

    def test_validators_fail_the_write(self):
        self.db.drop_collection("validated")
        self.db.create_collection("validated", validator={"$expr": {"$divide": [1, "$z"]}})
        self.db.validated.insert_one({"z": 1})
        self.assertDivideError(lambda: self.db.validated.insert_one({"z": 0}))
        self.assertEqual(self.db.validated.count_documents({}), 1)


class RegexErrorsTest(LimitsCase):
    """A filter's regex that PCRE2 stops with an error fails the operation with 51156, wherever
    the filter is evaluated; documents decided before the regex runs still answer."""

    db_name, coll = "py_query_limits_regex", "r"
    documents = ({"_id": 1, "s": EASY, "t": 1, "a": [EASY]},
                 {"_id": 2, "s": HARD, "t": 2, "a": ["x", HARD]})
    hard = {"s": {"$regex": HARD_PATTERN}}
    # Searches only the hard string (t: 2), so a write stops at the error before any match.
    hard_only = {"t": 2, "s": {"$regex": HARD_PATTERN}}

    def assertRegexError(self, run):
        with self.assertRaises(OperationFailure) as raised:
            run()
        self.assertEqual(raised.exception.code, 51156, raised.exception.details)
        self.assertIn(REGEX_MESSAGE, raised.exception.details["errmsg"])

    def test_find_count_distinct_and_every_regex_form(self):
        compiled = re.compile(HARD_PATTERN)
        for query in [self.hard, {"s": compiled}, {"s": {"$in": ["x", compiled]}},
                      {"s": {"$nin": [compiled]}}, {"s": {"$all": [compiled]}},
                      {"s": {"$not": compiled}}, {"$or": [{"t": 5}, self.hard]},
                      {"$nor": [self.hard]},
                      {"a": {"$elemMatch": {"$regex": HARD_PATTERN}}},
                      {"$jsonSchema": {"properties": {"s": {"pattern": HARD_PATTERN}}}}]:
            self.assertRegexError(lambda: list(self.db.r.find(query)))
        self.assertRegexError(lambda: self.db.r.count_documents(self.hard))
        self.assertRegexError(lambda: self.db.r.distinct("_id", self.hard))
        self.assertRegexError(lambda: self.db.r.find_one(self.hard, sort=[("_id", -1)]))
        # Decided before the regex is searched on the hard string: answered.
        ids = [d["_id"] for d in self.db.r.find({"$or": [{"t": {"$gt": 0}}, self.hard]})]
        self.assertEqual(ids, [1, 2])
        ids = [d["_id"] for d in self.db.r.find({"t": 1, "s": {"$regex": HARD_PATTERN}})]
        self.assertEqual(ids, [1])

    def test_aggregate_match_and_lookup_sub_pipeline(self):
        self.assertRegexError(lambda: list(self.db.r.aggregate([{"$match": self.hard}])))
        self.assertRegexError(lambda: list(self.db.r.aggregate(
            [{"$sort": {"_id": 1}}, {"$match": self.hard}])))
        self.assertRegexError(lambda: list(self.db.r.aggregate([
            {"$lookup": {"from": "r", "as": "j", "pipeline": [{"$match": self.hard}]}}])))
        self.assertEqual(list(self.db.r.aggregate([{"$match": {"t": 1, "s": {"$regex": "c$"}}},
                                                   {"$project": {"_id": 1}}])), [{"_id": 1}])

    def test_writes_fail_without_touching_anything(self):
        self.assertRegexError(lambda: self.db.r.delete_many(self.hard_only))
        self.assertRegexError(lambda: self.db.r.delete_one(self.hard_only))
        self.assertRegexError(lambda: self.db.r.update_many(self.hard_only, {"$set": {"x": 1}}))
        self.assertRegexError(lambda: self.db.r.update_one(self.hard_only, {"$set": {"x": 1}}))
        self.assertRegexError(
            lambda: self.db.r.find_one_and_update(self.hard_only, {"$set": {"x": 1}}))
        self.assertEqual(self.db.r.count_documents({}), 2)
        self.assertEqual(self.db.r.count_documents({"x": {"$exists": True}}), 0)

    def test_validators_fail_the_write(self):
        for validator in [self.hard,
                          {"$jsonSchema": {"properties": {"s": {"pattern": HARD_PATTERN}}}}]:
            self.db.drop_collection("validated")
            self.db.create_collection("validated", validator=validator)
            self.db.validated.insert_one({"_id": 1, "s": EASY})
            self.assertRegexError(lambda: self.db.validated.insert_one({"_id": 2, "s": HARD}))
            self.assertRegexError(lambda: self.db.validated.update_one(
                {"_id": 1}, {"$set": {"s": HARD}}))
            self.assertEqual(list(self.db.validated.find()), [{"_id": 1, "s": EASY}])

    def test_partial_index_filters_fail_the_write(self):
        self.db.drop_collection("partial")
        self.db.partial.create_index(
            "k", partialFilterExpression={"s": {"$in": [re.compile(HARD_PATTERN)]}})
        self.db.partial.insert_one({"_id": 1, "k": 1, "s": EASY})
        self.assertRegexError(lambda: self.db.partial.insert_one({"_id": 2, "k": 2, "s": HARD}))
        self.assertEqual(self.db.partial.count_documents({}), 1)

    def test_list_collections_and_list_databases_filters(self):
        self.db.create_collection(HARD)
        self.assertRegexError(lambda: self.db.list_collection_names(
            filter={"name": {"$regex": HARD_PATTERN}}))
        self.client[HARD].c.insert_one({})
        self.assertRegexError(lambda: list(self.client.list_databases(
            filter={"name": {"$regex": HARD_PATTERN}})))

    def test_a_tailable_cursor_fails_at_the_document(self):
        self.db.drop_collection("capped")
        self.db.create_collection("capped", capped=True, size=1 << 20)
        self.db.capped.insert_one({"s": EASY})
        # Commands rather than pymongo's Cursor, which drops a tailable cursor's getMore error.
        reply = self.db.command("find", "capped", filter=self.hard, tailable=True)
        self.assertEqual([d["s"] for d in reply["cursor"]["firstBatch"]], [EASY])
        self.db.capped.insert_one({"s": HARD})
        self.assertRegexError(lambda: self.db.command(
            "getMore", reply["cursor"]["id"], collection="capped"))


class LimitsTest(LimitsCase):

    db_name, coll = "py_query_limits", "one"
    documents = ({"_id": 1, "s": "x" * (1 << 20)},)

    def assertFails(self, code, run, message=None):
        with self.assertRaises(OperationFailure) as raised:
            run()
        self.assertEqual(raised.exception.code, code, raised.exception.details)
        if message is not None:
            self.assertIn(message, raised.exception.details["errmsg"])

    def test_a_string_doubled_past_64_mib_fails_at_once(self):
        pipeline = [{"$project": {"r": {"$strLenBytes": {"$reduce": {
            "input": {"$range": [0, 30]}, "initialValue": "$s",
            "in": {"$concat": ["$$value", "$$value"]}}}}}}]
        start = time.monotonic()
        self.assertFails(13548, lambda: list(self.db.one.aggregate(pipeline)),
                         "BufBuilder attempted to grow() to 134217728 bytes, past the 64MB limit.")
        self.assertLess(time.monotonic() - start, 20)

    def test_values_nested_past_200_levels_fail(self):
        pipeline = [{"$project": {"r": {"$reduce": {
            "input": {"$range": [0, 100000]}, "initialValue": {},
            "in": {"a": "$$value"}}}}}]
        self.assertFails(15, lambda: list(self.db.one.aggregate(pipeline)),
                         "cannot convert document to BSON because it exceeds the limit of 200 "
                         "levels of nesting")

    def test_a_result_document_past_16_mib_fails(self):
        pipeline = [{"$project": {"a": {"$concat": ["$s"] * 9}, "b": {"$concat": ["$s"] * 9}}}]
        self.assertFails(10334, lambda: list(self.db.one.aggregate(pipeline)),
                         "is invalid. Size must be between 0 and 16793600(16MB) First element: "
                         "_id: 1")
        # The same through find's projection.
        self.assertFails(10334, lambda: list(self.db.one.find(
            {}, {"a": {"$concat": ["$s"] * 9}, "b": {"$concat": ["$s"] * 9}})))

    def test_pipeline_length_and_sub_pipeline_depth(self):
        self.assertFails(9, lambda: list(self.db.one.aggregate([{"$skip": 0}] * 1001)),
                         "Pipeline length must be no longer than 1000 stages")
        inner = []
        for _ in range(21):
            inner = [{"$lookup": {"from": "one", "as": "x", "pipeline": inner}}]
        self.assertFails(232, lambda: list(self.db.one.aggregate(inner)),
                         "Maximum number of nested sub-pipelines exceeded. Limit is 20")

    def test_regex_execution_errors(self):
        self.db.drop_collection("re")
        self.db.re.insert_one({"s": "a" * 40 + "!c"})
        self.assertFails(51156, lambda: list(self.db.re.aggregate([{"$project": {
            "m": {"$regexMatch": {"input": "$s", "regex": "(a+)+$|c"}}}}])),
            "Error occurred while executing the regular expression in $regexMatch. "
            "Result code: match limit exceeded")
        # In a filter too: an error, never "no match".
        self.assertFails(51156, lambda: self.db.re.count_documents({"s": {"$regex": "(a+)+$|c"}}),
                         REGEX_MESSAGE)

    def test_regex_find_all_with_an_empty_pattern_is_linear_and_bounded(self):
        self.db.drop_collection("big")
        self.db.big.insert_one({"s": "y" * 1_000_000})
        start = time.monotonic()
        out = list(self.db.big.aggregate([{"$project": {"_id": 0, "n": {"$size": {
            "$regexFindAll": {"input": "$s", "regex": ""}}}}}]))
        self.assertEqual(out, [{"n": 1_000_001}])
        self.assertLess(time.monotonic() - start, 30)
        self.db.big.update_one({}, {"$set": {"s": "y" * 10_000_000}})
        self.assertFails(51151, lambda: list(self.db.big.aggregate([{"$project": {
            "n": {"$size": {"$regexFindAll": {"input": "$s", "regex": ""}}}}}])),
            "$regexFindAll: the size of buffer to store output exceeded the 64MB limit")

    def test_bucket_auto_over_tiny_values_terminates(self):
        self.db.drop_collection("tiny")
        self.db.tiny.insert_many([{"v": 5e-324}, {"v": 1e-320}, {"v": 0.0}, {"v": 1e-300},
                                  {"v": float("inf")}])
        for granularity in ["R5", "R10", "R20", "R40", "R80", "1-2-5", "E6", "E12", "E24",
                            "E48", "E96", "E192", "POWERSOF2"]:
            out = list(self.db.tiny.aggregate([{"$bucketAuto": {
                "groupBy": "$v", "buckets": 3, "granularity": granularity}}]))
            self.assertEqual(sum(b["count"] for b in out), 5, granularity)

    def test_a_100k_in_through_an_index_is_fast(self):
        self.db.drop_collection("many")
        self.db.many.insert_many([{"_id": i, "k": i} for i in range(100_000)])
        self.db.many.create_index("k")
        wanted = list(range(0, 200_000, 2))
        start = time.monotonic()
        count = self.db.many.count_documents({"k": {"$in": wanted}}, hint="k_1")
        self.assertEqual(count, 50_000)
        got = sum(1 for _ in self.db.many.find({"_id": {"$in": wanted}}, {"_id": 1}))
        self.assertEqual(got, 50_000)
        self.assertLess(time.monotonic() - start, 30)


if __name__ == "__main__":
    unittest.main()
