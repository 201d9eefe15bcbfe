"""Cursor batches across getMores (pymongo 3.11, raw commands): after a getMore without
batchSize the server reads the next batch ahead, reply and all, while the client consumes the
last one. Whatever the next request is — a getMore with a batchSize, a getMore from another
connection, killCursors — the client sees exactly the documents, in order, that it would have
seen without the read-ahead."""

import threading
import time
import unittest

import bson

from pymongo.errors import OperationFailure

from harness import CairnServer, ServerTestCase, command, connect_raw

DOCS = 60000  # ~13 MB: several default batches
MAX_BATCH = 16 << 20  # MongoDB's bound on a batch's documents


class CursorBatchTest(ServerTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.db = cls.client.cursor_batches
        coll = cls.db.c
        for start in range(0, DOCS, 5000):
            coll.insert_many([{"_id": i, "n": i, "zero": 0 if i == 45000 else 1,
                               "pad": "p" * 180} for i in range(start, start + 5000)])

    def find(self, **options):
        command = {"find": "c", "batchSize": 101}
        command.update(options)
        return self.db.command(command)["cursor"]

    def get_more(self, cursor_id, db=None, **options):
        command = {"getMore": cursor_id, "collection": "c"}
        command.update(options)
        return (db or self.db).command(command)["cursor"]

    def test_default_batches_return_every_document_in_order(self):
        cursor = self.find()
        ids = [d["_id"] for d in cursor["firstBatch"]]
        batches = 0
        while cursor["id"] != 0:
            cursor = self.get_more(cursor["id"])
            batch = cursor["nextBatch"]
            size = sum(len(bson.BSON.encode(d)) for d in batch)
            self.assertLessEqual(size, MAX_BATCH)
            ids.extend(d["_id"] for d in batch)
            batches += 1
        self.assertEqual(ids, list(range(DOCS)))
        self.assertGreaterEqual(batches, 3)

    def test_a_batch_size_after_a_read_ahead_continues_where_the_last_batch_ended(self):
        cursor = self.find()
        ids = [d["_id"] for d in cursor["firstBatch"]]
        cursor = self.get_more(cursor["id"])  # the next default batch is now read ahead
        ids.extend(d["_id"] for d in cursor["nextBatch"])
        cursor = self.get_more(cursor["id"], batchSize=7)
        self.assertEqual([d["_id"] for d in cursor["nextBatch"]],
                         list(range(len(ids), len(ids) + 7)))
        ids.extend(d["_id"] for d in cursor["nextBatch"])
        while cursor["id"] != 0:
            cursor = self.get_more(cursor["id"])
            ids.extend(d["_id"] for d in cursor["nextBatch"])
        self.assertEqual(ids, list(range(DOCS)))

    def test_another_connection_continues_a_cursor_read_ahead(self):
        other = self.server.client()
        try:
            cursor = self.find()
            ids = [d["_id"] for d in cursor["firstBatch"]]
            cursor = self.get_more(cursor["id"])
            ids.extend(d["_id"] for d in cursor["nextBatch"])
            while cursor["id"] != 0:
                cursor = self.get_more(cursor["id"], db=other.cursor_batches)
                ids.extend(d["_id"] for d in cursor["nextBatch"])
            self.assertEqual(ids, list(range(DOCS)))
        finally:
            other.close()

    def test_kill_cursors_after_a_read_ahead(self):
        cursor = self.find()
        cursor = self.get_more(cursor["id"])
        cursor_id = cursor["id"]
        self.assertNotEqual(cursor_id, 0)
        killed = self.db.command({"killCursors": "c", "cursors": [cursor_id]})
        self.assertEqual(killed["cursorsKilled"], [cursor_id])
        with self.assertRaises(OperationFailure) as caught:
            self.get_more(cursor_id)
        self.assertEqual(caught.exception.code, 43)

    def test_projection_applies_once_to_batches_read_ahead(self):
        cursor = self.find(projection={"n": 1, "zero": 1, "pad": 1,
                                       "twice": {"$add": ["$n", "$n"]}})
        docs = list(cursor["firstBatch"])
        cursor = self.get_more(cursor["id"])
        docs.extend(cursor["nextBatch"])
        cursor = self.get_more(cursor["id"], batchSize=3)
        docs.extend(cursor["nextBatch"])
        while cursor["id"] != 0:
            cursor = self.get_more(cursor["id"])
            docs.extend(cursor["nextBatch"])
        self.assertEqual(len(docs), DOCS)
        for i, doc in enumerate(docs):
            self.assertEqual(doc, {"_id": i, "n": i, "zero": 0 if i == 45000 else 1,
                                   "pad": "p" * 180, "twice": 2 * i})

    def test_limit_ends_the_cursor_exactly(self):
        cursor = self.find(limit=50000)
        count = len(cursor["firstBatch"])
        while cursor["id"] != 0:
            cursor = self.get_more(cursor["id"])
            count += len(cursor["nextBatch"])
        self.assertEqual(count, 50000)

    def test_an_error_in_a_later_batch_fails_that_getmore_and_ends_the_cursor(self):
        # {$mod: [n, 0]} fails on the document whose zero field is 0 (the 45,001st).
        cursor = self.find(filter={"$expr": {"$gte": [{"$mod": ["$n", "$zero"]}, 0]}})
        seen = len(cursor["firstBatch"])
        with self.assertRaises(OperationFailure) as caught:
            while cursor["id"] != 0:
                cursor = self.get_more(cursor["id"])
                seen += len(cursor["nextBatch"])
        self.assertLess(seen, 45000)
        self.assertIn("Executor error during getMore :: caused by :: ", str(caught.exception))
        with self.assertRaises(OperationFailure) as gone:
            self.get_more(cursor["id"])
        self.assertEqual(gone.exception.code, 43)
        self.assertNotEqual(caught.exception.code, 43)

    def test_an_error_in_the_first_batch_fails_the_find_with_its_context(self):
        with self.assertRaises(OperationFailure) as caught:
            self.find(filter={"$expr": {"$gte": [{"$mod": ["$n", "$zero"]}, 0]}},
                      batchSize=50000)
        self.assertIn("Executor error during find command :: caused by :: ",
                      str(caught.exception))


class ShutdownDuringScanTest(unittest.TestCase):
    """SIGTERM while a client scans: the server finishes the request in flight and exits
    cleanly. Each connection keeps the I/O thread that reads ahead for it running, so a
    read-ahead posted there during shutdown is never left undone (a race too narrow for a test
    to force; this checks the clean stop around it)."""

    def test_the_server_stops_cleanly_while_a_scan_runs(self):
        server = CairnServer().start()
        try:
            client = server.client()
            coll = client.shutdown_scan.c
            for start in range(0, 20000, 5000):
                coll.insert_many([{"_id": i, "pad": "p" * 180} for i in range(start, start + 5000)])
            client.close()
            # One raw connection, so one I/O thread serves it and the other serves nothing.
            sock = connect_raw(server.port, timeout=30)
            passes = []
            stop = threading.Event()

            def scan():
                try:
                    while not stop.is_set():
                        reply = command(sock, {"find": "c"}, db="shutdown_scan").doc
                        cursor_id = reply["cursor"]["id"]
                        while cursor_id:
                            reply = command(sock, {"getMore": cursor_id, "collection": "c"},
                                            db="shutdown_scan").doc
                            cursor_id = reply["cursor"]["id"]
                        passes.append(1)
                except Exception:  # the server going away ends the scan
                    pass

            thread = threading.Thread(target=scan)
            thread.start()
            deadline = time.time() + 10
            while not passes and time.time() < deadline:
                time.sleep(0.01)
            self.assertTrue(passes, "the scan never completed a pass")
            self.assertEqual(server.stop(), 0)  # raises if it needed SIGKILL
            stop.set()
            thread.join(20)
            self.assertFalse(thread.is_alive())
            sock.close()
        finally:
            if server.alive:
                server.kill()
            server.cleanup()


if __name__ == "__main__":
    unittest.main()
