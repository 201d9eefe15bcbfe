"""readConcern: parsed and checked as mongod does, on a standalone and on a one-member set.

Specifies what a user sees: the levels each command takes, causal consistency (a session's reads
after its writes, afterClusterTime in the future refused), what a standalone refuses, and
snapshot reads (atClusterTime older than the newest write: SnapshotTooOld, as a server that keeps
no history answers).
"""

import unittest

from bson.timestamp import Timestamp
from pymongo.errors import OperationFailure
from pymongo.read_concern import ReadConcern

from harness import ServerTestCase


def error_of(test, db, command):
    with test.assertRaises(OperationFailure) as caught:
        db.command(command)
    return caught.exception.details


class ReadConcernOnAReplicaSet(ServerTestCase):
    server_args = ("--replSet", "rs0", "--initiate")
    client_options = {"directConnection": True}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.db = cls.client.get_database("rc")

    def test_levels_on_reads(self):
        self.db.c.insert_one({"_id": "levels"})
        for level in ("local", "majority", "available", "linearizable", "snapshot"):
            reply = self.db.command({"find": "c", "filter": {"_id": "levels"},
                                     "readConcern": {"level": level}})
            self.assertEqual(reply["cursor"]["firstBatch"], [{"_id": "levels"}], level)
        coll = self.db.get_collection("c", read_concern=ReadConcern("majority"))
        self.assertEqual(coll.count_documents({"_id": "levels"}), 1)
        self.assertEqual(coll.distinct("_id", {"_id": "levels"}), ["levels"])
        self.assertEqual(list(coll.aggregate([{"$match": {"_id": "levels"}}])),
                         [{"_id": "levels"}])

    def test_parse_errors(self):
        cases = [
            ({"level": "strong"}, 9, "readConcern.level must be either 'local', 'majority', "
                                     "'linearizable', 'available', or 'snapshot'"),
            ("majority", 9, "readConcern field should be an object"),
            ({"level": 1}, 14, None),
            ({"afterClusterTime": 5}, 14, None),
            ({"level": "local", "other": 1}, 72, "Unrecognized option in readConcern: other"),
            ({"level": "available", "afterClusterTime": Timestamp(1, 1)}, 72, None),
            ({"level": "local", "atClusterTime": Timestamp(1, 1)}, 72,
             "atClusterTime field can be set only if level is equal to snapshot"),
            ({"afterClusterTime": Timestamp(0, 0)}, 72,
             "afterClusterTime cannot be a null timestamp"),
        ]
        for concern, code, message in cases:
            details = error_of(self, self.db, {"find": "c", "readConcern": concern})
            self.assertEqual(details["code"], code, concern)
            if message is not None:
                self.assertEqual(details["errmsg"], message)

    def test_commands_that_take_only_local(self):
        details = error_of(self, self.db, {"insert": "c", "documents": [{"_id": "nope"}],
                                           "readConcern": {"level": "majority"}})
        self.assertEqual(details["code"], 72)
        self.assertTrue(details["errmsg"].startswith(
            'Command insert does not support { readConcern: { level: "majority"'),
            details["errmsg"])
        self.assertIsNone(self.db.c.find_one({"_id": "nope"}))  # nothing ran
        details = error_of(self, self.db, {"count": "c", "readConcern": {"level": "snapshot"}})
        self.assertIn("read concern snapshot not supported", details["errmsg"])
        self.db.command({"insert": "c", "documents": [{"_id": "local"}],
                         "readConcern": {"level": "local"}})

    def test_causally_consistent_session_reads_its_writes(self):
        with self.client.start_session(causal_consistency=True) as session:
            coll = self.db.causal
            coll.insert_one({"_id": 1}, session=session)
            self.assertIsNotNone(session.operation_time)
            # The driver sends readConcern {afterClusterTime: <operationTime>} from here on.
            self.assertEqual(coll.find_one({"_id": 1}, session=session), {"_id": 1})
            self.assertEqual(coll.count_documents({}, session=session), 1)

    def test_after_cluster_time(self):
        reply = self.db.command("ping")
        now = reply["$clusterTime"]["clusterTime"]
        self.db.command({"find": "c", "readConcern": {"afterClusterTime": now}})
        self.db.command({"find": "c", "readConcern": {"level": "majority",
                                                      "afterClusterTime": now}})
        future = Timestamp(now.time + 3600, 0)
        details = error_of(self, self.db, {"find": "c",
                                           "readConcern": {"afterClusterTime": future}})
        self.assertEqual(details["code"], 72)
        self.assertIn("value must not be greater than the current clusterTime", details["errmsg"])

    def test_snapshot_at_cluster_time(self):
        self.db.snap.insert_one({"_id": 1})
        now = self.db.command("ping")["$clusterTime"]["clusterTime"]
        reply = self.db.command({"find": "snap", "readConcern": {"level": "snapshot",
                                                                 "atClusterTime": now}})
        self.assertEqual(reply["cursor"]["firstBatch"], [{"_id": 1}])
        self.db.snap.insert_one({"_id": 2})
        details = error_of(self, self.db, {"find": "snap", "readConcern": {
            "level": "snapshot", "atClusterTime": now}})
        self.assertEqual(details["code"], 239)
        self.assertEqual(details["codeName"], "SnapshotTooOld")


class ReadConcernOnAStandalone(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.db = cls.client.get_database("rc")

    def test_what_needs_replication(self):
        self.db.c.insert_one({"_id": 1})
        for level in ("local", "majority", "available"):
            reply = self.db.command({"find": "c", "readConcern": {"level": level}})
            self.assertEqual(reply["cursor"]["firstBatch"], [{"_id": 1}])
        for level, message in (("snapshot", "readConcern: snapshot"), ("linearizable", "")):
            details = error_of(self, self.db, {"find": "c", "readConcern": {"level": level}})
            self.assertEqual(details["code"], 123)
            self.assertEqual(details["codeName"], "NotAReplicaSet")
            self.assertIn(message, details["errmsg"])
        details = error_of(self, self.db, {"find": "c", "readConcern": {
            "afterClusterTime": Timestamp(1, 1)}})
        self.assertEqual(details["code"], 20)
        self.assertEqual(details["errmsg"],
                         "Cannot specify afterClusterTime readConcern without replication enabled")


if __name__ == "__main__":
    unittest.main()
