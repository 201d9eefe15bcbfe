"""The admin commands ops scripts, shells and GUIs send, as MongoDB 7.0 answers them (pymongo 3.11).

dbHash (src/mongo/db/commands/dbhash.cpp): an md5 per collection over its documents' BSON in _id
order, the database's md5 over those hex digests in name order. fsync / fsyncUnlock (fsync.cpp):
numFiles, lockCount nesting, writes held while locked and reads going on, IllegalOperation for an
unlock when not locked. compact (compact.cpp): bytesFreed, NamespaceNotFound, a primary's refusal
without force. reIndex (reindex.cpp): nIndexesWas/nIndexes/indexes on a standalone,
IllegalOperation on a replica set. lockInfo and top (top_command.cpp, db/stats/top.cpp). validate
on an index entry damaged in the stopped server's files (tools/debug/corrupt_index).
"""

import hashlib
import os
import subprocess
import threading
import time
import unittest

import bson
from bson.son import SON
from pymongo import ASCENDING
from pymongo.errors import OperationFailure

from harness import CAIRND, CairnServer, ServerTestCase

EMPTY_MD5 = hashlib.md5(b"").hexdigest()
DB_HASH_FIELDS = ["host", "collections", "capped", "uuids", "md5", "timeMillis", "ok"]
TOP_FIELDS = ["total", "readLock", "writeLock", "queries", "getmore", "insert", "update",
              "remove", "commands"]


def documents():
    return [SON([("_id", i), ("name", "doc%d" % i), ("tags", ["a", "b"][: i % 3]),
                 ("nested", SON([("n", i * 1.5)]))]) for i in range(50)]


def expected_md5(docs):
    """mongod's hash of a collection: md5 over each document's BSON, in _id order."""
    md5 = hashlib.md5()
    for doc in sorted(docs, key=lambda d: d["_id"]):
        md5.update(bson.BSON.encode(doc))
    return md5.hexdigest()


def db_hash(client, name, **kwargs):
    return client[name].command(SON([("dbHash", 1)] + list(kwargs.items())))


class DbHashTest(ServerTestCase):

    def test_empty_database(self):
        reply = db_hash(self.client, "dbhash_empty")
        self.assertEqual(list(reply.keys()), DB_HASH_FIELDS)
        self.assertEqual(reply["collections"], {})
        self.assertEqual(reply["capped"], [])
        self.assertEqual(reply["uuids"], {})
        self.assertEqual(reply["md5"], EMPTY_MD5)
        self.assertIsInstance(reply["timeMillis"], int)
        self.assertTrue(reply["host"])

    def test_hashes_are_mongods(self):
        db = self.client.dbhash_orders
        docs = documents()
        db.forward.insert_many(docs)
        for doc in reversed(docs):
            db.backward.insert_one(doc)
        db.create_collection("ring", capped=True, size=4096)
        db.ring.insert_one({"_id": 1})
        reply = db_hash(self.client, "dbhash_orders")
        hashes = reply["collections"]
        self.assertEqual(sorted(hashes), ["backward", "forward", "ring"])
        self.assertEqual(hashes["forward"], expected_md5(docs))
        self.assertEqual(hashes["backward"], hashes["forward"])
        self.assertEqual(hashes["ring"], expected_md5([{"_id": 1}]))
        self.assertEqual(reply["capped"], ["ring"])
        database = hashlib.md5("".join(hashes[name] for name in sorted(hashes)).encode())
        self.assertEqual(reply["md5"], database.hexdigest())
        uuids = {c["name"]: c["info"]["uuid"] for c in db.list_collections()}
        self.assertEqual(reply["uuids"], uuids)

    def test_collections_filter_and_changes(self):
        db = self.client.dbhash_changes
        db.a.insert_many([{"_id": i, "v": i} for i in range(10)])
        db.b.insert_one({"_id": 1})
        only_a = db_hash(self.client, "dbhash_changes", collections=["a"])
        self.assertEqual(list(only_a["collections"]), ["a"])
        before = db_hash(self.client, "dbhash_changes")
        db.a.update_one({"_id": 3}, {"$set": {"v": 30}})
        after = db_hash(self.client, "dbhash_changes")
        self.assertNotEqual(after["collections"]["a"], before["collections"]["a"])
        self.assertEqual(after["collections"]["b"], before["collections"]["b"])
        self.assertNotEqual(after["md5"], before["md5"])
        db.a.update_one({"_id": 3}, {"$set": {"v": 3}})
        self.assertEqual(db_hash(self.client, "dbhash_changes")["md5"], before["md5"])

    def test_local_is_not_hashed_and_bad_arguments(self):
        self.assertEqual(db_hash(self.client, "local")["collections"], {})
        with self.assertRaises(OperationFailure) as ctx:
            db_hash(self.client, "dbhash_bad", collections=[1])
        self.assertEqual(ctx.exception.code, 2)
        self.assertEqual(ctx.exception.details["errmsg"], "collections entries have to be strings")
        self.assertEqual(self.client.dbhash_bad.command("dbhash")["md5"], EMPTY_MD5)


class DbHashAcrossServersTest(unittest.TestCase):
    """Two servers holding the same documents (inserted in different orders) hash alike, and a
    server's hashes survive its restart."""

    def test_same_data_same_hash_and_restart(self):
        first = CairnServer().start()
        second = CairnServer().start()
        restarted = None
        try:
            docs = documents()
            with first.client() as client:
                client.shared.c.insert_many(docs)
                client.shared.d.insert_one({"_id": "x"})
                one = db_hash(client, "shared")
            with second.client() as client:
                client.shared.d.insert_one({"_id": "x"})
                for doc in docs[::-2] + docs[::2]:
                    client.shared.c.insert_one(doc)
                two = db_hash(client, "shared")
            self.assertEqual(one["collections"], two["collections"])
            self.assertEqual(one["md5"], two["md5"])
            first.stop(keep_dbpath=True)
            restarted = CairnServer(dbpath=first.dbpath).start()
            with restarted.client() as client:
                again = db_hash(client, "shared")
            self.assertEqual(again["md5"], one["md5"])
        finally:
            if restarted is not None:
                restarted.stop()
            first.stop(allow_unclean=True)
            first.owns_dbpath = True
            first.cleanup()
            second.stop()


class FsyncTest(ServerTestCase):

    def tearDown(self):
        # Never leave the server locked for the next test.
        while True:
            try:
                self.client.admin.command("fsyncUnlock")
            except OperationFailure:
                break

    def test_fsync_flushes(self):
        reply = self.client.admin.command("fsync")
        self.assertEqual(reply["numFiles"], 1)
        self.assertEqual(reply["ok"], 1.0)
        with self.assertRaises(OperationFailure) as ctx:
            self.client.test.command("fsync")
        self.assertEqual(ctx.exception.code, 13)

    def test_unlock_when_not_locked(self):
        with self.assertRaises(OperationFailure) as ctx:
            self.client.admin.command("fsyncUnlock")
        self.assertEqual(ctx.exception.code, 20)
        self.assertEqual(ctx.exception.details["errmsg"], "fsyncUnlock called when not locked")
        # db.fsyncLock() is a shell helper: the server has no fsyncLock command.
        with self.assertRaises(OperationFailure) as ctx:
            self.client.admin.command("fsyncLock")
        self.assertEqual(ctx.exception.code, 59)

    def test_lock_count_nests(self):
        first = self.client.admin.command("fsync", lock=True)
        self.assertEqual(first["lockCount"], 1)
        self.assertEqual(first["info"], "now locked against writes, use db.fsyncUnlock() to unlock")
        self.assertEqual(first["seeAlso"], "http://dochub.mongodb.org/core/fsynccommand")
        self.assertEqual(self.client.admin.command("fsync", lock=True)["lockCount"], 2)
        self.assertTrue(self.client.admin.command("currentOp").get("fsyncLock"))
        unlocked = self.client.admin.command("fsyncUnlock")
        self.assertEqual(unlocked["info"], "fsyncUnlock completed")
        self.assertEqual(unlocked["lockCount"], 1)
        self.assertEqual(self.client.admin.command("fsyncUnlock")["lockCount"], 0)
        self.assertNotIn("fsyncLock", self.client.admin.command("currentOp"))

    def test_writes_wait_reads_go_on(self):
        coll = self.client.fsync_test.c
        coll.insert_one({"_id": "before"})
        self.client.admin.command("fsync", lock=True)
        writer = self.server.client()
        reader = self.server.client()
        done = threading.Event()
        errors = []

        def write():
            try:
                writer.fsync_test.c.insert_one({"_id": "during"})
            except Exception as e:  # noqa: BLE001 - reported by the test
                errors.append(e)
            done.set()

        thread = threading.Thread(target=write)
        thread.start()
        try:
            self.assertFalse(done.wait(1.0), "the write completed while fsyncLocked")
            started = time.monotonic()
            self.assertEqual(reader.fsync_test.c.find_one({"_id": "before"}), {"_id": "before"})
            self.assertIsNone(reader.fsync_test.c.find_one({"_id": "during"}))
            self.assertLess(time.monotonic() - started, 1.0)
            self.assertFalse(done.is_set())
            self.client.admin.command("fsyncUnlock")
            self.assertTrue(done.wait(10), "the write did not complete after fsyncUnlock")
            self.assertEqual(errors, [])
            self.assertEqual(coll.find_one({"_id": "during"}), {"_id": "during"})
        finally:
            thread.join(10)
            writer.close()
            reader.close()


class CompactReIndexTest(ServerTestCase):

    def test_compact(self):
        db = self.client.compact_test
        db.c.insert_many([{"_id": i, "pad": "x" * 500} for i in range(2000)])
        db.c.delete_many({"_id": {"$gte": 100}})
        reply = db.command("compact", "c")
        self.assertEqual(list(reply.keys()), ["bytesFreed", "ok"])
        self.assertIsInstance(reply["bytesFreed"], int)
        self.assertGreaterEqual(reply["bytesFreed"], 0)
        self.assertEqual(db.c.count_documents({}), 100)
        with self.assertRaises(OperationFailure) as ctx:
            db.command("compact", "missing")
        self.assertEqual(ctx.exception.code, 26)
        self.assertEqual(ctx.exception.details["errmsg"], "collection does not exist")
        with self.assertRaises(OperationFailure) as ctx:
            self.client.compact_nowhere.command("compact", "c")
        self.assertEqual(ctx.exception.code, 26)
        self.assertEqual(ctx.exception.details["errmsg"], "database does not exist")

    def test_reindex(self):
        db = self.client.reindex_test
        db.c.insert_many([{"_id": i, "a": i % 7, "b": [i, i + 1]} for i in range(300)])
        db.c.create_index([("a", ASCENDING)])
        db.c.create_index([("b", ASCENDING)], name="b_multi")
        reply = db.command("reIndex", "c")
        self.assertEqual(list(reply.keys()), ["nIndexesWas", "nIndexes", "indexes", "ok"])
        self.assertEqual(reply["nIndexesWas"], 3)
        self.assertEqual(reply["nIndexes"], 3)
        self.assertEqual([spec["name"] for spec in reply["indexes"]], ["_id_", "a_1", "b_multi"])
        self.assertTrue(all(spec["v"] == 2 for spec in reply["indexes"]))
        self.assertEqual(db.c.count_documents({"a": 3}, hint="a_1"), 43)
        self.assertEqual(db.c.count_documents({"b": 5}, hint="b_multi"), 2)
        self.assertEqual(db.c.find_one({"_id": 42})["a"], 0)
        self.assertTrue(db.command("validate", "c", full=True)["valid"])
        with self.assertRaises(OperationFailure) as ctx:
            db.command("reIndex", "missing")
        self.assertEqual(ctx.exception.code, 26)


class ReplicaSetRefusalsTest(ServerTestCase):
    server_args = ("--replSet", "rs0", "--initiate")

    def test_reindex_and_compact_on_a_primary(self):
        db = self.client.rs_admin
        db.c.insert_one({"_id": 1})
        with self.assertRaises(OperationFailure) as ctx:
            db.command("reIndex", "c")
        self.assertEqual(ctx.exception.code, 20)
        self.assertEqual(ctx.exception.details["errmsg"],
                         "reIndex is only allowed on a standalone mongod instance. Cannot reIndex "
                         "'rs_admin.c' while replication is active")
        with self.assertRaises(OperationFailure) as ctx:
            db.command("compact", "c")
        self.assertEqual(ctx.exception.code, 20)
        self.assertIn("use force:true to force", ctx.exception.details["errmsg"])
        self.assertIn("bytesFreed", db.command("compact", "c", force=True))
        self.assertEqual(db.c.find_one(), {"_id": 1})


class LockInfoTopTest(ServerTestCase):

    def test_lock_info(self):
        reply = self.client.admin.command("lockInfo")
        self.assertEqual(reply["lockInfo"], [])
        with self.assertRaises(OperationFailure) as ctx:
            self.client.test.command("lockInfo")
        self.assertEqual(ctx.exception.code, 13)

    def test_top(self):
        coll = self.client.top_test.c
        coll.insert_one({"_id": 1})
        coll.insert_one({"_id": 2})
        coll.find_one({"_id": 1})
        coll.update_one({"_id": 1}, {"$set": {"x": 1}})
        coll.delete_one({"_id": 2})
        coll.count_documents({})
        totals = self.client.admin.command("top")["totals"]
        self.assertEqual(totals["note"], "all times in microseconds")
        usage = totals["top_test.c"]
        self.assertEqual(list(usage.keys()), TOP_FIELDS)
        for field in TOP_FIELDS:
            self.assertEqual(sorted(usage[field].keys()), ["count", "time"])
        self.assertEqual(usage["insert"]["count"], 2)
        self.assertEqual(usage["queries"]["count"], 1)
        self.assertEqual(usage["update"]["count"], 1)
        self.assertEqual(usage["remove"]["count"], 1)
        self.assertEqual(usage["commands"]["count"], 1)  # the count's aggregate
        self.assertEqual(usage["writeLock"]["count"], 4)
        self.assertEqual(usage["readLock"]["count"], 2)
        self.assertEqual(usage["total"]["count"], 6)
        self.assertGreaterEqual(usage["total"]["time"], usage["insert"]["time"])
        coll.drop()
        self.assertNotIn("top_test.c", self.client.admin.command("top")["totals"])
        with self.assertRaises(OperationFailure) as ctx:
            self.client.test.command("top")
        self.assertEqual(ctx.exception.code, 13)


def corrupt_index_tool():
    path = os.environ.get("CAIRN_CORRUPT_INDEX") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(CAIRND))), "tools", "debug",
        "corrupt_index")
    return path if os.path.exists(path) else None


@unittest.skipIf(corrupt_index_tool() is None, "tools/debug/corrupt_index is not built")
class ValidateCorruptedIndexTest(unittest.TestCase):
    """An index entry damaged in the files of a stopped server: validate reports it after the
    restart in MongoDB's shape, and repair puts it right."""

    def setUp(self):
        self.server = CairnServer().start()
        self.dbpath = self.server.dbpath
        with self.server.client() as client:
            client.v.c.insert_many([{"_id": i, "a": i * 10} for i in range(20)])
            client.v.c.create_index([("a", ASCENDING)])
        self.server.stop(keep_dbpath=True)
        self.server = None

    def tearDown(self):
        if self.server is not None:
            self.server.stop()
        shutil_server = CairnServer(dbpath=self.dbpath)
        shutil_server.owns_dbpath = True
        shutil_server.cleanup()

    def corrupt(self, index, action):
        result = subprocess.run([corrupt_index_tool(), self.dbpath, "v.c", index, action],
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)

    def restart(self):
        self.server = CairnServer(dbpath=self.dbpath).start()
        return self.server.client()

    def test_missing_entry_found_and_repaired(self):
        self.corrupt("a_1", "delete")
        with self.restart() as client:
            reply = client.v.command("validate", "c")
            self.assertFalse(reply["valid"])
            self.assertEqual(reply["keysPerIndex"], {"_id_": 20, "a_1": 19})
            self.assertEqual(reply["extraIndexEntries"], [])
            self.assertEqual(len(reply["missingIndexEntries"]), 1)
            missing = reply["missingIndexEntries"][0]
            self.assertEqual(missing["indexName"], "a_1")
            self.assertEqual(missing["idKey"], {"_id": 0})
            self.assertEqual(missing["indexKey"], {"a": 0})
            self.assertIn("Detected 1 missing index entries.", reply["warnings"])
            repaired = client.v.command("validate", "c", repair=True)
            self.assertTrue(repaired["valid"])
            self.assertTrue(repaired["repaired"])
            after = client.v.command("validate", "c")
            self.assertTrue(after["valid"])
            self.assertEqual(after["keysPerIndex"], {"_id_": 20, "a_1": 20})
            self.assertEqual(client.v.c.count_documents({"a": 0}, hint="a_1"), 1)

    def test_repointed_id_entry(self):
        self.corrupt("_id_", "repoint")
        with self.restart() as client:
            reply = client.v.command("validate", "c")
            self.assertFalse(reply["valid"])
            self.assertEqual([e["indexName"] for e in reply["extraIndexEntries"]], ["_id_"])
            self.assertEqual(reply["extraIndexEntries"][0]["indexKey"], {"_id": 0})
            self.assertEqual([e["indexName"] for e in reply["missingIndexEntries"]], ["_id_"])
            self.assertEqual(reply["missingIndexEntries"][0]["idKey"], {"_id": 0})
            self.assertTrue(client.v.command("validate", "c", repair=True)["valid"])
            self.assertTrue(client.v.command("validate", "c")["valid"])
            self.assertEqual(client.v.c.find_one({"_id": 0}), {"_id": 0, "a": 0})


if __name__ == "__main__":
    unittest.main()
