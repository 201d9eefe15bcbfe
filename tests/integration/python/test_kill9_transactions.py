"""kill -9 during a stream of transactions (/usr/bin/python3, pymongo 3.11), on a one-member
replica set.

Two writers run transactions while cairnd is SIGKILLed at a random moment: a committer's each
moves one unit between two accounts and inserts a pair of ledger entries (four writes, one
commit); an aborter's inserts documents and then aborts. After every restart on the same dbpath:

- every transaction whose commit was acknowledged is there, whole;
- no transaction is there in part: each ledger pair is both or neither, and the accounts'
  balances sum to what they started with and match the ledger;
- the transaction whose commit was in flight at the kill is there whole or not at all;
- nothing of an aborted or never-committed transaction is there;
- the commit's applyOps oplog entry is there exactly for the transactions there.

KILL9_TXN_CYCLES cycles (default 10; at least 5 run, and no new cycle starts after
KILL9_BUDGET_SECONDS, default 40).
"""

import os
import random
import threading
import time
import unittest

import pymongo
from pymongo.errors import ConnectionFailure, OperationFailure

from harness import Kill9TestCase

CYCLES = int(os.environ.get("KILL9_TXN_CYCLES", "10"))
BUDGET_SECONDS = float(os.environ.get("KILL9_BUDGET_SECONDS", "40"))
MIN_CYCLES = 5
SEED = int(os.environ.get("KILL9_SEED", "20261129"))
DB = "kill9tx"
ACCOUNTS = 8
START_BALANCE = 1000


def connect(port):
    return pymongo.MongoClient("127.0.0.1", port, directConnection=True, retryWrites=False,
                               serverSelectionTimeoutMS=2000, socketTimeoutMS=5000)


class Worker(threading.Thread):
    """Runs one transaction after another (transaction()) until the server is killed."""

    def __init__(self, name, port):
        super().__init__(name=name, daemon=True)
        self.port = port
        self.error = None

    def run(self):
        client = connect(self.port)
        try:
            while True:
                with client.start_session() as s:
                    s.start_transaction()
                    self.transaction(client[DB], s)
        except (ConnectionFailure, OperationFailure):
            pass  # the server was killed
        except Exception as e:  # noqa: BLE001 - reported by the test thread
            self.error = e


class Committer(Worker):
    def __init__(self, port, rng, start_n):
        super().__init__("committer", port)
        self.rng, self.n = rng, start_n
        self.acked = []         # transaction numbers whose commit was acknowledged
        self.in_flight = None   # the transaction whose commit had been sent at the kill

    def transaction(self, db, s):
        self.n += 1
        src, dst = self.rng.sample(range(ACCOUNTS), 2)
        db.accounts.update_one({"_id": src}, {"$inc": {"balance": -1}}, session=s)
        db.accounts.update_one({"_id": dst}, {"$inc": {"balance": 1}}, session=s)
        db.ledger.insert_many([{"_id": "%d-out" % self.n, "t": self.n, "a": src, "d": -1},
                               {"_id": "%d-in" % self.n, "t": self.n, "a": dst, "d": 1}],
                              session=s)
        self.in_flight = self.n
        s.commit_transaction()
        self.in_flight = None
        self.acked.append(self.n)


class Aborter(Worker):
    def __init__(self, port):
        super().__init__("aborter", port)

    def transaction(self, db, s):
        db.ledger.insert_one({"aborted": True}, session=s)
        db.accounts.update_one({"_id": 0}, {"$inc": {"balance": 1000}}, session=s)
        s.abort_transaction()


class Kill9TransactionsTest(Kill9TestCase):
    server_args = ("--replSet", "rs0", "--initiate")

    def check(self, client, committed, maybe):
        db = client[DB]
        ledger = list(db.ledger.find({}))
        self.assertFalse([d for d in ledger if d.get("aborted")], "an aborted insert survived")
        by_txn = {}
        for d in ledger:
            by_txn.setdefault(d["t"], []).append(d)
        for t, entries in by_txn.items():
            self.assertEqual(len(entries), 2, "transaction %d is there in part" % t)
        present = set(by_txn)
        missing = committed - present
        self.assertFalse(missing, "acknowledged transactions lost: %s" % sorted(missing)[:10])
        extra = present - committed - maybe
        self.assertFalse(extra, "transactions never committed are there: %s" % sorted(extra)[:10])
        accounts = {d["_id"]: d["balance"] for d in db.accounts.find({})}
        self.assertEqual(sum(accounts.values()), ACCOUNTS * START_BALANCE)
        for a in range(ACCOUNTS):
            moved = sum(d["d"] for d in ledger if d["a"] == a)
            self.assertEqual(accounts[a], START_BALANCE + moved, "account %d" % a)
        entries = client.local["oplog.rs"].count_documents(
            {"op": "c", "ns": "admin.$cmd", "o.applyOps.ns": DB + ".ledger"})
        self.assertEqual(entries, len(present))
        return present

    def test_committed_transactions_survive_sigkill_and_no_other(self):
        rng = random.Random(SEED)
        started = time.monotonic()
        client = self.start(directConnection=True)
        client[DB].accounts.insert_many([{"_id": a, "balance": START_BALANCE}
                                         for a in range(ACCOUNTS)])
        client.close()
        committed, n, cycles_done = set(), 0, 0
        for cycle in range(CYCLES):
            with self.subTest(cycle=cycle):
                committer = Committer(self.server.port, random.Random(rng.random()), n)
                aborter = Aborter(self.server.port)
                committer.start()
                aborter.start()
                time.sleep(rng.uniform(0.3, 0.9))
                self.kill()
                for w in (committer, aborter):
                    w.join(15)
                    self.assertFalse(w.is_alive(), "%s did not stop after the kill" % w.name)
                    self.assertIsNone(w.error, "%s failed: %r" % (w.name, w.error))
                committed |= set(committer.acked)
                maybe = {committer.in_flight} if committer.in_flight else set()
                n = committer.n
                client = self.start(directConnection=True)
                try:
                    present = self.check(client, committed, maybe)
                    committed = present  # the in-flight one, if it made it, is committed now
                finally:
                    client.close()
            cycles_done = cycle + 1
            if cycles_done >= MIN_CYCLES and time.monotonic() - started > BUDGET_SECONDS:
                break
        self.assertGreater(len(committed), cycles_done * 5, "hardly any transaction committed")
        self.stop()
        print("\n%d kill -9 cycles, %d committed transactions, %.1fs" % (
            cycles_done, len(committed), time.monotonic() - started))


if __name__ == "__main__":
    unittest.main()
