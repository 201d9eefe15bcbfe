"""The database profiler and the slow-query line, as a user of mongod sees them: `profile`
levels 0/1/2 with slowms, sampleRate and filter; entries in <db>.system.profile (a 1 MiB capped
collection) in mongod's shape, with what each operation's plan examined; the "Slow query" line
(id 51803) with planSummary, keysExamined and docsExamined; --profile at start-up; and
serverStatus's metrics.document, queryExecutor and operation counters that the same figures feed.
"""
import json
import unittest

import pymongo

from harness import CairnServer, ServerTestCase, wait_for


def entries(db, **query):
    """The profile entries of `db` matching `query`, oldest first, without the reads of
    system.profile itself."""
    return [e for e in db.system.profile.find(query).sort("$natural", 1)
            if e["ns"] != db.name + ".system.profile"]


class ProfilerTest(ServerTestCase):
    client_options = {"appname": "proftest"}

    def setUp(self):
        self.client.admin.command("profile", 0, slowms=100, sampleRate=1.0)

    def tearDown(self):
        for name in self.client.list_database_names():
            self.client[name].command("profile", 0, filter="unset")
        self.client.admin.command("profile", 0, slowms=100, sampleRate=1.0)

    def test_level_2_records_every_operation_in_mongods_shape(self):
        db = self.client.prof2
        db.c.insert_many([{"_id": i, "a": i, "b": i % 5} for i in range(50)])
        db.c.create_index("a")
        self.assertEqual(db.command("profile", 2)["was"], 0)
        db.c.insert_one({"_id": 100, "a": 100})
        list(db.c.find({"b": 3}))
        list(db.c.find({"a": {"$gte": 10, "$lt": 15}}))
        db.c.find_one({"_id": 7})
        db.c.update_many({"b": 1}, {"$set": {"x": 1}})
        db.c.delete_one({"a": 2})
        list(db.c.aggregate([{"$match": {"a": {"$lt": 20}}}, {"$group": {"_id": "$b"}}]))
        self.assertEqual(db.command("profile", 0)["was"], 2)
        db.c.find_one({"_id": 8})  # not profiled any more

        found = entries(db)
        ops = [(e["op"], e["ns"]) for e in found]
        # As in mongod, an operation is profiled by the settings it started under: the profile
        # command that turned profiling on is not, the one that turned it off is.
        self.assertEqual(ops, [("insert", "prof2.c"), ("query", "prof2.c"), ("query", "prof2.c"),
                               ("query", "prof2.c"), ("update", "prof2.c"), ("remove", "prof2.c"),
                               ("command", "prof2.c"), ("command", "prof2.$cmd")])
        insert, scan, ixscan, by_id, update, remove, aggregate = found[0:7]
        self.assertEqual(insert["ninserted"], 1)
        self.assertEqual(insert["command"]["insert"], "c")
        self.assertEqual(scan["command"]["filter"], {"b": 3})
        self.assertEqual((scan["planSummary"], scan["keysExamined"], scan["docsExamined"],
                          scan["nreturned"]), ("COLLSCAN", 0, 51, 10))
        self.assertTrue(scan["cursorExhausted"])
        self.assertEqual((ixscan["planSummary"], ixscan["keysExamined"], ixscan["docsExamined"],
                          ixscan["nreturned"]), ("IXSCAN { a: 1 }", 5, 5, 5))
        self.assertEqual((by_id["planSummary"], by_id["keysExamined"], by_id["docsExamined"],
                          by_id["nreturned"]), ("IDHACK", 1, 1, 1))
        self.assertEqual((update["nMatched"], update["nModified"], update["planSummary"]),
                         (10, 10, "COLLSCAN"))
        self.assertEqual((remove["ndeleted"], remove["planSummary"], remove["keysExamined"]),
                         (1, "IXSCAN { a: 1 }", 1))
        self.assertEqual((aggregate["planSummary"], aggregate["keysExamined"],
                          aggregate["nreturned"]), ("IXSCAN { a: 1 }", 19, 5))  # a: 2 deleted
        for entry in found:
            for field, kind in (("millis", int), ("responseLength", int), ("numYield", int),
                                ("protocol", str), ("client", str), ("user", str),
                                ("allUsers", list)):
                self.assertIsInstance(entry[field], kind, (field, entry))
            self.assertEqual(entry["client"], "127.0.0.1")
            self.assertEqual(entry["appName"], "proftest")
            self.assertEqual(entry["protocol"], "op_msg")
            self.assertIn("ts", entry)
        # system.profile is mongod's: capped at 1 MiB.
        info = db.command("listCollections", filter={"name": "system.profile"})
        options = info["cursor"]["firstBatch"][0]["options"]
        self.assertEqual((options["capped"], options["size"]), (True, 1024 * 1024))

    def test_getmore_entries_carry_the_cursor_and_what_each_batch_read(self):
        db = self.client.profmore
        db.c.insert_many([{"_id": i} for i in range(7)])
        db.command("profile", 2)
        self.assertEqual(len(list(db.c.find({}, batch_size=3))), 7)
        db.command("profile", 0)
        find = entries(db, op="query")
        more = entries(db, op="getmore")
        self.assertEqual(len(find), 1)
        self.assertEqual((find[0]["nreturned"], find[0]["docsExamined"]), (3, 3))
        self.assertIn("cursorid", find[0])
        self.assertEqual([e["nreturned"] for e in more], [3, 1])
        self.assertEqual(sum(e["docsExamined"] for e in more), 4)
        self.assertEqual(more[0]["cursorid"], find[0]["cursorid"])
        self.assertEqual(more[0]["command"]["getMore"], find[0]["cursorid"])
        self.assertNotIn("cursorExhausted", more[0])
        self.assertTrue(more[1]["cursorExhausted"])

    def test_getmores_answered_from_a_read_ahead_are_profiled_too(self):
        db = self.client.profahead
        db.c.insert_many([{"_id": i, "pad": "x" * 100} for i in range(30000)])
        db.command("profile", 2)
        self.assertEqual(len(list(db.c.find())), 30000)  # default batches: getMores read ahead
        db.command("profile", 0)
        more = entries(db, op="getmore")
        self.assertGreaterEqual(len(more), 2)
        self.assertEqual(sum(e["nreturned"] for e in more), 30000 - 101)
        self.assertEqual(sum(e["docsExamined"] for e in more), 30000 - 101)
        self.assertTrue(more[-1]["cursorExhausted"])
        for e in more:
            self.assertGreater(e["responseLength"], 0)

    def test_level_1_records_operations_over_slowms(self):
        db = self.client.prof1
        db.c.insert_one({"_id": 1})
        reply = db.command("profile", 1, slowms=100000)
        self.assertEqual((reply["was"], reply["slowms"]), (0, 100))
        self.assertEqual(db.command("profile", -1)["was"], 1)
        db.c.find_one({"_id": 1})
        self.assertEqual(entries(db, op="query"), [])  # fast: not recorded
        db.command("profile", 1, slowms=-1)
        db.c.find_one({"_id": 1}, comment="slow-enough")
        recorded = entries(db, op="query")
        self.assertEqual([e["command"]["comment"] for e in recorded], ["slow-enough"])
        db.command("profile", 1, sampleRate=0.0)
        db.c.find_one({"_id": 1}, comment="never-sampled")
        self.assertEqual(len(entries(db, op="query")), 1)

    def test_a_filter_picks_the_operations_profiled_and_logged(self):
        db = self.client.proffilter
        db.c.insert_many([{"_id": i} for i in range(5)])
        reply = db.command("profile", 1, filter={"op": "query", "nreturned": {"$gte": 3}})
        self.assertNotIn("filter", reply)  # the settings as they were
        status = db.command("profile", -1)
        self.assertEqual(status["filter"], {"op": "query", "nreturned": {"$gte": 3}})
        self.assertIn("slowms and sampleRate are not used", status["note"])
        list(db.c.find({}, comment="three-or-more"))
        db.c.find_one({"_id": 1}, comment="just-one")
        db.c.count_documents({})
        self.assertEqual([e["command"]["comment"] for e in entries(db)], ["three-or-more"])
        # The slow-query line follows the filter too, whatever slowms says.
        self.assertTrue(wait_for(lambda: any(
            '"Slow query"' in line and "three-or-more" in line for line in self.server.lines)))
        self.assertFalse(any('"Slow query"' in line and "just-one" in line
                             for line in self.server.lines))
        db.command("profile", 0, filter="unset")
        self.assertNotIn("filter", db.command("profile", -1))

    def test_the_settings_are_per_database_and_checked_before_anything_changes(self):
        a, b = self.client.profa, self.client.profb
        a.command("profile", 2)
        self.assertEqual(b.command("profile", -1)["was"], 0)
        b.x.insert_one({})
        self.assertNotIn("system.profile", b.list_collection_names())
        for args, code in (({"profile": 5}, 2), ({"profile": 1, "filter": {"$nope": 1}}, 2),
                           ({"profile": 1, "sampleRate": -1}, 2), ({"profile": 1, "filter": 3}, 14)):
            with self.assertRaises(pymongo.errors.OperationFailure) as caught:
                a.command(args)
            self.assertEqual(caught.exception.code, code, args)
        self.assertEqual(a.command("profile", -1)["was"], 2)
        a.command("profile", 0)

    def test_failed_operations_are_profiled_with_their_error(self):
        db = self.client.proferr
        db.command("profile", 2)
        with self.assertRaises(pymongo.errors.OperationFailure):
            db.c.find_one({"a": {"$nope": 1}})
        db.command("profile", 0)
        failed = entries(db, op="query")
        self.assertEqual(len(failed), 1)
        self.assertEqual((failed[0]["ok"], failed[0]["errCode"], failed[0]["errName"]),
                         (0, 2, "BadValue"))
        self.assertIn("$nope", failed[0]["errMsg"])

    def test_server_status_counts_documents_and_scans(self):
        db = self.client.profmetrics

        def metrics():
            m = self.client.admin.command("serverStatus")["metrics"]
            return m["document"], m["queryExecutor"], m["operation"]

        doc0, exe0, op0 = metrics()
        db.c.insert_many([{"_id": i, "v": i} for i in range(10)])
        list(db.c.find({"v": {"$gte": 4}}).sort("v", -1))  # collection scan, sorted in memory
        db.c.update_many({"v": {"$lt": 3}}, {"$inc": {"v": 100}})
        db.c.delete_many({"v": {"$gte": 100}})
        db.c.find_one({"_id": 5})
        doc1, exe1, op1 = metrics()
        self.assertEqual(doc1["inserted"] - doc0["inserted"], 10)
        self.assertEqual(doc1["updated"] - doc0["updated"], 3)
        self.assertEqual(doc1["deleted"] - doc0["deleted"], 3)
        self.assertEqual(doc1["returned"] - doc0["returned"], 6 + 1)
        self.assertEqual(exe1["scannedObjects"] - exe0["scannedObjects"], 10 + 10 + 10 + 1)
        self.assertEqual(exe1["scanned"] - exe0["scanned"], 1)
        self.assertEqual(exe1["collectionScans"]["total"] - exe0["collectionScans"]["total"], 3)
        self.assertEqual(op1["scanAndOrder"] - op0["scanAndOrder"], 1)
        self.assertIn("writeConflicts", op1)


class ProfileFlagTest(unittest.TestCase):
    def test_profile_at_start_up_sets_every_databases_level(self):
        server = CairnServer(args=("--profile", "2", "--slowms", "250")).start()
        try:
            client = server.client()
            db = client.started
            status = db.command("profile", -1)
            self.assertEqual((status["was"], status["slowms"]), (2, 250))
            db.c.insert_one({"_id": 1})
            self.assertEqual([e["op"] for e in entries(db, op="insert")], ["insert"])
            client.close()
        finally:
            server.stop()


class ProfilerInAReplicaSetTest(unittest.TestCase):
    def test_profile_entries_stay_out_of_the_oplog(self):
        server = CairnServer(args=("--replSet", "rs0", "--initiate")).start()
        try:
            client = server.client(directConnection=True)
            db = client.profrs
            db.command("profile", 2)
            db.c.insert_one({"_id": 1})
            db.command("profile", 0)
            self.assertEqual(len(entries(db, op="insert")), 1)
            oplog = client.local["oplog.rs"]
            self.assertEqual(oplog.count_documents({"ns": {"$regex": r"system\.profile"}}), 0)
            self.assertEqual(oplog.count_documents({"o.create": "system.profile"}), 0)
            self.assertEqual(oplog.count_documents({"ns": "profrs.c"}), 1)
            client.close()
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main()
