"""configureFailPoint and the failpoints drivers' test suites use, through pymongo and raw
sockets: only with --setParameter enableTestCommands=1 (else CommandNotFound 59), admin only
(Unauthorized 13 elsewhere), FailPointSetFailed 266 for a failpoint Cairn does not have.

failCommand in every mode (alwaysOn, off, {times}, {skip}, {activationProbability} 0 and 1) and
with each data field: errorCode and errorLabels in the reply (and mongod's RetryableWriteError
label when none are given), closeConnection (the client sees the connection drop), blockConnection
(the command waits blockTimeMS without holding up another connection), writeConcernError, appName;
failGetMoreAfterCursorCheckout, maxTimeAlwaysTimeOut and onPrimaryTransactionalWrite.
"""

import threading
import time
import unittest
import uuid

import bson
from bson.binary import Binary, UUID_SUBTYPE
from pymongo.errors import AutoReconnect, ExecutionTimeout, OperationFailure, WriteConcernError

from harness import ServerTestCase, command, connect_raw

TEST_COMMANDS = ("--setParameter", "enableTestCommands=1")


def configure(client, mode, data=None, name="failCommand"):
    body = {"configureFailPoint": name, "mode": mode}
    if data is not None:
        body["data"] = data
    return client.admin.command(body)


def raw(server, body, db="test"):
    """One command on a fresh raw connection: the reply document, whatever it holds."""
    sock = connect_raw(server.port)
    try:
        return command(sock, body, db=db).doc
    finally:
        sock.close()


class FailCommandCase(ServerTestCase):
    """A server with test commands, a collection `coll_name` holding {_id: 1}, failCommand off
    after each test; the client retries nothing, so each failure shows."""
    server_args = TEST_COMMANDS
    client_options = {"retryReads": False, "retryWrites": False}
    coll_name = None

    def setUp(self):
        self.coll = self.client.test[self.coll_name]
        self.coll.drop()
        self.coll.insert_one({"_id": 1})

    def tearDown(self):
        configure(self.client, "off")


class FailCommandModes(FailCommandCase):
    coll_name = "modes"

    def find_fails(self):
        try:
            self.coll.find_one({})
            return False
        except OperationFailure as e:
            self.assertEqual(e.code, 2)
            return True

    def test_always_on_fails_only_listed_commands_until_off(self):
        reply = configure(self.client, "alwaysOn", {"failCommands": ["find"], "errorCode": 2})
        self.assertEqual(reply["ok"], 1)
        self.assertIn("count", reply)
        with self.assertRaises(OperationFailure) as caught:
            self.coll.find_one({})
        self.assertEqual(caught.exception.code, 2)
        self.assertEqual(caught.exception.details["errmsg"],
                         "Failing command via 'failCommand' failpoint")
        self.assertEqual(caught.exception.details["codeName"], "BadValue")
        self.assertTrue(self.find_fails())
        # Commands not listed run: hello, ping, insert.
        self.client.admin.command("hello")
        self.client.admin.command("ping")
        self.coll.insert_one({"_id": 2})
        configure(self.client, "off")
        self.assertEqual(self.coll.find_one({"_id": 1}), {"_id": 1})

    def test_count_is_times_entered_before(self):
        configure(self.client, "alwaysOn", {"failCommands": ["find"], "errorCode": 2})
        before = configure(self.client, "alwaysOn", {"failCommands": ["find"], "errorCode": 2})["count"]
        for _ in range(3):
            self.assertTrue(self.find_fails())
        self.assertEqual(configure(self.client, "off")["count"], before + 3)

    def test_times(self):
        configure(self.client, {"times": 2}, {"failCommands": ["find"], "errorCode": 2})
        self.assertEqual([self.find_fails() for _ in range(4)], [True, True, False, False])

    def test_times_counts_only_matching_commands(self):
        configure(self.client, {"times": 1}, {"failCommands": ["find"], "errorCode": 2})
        self.client.admin.command("ping")
        self.coll.insert_one({"_id": 3})
        self.assertTrue(self.find_fails())
        self.assertFalse(self.find_fails())

    def test_skip(self):
        configure(self.client, {"skip": 2}, {"failCommands": ["find"], "errorCode": 2})
        self.assertEqual([self.find_fails() for _ in range(5)], [False, False, True, True, True])

    def test_activation_probability_zero_and_one(self):
        configure(self.client, {"activationProbability": 0}, {"failCommands": ["find"], "errorCode": 2})
        self.assertFalse(any(self.find_fails() for _ in range(50)))
        configure(self.client, {"activationProbability": 1}, {"failCommands": ["find"], "errorCode": 2})
        self.assertTrue(all(self.find_fails() for _ in range(50)))

    def test_aliases_match(self):
        # isMaster names the hello command too, as in mongod (one command, its aliases).
        configure(self.client, {"times": 1}, {"failCommands": ["isMaster"], "errorCode": 2})
        reply = raw(self.server, {"hello": 1}, db="admin")
        self.assertEqual((reply["ok"], reply["code"]), (0, 2))

    def test_configure_fail_point_is_never_failed(self):
        configure(self.client, "alwaysOn", {"failCommands": ["configureFailPoint"], "errorCode": 2})
        configure(self.client, "off")

    def test_bad_modes(self):
        cases = [
            ({"configureFailPoint": "failCommand"}, 20),
            ({"configureFailPoint": "failCommand", "mode": "sometimes"}, 2),
            ({"configureFailPoint": "failCommand", "mode": 3}, 14),
            ({"configureFailPoint": "failCommand", "mode": {"times": -1}}, 2),
            ({"configureFailPoint": "failCommand", "mode": {"period": 2}}, 2),
            ({"configureFailPoint": "failCommand", "mode": {"activationProbability": 2}}, 2),
            ({"configureFailPoint": "failCommand", "mode": "alwaysOn", "data": 1}, 14),
        ]
        for body, code in cases:
            with self.assertRaises(OperationFailure, msg=str(body)) as caught:
                self.client.admin.command(body)
            self.assertEqual(caught.exception.code, code, body)

    def test_unknown_failpoint(self):
        with self.assertRaises(OperationFailure) as caught:
            configure(self.client, "alwaysOn", name="noSuchFailPoint")
        self.assertEqual(caught.exception.code, 266)
        self.assertEqual(caught.exception.details["codeName"], "FailPointSetFailed")
        self.assertEqual(caught.exception.details["errmsg"], "noSuchFailPoint not found")

    def test_admin_database_only(self):
        with self.assertRaises(OperationFailure) as caught:
            self.client.test.command({"configureFailPoint": "failCommand", "mode": "off"})
        self.assertEqual(caught.exception.code, 13)
        self.assertEqual(caught.exception.details["errmsg"],
                         "configureFailPoint may only be run against the admin database.")

    def test_listed_and_startup_only_parameter(self):
        self.assertIn("configureFailPoint", self.client.admin.command("listCommands")["commands"])
        self.assertIs(self.client.admin.command("getParameter", 1, enableTestCommands=1)
                      ["enableTestCommands"], True)
        with self.assertRaises(OperationFailure) as caught:
            self.client.admin.command("setParameter", 1, enableTestCommands=False)
        self.assertEqual(caught.exception.code, 20)


class FailCommandData(FailCommandCase):
    coll_name = "data"

    def test_error_code_and_labels_in_the_reply(self):
        configure(self.client, "alwaysOn",
                  {"failCommands": ["find"], "errorCode": 91, "errorLabels": ["Custom", "Other"]})
        reply = raw(self.server, {"find": "data"})
        self.assertEqual(reply["ok"], 0)
        self.assertEqual(reply["code"], 91)
        self.assertEqual(reply["codeName"], "ShutdownInProgress")
        self.assertEqual(reply["errorLabels"], ["Custom", "Other"])
        # A code mongod has no name for is printed as Location<N>.
        configure(self.client, "alwaysOn", {"failCommands": ["find"], "errorCode": 12345})
        self.assertEqual(raw(self.server, {"find": "data"})["codeName"], "Location12345")

    def test_close_connection(self):
        configure(self.client, {"times": 1}, {"failCommands": ["find"], "closeConnection": True})
        with self.assertRaises(AutoReconnect):
            self.coll.find_one({})
        self.assertEqual(self.coll.find_one({}), {"_id": 1})  # the pool reconnects

    def test_block_connection_holds_only_its_command(self):
        configure(self.client, "alwaysOn", {"failCommands": ["find"], "blockConnection": True,
                                            "blockTimeMS": 700, "appName": "blocked"})
        blocked = self.server.client(appname="blocked", retryReads=False)
        self.addCleanup(blocked.close)
        blocked.admin.command("ping")  # connected before timing
        took = {}

        def run():
            start = time.monotonic()
            took["doc"] = blocked.test.data.find_one({})
            took["seconds"] = time.monotonic() - start

        thread = threading.Thread(target=run)
        thread.start()
        time.sleep(0.1)
        # Meanwhile other connections are answered at once, on every I/O loop.
        for _ in range(20):
            start = time.monotonic()
            self.client.admin.command("ping")
            self.assertEqual(self.coll.find_one({}), {"_id": 1})  # not blocked: another appName
            self.assertLess(time.monotonic() - start, 0.3)
        thread.join(10)
        self.assertEqual(took["doc"], {"_id": 1})
        self.assertGreaterEqual(took["seconds"], 0.69)

    def test_block_connection_needs_block_time(self):
        configure(self.client, {"times": 1}, {"failCommands": ["find"], "blockConnection": True})
        with self.assertRaises(OperationFailure) as caught:
            self.coll.find_one({})
        self.assertEqual(caught.exception.code, 72)

    def test_block_then_error(self):
        configure(self.client, {"times": 1}, {"failCommands": ["find"], "blockConnection": True,
                                              "blockTimeMS": 200, "errorCode": 2})
        start = time.monotonic()
        with self.assertRaises(OperationFailure) as caught:
            self.coll.find_one({})
        self.assertEqual(caught.exception.code, 2)
        self.assertGreaterEqual(time.monotonic() - start, 0.19)

    def test_write_concern_error(self):
        wce = {"code": 91, "errmsg": "Replication is being shut down"}
        configure(self.client, {"times": 1}, {"failCommands": ["insert"], "writeConcernError": wce})
        reply = raw(self.server, {"insert": "data", "documents": [{"_id": 2}]})
        self.assertEqual((reply["ok"], reply["n"]), (1, 1))
        self.assertEqual(reply["writeConcernError"], wce)
        self.assertNotIn("errorLabels", reply)  # no retryable write: no label
        # (A shutdown code would make pymongo mark the server unknown, as with mongod.)
        timeout = {"code": 64, "errmsg": "waiting for replication timed out"}
        configure(self.client, {"times": 1}, {"failCommands": ["insert"], "writeConcernError": timeout})
        with self.assertRaises(WriteConcernError):
            self.coll.insert_one({"_id": 3})
        self.assertEqual(self.coll.count_documents({}), 3)  # the writes happened

    def test_app_name(self):
        configure(self.client, "alwaysOn",
                  {"failCommands": ["find"], "errorCode": 2, "appName": "failing"})
        self.assertEqual(self.coll.find_one({}), {"_id": 1})
        failing = self.server.client(appname="failing", retryReads=False)
        self.addCleanup(failing.close)
        with self.assertRaises(OperationFailure) as caught:
            failing.test.data.find_one({})
        self.assertEqual(caught.exception.code, 2)

    def test_fail_get_more_after_cursor_checkout(self):
        self.coll.insert_many([{"_id": i} for i in range(2, 10)])
        configure(self.client, "alwaysOn", {"errorCode": 6}, name="failGetMoreAfterCursorCheckout")
        cursor = self.coll.find({}, batch_size=2)
        next(cursor)
        next(cursor)
        with self.assertRaises(OperationFailure) as caught:
            next(cursor)
        self.assertEqual(caught.exception.code, 6)
        configure(self.client, "off", name="failGetMoreAfterCursorCheckout")

    def test_max_time_always_time_out(self):
        configure(self.client, "alwaysOn", name="maxTimeAlwaysTimeOut")
        try:
            with self.assertRaises(ExecutionTimeout):
                self.coll.find_one({}, max_time_ms=60000)
            self.assertEqual(self.coll.find_one({}), {"_id": 1})  # no maxTimeMS: no deadline
        finally:
            configure(self.client, "off", name="maxTimeAlwaysTimeOut")


class WithoutTestCommands(ServerTestCase):
    def test_configure_fail_point_does_not_exist(self):
        with self.assertRaises(OperationFailure) as caught:
            configure(self.client, "alwaysOn", {"failCommands": ["find"], "errorCode": 2})
        self.assertEqual(caught.exception.code, 59)
        self.assertEqual(caught.exception.details["errmsg"],
                         "no such command: 'configureFailPoint'")
        self.assertNotIn("configureFailPoint", self.client.admin.command("listCommands")["commands"])
        self.assertIs(self.client.admin.command("getParameter", 1, enableTestCommands=1)
                      ["enableTestCommands"], False)


def lsid():
    return {"id": Binary(uuid.uuid4().bytes, UUID_SUBTYPE)}


class ReplicaSetFailPoints(ServerTestCase):
    server_args = ("--replSet", "rs0", "--initiate") + TEST_COMMANDS
    client_options = {"directConnection": True}

    def tearDown(self):
        configure(self.client, "off")
        configure(self.client, "off", name="onPrimaryTransactionalWrite")

    def retryable_insert(self, doc):
        return raw(self.server, {"insert": "rs", "documents": [doc], "lsid": lsid(),
                                 "txnNumber": bson.int64.Int64(1)})

    def test_retryable_write_error_label_by_default(self):
        configure(self.client, {"times": 1}, {"failCommands": ["insert"], "errorCode": 91})
        reply = self.retryable_insert({"_id": 1})
        self.assertEqual(reply["code"], 91)
        self.assertEqual(reply["errorLabels"], ["RetryableWriteError"])
        configure(self.client, {"times": 1}, {"failCommands": ["insert"], "errorCode": 2})
        self.assertNotIn("errorLabels", self.retryable_insert({"_id": 2}))
        configure(self.client, {"times": 1},
                  {"failCommands": ["insert"], "errorCode": 91, "errorLabels": []})
        self.assertNotIn("errorLabels", self.retryable_insert({"_id": 3}))
        # A not-primary error carries the topologyVersion on a replica set member.
        configure(self.client, {"times": 1}, {"failCommands": ["insert"], "errorCode": 10107})
        self.assertIn("topologyVersion", self.retryable_insert({"_id": 4}))

    def test_write_concern_error_label(self):
        configure(self.client, {"times": 1},
                  {"failCommands": ["insert"], "writeConcernError": {"code": 91, "errmsg": "x"}})
        reply = self.retryable_insert({"_id": 10})
        self.assertEqual(reply["ok"], 1)
        self.assertEqual(reply["errorLabels"], ["RetryableWriteError"])

    def test_driver_retries_after_close(self):
        coll = self.client.test.retried
        configure(self.client, {"times": 1}, {"failCommands": ["insert"], "closeConnection": True})
        coll.insert_one({"_id": 1})  # retried once by the driver
        self.assertEqual(coll.count_documents({}), 1)

    def test_on_primary_transactional_write(self):
        coll = self.client.test.opw
        # closeConnection (the default) after the write: the driver retries, the statement is
        # answered from its record and not run again.
        configure(self.client, {"times": 1}, name="onPrimaryTransactionalWrite")
        coll.insert_one({"_id": 1, "n": 0})
        configure(self.client, {"times": 1}, name="onPrimaryTransactionalWrite")
        coll.update_one({"_id": 1}, {"$inc": {"n": 1}})
        self.assertEqual(coll.find_one({"_id": 1}), {"_id": 1, "n": 1})
        # failBeforeCommitExceptionCode without closing: the write fails and is not made.
        configure(self.client, {"times": 1}, {"closeConnection": False,
                                              "failBeforeCommitExceptionCode": 2},
                  name="onPrimaryTransactionalWrite")
        reply = raw(self.server, {"findAndModify": "opw", "query": {"_id": 1},
                                  "update": {"$inc": {"n": 1}}, "lsid": lsid(),
                                  "txnNumber": bson.int64.Int64(1)})
        self.assertEqual((reply["ok"], reply["code"]), (0, 2))
        self.assertEqual(coll.find_one({"_id": 1}), {"_id": 1, "n": 1})


if __name__ == "__main__":
    unittest.main()
