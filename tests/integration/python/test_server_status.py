"""serverStatus as mongosh, Compass and monitoring agents read it: the sections they chart, each
counter moving with what the server did (asserts, network, opLatencies, opcounters, connections,
mem, metrics, storageEngine, transactions), and `repl` only on a replica-set member. (The
metrics.document/queryExecutor/operation counters are checked in test_profiler.py, beside the
profiler entries the same figures feed.)"""

import unittest

import pymongo

from harness import CairnServer, ServerTestCase, wait_for


class ServerStatusTest(ServerTestCase):
    def status(self):
        return self.client.admin.command("serverStatus")

    def test_the_sections_a_monitoring_agent_reads(self):
        status = self.status()
        for section in ("host", "version", "process", "pid", "uptime", "localTime", "asserts",
                        "connections", "network", "opLatencies", "opcounters", "mem", "metrics",
                        "storageEngine", "transactions"):
            self.assertIn(section, status)
        self.assertEqual(status["version"], "7.0.0")
        self.assertEqual(set(status["asserts"]),
                         {"regular", "warning", "msg", "user", "tripwire", "rollovers"})
        self.assertEqual(set(status["opLatencies"]),
                         {"reads", "writes", "commands", "transactions"})
        for section in ("document", "operation", "queryExecutor", "cursor", "ttl"):
            self.assertIn(section, status["metrics"])
        self.assertTrue(status["storageEngine"]["persistent"])
        self.assertNotIn("repl", status)  # a standalone

    def test_counters_move_with_the_work_done(self):
        before = self.status()
        coll = self.client.test.server_status
        coll.insert_many([{"_id": i, "pad": "x" * 1000} for i in range(50)])
        self.assertEqual(len(list(coll.find())), 50)
        with self.assertRaises(pymongo.errors.OperationFailure):
            self.client.test.command("noSuchCommandAtAll")
        with self.assertRaises(pymongo.errors.DuplicateKeyError):
            coll.insert_one({"_id": 1})
        after = self.status()
        self.assertGreaterEqual(after["asserts"]["user"] - before["asserts"]["user"], 1)
        self.assertGreater(after["network"]["bytesIn"] - before["network"]["bytesIn"], 50 * 1000)
        self.assertGreater(after["network"]["bytesOut"] - before["network"]["bytesOut"], 50 * 1000)
        self.assertGreaterEqual(after["network"]["numRequests"] - before["network"]["numRequests"], 4)
        lat_before, lat_after = before["opLatencies"], after["opLatencies"]
        self.assertGreaterEqual(lat_after["writes"]["ops"] - lat_before["writes"]["ops"], 2)
        self.assertGreaterEqual(lat_after["reads"]["ops"] - lat_before["reads"]["ops"], 1)
        self.assertGreater(lat_after["writes"]["latency"], lat_before["writes"]["latency"])
        self.assertGreaterEqual(after["opcounters"]["insert"] - before["opcounters"]["insert"], 51)


class ReplicaSetServerStatusTest(unittest.TestCase):
    def test_repl_section_on_a_member_and_in_memory_is_not_persistent(self):
        server = CairnServer(args=("--replSet", "rs0", "--initiate", "--storageEngine", "inMemory"))
        server.start()
        try:
            client = server.client()
            self.assertTrue(wait_for(lambda: client.admin.command("hello")["isWritablePrimary"]))
            status = client.admin.command("serverStatus")
            repl = status["repl"]
            hello = client.admin.command("hello")
            for field in ("setName", "setVersion", "isWritablePrimary", "secondary", "primary",
                          "me", "hosts", "electionId"):
                self.assertEqual(repl[field], hello[field], field)
            self.assertIn("lastWrite", repl)
            self.assertIn("topologyVersion", repl)
            self.assertFalse(status["storageEngine"]["persistent"])
            self.check_transaction_counters(client)
            client.close()
        finally:
            server.stop()

    def check_transaction_counters(self, client):
        def txns():
            status = client.admin.command("serverStatus")
            return status["transactions"], status["opLatencies"]["transactions"]

        coll = client.test.txn_counts
        coll.insert_one({"_id": 0})
        before, lat_before = txns()
        with client.start_session() as session:
            with session.start_transaction():
                coll.insert_one({"_id": 1}, session=session)
            session.start_transaction()
            coll.insert_one({"_id": 2}, session=session)
            during, _ = txns()
            self.assertEqual(during["currentOpen"] - before["currentOpen"], 1)
            self.assertEqual(during["currentInactive"] - before["currentInactive"], 1)
            self.assertEqual(during["currentActive"], 0)
            session.abort_transaction()
        after, lat_after = txns()
        self.assertEqual(after["totalStarted"] - before["totalStarted"], 2)
        self.assertEqual(after["totalCommitted"] - before["totalCommitted"], 1)
        self.assertEqual(after["totalAborted"] - before["totalAborted"], 1)
        self.assertEqual(after["currentOpen"], before["currentOpen"])
        self.assertEqual(after["currentPrepared"], 0)
        self.assertEqual(lat_after["ops"] - lat_before["ops"], 2)
        self.assertGreater(lat_after["latency"], lat_before["latency"])


if __name__ == "__main__":
    unittest.main()
