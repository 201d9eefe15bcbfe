"""Retryable writes on a --replSet member, as drivers send them by default (lsid + txnNumber).

A retried statement returns its original result and does not run again (also after a restart:
the oplog holds the record); an older txnNumber gets TransactionTooOld 225; progress shows in
config.transactions; a txnNumber on a command that is not a retryable write is refused (50768);
a retryable write may not reuse a transaction's txnNumber (217).
"""

import time
import unittest
import uuid

import bson
from bson.binary import Binary, UUID_SUBTYPE
from pymongo.errors import OperationFailure

from harness import CairnServer, ServerTestCase, command, connect_raw


def run(server, body, db):
    """A command with the caller's own lsid/txnNumber, over a raw connection (a driver would put
    its own session in place of the test's)."""
    sock = connect_raw(server.port)
    try:
        reply = command(sock, body, db=db).doc
    finally:
        sock.close()
    if reply.get("ok") != 1:
        raise OperationFailure(reply.get("errmsg"), reply.get("code"), reply)
    return reply


def lsid():
    return {"id": Binary(uuid.uuid4().bytes, UUID_SUBTYPE)}


class RetryableWrites(ServerTestCase):
    server_args = ("--replSet", "rs0", "--initiate")
    client_options = {"directConnection": True}

    def test_driver_default_retryable_writes_work(self):
        coll = self.client.get_database("d").c  # retryWrites is the driver's default
        coll.insert_one({"_id": 1, "n": 0})
        coll.update_one({"_id": 1}, {"$inc": {"n": 1}})
        coll.delete_one({"_id": 1})
        self.assertEqual(coll.count_documents({}), 0)
        entry = self.client.local["oplog.rs"].find_one({"ns": "d.c", "op": "i"})
        self.assertIn("lsid", entry)
        self.assertIn("txnNumber", entry)
        self.assertEqual(entry["stmtId"], 0)

    def test_retried_statements_do_not_run_again(self):
        db = self.client.get_database("r")
        session = lsid()
        server = self.server
        insert = {"insert": "c", "documents": [{"_id": 1, "n": 0}, {"_id": 2, "n": 0}],
                  "lsid": session, "txnNumber": bson.int64.Int64(1)}
        self.assertEqual(run(server, insert, "r")["n"], 2)
        # The same command again: both statements executed; nothing is inserted twice.
        reply = run(server, insert, "r")
        self.assertEqual(reply["n"], 2)
        self.assertNotIn("writeErrors", reply)

        update = {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$inc": {"n": 1}}},
                                             {"q": {"_id": 9}, "u": {"$set": {"x": 1}},
                                              "upsert": True}],
                  "lsid": session, "txnNumber": bson.int64.Int64(2)}
        first = run(server, update, "r")
        again = run(server, update, "r")
        for reply in (first, again):
            self.assertEqual(reply["n"], 2)
            self.assertEqual(reply["nModified"], 1)
            self.assertEqual(reply["upserted"], [{"index": 1, "_id": 9}])
        self.assertEqual(db.c.find_one({"_id": 1})["n"], 1)  # incremented once

        delete = {"delete": "c", "deletes": [{"q": {"_id": 2}, "limit": 1}],
                  "lsid": session, "txnNumber": bson.int64.Int64(3)}
        self.assertEqual(run(server, delete, "r")["n"], 1)
        self.assertEqual(run(server, delete, "r")["n"], 1)

        # An older txnNumber on the session is refused.
        with self.assertRaises(OperationFailure) as caught:
            run(server, insert, "r")
        self.assertEqual(caught.exception.code, 225)
        self.assertEqual(caught.exception.details["codeName"], "TransactionTooOld")

        # config.transactions shows the session's progress (refreshed within 100 ms).
        time.sleep(0.15)
        run(server, {"insert": "c", "documents": [{"_id": 3}], "lsid": session,
                     "txnNumber": bson.int64.Int64(4)}, "r")
        record = self.client.config.transactions.find_one({"_id.id": session["id"]})
        self.assertIsNotNone(record)
        self.assertGreaterEqual(record["txnNum"], 3)
        self.assertIn("lastWriteOpTime", record)

    def test_find_and_modify_retry_returns_its_first_reply(self):
        server = self.server
        self.client.get_database("fam").c.insert_one({"_id": 1, "n": 0})
        session = lsid()
        command_doc = {"findAndModify": "c", "query": {"_id": 1}, "update": {"$inc": {"n": 1}},
                       "new": True, "lsid": session, "txnNumber": bson.int64.Int64(1)}
        first = run(server, command_doc, "fam")
        again = run(server, command_doc, "fam")
        self.assertEqual(first["value"], {"_id": 1, "n": 1})
        self.assertEqual(again["value"], first["value"])
        self.assertEqual(again["lastErrorObject"], first["lastErrorObject"])
        self.assertEqual(self.client.get_database("fam").c.find_one({"_id": 1})["n"], 1)
        remove = {"findAndModify": "c", "query": {"_id": 1}, "remove": True, "lsid": session,
                  "txnNumber": bson.int64.Int64(2)}
        self.assertEqual(run(server, remove, "fam")["value"], {"_id": 1, "n": 1})
        self.assertEqual(run(server, remove, "fam")["value"], {"_id": 1, "n": 1})
        upsert = {"findAndModify": "c", "query": {"_id": 5}, "update": {"$set": {"u": 1}},
                  "upsert": True, "lsid": session, "txnNumber": bson.int64.Int64(3)}
        for reply in (run(server, upsert, "fam"), run(server, upsert, "fam")):
            self.assertIsNone(reply["value"])
            self.assertEqual(reply["lastErrorObject"],
                             {"n": 1, "updatedExisting": False, "upserted": 5})

    def test_txn_number_rules(self):
        db = self.client.get_database("rules")
        with self.assertRaises(OperationFailure) as caught:
            run(self.server, {"find": "c", "lsid": lsid(), "txnNumber": bson.int64.Int64(1)},
                "rules")
        self.assertEqual(caught.exception.code, 50768)
        # A transaction's write is not visible before its commit; its txnNumber is then the
        # transaction's, which a retryable write may not reuse (IncompleteTransactionHistory).
        session = lsid()
        run(self.server, {"insert": "c", "documents": [{}], "lsid": session,
                          "txnNumber": bson.int64.Int64(1), "autocommit": False,
                          "startTransaction": True}, "rules")
        self.assertEqual(db.c.count_documents({}), 0)
        with self.assertRaises(OperationFailure) as caught:
            run(self.server, {"insert": "c", "documents": [{}], "lsid": session,
                              "txnNumber": bson.int64.Int64(1)}, "rules")
        self.assertEqual(caught.exception.code, 217)
        self.assertEqual(db.c.count_documents({}), 0)


class RetryableWritesAcrossRestart(unittest.TestCase):
    def test_a_retry_after_a_kill_is_still_recognised(self):
        server = CairnServer(args=["--replSet", "rs0", "--initiate"]).start()
        try:
            client = server.client(directConnection=True)
            session = lsid()
            update = {"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$inc": {"n": 1}},
                                                  "upsert": True}],
                      "lsid": session, "txnNumber": bson.int64.Int64(7)}
            run(server, update, "k")
            client.close()
            server.kill()
            server = CairnServer(dbpath=server.dbpath, args=["--replSet", "rs0"], port=server.port)
            server.owns_dbpath = True
            server.start()
            client = server.client(directConnection=True)
            reply = run(server, update, "k")
            self.assertEqual(reply["upserted"], [{"index": 0, "_id": 1}])
            self.assertEqual(client.k.c.find_one({"_id": 1}), {"_id": 1, "n": 1})
            client.close()
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main()
