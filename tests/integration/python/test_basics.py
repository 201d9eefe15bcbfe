"""pymongo 3.11 basics: the handshake, server_info, hello fields, databases and errors."""

import datetime
import unittest

from bson import ObjectId
from pymongo.errors import OperationFailure

from harness import ServerTestCase


class BasicsTest(ServerTestCase):

    def test_server_info_reports_mongodb_7_0_0(self):
        info = self.client.server_info()  # pymongo 3.11 sends lowercase "buildinfo"
        self.assertEqual(info["version"], "7.0.0")
        self.assertEqual(info["versionArray"][:3], [7, 0, 0])
        self.assertEqual(info["ok"], 1.0)
        self.assertEqual(info["maxBsonObjectSize"], 16777216)

    def test_ping_and_hello(self):
        self.assertEqual(self.client.admin.command("ping"), {"ok": 1.0})
        hello = self.client.admin.command("hello")
        self.assertIs(hello["isWritablePrimary"], True)
        self.assertEqual(hello["maxBsonObjectSize"], 16777216)
        self.assertEqual(hello["maxMessageSizeBytes"], 48000000)
        self.assertEqual(hello["maxWriteBatchSize"], 100000)
        self.assertEqual(hello["minWireVersion"], 0)
        self.assertEqual(hello["maxWireVersion"], 21)
        self.assertIsInstance(hello["localTime"], datetime.datetime)
        self.assertEqual(hello["logicalSessionTimeoutMinutes"], 30)
        self.assertIs(hello["readOnly"], False)
        self.assertEqual(hello["ok"], 1.0)
        legacy = self.client.admin.command("ismaster")
        self.assertIs(legacy["ismaster"], True)

    def test_databases_appear_when_written(self):
        db = self.client["py_basics"]
        self.assertNotIn("py_basics", self.client.list_database_names())
        db.things.insert_one({"_id": 1})
        self.assertIn("py_basics", self.client.list_database_names())
        self.assertEqual(db.list_collection_names(), ["things"])
        self.client.drop_database("py_basics")
        self.assertNotIn("py_basics", self.client.list_database_names())

    def test_roundtrip_of_bson_types(self):
        coll = self.client["py_basics_types"].docs
        when = datetime.datetime(2024, 5, 17, 8, 30, 15, 123000)
        oid = ObjectId()
        doc = {
            "_id": oid, "int": 42, "long": 2 ** 40, "double": 2.5, "str": "héllo ✓",
            "bool": False, "none": None, "date": when, "list": [1, "two", {"three": 3}],
            "nested": {"a": {"b": {"c": [True]}}}, "bytes": b"\x00\x01\x02",
        }
        coll.insert_one(dict(doc))
        self.assertEqual(coll.find_one({"_id": oid}), doc)
        self.assertEqual(list(coll.find_one({"_id": oid}).keys()), list(doc.keys()))

    def test_insert_one_generates_an_object_id(self):
        coll = self.client["py_basics_ids"].docs
        result = coll.insert_one({"x": 1})
        self.assertIsInstance(result.inserted_id, ObjectId)
        self.assertTrue(result.acknowledged)
        self.assertEqual(coll.find_one(), {"_id": result.inserted_id, "x": 1})


if __name__ == "__main__":
    unittest.main()


class PointReadConsistencyTest(ServerTestCase):
    """Reads by _id stay exact while the same _id is deleted, re-inserted and updated, from
    several connections (the server caches where an _id's document lives)."""

    def test_find_by_id_follows_deletes_and_reinserts(self):
        other = self.server.client()
        try:
            a = self.client.test.pointreads
            b = other.test.pointreads
            a.drop()
            for round_ in range(20):
                a.insert_one({"_id": 1, "v": round_})
                self.assertEqual(b.find_one({"_id": 1}), {"_id": 1, "v": round_})
                b.update_one({"_id": 1}, {"$inc": {"v": 100}})
                self.assertEqual(a.find_one({"_id": 1})["v"], round_ + 100)
                self.assertEqual(a.delete_one({"_id": 1}).deleted_count, 1)
                self.assertIsNone(b.find_one({"_id": 1}))
                self.assertIsNone(a.find_one_and_update({"_id": 1}, {"$set": {"x": 1}}))
            a.insert_one({"_id": "s", "v": 1})
            a.drop()
            self.assertIsNone(b.find_one({"_id": "s"}))
            a.insert_one({"_id": "s", "v": 2})
            self.assertEqual(b.find_one({"_id": "s"}), {"_id": "s", "v": 2})
        finally:
            other.close()



class FindByIdTest(ServerTestCase):
    """A find of {_id: <scalar>} with batchSize 0 opens a cursor, as the general find does (the
    rest of this behaviour is tests/spec/find/by_id.json)."""

    def test_find_by_id_with_batch_size_zero_opens_a_cursor(self):
        db = self.client.test
        db.byid.drop()
        db.byid.insert_many([{"_id": 1, "a": 1}, {"_id": "x", "b": 2}, {"_id": 2.5},
                             {"_id": ObjectId("65f000000000000000000001"), "c": 3}])
        opened = db.command("find", "byid", filter={"_id": 1}, batchSize=0)
        self.assertNotEqual(opened["cursor"]["id"], 0)
        self.assertEqual(opened["cursor"]["firstBatch"], [])

class LocalSessionsTest(ServerTestCase):
    """$listLocalSessions lists the sessions commands carried; endSessions removes them."""

    def test_list_local_sessions_and_end_sessions(self):
        def raw(uuid):  # pymongo 3.11 reads subtype 4 back as uuid.UUID
            return uuid.bytes if hasattr(uuid, "bytes") else bytes(uuid)

        def listed():
            return [raw(d["_id"]["id"])
                    for d in self.client.admin.aggregate([{"$listLocalSessions": {}}])]

        with self.client.start_session() as session:
            self.client.test.sessions.find_one({}, session=session)
            session_id = raw(session.session_id["id"])
            self.assertIn(session_id, listed())
            entry = next(d for d in self.client.admin.aggregate(
                [{"$listLocalSessions": {"allUsers": True}},
                 {"$match": {"_id.id": session.session_id["id"]}}]))
            self.assertEqual(len(entry["_id"]["uid"]), 32)
            self.assertIsInstance(entry["lastUse"], datetime.datetime)
            self.client.admin.command("endSessions", [session.session_id])
            self.assertNotIn(session_id, listed())
        for pipeline, code in (([{"$listLocalSessions": 1}], 14),
                               ([{"$listLocalSessions": {"bogus": 1}}], 40415)):
            with self.assertRaises(OperationFailure) as raised:
                list(self.client.admin.aggregate(pipeline))
            self.assertEqual(raised.exception.code, code)
        # Any database's {aggregate: 1} lists them (MongoDB 5.0+); a collection's refuses.
        self.assertIsInstance(list(self.client.test.aggregate([{"$listLocalSessions": {}}])), list)
        with self.assertRaises(OperationFailure) as raised:
            list(self.client.test.c.aggregate([{"$listLocalSessions": {}}]))
        self.assertEqual(raised.exception.code, 73)
