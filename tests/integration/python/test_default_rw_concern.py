"""getDefaultRWConcern / setDefaultRWConcern: the cluster-wide default read and write concerns, as
MongoDB 7.0 answers them (src/mongo/db/commands/rwc_defaults_commands.cpp,
src/mongo/db/read_write_concern_defaults.cpp) on a one-member replica set and on a standalone.

A replica set member answers the implicit defaults ({level: "local"}, {w: "majority", wtimeout:
0} once initiated) until some are set; setDefaultRWConcern validates them (BadValue for an
unsuitable level, w: 0, a concern without w, provenance; IllegalOperation for unsetting the
default write concern), stores them in config.settings {_id: "ReadWriteConcernDefaults"} (they
survive a restart) and they apply to the commands that give none. A standalone refuses both
commands with 51300.
"""

import datetime
import unittest

import bson
from bson.int64 import Int64
from bson.timestamp import Timestamp
from pymongo.errors import NotMasterError, OperationFailure

from harness import CairnServer, ServerTestCase


def command_error(test, db, command, code, **kwargs):
    with test.assertRaises((OperationFailure, NotMasterError)) as caught:
        db.command(command, **kwargs)
    details = caught.exception.details
    test.assertEqual(details["code"], code, details)
    return details


class Standalone(ServerTestCase):
    def test_both_commands_are_refused(self):
        admin = self.client.admin
        details = command_error(self, admin, {"getDefaultRWConcern": 1}, 51300)
        self.assertEqual(details["codeName"], "Location51300")
        self.assertEqual(details["errmsg"],
                         "'getDefaultRWConcern' is not supported on standalone nodes.")
        details = command_error(
            self, admin, {"setDefaultRWConcern": 1, "defaultReadConcern": {"level": "local"}},
            51300)
        self.assertEqual(details["errmsg"],
                         "'setDefaultRWConcern' is not supported on standalone nodes.")
        # The arguments are parsed first.
        command_error(self, admin, {"setDefaultRWConcern": 1, "defaultReadConcern": 1}, 14)
        # Nothing was stored.
        self.assertNotIn("config", self.client.list_database_names())

    def test_admin_only_and_listed(self):
        details = command_error(self, self.client.test, {"getDefaultRWConcern": 1}, 13)
        self.assertEqual(details["errmsg"],
                         "getDefaultRWConcern may only be run against the admin database.")
        command_error(self, self.client.test,
                      {"setDefaultRWConcern": 1, "defaultWriteConcern": {"w": 1}}, 13)
        commands = self.client.admin.command("listCommands")["commands"]
        self.assertTrue(commands["getDefaultRWConcern"]["adminOnly"])
        self.assertTrue(commands["setDefaultRWConcern"]["adminOnly"])

    def test_no_default_rw_concern_in_server_status(self):
        self.assertNotIn("defaultRWConcern", self.client.admin.command("serverStatus"))


class ReplicaSetCase(unittest.TestCase):
    """A fresh initiated one-member set per test (the default write concern, once set, cannot be
    unset)."""

    server_args = ["--replSet", "rs0", "--initiate"]

    def setUp(self):
        self.server = CairnServer(args=self.server_args).start()
        # No retryable writes: the transactions below number themselves from 1 on sessions
        # pymongo may have used.
        self.client = self.server.client(directConnection=True, retryWrites=False)
        self.admin = self.client.admin

    def tearDown(self):
        self.client.close()
        self.server.stop()  # also removes the dbpath

    def set_defaults(self, **fields):
        command = bson.SON([("setDefaultRWConcern", 1)])
        command.update(fields)
        return self.admin.command(command)


class ReplicaSetCommands(ReplicaSetCase):
    def test_fresh_member_answers_the_implicit_defaults(self):
        reply = self.admin.command("getDefaultRWConcern")
        self.assertEqual(reply["defaultReadConcern"], {"level": "local"})
        self.assertEqual(reply["defaultWriteConcern"], {"w": "majority", "wtimeout": 0})
        self.assertEqual(reply["defaultReadConcernSource"], "implicit")
        self.assertEqual(reply["defaultWriteConcernSource"], "implicit")
        self.assertIsInstance(reply["localUpdateWallClockTime"], datetime.datetime)
        for absent in ("updateOpTime", "updateWallClockTime", "inMemory"):
            self.assertNotIn(absent, reply)
        self.assertEqual(list(reply)[:7], [
            "defaultReadConcern", "defaultWriteConcern", "defaultWriteConcernSource",
            "defaultReadConcernSource", "localUpdateWallClockTime", "ok", "$clusterTime"])
        in_memory = self.admin.command({"getDefaultRWConcern": 1, "inMemory": True})
        self.assertIs(in_memory["inMemory"], True)
        self.assertEqual(in_memory["defaultWriteConcern"], reply["defaultWriteConcern"])
        self.assertNotIn("inMemory", self.admin.command({"getDefaultRWConcern": 1,
                                                         "inMemory": False}))
        command_error(self, self.admin, {"getDefaultRWConcern": 1, "inMemory": "true"}, 14)
        command_error(self, self.client.test, {"getDefaultRWConcern": 1}, 13)
        # serverStatus reports the same.
        status = self.admin.command("serverStatus")["defaultRWConcern"]
        self.assertEqual(status["defaultWriteConcern"], {"w": "majority", "wtimeout": 0})
        self.assertEqual(status["defaultReadConcernSource"], "implicit")

    def test_set_then_get(self):
        before = self.admin.command("getDefaultRWConcern")["operationTime"]
        reply = self.set_defaults(defaultReadConcern={"level": "majority"},
                                  defaultWriteConcern={"w": 1})
        self.assertEqual(reply["defaultReadConcern"], {"level": "majority"})
        self.assertEqual(reply["defaultWriteConcern"], {"w": 1, "wtimeout": 0})
        self.assertEqual(reply["defaultReadConcernSource"], "global")
        self.assertEqual(reply["defaultWriteConcernSource"], "global")
        self.assertIsInstance(reply["updateOpTime"], Timestamp)
        self.assertGreaterEqual(reply["updateOpTime"], before)
        self.assertIsInstance(reply["updateWallClockTime"], datetime.datetime)
        self.assertIsInstance(reply["localUpdateWallClockTime"], datetime.datetime)
        self.assertEqual(list(reply)[:8], [
            "defaultReadConcern", "defaultWriteConcern", "updateOpTime", "updateWallClockTime",
            "defaultWriteConcernSource", "defaultReadConcernSource", "localUpdateWallClockTime",
            "ok"])
        got = self.admin.command("getDefaultRWConcern")
        for field in ("defaultReadConcern", "defaultWriteConcern", "updateOpTime",
                      "updateWallClockTime", "defaultReadConcernSource",
                      "defaultWriteConcernSource"):
            self.assertEqual(got[field], reply[field], field)
        # What is stored, where mongod stores it.
        stored = self.client.config.settings.find_one({"_id": "ReadWriteConcernDefaults"})
        self.assertEqual(list(stored), ["_id", "defaultReadConcern", "defaultWriteConcern",
                                        "updateOpTime", "updateWallClockTime"])
        self.assertEqual(stored["defaultWriteConcern"], {"w": 1, "wtimeout": 0})
        self.assertEqual(stored["updateOpTime"], reply["updateOpTime"])

        # A field left out keeps its value; {} unsets the default read concern.
        reply = self.set_defaults(defaultWriteConcern={"w": "majority", "j": True,
                                                       "wtimeout": 500})
        self.assertEqual(reply["defaultReadConcern"], {"level": "majority"})
        self.assertEqual(reply["defaultWriteConcern"], {"w": "majority", "j": True,
                                                        "wtimeout": 500})
        self.assertIsInstance(reply["defaultWriteConcern"]["wtimeout"], Int64)
        reply = self.set_defaults(defaultReadConcern={})
        self.assertEqual(reply["defaultReadConcern"], {"level": "local"})
        self.assertEqual(reply["defaultReadConcernSource"], "implicit")
        self.assertEqual(reply["defaultWriteConcernSource"], "global")
        reply = self.set_defaults(defaultReadConcern={"level": "available"},
                                  defaultWriteConcern={"w": 3})
        self.assertEqual(reply["defaultReadConcern"], {"level": "available"})
        self.assertEqual(reply["defaultWriteConcern"], {"w": 3, "wtimeout": 0})
        status = self.admin.command("serverStatus")["defaultRWConcern"]
        self.assertEqual(status["defaultReadConcern"], {"level": "available"})
        self.assertEqual(status["defaultWriteConcernSource"], "global")
        self.assertEqual(self.client.config.settings.count_documents({}), 1)

    def test_validation(self):
        cases = [
            ({}, 2, 'At least one of the "defaultReadConcern" or "defaultWriteConcern" fields '
                    "must be present"),
            ({"defaultWriteConcern": 1}, 14, None),
            ({"defaultReadConcern": 1}, 14, None),
            ({"defaultWriteConcern": {"w": 0}}, 2,
             "Unacknowledged write concern is not suitable for the default write concern"),
            ({"defaultWriteConcern": {"wtimeout": 60}}, 2,
             "Default write concern must have 'w' field."),
            ({"defaultWriteConcern": {"j": True}}, 2, "Default write concern must have 'w' field."),
            ({"defaultWriteConcern": {"w": 1, "provenance": "clientSupplied"}}, 2,
             "'provenance' must be unset in default write concern"),
            ({"defaultWriteConcern": {"w": "noSuchMode"}}, 79, None),
            ({"defaultReadConcern": {"level": "dummy"}}, 9, None),
            ({"defaultReadConcern": {"level": "linearizable"}}, 2,
             "level: 'linearizable' is not suitable for the default read concern"),
            ({"defaultReadConcern": {"level": "snapshot"}}, 2,
             "level: 'snapshot' is not suitable for the default read concern"),
            ({"defaultReadConcern": {"level": "snapshot", "atClusterTime": Timestamp(50, 1)}}, 2,
             None),
            ({"defaultReadConcern": {"level": "local", "afterClusterTime": Timestamp(50, 1)}}, 2,
             "'afterClusterTime' is not suitable for the default read concern"),
            ({"defaultReadConcern": {"level": "local",
                                     "afterOpTime": {"ts": Timestamp(50, 1), "t": 1}}}, 2,
             "'afterOpTime' is not suitable for the default read concern"),
            ({"defaultReadConcern": {"level": "local", "provenance": "clientSupplied"}}, 2,
             "'provenance' must be unset in default read concern"),
        ]
        for fields, code, message in cases:
            with self.subTest(fields=fields):
                command = bson.SON([("setDefaultRWConcern", 1)])
                command.update(fields)
                details = command_error(self, self.admin, command, code)
                if message is not None:
                    self.assertEqual(details["errmsg"], message)
        # Nothing was set.
        reply = self.admin.command("getDefaultRWConcern")
        self.assertEqual(reply["defaultWriteConcernSource"], "implicit")
        self.assertNotIn("updateOpTime", reply)
        command_error(self, self.client.test,
                      {"setDefaultRWConcern": 1, "defaultWriteConcern": {"w": 1}}, 13)

        # {} (or a wtimeout of 0 alone) is accepted while no default write concern is set...
        self.set_defaults(defaultWriteConcern={})
        self.set_defaults(defaultWriteConcern={"wtimeout": 0})
        reply = self.set_defaults(defaultReadConcern={"level": "local"})
        self.assertEqual(reply["defaultWriteConcern"], {"w": "majority", "wtimeout": 0})
        self.assertEqual(reply["defaultWriteConcernSource"], "implicit")
        self.assertEqual(reply["defaultReadConcernSource"], "global")
        # ...but a default write concern, once set, cannot be unset.
        self.set_defaults(defaultWriteConcern={"w": 1})
        details = command_error(self, self.admin,
                                {"setDefaultRWConcern": 1, "defaultWriteConcern": {}}, 20)
        self.assertEqual(details["errmsg"],
                         "The global default write concern cannot be unset once it is set.")
        reply = self.admin.command("getDefaultRWConcern")
        self.assertEqual(reply["defaultWriteConcern"], {"w": 1, "wtimeout": 0})

    def test_defaults_survive_a_restart(self):
        reply = self.set_defaults(defaultReadConcern={"level": "majority"},
                                  defaultWriteConcern={"w": 2, "wtimeout": 100})
        self.client.close()
        self.server.stop(keep_dbpath=True)
        self.server = CairnServer(dbpath=self.server.dbpath, args=["--replSet", "rs0"]).start()
        self.server.owns_dbpath = True  # removed at tearDown
        self.client = self.server.client(directConnection=True, retryWrites=False)
        self.admin = self.client.admin
        got = self.admin.command("getDefaultRWConcern")
        for field in ("defaultReadConcern", "defaultWriteConcern", "updateOpTime",
                      "updateWallClockTime", "defaultReadConcernSource",
                      "defaultWriteConcernSource"):
            self.assertEqual(got[field], reply[field], field)
        # ...and still apply.
        inserted = self.client.test.command({"insert": "c", "documents": [{"x": 1}]})
        self.assertEqual(inserted["writeConcernError"]["code"], 100)


class DefaultsApplied(ReplicaSetCase):
    def test_default_write_concern(self):
        db = self.client.test
        self.assertNotIn("writeConcernError", db.command({"insert": "c", "documents": [{}]}))
        self.set_defaults(defaultWriteConcern={"w": 2})
        # A command that gives no write concern (or {}) takes the default, which one member
        # cannot satisfy: the write is applied, and the reply says the concern was not met.
        for extra in ({}, {"writeConcern": {}}):
            command = bson.SON([("insert", "c"), ("documents", [{"x": 1}])])
            command.update(extra)
            reply = db.command(command)
            self.assertEqual(reply["n"], 1)
            error = reply["writeConcernError"]
            self.assertEqual(error["code"], 100)
            self.assertEqual(error["codeName"], "UnsatisfiableWriteConcern")
            self.assertEqual(error["errInfo"]["writeConcern"]["w"], 2)
            self.assertEqual(error["errInfo"]["writeConcern"]["provenance"], "customDefault")
        # A concern with j but no w takes the default's w.
        reply = db.command({"insert": "c", "documents": [{}], "writeConcern": {"j": True}})
        self.assertEqual(reply["writeConcernError"]["code"], 100)
        # A w of the command's own wins.
        reply = db.command({"insert": "c", "documents": [{}], "writeConcern": {"w": 1}})
        self.assertNotIn("writeConcernError", reply)
        reply = db.command({"update": "c", "updates": [{"q": {}, "u": {"$set": {"y": 1}},
                                                         "multi": True}]})
        self.assertEqual(reply["writeConcernError"]["code"], 100)
        reply = db.command({"delete": "c", "deletes": [{"q": {"x": 1}, "limit": 1}]})
        self.assertEqual(reply["writeConcernError"]["code"], 100)
        # Reads take no write concern.
        self.assertNotIn("writeConcernError", db.command({"find": "c"}))
        self.assertNotIn("writeConcernError", db.command({"count": "c"}))
        # setDefaultRWConcern takes it too (its change is made).
        reply = self.set_defaults(defaultReadConcern={"level": "majority"})
        self.assertEqual(reply["writeConcernError"]["code"], 100)
        self.assertEqual(reply["defaultReadConcern"], {"level": "majority"})

    def test_default_write_concern_in_transactions(self):
        db = self.client.test
        db.c.insert_one({"_id": 0})
        self.set_defaults(defaultWriteConcern={"w": 2})
        # A transaction's statements take no write concern; its commit takes the default. (The
        # transaction fields are sent by hand: pymongo gives the session's lsid.)
        with self.client.start_session() as session:
            reply = db.command({"insert": "c", "documents": [{"_id": 1}],
                                "txnNumber": Int64(1), "startTransaction": True,
                                "autocommit": False}, session=session)
            self.assertNotIn("writeConcernError", reply)
            reply = self.admin.command({"commitTransaction": 1, "txnNumber": Int64(1),
                                        "autocommit": False}, session=session)
            self.assertEqual(reply["writeConcernError"]["code"], 100)
        self.assertEqual(db.c.count_documents({}), 2)

    def test_default_read_concern(self):
        db = self.client.test
        db.c.insert_many([{"_id": i, "k": i % 2} for i in range(4)])
        self.set_defaults(defaultReadConcern={"level": "available"})
        # The read commands take it; commands that support only "local" (insert, listIndexes)
        # are not given it, so they still run.
        self.assertEqual(len(db.command({"find": "c"})["cursor"]["firstBatch"]), 4)
        self.assertEqual(db.command({"count": "c"})["n"], 4)
        self.assertEqual(sorted(db.command({"distinct": "c", "key": "k"})["values"]), [0, 1])
        self.assertEqual(len(db.command({"aggregate": "c", "pipeline": [],
                                         "cursor": {}})["cursor"]["firstBatch"]), 4)
        db.command({"insert": "c", "documents": [{"_id": 10}]})
        db.command({"listIndexes": "c"})
        # A transaction's first command takes it: "available" is no transaction level.
        with self.client.start_session() as session:
            details = command_error(self, db, {"find": "c", "txnNumber": Int64(1),
                                               "startTransaction": True, "autocommit": False},
                                    72, session=session)
            self.assertEqual(details["errmsg"],
                             "The readConcern level must be either 'local' (default), 'majority' "
                             "or 'snapshot' in order to run in a transaction")
            # Its own read concern wins; a transaction begun by a write is not given it.
            reply = db.command({"find": "c", "txnNumber": Int64(2), "startTransaction": True,
                                "autocommit": False, "readConcern": {"level": "snapshot"}},
                               session=session)
            self.assertEqual(len(reply["cursor"]["firstBatch"]), 5)
            self.admin.command({"abortTransaction": 1, "txnNumber": Int64(2),
                                "autocommit": False}, session=session)
            db.command({"insert": "c", "documents": [{"_id": 11}], "txnNumber": Int64(3),
                        "startTransaction": True, "autocommit": False}, session=session)
            self.admin.command({"commitTransaction": 1, "txnNumber": Int64(3),
                                "autocommit": False}, session=session)
            # A level the transaction allows works as the default.
            self.set_defaults(defaultReadConcern={"level": "majority"})
            reply = db.command({"find": "c", "txnNumber": Int64(4), "startTransaction": True,
                                "autocommit": False}, session=session)
            self.assertEqual(len(reply["cursor"]["firstBatch"]), 6)
            self.admin.command({"commitTransaction": 1, "txnNumber": Int64(4),
                                "autocommit": False}, session=session)


class UninitiatedMember(ReplicaSetCase):
    server_args = ["--replSet", "rs0"]

    def test_get_without_a_configuration_and_set_refused(self):
        reply = self.admin.command("getDefaultRWConcern")
        self.assertEqual(reply["defaultReadConcern"], {"level": "local"})
        # No implicit default write concern before the set has a configuration.
        self.assertNotIn("defaultWriteConcern", reply)
        self.assertEqual(reply["defaultWriteConcernSource"], "implicit")
        command_error(self, self.admin,
                      {"setDefaultRWConcern": 1, "defaultWriteConcern": {"w": 1}}, 10107)
        self.admin.command("replSetInitiate")
        reply = self.admin.command("getDefaultRWConcern")
        self.assertEqual(reply["defaultWriteConcern"], {"w": "majority", "wtimeout": 0})
        reply = self.set_defaults(defaultWriteConcern={"w": 1})
        self.assertEqual(reply["defaultWriteConcernSource"], "global")


if __name__ == "__main__":
    unittest.main()
