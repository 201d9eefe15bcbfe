"""Duplicate _ids are refused whatever the order the _ids arrive in. Inserts skip the storage
probe for an _id that sorts above every _id the collection has held (server_state.h), so these
cases pin what that shortcut must never change: a repeated _id below, at and above the largest,
after deletes, across _id types, within one batch, and after a restart (when the server has to
learn the largest _id from storage again)."""

import unittest

from pymongo.errors import BulkWriteError, DuplicateKeyError

from harness import CairnServer, ServerTestCase


class InsertDuplicatesTest(ServerTestCase):

    def setUp(self):
        self.coll = self.client.insert_duplicates[self._testMethodName]
        self.coll.drop()

    def assert_duplicate(self, doc):
        with self.assertRaises(DuplicateKeyError) as raised:
            self.coll.insert_one(doc)
        self.assertEqual(raised.exception.code, 11000)

    def test_every_existing_id_is_refused_in_ascending_batches(self):
        for start in range(0, 3000, 1000):
            self.coll.insert_many([{"_id": i} for i in range(start, start + 1000)])
        for i in (0, 1, 999, 1000, 2500, 2999):
            self.assert_duplicate({"_id": i})
        self.coll.insert_one({"_id": 3000})
        self.assertEqual(self.coll.count_documents({}), 3001)

    def test_a_batch_repeating_an_older_id_stops_there_when_ordered(self):
        self.coll.insert_many([{"_id": i} for i in range(10)])
        with self.assertRaises(BulkWriteError) as raised:
            self.coll.insert_many([{"_id": 10}, {"_id": 11}, {"_id": 4}, {"_id": 12}])
        details = raised.exception.details
        self.assertEqual(details["nInserted"], 2)
        self.assertEqual(details["writeErrors"][0]["index"], 2)
        self.assertEqual(details["writeErrors"][0]["code"], 11000)
        self.assertEqual(sorted(d["_id"] for d in self.coll.find()), list(range(12)))

    def test_a_batch_repeating_its_own_id_is_refused_when_unordered(self):
        with self.assertRaises(BulkWriteError) as raised:
            self.coll.insert_many([{"_id": 1}, {"_id": 2}, {"_id": 2}, {"_id": 3}], ordered=False)
        self.assertEqual(raised.exception.details["nInserted"], 3)
        self.assertEqual([e["index"] for e in raised.exception.details["writeErrors"]], [2])

    def test_a_deleted_largest_id_may_be_inserted_again(self):
        self.coll.insert_many([{"_id": i} for i in range(5)])
        self.coll.delete_one({"_id": 4})
        self.coll.insert_one({"_id": 4, "again": True})
        self.assertEqual(self.coll.find_one({"_id": 4}), {"_id": 4, "again": True})
        self.assert_duplicate({"_id": 4})

    def test_ids_of_other_types_are_told_apart(self):
        self.coll.insert_many([{"_id": 1}, {"_id": "1"}, {"_id": {"k": 1}}, {"_id": 1.5}])
        self.assert_duplicate({"_id": "1"})
        self.assert_duplicate({"_id": 1.0})  # the same number as 1
        self.assert_duplicate({"_id": {"k": 1}})
        self.coll.insert_one({"_id": "2"})
        self.assertEqual(self.coll.count_documents({}), 5)

    def test_upserts_and_inserts_share_the_bound(self):
        self.coll.update_one({"_id": 100}, {"$set": {"a": 1}}, upsert=True)
        self.assert_duplicate({"_id": 100})
        self.coll.insert_one({"_id": 101})
        self.assert_duplicate({"_id": 101})


class InsertDuplicatesAfterRestartTest(unittest.TestCase):

    def test_the_largest_id_is_learnt_again_from_storage(self):
        server = CairnServer().start()
        try:
            client = server.client()
            coll = client.dups_restart.c
            coll.insert_many([{"_id": i} for i in range(100)])
            client.close()
            server.stop(keep_dbpath=True)
            server.start()
            client = server.client()
            coll = client.dups_restart.c
            for i in (99, 0, 50):
                with self.assertRaises(DuplicateKeyError):
                    coll.insert_one({"_id": i})
            with self.assertRaises(BulkWriteError):
                coll.insert_many([{"_id": 100}, {"_id": 99}])
            self.assertEqual(coll.count_documents({}), 101)
            client.close()
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main()
