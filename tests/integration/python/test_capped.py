"""Capped collections and tailable cursors through pymongo 3.11, as MongoDB 7.0 answers: create
with capped/size/max (its errors; sizes rounded up to a multiple of 256 as 7.0 does), listCollections
options, collMod cappedSize/cappedMax, eviction of the oldest documents by count and by size (with their index entries),
natural order both ways, deletes and size-changing updates, a document larger than the cap,
collStats and $collStats, convertToCapped and cloneCollectionAsCapped, eviction after a
restart, and tailable cursors: the non-capped error, an empty collection's dead cursor, getMore
after new inserts, awaitData waiting for an insert or maxTimeMS, CappedPositionLost."""

import threading
import time
import unittest

import pymongo
from pymongo.errors import OperationFailure, WriteError

from harness import CairnServer, ServerTestCase


class CappedCollectionTest(ServerTestCase):
    def setUp(self):
        self.db = self.client["py_capped"]

    def create(self, name, **options):
        self.db.drop_collection(name)
        return self.db.create_collection(name, capped=True, **options)

    def ids(self, coll, **kwargs):
        return [doc["_id"] for doc in coll.find(**kwargs)]

    def assert_command_error(self, command, code, message=None):
        with self.assertRaises(OperationFailure) as caught:
            self.db.command(command)
        self.assertEqual(caught.exception.code, code, caught.exception.details)
        if message is not None:
            self.assertEqual(caught.exception.details["errmsg"], message)

    def test_create_errors(self):
        cases = [
            ({"create": "bad", "capped": True}, 72,
             "the 'size' field is required when 'capped' is true"),
            ({"create": "bad", "capped": True, "max": 5}, 72,
             "the 'size' field is required when 'capped' is true"),
            ({"create": "bad", "size": 1000}, 72,
             "the 'capped' field needs to be true when either the 'size' or 'max' fields are present"),
            ({"create": "bad", "max": 3}, 72,
             "the 'capped' field needs to be true when either the 'size' or 'max' fields are present"),
            ({"create": "bad", "capped": True, "size": 0}, 51024,
             "BSON field 'size' value must be >= 1, actual value '0'"),
            ({"create": "bad", "capped": True, "size": -500}, 51024,
             "BSON field 'size' value must be >= 1, actual value '-500'"),
            ({"create": "bad", "capped": True, "size": "foo"}, 14, None),
            ({"create": "bad", "capped": True, "size": 100, "max": 2 ** 31}, 2,
             "max in a capped collection has to be < 2^31 or not set"),
        ]
        for command, code, message in cases:
            with self.subTest(command=command):
                self.assert_command_error(command, code, message)
        self.assertNotIn("bad", self.db.list_collection_names())

    def test_list_collections_shows_limits_as_given(self):
        self.create("sized", size=1000, max=3)
        self.create("odd", size=4097)
        self.create("unlimited", size=5000, max=0)
        options = {c["name"]: c["options"] for c in self.db.list_collections()}
        self.assertEqual(options["sized"], {"capped": True, "size": 1024, "max": 3})
        self.assertEqual(options["odd"], {"capped": True, "size": 4352})
        # As MongoDB, a max <= 0 means no limit and is shown as 2^31-1.
        self.assertEqual(options["unlimited"], {"capped": True, "size": 5120, "max": 2 ** 31 - 1})
        # The same create again is a no-op; different limits are NamespaceExists.
        self.db.command({"create": "sized", "capped": True, "size": 1000, "max": 3})
        self.assert_command_error({"create": "sized", "capped": True, "size": 2000}, 48)

    def test_max_evicts_oldest_in_natural_order(self):
        coll = self.create("bymax", size=100000, max=3)
        for i in range(5):
            coll.insert_one({"_id": i})
        self.assertEqual(self.ids(coll), [2, 3, 4])
        self.assertEqual(self.ids(coll, sort=[("$natural", -1)]), [4, 3, 2])
        # One insertMany larger than the cap keeps only its newest documents.
        coll.insert_many([{"_id": 10 + i} for i in range(5)])
        self.assertEqual(self.ids(coll), [12, 13, 14])
        self.assertEqual(coll.count_documents({}), 3)
        # Evicted _ids are free again and no longer found.
        self.assertIsNone(coll.find_one({"_id": 2}))
        coll.insert_one({"_id": 2})
        self.assertEqual(self.ids(coll), [13, 14, 2])

    def test_size_evicts_and_secondary_index_stays_exact(self):
        coll = self.create("bysize", size=1000)
        coll.create_index("k", unique=True)
        for i in range(40):
            coll.insert_one({"_id": i, "k": i, "pad": "x" * 50})
        stats = self.db.command("collStats", "bysize")
        self.assertLessEqual(stats["size"], 1024)
        kept = self.ids(coll)
        self.assertEqual(kept, list(range(40 - len(kept), 40)))
        # The evicted documents' unique keys are gone from the index.
        self.assertEqual(coll.count_documents({"k": {"$lt": kept[0]}}), 0)
        self.assertEqual([d["_id"] for d in coll.find({"k": kept[0]}).hint("k_1")], [kept[0]])
        coll.insert_one({"_id": 100, "k": 0})
        self.assertEqual(coll.find_one({"k": 0})["_id"], 100)

    def test_document_larger_than_cap_is_refused(self):
        coll = self.create("small", size=256)
        coll.insert_one({"_id": 1})
        with self.assertRaises(WriteError) as caught:
            coll.insert_one({"_id": 2, "pad": "x" * 300})
        self.assertEqual(caught.exception.code, 2)
        self.assertEqual(caught.exception.details["errmsg"], "object to insert exceeds cappedMaxSize")
        self.assertEqual(self.ids(coll), [1])

    def test_deletes_and_growing_updates_are_allowed(self):
        coll = self.create("mutable", size=256)
        coll.insert_many([{"_id": i, "v": "a"} for i in range(5)])
        coll.delete_one({"_id": 0})
        self.assertEqual(self.ids(coll), [1, 2, 3, 4])
        # Since MongoDB 6.0 an update may change a document's size; eviction waits for an insert.
        coll.update_one({"_id": 1}, {"$set": {"v": "b" * 300}})
        self.assertEqual(coll.find_one({"_id": 1})["v"], "b" * 300)
        coll.insert_one({"_id": 5, "v": "c"})
        stats = self.db.command("collStats", "mutable")
        self.assertLessEqual(stats["size"], 256)
        self.assertEqual(self.ids(coll)[-1], 5)
        self.assertNotIn(1, self.ids(coll))

    def test_coll_stats_and_coll_stats_stage(self):
        coll = self.create("stats", size=4096, max=10)
        coll.insert_many([{"_id": i} for i in range(3)])
        stats = self.db.command("collStats", "stats")
        self.assertEqual(stats["ns"], "py_capped.stats")
        self.assertEqual(stats["count"], 3)
        self.assertTrue(stats["capped"])
        self.assertEqual(stats["max"], 10)
        self.assertEqual(stats["maxSize"], 4096)
        self.assertEqual(stats["nindexes"], 1)
        self.assertIn("_id_", stats["indexSizes"])
        self.assertEqual(stats["avgObjSize"], stats["size"] // 3)
        result = list(coll.aggregate([
            {"$collStats": {"storageStats": {}, "count": {}}},
            {"$project": {"_id": 0, "capped": "$storageStats.capped",
                          "maxSize": "$storageStats.maxSize", "n": "$count.count"}}]))
        self.assertEqual(result, [{"capped": True, "maxSize": 4096, "n": 3}])
        self.db.drop_collection("plain")
        self.db.plain.insert_one({})
        self.assertFalse(self.db.command("collStats", "plain")["capped"])
        self.assertNotIn("maxSize", self.db.command("collStats", "plain"))

    def test_coll_mod_changes_the_limits(self):
        coll = self.create("resize", size=100000, max=10)
        coll.insert_many([{"_id": i} for i in range(8)])
        self.db.command({"collMod": "resize", "cappedMax": 3, "cappedSize": 50000})
        self.assertEqual(next(self.db.list_collections(filter={"name": "resize"}))["options"],
                         {"capped": True, "size": 50176, "max": 3})
        # As MongoDB, the collection shrinks at its next insert.
        self.assertEqual(coll.count_documents({}), 8)
        coll.insert_one({"_id": 8})
        self.assertEqual(self.ids(coll), [6, 7, 8])
        self.assert_command_error({"collMod": "resize", "cappedSize": 0}, 51024)
        self.assert_command_error({"collMod": "resize", "cappedMax": 2 ** 31}, 2)
        self.db.drop_collection("plain2")
        self.db.plain2.insert_one({})
        self.assert_command_error({"collMod": "plain2", "cappedSize": 1000}, 72,
                                  "Collection must be capped.")

    def test_convert_to_capped_and_clone_as_capped(self):
        self.db.drop_collection("conv")
        self.db.conv.insert_many([{"_id": i, "pad": "y" * 40} for i in range(50)])
        self.db.conv.create_index("pad")
        self.db.command({"convertToCapped": "conv", "size": 600})
        options = next(self.db.list_collections(filter={"name": "conv"}))["options"]
        self.assertEqual(options, {"capped": True, "size": 600})
        kept = self.ids(self.db.conv)
        self.assertTrue(0 < len(kept) < 50)
        self.assertEqual(kept, list(range(50 - len(kept), 50)))
        # As MongoDB, only the _id index remains.
        self.assertEqual([i["name"] for i in self.db.conv.list_indexes()], ["_id_"])

        self.db.drop_collection("clone")
        self.db.command({"cloneCollectionAsCapped": "conv", "toCollection": "clone", "size": 10000})
        self.assertEqual(self.ids(self.db.clone), kept)
        self.assertEqual(next(self.db.list_collections(filter={"name": "clone"}))["options"],
                         {"capped": True, "size": 10000})
        self.assert_command_error(
            {"cloneCollectionAsCapped": "conv", "toCollection": "clone", "size": 10000}, 48)
        self.assert_command_error(
            {"cloneCollectionAsCapped": "missing", "toCollection": "x", "size": 10000}, 26)
        self.assert_command_error({"convertToCapped": "missing", "size": 1000}, 26)


class TailableCursorTest(ServerTestCase):
    def setUp(self):
        self.db = self.client["py_tailable"]

    def make(self, name, **options):
        self.db.drop_collection(name)
        return self.db.create_collection(name, capped=True, size=100000, **options)

    def test_tailable_on_non_capped_collection_is_bad_value(self):
        self.db.drop_collection("plain")
        self.db.plain.insert_one({"a": 1})
        # (pymongo 3.11 swallows a tailable find's error, so the command is sent as is.)
        for extra in ({}, {"awaitData": True}):
            with self.assertRaises(OperationFailure) as caught:
                self.db.command(dict({"find": "plain", "tailable": True}, **extra))
            self.assertEqual(caught.exception.code, 2)
            self.assertEqual(
                caught.exception.details["errmsg"],
                "error processing query: ns=py_tailable.plainTree: $and\nSort: {}\nProj: {}\n "
                "tailable cursor requested on non capped collection")

    def test_option_errors(self):
        self.make("opts")
        cases = [
            ({"find": "opts", "awaitData": True}, 9),
            ({"find": "opts", "tailable": True, "sort": {"a": 1}}, 2),
            ({"find": "opts", "tailable": True, "singleBatch": True}, 2),
        ]
        for command, code in cases:
            with self.subTest(command=command):
                with self.assertRaises(OperationFailure) as caught:
                    self.db.command(command)
                self.assertEqual(caught.exception.code, code)
        # {$natural: 1} is the one sort allowed.
        self.db.command({"find": "opts", "tailable": True, "sort": {"$natural": 1}})

    def test_empty_or_missing_collection_gives_a_dead_cursor(self):
        self.make("empty")
        self.assertEqual(self.db.command({"find": "empty", "tailable": True})["cursor"]["id"], 0)
        self.assertEqual(self.db.command({"find": "nope", "tailable": True})["cursor"]["id"], 0)

    def test_tailable_cursor_sees_later_inserts(self):
        coll = self.make("log")
        coll.insert_many([{"_id": i} for i in range(3)])
        reply = self.db.command({"find": "log", "tailable": True, "filter": {"_id": {"$ne": 4}}})
        cursor_id = reply["cursor"]["id"]
        self.assertNotEqual(cursor_id, 0)
        self.assertEqual([d["_id"] for d in reply["cursor"]["firstBatch"]], [0, 1, 2])
        more = self.db.command({"getMore": cursor_id, "collection": "log"})["cursor"]
        self.assertEqual((more["nextBatch"], more["id"]), ([], cursor_id))
        coll.insert_many([{"_id": 3}, {"_id": 4}, {"_id": 5}])
        more = self.db.command({"getMore": cursor_id, "collection": "log"})["cursor"]
        self.assertEqual([d["_id"] for d in more["nextBatch"]], [3, 5])
        with self.assertRaises(OperationFailure) as caught:
            self.db.command({"getMore": cursor_id, "collection": "log", "maxTimeMS": 10})
        self.assertEqual(caught.exception.code, 2)  # maxTimeMS needs awaitData
        self.db.command({"killCursors": "log", "cursors": [cursor_id]})

    def test_pymongo_tailable_await_cursor(self):
        coll = self.make("await")
        coll.insert_one({"_id": 0})
        cursor = coll.find(cursor_type=pymongo.CursorType.TAILABLE_AWAIT).max_await_time_ms(300)
        self.assertEqual(next(cursor)["_id"], 0)
        threading.Timer(0.2, lambda: coll.insert_one({"_id": 1})).start()
        start = time.time()
        self.assertEqual(next(cursor)["_id"], 1)
        self.assertLess(time.time() - start, 5)
        self.assertTrue(cursor.alive)
        cursor.close()

    def test_await_data_waits_for_an_insert_or_max_time(self):
        coll = self.make("wait")
        coll.insert_one({"_id": 0})
        reply = self.db.command({"find": "wait", "tailable": True, "awaitData": True})
        cursor_id = reply["cursor"]["id"]
        start = time.time()
        more = self.db.command({"getMore": cursor_id, "collection": "wait", "maxTimeMS": 400})
        elapsed = time.time() - start
        self.assertEqual(more["cursor"]["nextBatch"], [])
        self.assertEqual(more["cursor"]["id"], cursor_id)
        self.assertGreaterEqual(elapsed, 0.35)
        # An insert wakes the waiting getMore before its maxTimeMS.
        threading.Timer(0.3, lambda: coll.insert_one({"_id": 1})).start()
        start = time.time()
        more = self.db.command({"getMore": cursor_id, "collection": "wait", "maxTimeMS": 10000})
        elapsed = time.time() - start
        self.assertEqual([d["_id"] for d in more["cursor"]["nextBatch"]], [1])
        self.assertLess(elapsed, 5)
        # The default wait is one second, and other connections are served meanwhile.
        other = self.server.client(maxPoolSize=1)
        pings = []
        threading.Timer(0.2, lambda: pings.append(self._timed_ping(other))).start()
        start = time.time()
        self.db.command({"getMore": cursor_id, "collection": "wait"})
        self.assertGreaterEqual(time.time() - start, 0.9)
        self.assertEqual(len(pings), 1)
        self.assertLess(pings[0], 0.5)
        other.close()

    @staticmethod
    def _timed_ping(client):
        start = time.time()
        client.admin.command("ping")
        return time.time() - start

    def test_capped_position_lost(self):
        coll = self.make("wrap", max=3)
        coll.insert_many([{"_id": i} for i in range(3)])
        reply = self.db.command({"find": "wrap", "tailable": True})
        cursor_id = reply["cursor"]["id"]
        coll.insert_many([{"_id": 10 + i} for i in range(5)])
        with self.assertRaises(OperationFailure) as caught:
            self.db.command({"getMore": cursor_id, "collection": "wrap"})
        self.assertEqual(caught.exception.code, 136)
        self.assertIn("CollectionScan died due to position in capped collection being deleted",
                      caught.exception.details["errmsg"])
        with self.assertRaises(OperationFailure) as caught:
            self.db.command({"getMore": cursor_id, "collection": "wrap"})
        self.assertEqual(caught.exception.code, 43)


class CappedRestartTest(unittest.TestCase):
    def test_eviction_continues_after_restart(self):
        server = CairnServer().start()
        try:
            client = server.client()
            db = client["py_capped_restart"]
            db.create_collection("r", capped=True, size=100000, max=4)
            db.r.insert_many([{"_id": i} for i in range(6)])
            client.close()
            server.stop(keep_dbpath=True)
            server.start()
            client = server.client()
            db = client["py_capped_restart"]
            self.assertEqual([d["_id"] for d in db.r.find()], [2, 3, 4, 5])
            db.r.insert_one({"_id": 6})
            self.assertEqual([d["_id"] for d in db.r.find()], [3, 4, 5, 6])
            self.assertEqual(db.command("collStats", "r")["count"], 4)
            client.close()
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main()
