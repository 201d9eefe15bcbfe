"""Reads by _id and through an index see every acknowledged write, even though the server
caches small documents write-through as they are inserted (server/exec/id_cache.h): a document
inserted and then changed or removed within the same command, an insert that failed, an update
of many documents and a capped collection's evictions all read back as MongoDB would answer."""

import unittest

from pymongo import ASCENDING
from pymongo.errors import BulkWriteError

from harness import ServerTestCase


class PointReadCacheTest(ServerTestCase):

    def setUp(self):
        self.db = self.client.point_read_cache

    def test_an_upsert_then_update_in_one_command_reads_back_the_update(self):
        coll = self.db.upserted
        coll.drop()
        reply = self.db.command({"update": "upserted", "updates": [
            {"q": {"_id": 1}, "u": {"$set": {"a": 1}}, "upsert": True},
            {"q": {"_id": 1}, "u": {"$set": {"a": 2}}},
        ]})
        self.assertEqual(reply["n"], 2)
        self.assertEqual(coll.find_one({"_id": 1}), {"_id": 1, "a": 2})

    def test_an_upsert_then_delete_reads_back_nothing(self):
        coll = self.db.upsert_delete
        coll.drop()
        coll.update_one({"_id": 7}, {"$set": {"a": 1}}, upsert=True)
        self.assertEqual(coll.find_one({"_id": 7}), {"_id": 7, "a": 1})
        coll.delete_one({"_id": 7})
        self.assertIsNone(coll.find_one({"_id": 7}))

    def test_reads_after_inserts_and_updates_see_the_latest_version(self):
        coll = self.db.many
        coll.drop()
        coll.create_index([("k", ASCENDING)])
        coll.insert_many([{"_id": i, "k": i, "v": 0} for i in range(2000)])
        for i in range(0, 2000, 97):  # warm: some by _id, some through the index
            coll.find_one({"_id": i})
            coll.find_one({"k": i})
        coll.update_many({"_id": {"$mod": [3, 0]}}, {"$inc": {"v": 1}})
        coll.delete_many({"_id": {"$mod": [5, 0]}})
        for i in range(2000):
            expected = None if i % 5 == 0 else {"_id": i, "k": i, "v": 1 if i % 3 == 0 else 0}
            self.assertEqual(coll.find_one({"_id": i}), expected, i)
            self.assertEqual(coll.find_one({"k": i}), expected, i)

    def test_an_ordered_insert_stopped_by_a_duplicate_leaves_the_rest_unreadable(self):
        coll = self.db.duplicates
        coll.drop()
        with self.assertRaises(BulkWriteError) as raised:
            coll.insert_many([{"_id": 1, "a": "first"}, {"_id": 2}, {"_id": 1, "a": "again"},
                              {"_id": 3}])
        self.assertEqual(raised.exception.details["nInserted"], 2)
        self.assertEqual(coll.find_one({"_id": 1}), {"_id": 1, "a": "first"})
        self.assertEqual(coll.find_one({"_id": 2}), {"_id": 2})
        self.assertIsNone(coll.find_one({"_id": 3}))

    def test_documents_a_capped_insert_evicts_are_gone_by_id(self):
        coll = self.db.capped
        coll.drop()
        self.db.create_collection("capped", capped=True, size=4096, max=3)
        coll.insert_many([{"_id": i, "n": i} for i in range(10)])
        for i in range(7):
            self.assertIsNone(coll.find_one({"_id": i}), i)
        for i in range(7, 10):
            self.assertEqual(coll.find_one({"_id": i}), {"_id": i, "n": i})

    def test_a_replaced_document_of_the_same_size_reads_back_replaced(self):
        coll = self.db.replaced
        coll.drop()
        coll.insert_one({"_id": "x", "s": "aaaa"})
        self.assertEqual(coll.find_one({"_id": "x"})["s"], "aaaa")
        coll.replace_one({"_id": "x"}, {"s": "bbbb"})
        self.assertEqual(coll.find_one({"_id": "x"}), {"_id": "x", "s": "bbbb"})
        coll.find_one_and_update({"_id": "x"}, {"$set": {"s": "cccc"}})
        self.assertEqual(coll.find_one({"_id": "x"}), {"_id": "x", "s": "cccc"})


if __name__ == "__main__":
    unittest.main()
