"""The TTL monitor through pymongo 3.11: expired documents go (an array by its earliest date),
non-dates stay, every other index stays exact, hidden and descending TTL indexes expire too,
collMod's new expireAfterSeconds applies; setParameter/getParameter of ttlMonitorSleepSecs and
ttlMonitorEnabled with MongoDB's replies and errors; serverStatus metrics.ttl counts."""

import datetime
import time
import unittest

from bson.int64 import Int64
from pymongo.errors import OperationFailure

from harness import ServerTestCase

HOUR = datetime.timedelta(hours=1)


def utcnow():
    return datetime.datetime.utcnow().replace(microsecond=0)


class TtlMonitorTest(ServerTestCase):
    server_args = ("--setParameter", "ttlMonitorSleepSecs=1")

    def setUp(self):
        self.db = self.client["py_ttl"]
        self.admin = self.client.admin
        self.admin.command("setParameter", 1, ttlMonitorEnabled=True)

    def ttl_metrics(self):
        return self.admin.command("serverStatus")["metrics"]["ttl"]

    def wait_for_passes(self, count=2, timeout=15.0):
        """Waits until `count` more passes ran (so one ran wholly after the caller's writes)."""
        start = self.ttl_metrics()["passes"]
        deadline = time.time() + timeout
        while self.ttl_metrics()["passes"] < start + count:
            if time.time() > deadline:
                self.fail("no TTL pass within %.0f s" % timeout)
            time.sleep(0.1)

    def test_expired_documents_go_and_others_stay(self):
        coll = self.db.basic
        coll.drop()
        coll.create_index("t", expireAfterSeconds=60)
        now = utcnow()
        coll.insert_many([
            {"_id": "old", "t": now - HOUR},
            {"_id": "just", "t": now - datetime.timedelta(seconds=120)},
            {"_id": "fresh", "t": now},
            {"_id": "future", "t": now + HOUR},
            {"_id": "before1970", "t": datetime.datetime(1960, 1, 1)},
            {"_id": "array_old", "t": [now + HOUR, now - HOUR, now + 2 * HOUR]},
            {"_id": "array_new", "t": [now + HOUR, now + 2 * HOUR]},
            {"_id": "array_mixed", "t": ["x", 5, now - HOUR]},
            {"_id": "string", "t": "2000-01-01"},
            {"_id": "number", "t": 0},
            {"_id": "null", "t": None},
            {"_id": "missing"},
            {"_id": "nested", "t": {"d": now - HOUR}},
            {"_id": "array_of_strings", "t": ["2000-01-01"]},
        ])
        self.wait_for_passes()
        self.assertEqual(sorted(d["_id"] for d in coll.find()),
                         sorted(["fresh", "future", "array_new", "string", "number", "null",
                                 "missing", "nested", "array_of_strings"]))

    def test_secondary_indexes_stay_exact_after_expiry(self):
        coll = self.db.exact
        coll.drop()
        coll.create_index("t", expireAfterSeconds=0)
        coll.create_index("k")
        coll.create_index("u", unique=True)
        coll.create_index([("tags", 1)])
        now = utcnow()
        docs = []
        for i in range(50):
            expired = i % 2 == 0
            docs.append({"_id": i, "t": now - HOUR if expired else now + HOUR, "k": i % 5,
                         "u": "u%d" % i, "tags": ["a", "b%d" % (i % 3)]})
        coll.insert_many(docs)
        self.wait_for_passes()
        survivors = sorted(i for i in range(50) if i % 2 == 1)
        self.assertEqual(sorted(d["_id"] for d in coll.find()), survivors)
        for k in range(5):
            by_index = sorted(d["_id"] for d in coll.find({"k": k}).hint("k_1"))
            self.assertEqual(by_index, [i for i in survivors if i % 5 == k])
        self.assertEqual(sorted(d["_id"] for d in coll.find({"tags": "a"}).hint("tags_1")),
                         survivors)
        self.assertEqual(coll.count_documents({}), len(survivors))
        self.assertEqual(coll.count_documents({"t": {"$lt": now}}), 0)
        # The unique keys and _ids of expired documents are free again.
        coll.insert_one({"_id": 0, "u": "u0", "t": now + HOUR})
        with self.assertRaises(OperationFailure) as caught:
            coll.insert_one({"_id": 100, "u": "u1"})
        self.assertEqual(caught.exception.code, 11000)

    def test_many_expired_documents_are_deleted_in_batches(self):
        coll = self.db.many
        coll.drop()
        coll.create_index("t", expireAfterSeconds=0)
        coll.create_index("k")
        past = utcnow() - HOUR
        coll.insert_many([{"_id": i, "t": past, "k": i} for i in range(2500)])
        coll.insert_one({"_id": "keep", "t": utcnow() + HOUR, "k": -1})
        before = self.ttl_metrics()["deletedDocuments"]
        self.wait_for_passes()
        self.assertEqual([d["_id"] for d in coll.find()], ["keep"])
        self.assertEqual([d["_id"] for d in coll.find({"k": {"$gte": -5}}).hint("k_1")], ["keep"])
        self.assertGreaterEqual(self.ttl_metrics()["deletedDocuments"] - before, 2500)

    def test_descending_partial_and_hidden_ttl_indexes_expire(self):
        now = utcnow()
        desc = self.db.descending
        desc.drop()
        desc.create_index([("t", -1)], expireAfterSeconds=10)
        desc.insert_many([{"_id": 1, "t": now - HOUR}, {"_id": 2, "t": now + HOUR}])
        partial = self.db.partial
        partial.drop()
        partial.create_index("t", expireAfterSeconds=10,
                             partialFilterExpression={"kind": "temp"})
        partial.insert_many([{"_id": 1, "t": now - HOUR, "kind": "temp"},
                             {"_id": 2, "t": now - HOUR, "kind": "keep"}])
        hidden = self.db.hidden
        hidden.drop()
        hidden.create_index("t", expireAfterSeconds=10, hidden=True)
        hidden.insert_many([{"_id": 1, "t": now - HOUR}, {"_id": 2, "t": now + HOUR}])
        nested = self.db.nested
        nested.drop()
        nested.create_index("a.t", expireAfterSeconds=10)
        nested.insert_many([{"_id": 1, "a": {"t": now - HOUR}},
                            {"_id": 2, "a": [{"t": now + HOUR}, {"t": now - HOUR}]},
                            {"_id": 3, "a": {"t": now + HOUR}}])
        self.wait_for_passes()
        self.assertEqual([d["_id"] for d in desc.find()], [2])
        self.assertEqual([d["_id"] for d in partial.find()], [2])
        self.assertEqual([d["_id"] for d in hidden.find()], [2])
        self.assertEqual([d["_id"] for d in nested.find()], [3])

    def test_coll_mod_expire_after_seconds_applies(self):
        coll = self.db.collmod
        coll.drop()
        coll.create_index("t", expireAfterSeconds=7 * 24 * 3600)
        coll.insert_one({"_id": 1, "t": utcnow() - HOUR})
        self.wait_for_passes()
        self.assertEqual(coll.count_documents({}), 1)
        self.db.command("collMod", "collmod",
                        index={"keyPattern": {"t": 1}, "expireAfterSeconds": 60})
        self.wait_for_passes()
        self.assertEqual(coll.count_documents({}), 0)

    def test_disabled_monitor_deletes_nothing(self):
        coll = self.db.disabled
        coll.drop()
        coll.create_index("t", expireAfterSeconds=0)
        reply = self.admin.command("setParameter", 1, ttlMonitorEnabled=False)
        self.assertIs(reply["was"], True)
        self.assertEqual(self.admin.command("getParameter", 1, ttlMonitorEnabled=1)
                         ["ttlMonitorEnabled"], False)
        try:
            coll.insert_one({"_id": 1, "t": utcnow() - HOUR})
            time.sleep(2.5)
            self.assertEqual(coll.count_documents({}), 1)
        finally:
            self.admin.command("setParameter", 1, ttlMonitorEnabled=True)
        self.wait_for_passes()
        self.assertEqual(coll.count_documents({}), 0)

    def test_command_line_parameter_is_reported(self):
        self.assertEqual(self.admin.command("getParameter", 1, ttlMonitorSleepSecs=1)
                         ["ttlMonitorSleepSecs"], 1)
        parsed = self.admin.command("getCmdLineOpts")["parsed"]
        self.assertEqual(parsed["setParameter"], {"ttlMonitorSleepSecs": "1"})

    def test_metrics_ttl_in_server_status(self):
        metrics = self.ttl_metrics()
        self.assertEqual(sorted(metrics), ["deletedDocuments", "passes", "subPasses"])
        for value in metrics.values():
            self.assertIsInstance(value, Int64)
        coll = self.db.metrics
        coll.drop()
        coll.create_index("t", expireAfterSeconds=0)
        before = self.ttl_metrics()
        coll.insert_many([{"t": utcnow() - HOUR} for _ in range(7)])
        self.wait_for_passes()
        after = self.ttl_metrics()
        self.assertGreaterEqual(after["deletedDocuments"] - before["deletedDocuments"], 7)
        self.assertGreaterEqual(after["passes"] - before["passes"], 2)
        self.assertGreaterEqual(after["subPasses"], after["passes"])


class SetParameterTest(ServerTestCase):

    def test_set_and_get_ttl_monitor_sleep_secs(self):
        admin = self.client.admin
        self.assertEqual(admin.command("getParameter", 1, ttlMonitorSleepSecs=1),
                         {"ttlMonitorSleepSecs": 60, "ok": 1.0})
        reply = admin.command("setParameter", 1, ttlMonitorSleepSecs=5)
        self.assertEqual(reply, {"was": 60, "ok": 1.0})
        self.assertEqual(admin.command("setParameter", 1, ttlMonitorSleepSecs=7.9)["was"], 5)
        self.assertEqual(admin.command("getParameter", 1, ttlMonitorSleepSecs=1)
                         ["ttlMonitorSleepSecs"], 7)
        everything = admin.command("getParameter", "*")
        self.assertEqual(everything["ttlMonitorSleepSecs"], 7)
        self.assertIs(everything["ttlMonitorEnabled"], True)
        admin.command("setParameter", 1, ttlMonitorSleepSecs=60)

    def test_errors_are_mongodbs(self):
        admin = self.client.admin
        cases = [
            ({"nope": 1}, 72, "attempted to set unrecognized parameter [nope], use help:true "
                              "to see options "),
            ({}, 72, "no option found to set, use help:true to see options "),
            ({"ttlMonitorSleepSecs": 0}, 2,
             "Invalid value for parameter ttlMonitorSleepSecs: 0 is not greater than 0"),
            ({"ttlMonitorSleepSecs": "5"}, 2, "Can't coerce value"),
        ]
        for fields, code, message in cases:
            with self.subTest(fields=fields):
                command = {"setParameter": 1}
                command.update(fields)
                with self.assertRaises(OperationFailure) as caught:
                    admin.command(command)
                self.assertEqual(caught.exception.code, code)
                self.assertEqual(caught.exception.details["errmsg"], message)
        self.assertEqual(admin.command("getParameter", 1, ttlMonitorSleepSecs=1)
                         ["ttlMonitorSleepSecs"], 60)
        with self.assertRaises(OperationFailure) as caught:
            self.client.py_ttl.command("setParameter", 1, ttlMonitorSleepSecs=5)
        self.assertEqual(caught.exception.code, 13)


if __name__ == "__main__":
    unittest.main()
