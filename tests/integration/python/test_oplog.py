"""The oplog of a --replSet member: local.oplog.rs in MongoDB's entry format.

Every insert, update, replacement and delete of a replicated namespace has its entry (op, ns,
ui, o, o2, ts, t, v, wall); updates are $v: 2 diffs; Timestamps are unique and increase, also
across a restart; tailable awaitData cursors on the oplog see new entries; --oplogSize caps it.
"""

import threading
import time
import unittest

import bson
from pymongo import CursorType

from harness import CairnServer


def entries(client, ns):
    return list(client.local["oplog.rs"].find({"ns": ns}).sort("$natural", 1))


class OplogEntries(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = CairnServer(args=["--replSet", "rs0", "--initiate", "--oplogSize", "1"]).start()
        cls.client = cls.server.client(directConnection=True)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.server.stop()

    def test_oplog_is_a_capped_collection_with_the_new_primary_entry(self):
        options = self.client.local["oplog.rs"].options()
        self.assertTrue(options["capped"])
        first = self.client.local["oplog.rs"].find_one({"op": "n"})
        self.assertEqual(first["o"], {"msg": "new primary"})

    def test_crud_entries(self):
        db = self.client.get_database("ops")
        db.c.insert_one({"_id": 1, "a": 1, "sub": {"x": 1, "y": 2}, "gone": True})
        db.c.update_one({"_id": 1}, {"$set": {"a": 2, "sub.x": 5, "new": "n"},
                                     "$unset": {"gone": ""}})
        db.c.replace_one({"_id": 1}, {"b": 1})
        db.c.delete_one({"_id": 1})
        uuid = db.command("listCollections", filter={"name": "c"})["cursor"]["firstBatch"][0][
            "info"]["uuid"]
        log = entries(self.client, "ops.c")
        self.assertEqual([e["op"] for e in log], ["i", "u", "u", "d"])
        insert, update, replace, delete = log
        for e in log:
            self.assertEqual(e["ui"], uuid)
            self.assertIsInstance(e["ts"], bson.Timestamp)
            self.assertEqual(e["v"], 2)
            self.assertIn("wall", e)
            self.assertIn("t", e)
        self.assertEqual(insert["o"], {"_id": 1, "a": 1, "sub": {"x": 1, "y": 2}, "gone": True})
        self.assertEqual(insert["o2"], {"_id": 1})
        self.assertEqual(update["o"], {"$v": 2, "diff": {"d": {"gone": False}, "u": {"a": 2},
                                                         "i": {"new": "n"},
                                                         "ssub": {"u": {"x": 5}}}})
        self.assertEqual(update["o2"], {"_id": 1})
        self.assertEqual(replace["o"], {"_id": 1, "b": 1})
        self.assertEqual(delete["o"], {"_id": 1})
        stamps = [(e["ts"].time, e["ts"].inc) for e in log]
        self.assertEqual(stamps, sorted(set(stamps)))

    def test_no_entry_for_a_failed_write_or_the_local_database(self):
        db = self.client.get_database("fail")
        db.c.insert_one({"_id": 1})
        with self.assertRaises(Exception):
            db.c.insert_one({"_id": 1})
        self.client.local.scratch.insert_one({"x": 1})
        self.assertEqual(len(entries(self.client, "fail.c")), 1)
        self.assertEqual(entries(self.client, "local.scratch"), [])

    def test_oplog_size_caps_it(self):
        db = self.client.get_database("big")
        payload = "x" * 100_000
        for i in range(30):  # 3 MB through a 1 MB oplog
            db.c.insert_one({"_id": i, "p": payload})
        stats = self.client.local.command("collStats", "oplog.rs")
        self.assertLessEqual(stats["size"], 1024 * 1024 + 200_000)
        self.assertEqual(db.c.count_documents({}), 30)

    def test_tailing_the_oplog(self):
        oplog = self.client.local["oplog.rs"]
        last = oplog.find().sort("$natural", -1).limit(1).next()["ts"]
        cursor = oplog.find({"ts": {"$gt": last}}, cursor_type=CursorType.TAILABLE_AWAIT).max_await_time_ms(5000)
        seen = []

        def tail():
            for _ in range(50):
                for entry in cursor:
                    seen.append(entry)
                if len(seen) >= 2:  # the collection's create entry, then the insert's
                    return

        thread = threading.Thread(target=tail)
        thread.start()
        time.sleep(0.3)
        self.client.get_database("tail").c.insert_one({"_id": "t"})
        thread.join(20)
        cursor.close()
        self.assertEqual(len(seen), 2)
        # The insert created the collection: its create entry comes first.
        self.assertEqual((seen[0]["op"], seen[0]["ns"], seen[0]["o"]["create"]),
                         ("c", "tail.$cmd", "c"))
        self.assertEqual(seen[1]["ns"], "tail.c")
        self.assertEqual(seen[1]["o"], {"_id": "t"})


class OplogAcrossRestarts(unittest.TestCase):
    def test_timestamps_keep_increasing(self):
        server = CairnServer(args=["--replSet", "rs0", "--initiate"]).start()
        try:
            client = server.client(directConnection=True, retryWrites=False)
            db = client.get_database("r")
            for i in range(200):  # many entries in the same second
                db.c.insert_one({"_id": i})
            before = client.local["oplog.rs"].find().sort("$natural", -1).limit(1).next()["ts"]
            client.close()
            server.stop(keep_dbpath=True)
            server = CairnServer(dbpath=server.dbpath, args=["--replSet", "rs0"], port=server.port)
            server.owns_dbpath = True
            server.start()
            client = server.client(directConnection=True, retryWrites=False)
            client.get_database("r").c.insert_one({"_id": "after"})
            after = client.local["oplog.rs"].find_one({"o._id": "after"})["ts"]
            self.assertGreater((after.time, after.inc), (before.time, before.inc))
            self.assertEqual(str(client.admin.command("hello")["electionId"])[-1], "2")
            client.close()
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main()
