"""Change streams ($changeStream, watch()) on a one-member replica set, as MongoDB 7.0 shows them.

Specifies: the events of inserts, updates (updateDescription from the logged diff), replacements
and deletes with their fields in MongoDB's order; fullDocument: "updateLookup"; the scopes of a
collection, a database and the whole deployment; resuming (resumeAfter, startAfter,
startAtOperationTime) including across a kill -9 restart; postBatchResumeToken on every batch;
the stages allowed after $changeStream and the refusal of a pipeline that changes the resume
token; getMore waiting for new events; and the errors (standalone 40573, history lost 286, bad
tokens).
"""

import threading
import unittest

from bson.timestamp import Timestamp
from pymongo.errors import OperationFailure

from harness import CairnServer, ServerTestCase


def open_stream(db, collection, pipeline=None, batch_size=None, **options):
    """The raw aggregate reply of a change stream (cursor document and all)."""
    cursor = {} if batch_size is None else {"batchSize": batch_size}
    return db.command({"aggregate": collection,
                       "pipeline": [{"$changeStream": options}] + (pipeline or []),
                       "cursor": cursor})


def get_more(db, reply, max_time_ms=None, batch_size=None):
    cursor = reply["cursor"]
    command = {"getMore": cursor["id"], "collection": cursor["ns"].split(".", 1)[1]}
    if max_time_ms is not None:
        command["maxTimeMS"] = max_time_ms
    if batch_size is not None:
        command["batchSize"] = batch_size
    return db.command(command)


class ChangeStreams(ServerTestCase):
    server_args = ("--replSet", "rs0", "--initiate")
    client_options = {"directConnection": True}

    def test_events_of_each_write(self):
        coll = self.client.events.c
        with coll.watch() as stream:
            coll.insert_one({"_id": 1, "a": 1, "b": {"c": 1, "d": 2}})
            coll.update_one({"_id": 1}, {"$set": {"a": 2, "b.c": 5, "n": 1}, "$unset": {"b.d": ""}})
            coll.replace_one({"_id": 1}, {"x": 1})
            coll.delete_one({"_id": 1})
            insert, update, replace, delete = (stream.next() for _ in range(4))
        self.assertEqual(list(insert), ["_id", "operationType", "clusterTime", "wallTime",
                                        "fullDocument", "ns", "documentKey"])
        self.assertEqual(insert["operationType"], "insert")
        self.assertEqual(insert["fullDocument"], {"_id": 1, "a": 1, "b": {"c": 1, "d": 2}})
        self.assertEqual(insert["ns"], {"db": "events", "coll": "c"})
        self.assertEqual(insert["documentKey"], {"_id": 1})
        self.assertIsInstance(insert["clusterTime"], Timestamp)
        self.assertEqual(list(update), ["_id", "operationType", "clusterTime", "wallTime", "ns",
                                        "documentKey", "updateDescription"])
        self.assertEqual(update["updateDescription"], {
            "updatedFields": {"a": 2, "n": 1, "b.c": 5},
            "removedFields": ["b.d"], "truncatedArrays": []})
        self.assertEqual(replace["operationType"], "replace")
        self.assertEqual(replace["fullDocument"], {"_id": 1, "x": 1})
        self.assertEqual(list(delete), ["_id", "operationType", "clusterTime", "wallTime", "ns",
                                        "documentKey"])
        self.assertEqual(delete["documentKey"], {"_id": 1})
        # Tokens and cluster times increase along the stream.
        times = [e["clusterTime"] for e in (insert, update, replace, delete)]
        self.assertEqual(times, sorted(times))
        tokens = [e["_id"]["_data"] for e in (insert, update, replace, delete)]
        self.assertEqual(tokens, sorted(tokens))

    def test_update_lookup(self):
        coll = self.client.lookup.c
        coll.insert_one({"_id": 1, "n": 0})
        with coll.watch(full_document="updateLookup") as stream:
            coll.update_one({"_id": 1}, {"$inc": {"n": 1}})
            event = stream.next()
            self.assertEqual(event["fullDocument"], {"_id": 1, "n": 1})
            coll.update_one({"_id": 1}, {"$inc": {"n": 1}})
            coll.delete_one({"_id": 1})
            event = stream.next()  # looked up after the delete: none
            self.assertIsNone(event["fullDocument"])

    def test_scopes(self):
        db = self.client.scope
        with db.a.watch() as one, db.watch() as whole_db, self.client.watch() as cluster:
            db.a.insert_one({"_id": "a"})
            db.b.insert_one({"_id": "b"})
            self.client.scope_other.c.insert_one({"_id": "other"})
            self.assertEqual(one.next()["documentKey"], {"_id": "a"})
            self.assertIsNone(one.try_next())
            self.assertEqual([whole_db.next()["ns"] for _ in range(2)],
                             [{"db": "scope", "coll": "a"}, {"db": "scope", "coll": "b"}])
            self.assertEqual([cluster.next()["ns"]["coll"] for _ in range(3)], ["a", "b", "c"])
        with self.assertRaises(OperationFailure) as caught:
            self.client.admin.watch().next()
        self.assertEqual(caught.exception.code, 73)

    def test_resume_after_start_after_and_start_at_operation_time(self):
        coll = self.client.resume.c
        with coll.watch() as stream:
            start = self.client.resume.command("ping")["operationTime"]
            for i in range(3):
                coll.insert_one({"_id": i})
            first = stream.next()
        with coll.watch(resume_after=first["_id"]) as resumed:
            self.assertEqual([resumed.next()["documentKey"]["_id"] for _ in range(2)], [1, 2])
        with coll.watch(start_after=first["_id"]) as resumed:
            self.assertEqual(resumed.next()["documentKey"]["_id"], 1)
        with coll.watch(start_at_operation_time=start) as resumed:
            self.assertEqual([resumed.next()["documentKey"]["_id"] for _ in range(3)], [0, 1, 2])

    def test_post_batch_resume_token(self):
        db = self.client.pbrt
        reply = open_stream(db, "c")
        opened = reply["cursor"]
        self.assertEqual(list(opened), ["firstBatch", "postBatchResumeToken", "id", "ns"])
        self.assertEqual(opened["firstBatch"], [])
        self.assertNotEqual(opened["id"], 0)
        db.c.insert_many([{"_id": i} for i in range(3)])
        batch = get_more(db, reply, batch_size=2)["cursor"]
        self.assertEqual(len(batch["nextBatch"]), 2)
        # A batch cut by batchSize ends at its last event.
        self.assertEqual(batch["postBatchResumeToken"], batch["nextBatch"][-1]["_id"])
        batch = get_more(db, reply)["cursor"]
        self.assertEqual(batch["nextBatch"][0]["documentKey"], {"_id": 2})
        # Writes elsewhere move the token of an empty batch past them (a high-water mark).
        db.elsewhere.insert_one({})
        empty = get_more(db, reply, max_time_ms=10)["cursor"]
        self.assertEqual(empty["nextBatch"], [])
        self.assertGreater(empty["postBatchResumeToken"]["_data"],
                           batch["postBatchResumeToken"]["_data"])
        self.client.pbrt.command({"killCursors": "c", "cursors": [opened["id"]]})

    def test_stages_after_change_stream(self):
        coll = self.client.stages.c
        pipeline = [{"$match": {"operationType": "insert", "fullDocument.keep": True}},
                    {"$project": {"fullDocument": 1}}, {"$addFields": {"seen": True}}]
        with coll.watch(pipeline) as stream:
            coll.insert_many([{"_id": 1, "keep": False}, {"_id": 2, "keep": True}])
            event = stream.next()
        self.assertEqual(set(event), {"_id", "fullDocument", "seen"})
        self.assertEqual(event["fullDocument"], {"_id": 2, "keep": True})
        with self.assertRaises(OperationFailure) as caught:
            coll.watch([{"$group": {"_id": None}}])
        self.assertEqual(caught.exception.code, 20)
        self.assertIn("$group is not permitted in a $changeStream pipeline", str(caught.exception))
        with coll.watch([{"$project": {"_id": 0}}]) as stream:
            coll.insert_one({"_id": 3})
            with self.assertRaises(OperationFailure) as caught:
                stream.next()
        self.assertEqual(caught.exception.code, 280)

    def test_get_more_waits_for_the_next_event(self):
        coll = self.client.wait.c
        with coll.watch(max_await_time_ms=5000) as stream:
            timer = threading.Timer(0.3, lambda: self.client.wait.c.insert_one({"_id": "late"}))
            timer.start()
            try:
                event = stream.next()  # one getMore, answered when the insert commits
            finally:
                timer.join()
        self.assertEqual(event["documentKey"], {"_id": "late"})

    def test_drop_rename_and_drop_database_events(self):
        db = self.client.ddl
        db.a.insert_one({"_id": 1})
        db.b.insert_one({"_id": 1})
        with db.a.watch() as on_a, db.watch() as on_db, self.client.watch() as on_all:
            db.a.rename("renamed")
            db.b.drop()
            self.client.drop_database("ddl")
            rename = on_a.next()
            self.assertEqual(rename["operationType"], "rename")
            self.assertEqual(rename["ns"], {"db": "ddl", "coll": "a"})
            self.assertEqual(rename["to"], {"db": "ddl", "coll": "renamed"})
            invalidate = on_a.next()
            self.assertEqual(list(invalidate), ["_id", "operationType", "clusterTime", "wallTime"])
            self.assertEqual(invalidate["operationType"], "invalidate")
            self.assertFalse(on_a.alive)  # the cursor is closed after the invalidate event
            kinds = [(e["operationType"], e.get("ns")) for e in (on_db.next() for _ in range(5))]
            self.assertEqual(kinds, [
                ("rename", {"db": "ddl", "coll": "a"}),
                ("drop", {"db": "ddl", "coll": "b"}),
                ("drop", {"db": "ddl", "coll": "renamed"}),
                ("dropDatabase", {"db": "ddl"}),
                ("invalidate", None)])
            self.assertEqual([on_all.next()["operationType"] for _ in range(4)],
                             ["rename", "drop", "drop", "dropDatabase"])
            # A stream started after the invalidate event goes on from there.
            db.a.insert_one({"_id": "again"})
            with db.a.watch(start_after=invalidate["_id"]) as again:
                self.assertEqual(again.next()["documentKey"], {"_id": "again"})
        # The oplog holds the catalog entries, as mongod writes them.
        entries = list(self.client.local.oplog.rs.find({"op": "c", "ns": "ddl.$cmd",
                                                         "o.create": {"$exists": False}}))
        self.assertEqual([list(e["o"])[0] for e in entries],
                         ["renameCollection", "drop", "drop", "dropDatabase"])
        self.assertEqual(entries[0]["o"]["to"], "ddl.renamed")
        self.assertEqual(entries[1]["o2"], {"numRecords": 1})

    def test_expanded_events(self):
        db = self.client.expanded
        plain = open_stream(db, 1)
        expanded = open_stream(db, 1, showExpandedEvents=True)
        db.create_collection("c")
        db.c.create_index([("a", 1)], name="a_1")
        db.c.insert_one({"_id": 1})  # into the existing collection: no create
        db.implicit.insert_one({"_id": 1})  # creates it
        db.command("collMod", "c", index={"name": "a_1", "hidden": True})
        db.c.drop_index("a_1")
        db.c.rename("d")
        events = get_more(db, expanded)["cursor"]["nextBatch"]
        self.assertEqual([e["operationType"] for e in events],
                         ["create", "createIndexes", "insert", "create", "insert", "modify",
                          "dropIndexes", "rename"])
        modify = events.pop(5)
        self.assertEqual(modify["operationDescription"], {"index": {"name": "a_1",
                                                                    "hidden": True}})
        self.assertEqual(modify["stateBeforeChange"],
                         {"collectionOptions": {}, "indexOptions": {"hidden": False}})
        create, create_index = events[0], events[1]
        self.assertEqual(list(create), ["_id", "operationType", "clusterTime", "collectionUUID",
                                        "wallTime", "ns", "operationDescription"])
        self.assertEqual(create["operationDescription"],
                         {"idIndex": {"v": 2, "key": {"_id": 1}, "name": "_id_"}})
        self.assertEqual(create_index["operationDescription"],
                         {"indexes": [{"v": 2, "key": {"a": 1}, "name": "a_1"}]})
        self.assertEqual(events[5]["operationDescription"]["indexes"][0]["name"], "a_1")
        self.assertEqual(events[6]["operationDescription"], {"to": {"db": "expanded",
                                                                     "coll": "d"}})
        self.assertEqual(create["collectionUUID"], events[2]["collectionUUID"])
        # Without showExpandedEvents only the writes and the rename are events.
        events = get_more(db, plain)["cursor"]["nextBatch"]
        self.assertEqual([e["operationType"] for e in events], ["insert", "insert", "rename"])
        # listCollections shows the UUID the create entry carries.
        uuid = db.command("listCollections", filter={"name": "d"})["cursor"]["firstBatch"][0][
            "info"]["uuid"]
        self.assertEqual(uuid, create["collectionUUID"])

    def test_pre_and_post_images(self):
        # (pymongo 3.11 has no fullDocumentBeforeChange: the streams are opened by command.)
        db = self.client.images
        db.create_collection("c", changeStreamPreAndPostImages={"enabled": True})
        info = db.command("listCollections", filter={"name": "c"})["cursor"]["firstBatch"][0]
        self.assertEqual(info["options"], {"changeStreamPreAndPostImages": {"enabled": True}})
        db.c.insert_one({"_id": 1, "n": 1, "tag": "a"})
        stream = open_stream(db, "c", fullDocument="required",
                             fullDocumentBeforeChange="required")
        db.c.update_one({"_id": 1}, {"$inc": {"n": 1}, "$unset": {"tag": ""}})
        db.c.replace_one({"_id": 1}, {"n": 10})
        db.c.delete_one({"_id": 1})
        update, replace, delete = get_more(db, stream)["cursor"]["nextBatch"]
        self.assertEqual(update["fullDocument"], {"_id": 1, "n": 2})
        self.assertEqual(update["fullDocumentBeforeChange"], {"_id": 1, "n": 1, "tag": "a"})
        self.assertEqual(replace["fullDocumentBeforeChange"], {"_id": 1, "n": 2})
        self.assertEqual(delete["fullDocumentBeforeChange"], {"_id": 1, "n": 10})
        # Turned off: nothing more is recorded; whenAvailable finds none, required fails.
        db.command("collMod", "c", changeStreamPreAndPostImages={"enabled": False})
        info = db.command("listCollections", filter={"name": "c"})["cursor"]["firstBatch"][0]
        self.assertEqual(info["options"], {})
        db.c.insert_one({"_id": 2, "n": 0})
        available = open_stream(db, "c", fullDocumentBeforeChange="whenAvailable")
        required = open_stream(db, "c", fullDocumentBeforeChange="required")
        db.c.update_one({"_id": 2}, {"$inc": {"n": 1}})
        event = get_more(db, available)["cursor"]["nextBatch"][0]
        self.assertIsNone(event["fullDocumentBeforeChange"])
        with self.assertRaises(OperationFailure) as caught:
            get_more(db, required)
        self.assertEqual(caught.exception.code, 47)
        for bad, code in (({"enabled": 1}, 14), ({}, 40414), ({"enabled": True, "x": 1}, 40415),
                          (True, 14)):
            with self.assertRaises(OperationFailure) as caught:
                db.create_collection("bad", changeStreamPreAndPostImages=bad)
            self.assertEqual(caught.exception.code, code, bad)

    def test_split_large_events(self):
        # An update of a 9 MB document with its pre- and post-image makes an 18 MB event: without
        # $changeStreamSplitLargeEvent it fails (BSONObjectTooLarge 10334); with it the event comes
        # in fragments, smallest fields first, each with its own resume token.
        db = self.client.split
        db.create_collection("c", changeStreamPreAndPostImages={"enabled": True})
        db.c.insert_one({"_id": 1, "n": 1, "big": "x" * (9 * 1024 * 1024)})
        images = {"fullDocument": "required", "fullDocumentBeforeChange": "required"}
        whole = open_stream(db, "c", **images)
        split = open_stream(db, "c", [{"$changeStreamSplitLargeEvent": {}}], **images)
        db.c.update_one({"_id": 1}, {"$inc": {"n": 1}})
        db.c.insert_one({"_id": 2})  # a small event after it: returned whole
        with self.assertRaises(OperationFailure) as caught:
            get_more(db, whole)
        self.assertEqual(caught.exception.code, 10334)
        fragments = []
        while len(fragments) < 3:
            batch = get_more(db, split)["cursor"]["nextBatch"]
            fragments.extend(batch)
        first, second, small = fragments[:3]
        self.assertEqual(first["splitEvent"], {"fragment": 1, "of": 2})
        self.assertEqual(second["splitEvent"], {"fragment": 2, "of": 2})
        self.assertEqual(list(first)[:2], ["_id", "splitEvent"])
        self.assertEqual(first["operationType"], "update")
        self.assertEqual(first["fullDocument"]["n"], 2)
        self.assertNotIn("fullDocumentBeforeChange", first)
        self.assertEqual(set(second), {"_id", "splitEvent", "fullDocumentBeforeChange"})
        self.assertEqual(second["fullDocumentBeforeChange"]["n"], 1)
        self.assertNotEqual(first["_id"], second["_id"])
        self.assertNotIn("splitEvent", small)
        self.assertEqual(small["documentKey"], {"_id": 2})
        # Resuming from the first fragment's token returns the second, then what follows.
        resumed = open_stream(db, "c", [{"$changeStreamSplitLargeEvent": {}}],
                              resumeAfter=first["_id"], **images)
        docs = resumed["cursor"]["firstBatch"]
        while len(docs) < 2:
            docs.extend(get_more(db, resumed)["cursor"]["nextBatch"])
        self.assertEqual(docs[0]["_id"], second["_id"])
        self.assertEqual(docs[1]["_id"], small["_id"])
        resumed = open_stream(db, "c", [{"$changeStreamSplitLargeEvent": {}}],
                              resumeAfter=second["_id"], **images)
        docs = resumed["cursor"]["firstBatch"] or get_more(db, resumed)["cursor"]["nextBatch"]
        self.assertEqual(docs[0]["_id"], small["_id"])
        # A fragment's token needs the stage; the stage's own rules.
        cases = [
            ([], {"resumeAfter": first["_id"]}, 280),
            ([{"$changeStreamSplitLargeEvent": {"a": 1}}], {}, 7182800),
            ([{"$changeStreamSplitLargeEvent": {}}, {"$match": {}}], {}, 7182802),
        ]
        for pipeline, options, code in cases:
            with self.assertRaises(OperationFailure) as caught:
                open_stream(db, "c", pipeline, **options)
            self.assertEqual(caught.exception.code, code, pipeline)
        with self.assertRaises(OperationFailure) as caught:
            db.command({"aggregate": "c", "pipeline": [{"$changeStreamSplitLargeEvent": {}}],
                        "cursor": {}})
        self.assertEqual(caught.exception.code, 20)

    def test_errors(self):
        db = self.client.errors
        cases = [
            ({"resumeAfter": {"_data": "not a token"}}, 9),
            ({"fullDocument": "sometimes"}, 2),
            ({"unknownOption": 1}, 40415),
            ({"resumeAfter": {"_data": "826B0B2EA2000000020000000000"},
              "startAtOperationTime": Timestamp(1, 1)}, 40674),
            # A point the oplog no longer holds.
            ({"startAtOperationTime": Timestamp(1, 1)}, 286),
        ]
        for options, code in cases:
            with self.assertRaises(OperationFailure) as caught:
                open_stream(db, "c", **options)
            self.assertEqual(caught.exception.code, code, options)
        with self.assertRaises(OperationFailure) as caught:
            db.command({"aggregate": "c", "pipeline": [{"$match": {}}, {"$changeStream": {}}],
                        "cursor": {}})
        self.assertEqual(caught.exception.code, 40602)


class ResumeAcrossARestart(unittest.TestCase):
    def test_kill9_then_resume(self):
        first = CairnServer(args=["--replSet", "rs0", "--initiate"]).start()
        second = None
        try:
            client = first.client(directConnection=True)
            coll = client.restart.c
            with coll.watch() as stream:
                coll.insert_one({"_id": 0})
                token = stream.next()["_id"]
                coll.insert_many([{"_id": 1}, {"_id": 2}])  # acknowledged, not yet read
            client.close()
            first.kill()
            second = CairnServer(args=["--replSet", "rs0", "--initiate"], dbpath=first.dbpath,
                                 port=first.port).start()
            client = second.client(directConnection=True)
            client.restart.c.insert_one({"_id": 3})
            with client.restart.c.watch(resume_after=token) as resumed:
                self.assertEqual([resumed.next()["documentKey"]["_id"] for _ in range(3)],
                                 [1, 2, 3])
            client.close()
        finally:
            if second is not None:
                second.stop()
            elif first.alive:
                first.stop()
            first.cleanup()


class Standalone(unittest.TestCase):
    def test_change_streams_need_a_replica_set(self):
        server = CairnServer().start()
        try:
            client = server.client()
            with self.assertRaises(OperationFailure) as caught:
                client.test.c.watch()
            self.assertEqual(caught.exception.code, 40573)
            client.close()
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main()
