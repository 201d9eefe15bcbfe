"""$currentOp and the currentOp command through pymongo 3.11: the aggregate reporting itself as
the active operation (type, opid, ns, command, client, connectionId, desc, secs_running,
microsecs_running), idle connections with idleConnections: true, another connection's running
command, and MongoDB's errors (not admin / not {aggregate: 1}: 73, not first: 40602, bad
options: 14 and 9)."""

import select
import time
import unittest

from pymongo.errors import OperationFailure

from harness import ServerTestCase, connect_raw, op_msg, recv_message


class CurrentOpTest(ServerTestCase):

    def current_op(self, options=None, more=()):
        return list(self.client.admin.aggregate([{"$currentOp": options or {}}] + list(more)))

    def assertCode(self, code, fn, message=None):
        with self.assertRaises(OperationFailure) as caught:
            fn()
        self.assertEqual(caught.exception.code, code, caught.exception.details)
        if message is not None:
            self.assertEqual(caught.exception.details["errmsg"], message)

    def test_reports_the_aggregate_itself_as_the_active_operation(self):
        ops = [op for op in self.current_op() if op.get("command", {}).get("aggregate") == 1]
        self.assertEqual(len(ops), 1, ops)
        op = ops[0]
        self.assertEqual(op["type"], "op")
        self.assertTrue(op["active"])
        self.assertEqual(op["op"], "command")
        self.assertEqual(op["ns"], "admin.$cmd.aggregate")
        self.assertEqual(op["command"]["pipeline"], [{"$currentOp": {}}])
        self.assertEqual(op["desc"], "conn%d" % op["connectionId"])
        self.assertIsInstance(op["opid"], int)
        self.assertTrue(op["client"].startswith("127.0.0.1:"))
        self.assertGreaterEqual(op["microsecs_running"], 0)
        self.assertEqual(op["secs_running"], op["microsecs_running"] // 1000000)
        self.assertIn("driver", op["clientMetadata"])
        for key in ("host", "currentOpTime", "threaded", "numYields", "locks", "waitingForLock"):
            self.assertIn(key, op)

    def test_later_stages_filter_and_reshape_the_operations(self):
        got = self.current_op({"allUsers": True, "idleSessions": False, "localOps": True},
                              [{"$match": {"active": True, "ns": "admin.$cmd.aggregate"}},
                               {"$project": {"_id": 0, "op": 1}}])
        self.assertIn({"op": "command"}, got)

    def test_idle_connections_are_listed_only_when_asked(self):
        other = self.server.client()
        try:
            other.admin.command("ping")
            idle = [op for op in self.current_op({"idleConnections": True}) if not op["active"]]
            self.assertTrue(idle, "an idle connection should be listed")
            for op in idle:
                self.assertEqual(op["type"], "op")
                self.assertEqual(op["desc"], "conn%d" % op["connectionId"])
                self.assertNotIn("opid", op)
                self.assertNotIn("command", op)
            self.assertTrue(all(op["active"] for op in self.current_op()))
        finally:
            other.close()

    def test_another_connections_running_command_is_seen(self):
        # Raw connections, so which I/O thread each lands on is known: connections are placed
        # round robin on the server's two threads, so of two pollers opened one after the other
        # one is free while the slow command holds its thread. Both ask; the free one answers.
        self.client.py_current_op.slow.drop()
        self.client.py_current_op.slow.insert_one({"_id": 1})
        slow = connect_raw(self.server.port, timeout=60)
        pollers = [connect_raw(self.server.port, timeout=60) for _ in range(2)]
        ask = {"aggregate": 1, "pipeline": [{"$currentOp": {}}], "cursor": {}, "$db": "admin"}
        try:
            _, message = op_msg({"aggregate": "slow", "$db": "py_current_op", "cursor": {},
                                 "comment": "slow-one", "pipeline": [{"$project": {"n": {"$size": {
                                     "$filter": {"input": {"$range": [0, 3000000]},
                                                 "cond": {"$eq": [{"$mod": ["$$this", 7]}, 0]}}}}}}]})
            slow.sendall(message)
            time.sleep(0.1)
            for poller in pollers:
                poller.sendall(op_msg(ask)[1])
            seen, deadline = [], time.time() + 30
            while not seen and time.time() < deadline:
                ready, _, _ = select.select(pollers + [slow], [], [], 30)
                if slow in ready:
                    break  # finished before a poller saw it
                for poller in ready:
                    batch = recv_message(poller).doc["cursor"]["firstBatch"]
                    seen = [op for op in batch if op.get("command", {}).get("comment") == "slow-one"]
                    if not seen:
                        poller.sendall(op_msg(ask)[1])
            self.assertTrue(seen, "the running aggregate should be listed")
            op = seen[0]
            self.assertEqual(op["ns"], "py_current_op.slow")
            self.assertEqual(op["command"]["aggregate"], "slow")
            self.assertEqual(op["op"], "command")
            self.assertTrue(op["active"])
        finally:
            for sock in [slow] + pollers:
                sock.close()

    def test_current_op_command(self):
        reply = self.client.admin.command({"currentOp": 1})
        self.assertEqual(reply["ok"], 1.0)
        self.assertTrue(any(op.get("command", {}).get("currentOp") == 1 for op in reply["inprog"]))
        filtered = self.client.admin.command({"currentOp": 1, "ns": "nothing.here"})
        self.assertEqual(filtered["inprog"], [])
        self.assertCode(13, lambda: self.client.test.command({"currentOp": 1}))

    def test_errors(self):
        self.assertCode(73, lambda: list(self.client.test.aggregate([{"$currentOp": {}}])),
                        "$currentOp must be run against the 'admin' database with {aggregate: 1}")
        self.assertCode(73, lambda: list(self.client.admin.c.aggregate([{"$currentOp": {}}])))
        self.assertCode(40602, lambda: list(self.client.admin.aggregate(
            [{"$documents": []}, {"$currentOp": {}}])),
            "$currentOp is only valid as the first stage in a pipeline")
        self.assertCode(14, lambda: list(self.client.admin.aggregate([{"$currentOp": 1}])),
            "$currentOp options must be specified in an object, but found: int")
        self.assertCode(14, lambda: self.current_op({"allUsers": 1}),
                        "The 'allUsers' parameter of the $currentOp stage must be a boolean "
                        "value, but found: int")
        self.assertCode(9, lambda: self.current_op({"idleConnections": "yes"}),
                        "The 'idleConnections' parameter of the $currentOp stage must be a "
                        "boolean value, but found: string")
        self.assertCode(9, lambda: self.current_op({"bogus": True}),
                        "Unrecognized option 'bogus' in $currentOp stage.")


if __name__ == "__main__":
    unittest.main()
