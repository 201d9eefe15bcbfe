"""Replica-set mode (--replSet): a one-member set that drivers see as a primary.

Specifies what a user of mongod --replSet sees: the uninitiated member (hello, refused writes and
reads), replSetInitiate / replSetGetStatus / replSetGetConfig / replSetReconfig with their
shapes and codes, hello as a primary, awaitable hello, $clusterTime and operationTime on every
reply, write concerns a one-member set can and cannot satisfy, the configuration and a new term
after a restart, and --initiate (an initiated primary from the first start that still takes one
replSetInitiate from a tool that sends it).
"""

import threading
import time
import unittest

import bson
import pymongo
from pymongo.errors import NotMasterError, OperationFailure

import harness
from harness import CairnServer


def command_error(test, client, command, code, db="admin", **kwargs):
    # pymongo raises the "not primary" family as NotMasterError, the rest as OperationFailure.
    with test.assertRaises((OperationFailure, NotMasterError)) as caught:
        client[db].command(command, **kwargs)
    details = caught.exception.details
    test.assertEqual(details["code"], code, details)
    return details


def wait_for_log(server, text, seconds=5):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if any(text in line for line in list(server.lines)):
            return True
        time.sleep(0.05)
    return False


class UninitiatedThenInitiated(unittest.TestCase):
    def setUp(self):
        self.server = CairnServer(args=["--replSet", "rs0"]).start()
        self.client = self.server.client(directConnection=True)

    def tearDown(self):
        self.client.close()
        if self.server.alive:
            self.server.stop()
        else:
            self.server.cleanup()

    def test_uninitiated_member(self):
        hello = self.client.admin.command("hello")
        self.assertFalse(hello["isWritablePrimary"])
        self.assertFalse(hello["secondary"])
        self.assertTrue(hello["isreplicaset"])
        self.assertEqual(hello["info"], "Does not have a valid replica set config")
        self.assertNotIn("setName", hello)
        self.assertIn("topologyVersion", hello)
        details = command_error(self, self.client, "replSetGetStatus", 94)
        self.assertEqual(details["codeName"], "NotYetInitialized")
        command_error(self, self.client, "replSetGetConfig", 94)
        # Writes and reads outside "local" are refused until there is a configuration.
        details = command_error(self, self.client, {"insert": "c", "documents": [{"a": 1}]},
                                10107, db="test")
        self.assertEqual(details["codeName"], "NotWritablePrimary")
        # (A direct connection reads with primaryPreferred, so reads get 13436, not 13435.)
        command_error(self, self.client, {"find": "c"}, 13436, db="test")
        command_error(self, self.client, "listDatabases", 13436)
        # The local database is exempt.
        self.client.local.command("listCollections")
        # Nothing was written.
        self.client.admin.command("replSetInitiate")
        self.assertNotIn("test", self.client.list_database_names())

    def test_initiate_status_config_and_restart(self):
        reply = self.client.admin.command("replSetInitiate", {})
        self.assertEqual(reply["ok"], 1)
        # mongodb-memory-server waits for this line.
        self.assertTrue(wait_for_log(self.server, "Transition to primary complete; database "
                                                  "writes are now permitted"))
        me = "127.0.0.1:%d" % self.server.port
        hello = self.client.admin.command("hello")
        self.assertTrue(hello["isWritablePrimary"])
        self.assertEqual(hello["setName"], "rs0")
        self.assertEqual(hello["setVersion"], 1)
        self.assertEqual(hello["hosts"], [me])
        self.assertEqual(hello["primary"], me)
        self.assertEqual(hello["me"], me)
        self.assertFalse(hello["secondary"])
        self.assertIsInstance(hello["electionId"], bson.ObjectId)
        self.assertEqual(str(hello["electionId"]), "7fffffff0000000000000001")
        self.assertIn("opTime", hello["lastWrite"])
        self.assertIn("majorityOpTime", hello["lastWrite"])
        self.assertIsInstance(hello["$clusterTime"]["clusterTime"], bson.Timestamp)
        self.assertIsInstance(hello["operationTime"], bson.Timestamp)

        config = self.client.admin.command("replSetGetConfig")["config"]
        self.assertEqual(config["_id"], "rs0")
        self.assertEqual(config["version"], 1)
        self.assertEqual(config["members"][0]["host"], me)
        self.assertEqual(config["members"][0]["priority"], 1)
        self.assertEqual(config["members"][0]["votes"], 1)
        self.assertEqual(config["protocolVersion"], 1)
        self.assertIsInstance(config["settings"]["replicaSetId"], bson.ObjectId)

        status = self.client.admin.command("replSetGetStatus")
        self.assertEqual(status["set"], "rs0")
        self.assertEqual(status["myState"], 1)
        self.assertEqual(len(status["members"]), 1)
        member = status["members"][0]
        self.assertEqual(member["stateStr"], "PRIMARY")
        self.assertEqual(member["name"], me)
        self.assertTrue(member["self"])
        self.assertEqual(member["health"], 1)
        self.assertIn("appliedOpTime", status["optimes"])

        details = command_error(self, self.client, {"replSetInitiate": {}}, 23)
        self.assertEqual(details["codeName"], "AlreadyInitialized")

        # Writes work, and the replies carry the cluster time.
        db = self.client.get_database("test")
        db.c.insert_one({"_id": 1})
        reply = db.command("find", "c")
        self.assertIn("$clusterTime", reply)
        self.assertIn("operationTime", reply)

        # Reconfig: a newer version only.
        new_config = dict(config, version=2)
        self.client.admin.command("replSetReconfig", new_config)
        self.assertEqual(self.client.admin.command("hello")["setVersion"], 2)
        command_error(self, self.client, {"replSetReconfig": dict(config, version=2)}, 103)

        # The configuration survives a restart; the member is primary in a new term.
        self.client.close()
        self.server.stop(keep_dbpath=True)
        self.server = CairnServer(dbpath=self.server.dbpath, args=["--replSet", "rs0"],
                                  port=self.server.port)
        self.server.owns_dbpath = True
        self.server.start()
        self.client = self.server.client(directConnection=True)
        hello = self.client.admin.command("hello")
        self.assertTrue(hello["isWritablePrimary"])
        self.assertEqual(hello["setVersion"], 2)
        self.assertEqual(str(hello["electionId"]), "7fffffff0000000000000002")
        self.assertEqual(self.client.test.c.find_one({"_id": 1}), {"_id": 1})

    def test_initiate_errors(self):
        details = command_error(self, self.client, {"replSetInitiate": {
            "_id": "other", "members": [{"_id": 0, "host": "127.0.0.1:%d" % self.server.port}]}},
            93)
        self.assertIn("command line reports rs0", details["errmsg"])
        details = command_error(self, self.client, {"replSetInitiate": {
            "_id": "rs0", "members": [{"_id": 0, "host": "127.0.0.1:1"}]}}, 74)
        self.assertIn("maps to this node", details["errmsg"])
        command_error(self, self.client, {"replSetInitiate": {
            "_id": "rs0", "members": [{"_id": 0, "host": "127.0.0.1:%d" % self.server.port},
                                      {"_id": 1, "host": "127.0.0.1:2"}]}}, 74)
        command_error(self, self.client, {"replSetInitiate": {
            "_id": "rs0", "members": [{"_id": 0, "host": "127.0.0.1:%d" % self.server.port}],
            "bogus": 1}}, 40415)
        # Still uninitiated: a valid configuration is then taken.
        self.client.admin.command("replSetInitiate", {
            "_id": "rs0", "version": 1,
            "members": [{"_id": 0, "host": "localhost:%d" % self.server.port}]})
        self.assertEqual(self.client.admin.command("hello")["me"],
                         "localhost:%d" % self.server.port)


class InitiatedAtStart(unittest.TestCase):
    """--initiate: primary from the first start, for compose files and test set-ups."""

    @classmethod
    def setUpClass(cls):
        cls.server = CairnServer(args=["--replSet", "rs0", "--initiate"]).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_replica_set_uri_discovers_the_primary(self):
        client = pymongo.MongoClient(
            "mongodb://127.0.0.1:%d/?replicaSet=rs0" % self.server.port,
            serverSelectionTimeoutMS=5000)
        try:
            coll = client.get_database("uri").c
            coll.insert_one({"_id": 1, "n": 1})
            coll.update_one({"_id": 1}, {"$inc": {"n": 1}})
            self.assertEqual(coll.find_one({"_id": 1}), {"_id": 1, "n": 2})
        finally:
            client.close()

    def test_write_concerns(self):
        client = self.server.client(directConnection=True)
        try:
            db = client.get_database("wc")
            reply = db.command({"insert": "c", "documents": [{"x": 1}],
                                "writeConcern": {"w": "majority", "j": True}})
            self.assertEqual(reply["n"], 1)
            self.assertNotIn("writeConcernError", reply)
            reply = db.command({"insert": "c", "documents": [{"x": 2}],
                                "writeConcern": {"w": 2, "wtimeout": 100}})
            # The write is applied; the concern cannot be met by a set of one member.
            self.assertEqual(reply["n"], 1)
            self.assertEqual(reply["writeConcernError"]["code"], 100)
            self.assertEqual(reply["writeConcernError"]["codeName"], "UnsatisfiableWriteConcern")
            self.assertEqual(db.c.count_documents({}), 2)
        finally:
            client.close()

    def test_every_get_more_reply_carries_the_cluster_time(self):
        client = self.server.client(directConnection=True)
        try:
            db = client.get_database("batches")
            db.c.insert_many([{"_id": i, "pad": "x" * 1000} for i in range(3000)])
            reply = db.command({"find": "c", "batchSize": 2})
            cursor_id = reply["cursor"]["id"]
            for _ in range(3):  # later batches would be read ahead on a standalone
                reply = db.command({"getMore": cursor_id, "collection": "c"})
                self.assertIn("$clusterTime", reply)
                self.assertIn("operationTime", reply)
                cursor_id = reply["cursor"]["id"]
                if cursor_id == 0:
                    break
        finally:
            client.close()

    def test_awaitable_hello(self):
        client = self.server.client(directConnection=True)
        try:
            hello = client.admin.command("hello")
            version = hello["topologyVersion"]
            # An older counter is answered at once; the current one waits for maxAwaitTimeMS.
            started = time.monotonic()
            client.admin.command({"hello": 1, "topologyVersion": version, "maxAwaitTimeMS": 300})
            self.assertGreaterEqual(time.monotonic() - started, 0.25)
            command_error(self, client, {"hello": 1, "topologyVersion": version}, 31368)
            command_error(self, client, {"hello": 1, "maxAwaitTimeMS": 10}, 31370)
            command_error(self, client, {"hello": 1, "topologyVersion": version,
                                         "maxAwaitTimeMS": -1}, 31373)
            # A topology change (a reconfig) answers a waiting hello with the new version.
            result = {}

            def wait():
                waiter = self.server.client(directConnection=True)
                try:
                    result["reply"] = waiter.admin.command(
                        {"hello": 1, "topologyVersion": version, "maxAwaitTimeMS": 20000})
                finally:
                    waiter.close()

            current = client.admin.command("hello")["topologyVersion"]
            version = current
            thread = threading.Thread(target=wait)
            thread.start()
            time.sleep(0.3)
            config = client.admin.command("replSetGetConfig")["config"]
            config["version"] += 1
            client.admin.command("replSetReconfig", config)
            thread.join(10)
            self.assertFalse(thread.is_alive())
            self.assertGreater(result["reply"]["topologyVersion"]["counter"], current["counter"])
            self.assertEqual(result["reply"]["setVersion"], config["version"])
        finally:
            client.close()

    def test_streaming_hello(self):
        # The drivers' streaming monitor: an awaitable hello with exhaustAllowed is answered with
        # moreToCome, then again at each topology change or maxAwaitTimeMS, each reply answering
        # the one before, without another request.
        sock = harness.connect_raw(self.server.port, timeout=10)
        client = self.server.client(directConnection=True)
        try:
            version = harness.command(sock, {"hello": 1}).doc["topologyVersion"]
            stale = {"processId": version["processId"], "counter": version["counter"] - 1}
            request_id, message = harness.op_msg(
                {"hello": 1, "topologyVersion": stale, "maxAwaitTimeMS": 300, "$db": "admin"},
                flags=harness.EXHAUST_ALLOWED)
            sock.sendall(message)
            first = harness.recv_message(sock)  # an older version: answered at once
            self.assertEqual(first.response_to, request_id)
            self.assertTrue(first.flags & harness.MORE_TO_COME)
            self.assertEqual(first.doc["ok"], 1.0)
            self.assertEqual(first.doc["topologyVersion"], version)
            started = time.monotonic()
            second = harness.recv_message(sock)  # nothing changed: after maxAwaitTimeMS
            self.assertGreaterEqual(time.monotonic() - started, 0.25)
            self.assertEqual(second.response_to, first.request_id)
            self.assertTrue(second.flags & harness.MORE_TO_COME)
            self.assertTrue(second.doc["isWritablePrimary"])
            # A reconfig changes the topology: the next reply comes at once, with the new version.
            config = client.admin.command("replSetGetConfig")["config"]
            config["version"] += 1
            client.admin.command("replSetReconfig", config)
            third = harness.recv_message(sock)
            while third.doc["topologyVersion"]["counter"] == version["counter"]:
                third = harness.recv_message(sock)  # a reply sent before the reconfig
            self.assertGreater(third.doc["topologyVersion"]["counter"], version["counter"])
            self.assertEqual(third.doc["setVersion"], config["version"])
            self.assertTrue(third.flags & harness.MORE_TO_COME)
            # Without exhaustAllowed the same request is answered once, without moreToCome.
            sock.close()
            sock = harness.connect_raw(self.server.port, timeout=10)
            reply = harness.command(sock, {"hello": 1, "topologyVersion": stale,
                                           "maxAwaitTimeMS": 100})
            self.assertFalse(reply.flags & harness.MORE_TO_COME)
            # A client that closes its streaming connection is let go at once.
            connections = client.admin.command("serverStatus")["connections"]["current"]
            streaming = harness.connect_raw(self.server.port, timeout=10)
            _, message = harness.op_msg(
                {"hello": 1, "topologyVersion": stale, "maxAwaitTimeMS": 60000, "$db": "admin"},
                flags=harness.EXHAUST_ALLOWED)
            streaming.sendall(message)
            self.assertTrue(harness.recv_message(streaming).flags & harness.MORE_TO_COME)
            streaming.close()
            deadline = time.monotonic() + 5
            while (client.admin.command("serverStatus")["connections"]["current"] > connections
                   and time.monotonic() < deadline):
                time.sleep(0.05)
            # (At most the count before it: a connection closed earlier in this test may still
            # have been counted then, and leave after.)
            self.assertLessEqual(client.admin.command("serverStatus")["connections"]["current"],
                                 connections)
        finally:
            sock.close()
            client.close()


class InitiatedAtStartThenInitiate(unittest.TestCase):
    """--initiate, then a tool's own replSetInitiate (mongodb-memory-server sends one)."""

    @classmethod
    def setUpClass(cls):
        cls.server = CairnServer(args=["--replSet", "rs0", "--initiate"]).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_primary_at_once_and_one_later_initiate(self):
        client = self.server.client(directConnection=True)
        try:
            hello = client.admin.command("hello")
            self.assertTrue(hello["isWritablePrimary"])
            self.assertEqual(hello["setName"], "rs0")
            before = hello["topologyVersion"]["counter"]
            # A tool that initiates anyway gets its configuration, once.
            client.admin.command("replSetInitiate", {
                "_id": "rs0", "members": [{"_id": 0, "host": "localhost:%d" % self.server.port}]})
            hello = client.admin.command("hello")
            self.assertEqual(hello["me"], "localhost:%d" % self.server.port)
            self.assertGreater(hello["topologyVersion"]["counter"], before)
            command_error(self, client, {"replSetInitiate": {}}, 23)
        finally:
            client.close()


class StandaloneRefusesReplicaSetCommands(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = CairnServer().start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_no_replication(self):
        client = self.server.client()
        try:
            command_error(self, client, {"replSetInitiate": {}}, 76)
            command_error(self, client, "replSetGetStatus", 76)
            hello = client.admin.command("hello")
            self.assertNotIn("setName", hello)
            self.assertNotIn("$clusterTime", hello)
            details = command_error(self, client, {"insert": "c", "documents": [{}],
                                                   "writeConcern": {"w": 2}}, 2, db="test")
            self.assertIn("standalone", details["errmsg"])
        finally:
            client.close()


if __name__ == "__main__":
    unittest.main()
