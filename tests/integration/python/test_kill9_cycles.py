"""kill -9 cycles (/usr/bin/python3, pymongo 3.11): two writers, one with {j: true} and one with
{w: 1, j: false}, insert, update, delete and attempt duplicate inserts on collections with
secondary indexes (unique, compound, multikey, sparse) while cairnd is SIGKILLed at a random
moment. After every restart on the same dbpath:

- every acknowledged write is there, exactly (an acknowledged delete stays deleted);
- the one operation in flight when the process died shows either its old or its new state;
- no write that failed (E11000) or was never sent shows up, and the unique index still refuses
  a duplicate;
- validate {full: true} answers valid: true on every collection, with nrecords equal to the
  documents and keysPerIndex matching them index by index.

Cairn syncs the WAL for j: true and writes it unsynced otherwise: both survive the death of the
process (README decision 4), so both writers are held to every acknowledged write. The number
of cycles is KILL9_CYCLES (default 16; at least 10 run, and no new cycle starts after
KILL9_BUDGET_SECONDS, default 60).
"""

import os
import random
import threading
import time
import unittest

import pymongo
from pymongo import ASCENDING, DESCENDING
from pymongo.errors import ConnectionFailure, DuplicateKeyError
from pymongo.write_concern import WriteConcern

from harness import Kill9TestCase

CYCLES = int(os.environ.get("KILL9_CYCLES", "16"))
SEED = int(os.environ.get("KILL9_SEED", "20251123"))
# Past this many seconds no further cycle starts once MIN_CYCLES are done (a sanitizer build is
# several times slower; CTest's TIMEOUT is the hard limit).
BUDGET_SECONDS = float(os.environ.get("KILL9_BUDGET_SECONDS", "60"))
MIN_CYCLES = 10
DB = "kill9"
WRITERS = {"journaled": WriteConcern(w=1, j=True), "unjournaled": WriteConcern(w=1, j=False)}
ABSENT = object()  # the state of a document that does not exist


def make_doc(writer, n, rng):
    doc = {"_id": "%s-%06d" % (writer, n), "k": n, "g": n % 7,
           "u": "%s-u-%06d" % (writer, n), "tags": sorted({n % 3, n % 5, 10 + n % 2}),
           "pad": "p" * rng.randint(0, 300)}
    if n % 2:
        doc["opt"] = n
    return doc


class Writer(threading.Thread):
    """Writes to one collection until the connection fails, recording what was acknowledged."""

    def __init__(self, name, port, rng, expected, start_n):
        super().__init__(name="writer-" + name, daemon=True)
        self.writer = name
        self.port = port
        self.rng = rng
        self.expected = expected       # _id -> acknowledged document (or ABSENT if deleted)
        self.n = start_n
        self.in_flight = None          # (_id, state before, state after) of the unfinished op
        self.failed_ids = set()        # ids whose insert failed with E11000 (never stored)
        self.acked = 0
        self.error = None

    def run(self):
        client = pymongo.MongoClient("127.0.0.1", self.port, serverSelectionTimeoutMS=2000,
                                     socketTimeoutMS=5000, connectTimeoutMS=2000,
                                     retryWrites=False)
        coll = client[DB].get_collection(self.writer, write_concern=WRITERS[self.writer])
        try:
            while True:
                self.step(coll)
        except ConnectionFailure:
            pass  # the server was killed: the operation in flight stays in self.in_flight
        except Exception as e:  # noqa: BLE001 - reported by the test thread
            self.error = e
        finally:
            client.close()

    def live_ids(self):
        return [i for i, d in self.expected.items() if d is not ABSENT]

    def step(self, coll):
        roll = self.rng.random()
        live = self.live_ids()
        if roll < 0.55 or len(live) < 5:
            self.n += 1
            doc = make_doc(self.writer, self.n, self.rng)
            self.apply(doc["_id"], doc, lambda: coll.insert_one(doc))
        elif roll < 0.80:
            target = self.rng.choice(live)
            before = self.expected[target]
            after = dict(before)
            after["k"] = before["k"] + 1000
            after["g"] = (before["g"] + 1) % 7
            tag = 20 + self.n % 4
            after["tags"] = before["tags"] + ([] if tag in before["tags"] else [tag])
            self.apply(target, after, lambda: coll.update_one(
                {"_id": target}, {"$inc": {"k": 1000}, "$set": {"g": after["g"]},
                                  "$addToSet": {"tags": tag}}))
        elif roll < 0.92:
            target = self.rng.choice(live)
            self.apply(target, ABSENT, lambda: coll.delete_one({"_id": target}))
        else:
            # A new _id whose unique field repeats a live document's: must fail and leave nothing.
            self.n += 1
            victim = self.expected[self.rng.choice(live)]
            doc = make_doc(self.writer, self.n, self.rng)
            doc["u"] = victim["u"]
            try:
                self.in_flight = (doc["_id"], ABSENT, ABSENT)
                coll.insert_one(doc)
            except DuplicateKeyError:
                self.failed_ids.add(doc["_id"])
                self.in_flight = None
                return
            raise AssertionError("duplicate u %r was accepted" % victim["u"])

    def apply(self, _id, after, op):
        before = self.expected.get(_id, ABSENT)
        self.in_flight = (_id, before, after)
        op()
        self.expected[_id] = after
        self.in_flight = None
        self.acked += 1


class Kill9CyclesTest(Kill9TestCase):
    def test_acknowledged_writes_survive_sigkill(self):
        rng = random.Random(SEED)
        started = time.monotonic()
        expected = {name: {} for name in WRITERS}
        next_n = {name: 0 for name in WRITERS}
        failed = {name: set() for name in WRITERS}

        client = self.start()
        for name in WRITERS:
            coll = client[DB][name]
            coll.create_index([("u", ASCENDING)], unique=True)
            coll.create_index([("k", ASCENDING)])
            coll.create_index([("g", ASCENDING), ("k", DESCENDING)])
            coll.create_index([("tags", ASCENDING)])
            coll.create_index([("opt", ASCENDING)], sparse=True)
        client.close()

        total_acked = 0
        cycles_done = 0
        for cycle in range(CYCLES):
            with self.subTest(cycle=cycle):
                writers = [Writer(name, self.server.port, random.Random(rng.random()),
                                  expected[name], next_n[name]) for name in WRITERS]
                for w in writers:
                    w.start()
                time.sleep(rng.uniform(0.25, 0.9))
                self.kill()  # SIGKILL while both writers are mid-stream
                for w in writers:
                    w.join(15)
                    self.assertFalse(w.is_alive(), "%s did not stop after the kill" % w.name)
                    self.assertIsNone(w.error, "%s failed: %r" % (w.name, w.error))
                    next_n[w.writer] = w.n
                    failed[w.writer] |= w.failed_ids
                    total_acked += w.acked

                client = self.start()
                try:
                    for w in writers:
                        self.check_collection(client, w, failed[w.writer])
                finally:
                    client.close()
            cycles_done = cycle + 1
            if cycles_done >= MIN_CYCLES and time.monotonic() - started > BUDGET_SECONDS:
                break
        self.assertGreater(total_acked, cycles_done * 10, "the writers hardly wrote anything")
        self.stop()
        print("\n%d cycles, %d acknowledged writes, %.1fs" % (cycles_done, total_acked,
                                                           time.monotonic() - started))

    def check_collection(self, client, writer, failed_ids):
        name = writer.writer
        coll = client[DB][name]
        stored = {d["_id"]: d for d in coll.find()}
        expected = writer.expected
        if writer.in_flight is not None:
            _id, before, after = writer.in_flight
            actual = stored.get(_id, ABSENT)
            self.assertTrue(actual == before or actual == after,
                            "%s: %s is %r, neither its old %r nor its new %r state"
                            % (name, _id, actual, before, after))
            expected[_id] = actual
            writer.in_flight = None
        want = {i: d for i, d in expected.items() if d is not ABSENT}
        missing = sorted(set(want) - set(stored))
        extra = sorted(set(stored) - set(want))
        self.assertEqual(missing, [], "%s: acknowledged documents lost after kill -9" % name)
        self.assertEqual(extra, [], "%s: documents nobody acknowledged" % name)
        for _id, doc in want.items():
            self.assertEqual(stored[_id], doc, "%s: %s differs from its acknowledged state"
                             % (name, _id))
        self.assertEqual(sorted(failed_ids & set(stored)), [],
                         "%s: a failed duplicate insert was stored" % name)

        # The unique index still refuses what it must.
        if want:
            victim = next(iter(want.values()))
            with self.assertRaises(DuplicateKeyError):
                coll.with_options(write_concern=WriteConcern(w=1)).insert_one(
                    {"_id": "probe-" + victim["_id"], "u": victim["u"]})

        reply = client[DB].command("validate", name, full=True)
        self.assertIs(reply["valid"], True, reply)
        self.assertEqual(reply["errors"], [], reply)
        self.assertEqual(reply["nInvalidDocuments"], 0)
        self.assertEqual(reply["nrecords"], len(want))
        docs = list(want.values())
        self.assertEqual(dict(reply["keysPerIndex"]), {
            "_id_": len(docs),
            "u_1": len(docs),
            "k_1": len(docs),
            "g_1_k_-1": len(docs),
            "tags_1": sum(len(set(d["tags"])) for d in docs),
            "opt_1": sum(1 for d in docs if "opt" in d),
        }, reply)
        self.assertEqual(coll.count_documents({}), len(want))


if __name__ == "__main__":
    unittest.main()
