"""Multi-document transactions on a one-member replica set (/usr/bin/python3, pymongo 3.11).

Specifies what a user sees: nothing of a transaction is visible before its commit and all of it
at once after; its own reads see its writes (find, aggregate with $lookup, distinct,
findAndModify); abort keeps nothing; of two transactions writing one document the later writer
gets WriteConflict 112 with TransientTransactionError, and a write outside transactions after a
transaction's snapshot makes its commit fail the same way; mongod's state rules and messages
(NoSuchTransaction 251, TransactionCommitted 256, TransactionTooOld 225,
ConflictingOperationInProgress 117, OperationNotSupportedInTransaction 263); a commit retried
after success is OK; transactionLifetimeLimitSeconds and endSessions abort; the commit is one
applyOps oplog entry.
"""

import time
import unittest
import uuid

import bson
from bson.binary import Binary, UUID_SUBTYPE
from pymongo.errors import OperationFailure

from harness import ServerTestCase, command, connect_raw


def lsid():
    return {"id": Binary(uuid.uuid4().bytes, UUID_SUBTYPE)}


class RawSession:
    """One session's commands over a raw connection, with the transaction fields given."""

    def __init__(self, server):
        self.sock = connect_raw(server.port)
        self.lsid = lsid()
        self.txn = 0

    def close(self):
        self.sock.close()

    def start(self):
        self.txn += 1
        return self

    def run(self, body, db="tx", start=False, txn=None, autocommit=True):
        body = dict(body)
        body["lsid"] = self.lsid
        body["txnNumber"] = bson.int64.Int64(self.txn if txn is None else txn)
        if autocommit:
            body["autocommit"] = False
        if start:
            body["startTransaction"] = True
        return command(self.sock, body, db=db).doc

    def commit(self, **extra):
        return self.run(dict({"commitTransaction": 1}, **extra), db="admin")

    def abort(self):
        return self.run({"abortTransaction": 1}, db="admin")


class Transactions(ServerTestCase):
    server_args = ("--replSet", "rs0", "--initiate")
    client_options = {"directConnection": True}

    def setUp(self):
        self.db = self.client.tx
        self.sessions = []

    def tearDown(self):
        for s in self.sessions:
            s.close()

    def session(self):
        s = RawSession(self.server)
        self.sessions.append(s)
        return s

    def assert_error(self, reply, code, message=None, transient=False):
        self.assertEqual(reply.get("ok"), 0, reply)
        self.assertEqual(reply["code"], code, reply)
        if message is not None:
            self.assertEqual(reply["errmsg"], message)
        labels = reply.get("errorLabels", [])
        self.assertEqual("TransientTransactionError" in labels, transient, reply)

    def test_nothing_is_visible_before_commit_and_everything_after(self):
        self.db.vis.drop()
        self.db.vis.insert_one({"_id": 0, "v": 0})
        with self.client.start_session() as s:
            with s.start_transaction():
                self.db.vis.insert_one({"_id": 1}, session=s)
                self.db.vis.update_one({"_id": 0}, {"$set": {"v": 1}}, session=s)
                self.db.vis.insert_one({"_id": 2}, session=s)
                self.db.vis.delete_one({"_id": 2}, session=s)
                # Its own reads see its writes; others see nothing of them.
                self.assertEqual(list(self.db.vis.find({}, session=s)),
                                 [{"_id": 0, "v": 1}, {"_id": 1}])
                self.assertEqual(list(self.db.vis.find({})), [{"_id": 0, "v": 0}])
                self.assertEqual(self.db.vis.find_one({"_id": 1}), None)
        self.assertEqual(list(self.db.vis.find({})), [{"_id": 0, "v": 1}, {"_id": 1}])

    def test_reads_inside_see_the_transactions_writes(self):
        self.db.orders.drop()
        self.db.customers.drop()
        self.db.customers.insert_one({"_id": "c1", "name": "Ann"})
        with self.client.start_session() as s:
            with s.start_transaction():
                self.db.customers.insert_one({"_id": "c2", "name": "Bob"}, session=s)
                self.db.orders.insert_many([{"_id": 1, "c": "c1", "total": 5},
                                            {"_id": 2, "c": "c2", "total": 7}], session=s)
                joined = list(self.db.orders.aggregate([
                    {"$lookup": {"from": "customers", "localField": "c",
                                 "foreignField": "_id", "as": "who"}},
                    {"$project": {"name": {"$first": "$who.name"}}}], session=s))
                self.assertEqual(joined, [{"_id": 1, "name": "Ann"}, {"_id": 2, "name": "Bob"}])
                self.assertEqual(sorted(self.db.customers.distinct("name", session=s)),
                                 ["Ann", "Bob"])
                self.assertEqual(self.db.orders.count_documents({}, session=s), 2)
                before = self.db.orders.find_one_and_update({"_id": 2}, {"$inc": {"total": 1}},
                                                            session=s)
                self.assertEqual(before["total"], 7)
                self.assertEqual(self.db.orders.find_one({"_id": 2}, session=s)["total"], 8)
                self.assertEqual(self.db.orders.count_documents({}), 0)
        self.assertEqual(self.db.orders.find_one({"_id": 2})["total"], 8)

    def test_abort_keeps_nothing(self):
        self.db.ab.drop()
        self.db.ab.insert_one({"_id": 0, "v": 0})
        with self.client.start_session() as s:
            s.start_transaction()
            self.db.ab.insert_one({"_id": 1}, session=s)
            self.db.ab.update_one({"_id": 0}, {"$set": {"v": 9}}, session=s)
            s.abort_transaction()
        self.assertEqual(list(self.db.ab.find({})), [{"_id": 0, "v": 0}])

    def test_concurrent_transactions_on_one_document(self):
        self.db.race.drop()
        self.db.race.insert_one({"_id": 1, "n": 0})
        first, second = self.session().start(), self.session().start()
        update = {"update": "race", "updates": [{"q": {"_id": 1}, "u": {"$inc": {"n": 1}}}]}
        self.assertEqual(first.run(update, start=True)["nModified"], 1)
        reply = second.run(update, start=True)
        self.assert_error(reply, 112, transient=True)
        self.assertEqual(reply["codeName"], "WriteConflict")
        # The loser is aborted; the winner commits.
        self.assert_error(second.commit(), 251,
                          "Transaction with { txnNumber: 1 } has been aborted.", transient=True)
        self.assertEqual(first.commit()["ok"], 1)
        self.assertEqual(self.db.race.find_one({"_id": 1})["n"], 1)
        # A transaction begun before that commit may not overwrite it either.
        late, stale = self.session().start(), self.session().start()
        stale.run({"find": "race"}, start=True)
        late.run(update, start=True)
        late.commit()
        self.assert_error(stale.run(update), 112, transient=True)
        self.assertEqual(self.db.race.find_one({"_id": 1})["n"], 2)

    def test_a_write_outside_after_the_snapshot_fails_the_commit(self):
        self.db.outside.drop()
        self.db.outside.insert_one({"_id": 1, "n": 0})
        s = self.session().start()
        s.run({"update": "outside", "updates": [{"q": {"_id": 1}, "u": {"$set": {"n": 1}}}]},
              start=True)
        self.db.outside.update_one({"_id": 1}, {"$set": {"n": 5}})
        self.assert_error(s.commit(), 112, transient=True)
        self.assertEqual(self.db.outside.find_one({"_id": 1})["n"], 5)

    def test_unique_keys_between_transactions(self):
        self.db.uniq.drop()
        a, b = self.session().start(), self.session().start()
        self.assertEqual(a.run({"insert": "uniq", "documents": [{"_id": "k"}]}, start=True)["n"], 1)
        self.assert_error(b.run({"insert": "uniq", "documents": [{"_id": "k"}]}, start=True),
                          112, transient=True)
        a.commit()
        self.assertEqual(self.db.uniq.count_documents({}), 1)

    def test_duplicate_key_is_a_write_error_and_aborts(self):
        self.db.dup.drop()
        self.db.dup.insert_one({"_id": 1})
        s = self.session().start()
        reply = s.run({"insert": "dup", "documents": [{"_id": 2}, {"_id": 1}, {"_id": 3}],
                       "ordered": False}, start=True)
        self.assertEqual(reply["ok"], 1)
        self.assertEqual(reply["n"], 1)
        self.assertEqual(reply["writeErrors"][0]["code"], 11000)
        self.assertNotIn("errorLabels", reply)
        self.assert_error(s.commit(), 251, transient=True)
        self.assertEqual(self.db.dup.count_documents({}), 1)

    def test_state_rules(self):
        s = self.session().start()
        insert = {"insert": "rules", "documents": [{}]}
        s.run(insert, start=True)
        self.assert_error(s.run(insert, start=True), 117,
                          "Only servers in a sharded cluster can start a new transaction at the "
                          "active transaction number")
        self.assertEqual(s.commit()["ok"], 1)
        self.assertEqual(s.commit()["ok"], 1)  # a retried commit
        self.assert_error(s.run(insert), 256, "Transaction with { txnNumber: 1 } has been committed.")
        self.assert_error(s.abort(), 256)
        self.assert_error(s.run(insert, txn=0, start=True), 225)
        self.assert_error(s.run(insert, txn=7), 251, transient=True)
        s.start()
        s.run(insert, start=True)
        self.assertEqual(s.abort()["ok"], 1)
        self.assert_error(s.abort(), 251, "Transaction with { txnNumber: 2 } has been aborted.",
                          transient=True)
        self.assert_error(s.run({"commitTransaction": 1}, db="admin", start=True), 263,
                          "Cannot start a transaction with a commit")

    def test_commit_with_an_unsatisfiable_write_concern(self):
        # The data commits; the reply carries the writeConcernError from which drivers label the
        # commit UnknownTransactionCommitResult (mongod adds no label itself).
        s = self.session().start()
        s.run({"insert": "wc", "documents": [{"_id": 1}]}, start=True)
        reply = s.commit(writeConcern={"w": 2, "wtimeout": 100})
        self.assertEqual(reply["ok"], 1)
        self.assertEqual(reply["writeConcernError"]["code"], 100)
        self.assertEqual(self.db.wc.count_documents({}), 1)
        # A retried commit answers the same.
        self.assertEqual(s.commit(writeConcern={"w": "majority"})["ok"], 1)

    def test_commands_not_allowed_do_not_abort(self):
        s = self.session().start()
        s.run({"insert": "allowed", "documents": [{"_id": 1}]}, start=True)
        self.assert_error(s.run({"count": "allowed"}), 263)
        self.assert_error(s.run({"listCollections": 1}), 263,
                          "Cannot run 'listCollections' in a multi-document transaction.")
        self.assert_error(s.run({"find": "allowed", "readConcern": {"level": "local"}}), 72,
                          "Only the first command in a transaction may specify a readConcern")
        self.assert_error(s.run({"find": "allowed", "writeConcern": {"w": 1}}), 72)
        self.assertEqual(s.commit()["ok"], 1)
        self.assertEqual(self.db.allowed.count_documents({}), 1)
        # A stage a transaction cannot run fails in the transaction, which is aborted.
        s.start()
        s.run({"insert": "allowed", "documents": [{"_id": 2}]}, start=True)
        self.assert_error(s.run({"aggregate": "allowed", "pipeline": [{"$out": "x"}],
                                 "cursor": {}}), 263,
                          "Operation not permitted in transaction :: caused by :: Aggregation "
                          "stage $out cannot run within a multi-document transaction.")
        self.assert_error(s.commit(), 251, transient=True)
        self.assertEqual(self.db.allowed.count_documents({}), 1)

    def test_create_and_create_indexes_in_a_transaction(self):
        self.db.drop_collection("fresh")
        self.db.drop_collection("old")
        self.db.old.insert_one({"_id": 1})
        s = self.session().start()
        self.assertEqual(s.run({"create": "fresh"}, start=True)["ok"], 1)
        # On the collection just created and still empty: built.
        reply = s.run({"createIndexes": "fresh", "indexes": [{"key": {"a": 1}, "name": "a_1"}]})
        self.assertEqual(reply["ok"], 1, reply)
        s.run({"insert": "fresh", "documents": [{"_id": 1, "a": 5}]})
        self.assertEqual(s.commit()["ok"], 1)
        self.assertEqual(self.db.fresh.find_one({"a": 5}, hint="a_1"), {"_id": 1, "a": 5})
        s.start()
        self.assert_error(s.run({"createIndexes": "old", "indexes": [{"key": {"b": 1},
                                                                      "name": "b_1"}]},
                                start=True), 263,
                          "Cannot create new indexes on existing collection tx.old in a "
                          "multi-document transaction.")
        s.start()
        self.assert_error(s.run({"create": "old"}, start=True), 48)

    def test_a_collection_changed_under_the_transaction_fails_its_commit(self):
        self.db.drop_collection("moving")
        self.db.moving.insert_one({"_id": 1})
        s = self.session().start()
        s.run({"insert": "moving", "documents": [{"_id": 2, "k": 1}]}, start=True)
        self.db.moving.create_index("k")  # the transaction's document would miss this index
        self.assert_error(s.commit(), 112, transient=True)
        self.assertEqual(self.db.moving.count_documents({}), 1)
        s.start()
        s.run({"insert": "moving", "documents": [{"_id": 3}]}, start=True)
        self.db.drop_collection("moving")
        self.assert_error(s.commit(), 112, transient=True)
        self.assertEqual(self.db.moving.count_documents({}), 0)

    def test_capped_collections_refuse_writes_in_transactions(self):
        self.db.drop_collection("capped")
        self.db.create_collection("capped", capped=True, size=4096)
        s = self.session().start()
        reply = s.run({"insert": "capped", "documents": [{}]}, start=True)
        self.assertEqual(reply["writeErrors"][0]["code"], 263)
        self.assertEqual(self.db.capped.count_documents({}), 0)

    def test_a_cursor_belongs_to_its_transaction(self):
        self.db.cur.drop()
        self.db.cur.insert_many([{"_id": i} for i in range(5)])
        s = self.session().start()
        reply = s.run({"find": "cur", "batchSize": 2}, start=True)
        cursor = reply["cursor"]["id"]
        s.run({"insert": "cur", "documents": [{"_id": 9}]})
        more = s.run({"getMore": cursor, "collection": "cur"})
        self.assertEqual([d["_id"] for d in more["cursor"]["nextBatch"]], [2, 3, 4])
        other = self.session()
        reply = other.run({"getMore": cursor, "collection": "cur"}, autocommit=False, txn=1)
        self.assertEqual(reply["ok"], 0)

    def test_lifetime_limit_aborts(self):
        admin = self.client.admin
        admin.command("setParameter", 1, transactionLifetimeLimitSeconds=1)
        try:
            self.db.life.drop()
            self.db.life.insert_one({"_id": 1, "n": 0})
            s = self.session().start()
            s.run({"update": "life", "updates": [{"q": {"_id": 1}, "u": {"$set": {"n": 1}}}]},
                  start=True)
            time.sleep(2.5)
            # Aborted by the server: its key is free for others at once.
            self.db.life.update_one({"_id": 1}, {"$set": {"n": 2}})
            other = self.session().start()
            other.run({"update": "life", "updates": [{"q": {"_id": 1}, "u": {"$set": {"n": 3}}}]},
                      start=True)
            self.assertEqual(other.commit()["ok"], 1)
            self.assert_error(s.commit(), 251, "Transaction with { txnNumber: 1 } has been aborted.",
                              transient=True)
            self.assertEqual(self.db.life.find_one({"_id": 1})["n"], 3)
        finally:
            admin.command("setParameter", 1, transactionLifetimeLimitSeconds=60)

    def test_end_sessions_aborts(self):
        s = self.session().start()
        s.run({"insert": "ended", "documents": [{"_id": 1}]}, start=True)
        self.client.admin.command({"endSessions": [s.lsid]})
        self.assert_error(s.commit(), 251, transient=True)
        self.assertEqual(self.db.ended.count_documents({}), 0)

    def test_kill_sessions_aborts_and_kills_cursors(self):
        self.db.killed.drop()
        self.db.killed.insert_many([{"_id": i} for i in range(5)])
        txn, reader = self.session().start(), self.session()
        txn.run({"insert": "killed", "documents": [{"_id": 9}]}, start=True)
        body = {"find": "killed", "batchSize": 1, "lsid": reader.lsid}
        cursor_id = command(reader.sock, body, db="tx").doc["cursor"]["id"]
        self.client.admin.command({"killSessions": [txn.lsid, reader.lsid]})
        self.assert_error(txn.commit(), 251, transient=True)
        more = command(reader.sock, {"getMore": cursor_id, "collection": "killed",
                                     "lsid": reader.lsid}, db="tx").doc
        self.assertEqual(more["code"], 43)
        self.assertEqual(self.db.killed.count_documents({}), 5)

    def test_the_commit_is_one_applyops_entry(self):
        self.db.logged.drop()
        self.db.logged.insert_one({"_id": 0})
        s = self.session().start()
        s.run({"insert": "logged", "documents": [{"_id": 1}, {"_id": 2}]}, start=True)
        s.run({"delete": "logged", "deletes": [{"q": {"_id": 0}, "limit": 1}]})
        s.commit()
        entry = self.client.local["oplog.rs"].find_one(
            {"op": "c", "ns": "admin.$cmd", "lsid": s.lsid}, sort=[("$natural", -1)])
        self.assertEqual(entry["txnNumber"], 1)
        self.assertEqual(entry["prevOpTime"]["t"], -1)
        ops = entry["o"]["applyOps"]
        self.assertEqual([(op["op"], op["ns"]) for op in ops],
                         [("i", "tx.logged"), ("i", "tx.logged"), ("d", "tx.logged")])
        self.assertEqual(ops[0]["o2"], {"_id": 1})
        self.assertEqual(ops[2]["o"], {"_id": 0})
        self.assertNotIn("ts", ops[0])
        # A read-only transaction logs nothing.
        before = self.client.local["oplog.rs"].count_documents({})
        s.start()
        s.run({"find": "logged"}, start=True)
        self.assertEqual(s.commit()["ok"], 1)
        self.assertEqual(self.client.local["oplog.rs"].count_documents({}), before)

    def test_change_stream_events_of_a_transaction(self):
        self.db.watched.drop()
        self.db.watched.insert_one({"_id": 0})
        stream = self.db.watched.watch()
        s = self.session().start()
        s.run({"insert": "watched", "documents": [{"_id": 1}]}, start=True)
        s.run({"update": "watched", "updates": [{"q": {"_id": 0}, "u": {"$set": {"x": 1}}}]})
        s.run({"insert": "elsewhere", "documents": [{"_id": 9}]})
        s.run({"delete": "watched", "deletes": [{"q": {"_id": 1}, "limit": 1}]})
        s.commit()
        events = [stream.next() for _ in range(3)]
        self.assertEqual([e["operationType"] for e in events], ["insert", "update", "delete"])
        for e in events:
            self.assertEqual(e["lsid"]["id"].bytes, bytes(s.lsid["id"]))
            self.assertEqual(e["txnNumber"], 1)
        # One commit: one clusterTime; the tokens still order the events.
        self.assertEqual(len({e["clusterTime"] for e in events}), 1)
        tokens = [e["_id"]["_data"] for e in events]
        self.assertEqual(tokens, sorted(tokens))
        # Resuming inside the transaction returns the changes after the token's.
        resumed = self.db.watched.watch(resume_after=events[0]["_id"])
        self.assertEqual([resumed.next()["operationType"] for _ in range(2)], ["update", "delete"])
        # Writes outside transactions carry no lsid.
        self.db.watched.insert_one({"_id": 2})
        self.assertNotIn("lsid", stream.next())

    def test_with_transaction_helper(self):
        self.db.helper.drop()
        with self.client.start_session() as s:
            def callback(session):
                self.db.helper.insert_one({"_id": "a"}, session=session)
                self.db.helper.insert_one({"_id": "b"}, session=session)
            s.with_transaction(callback)
        self.assertEqual(self.db.helper.count_documents({}), 2)


if __name__ == "__main__":
    unittest.main()
