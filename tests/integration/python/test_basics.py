"""pymongo 3.11 basics: the handshake, server_info, hello fields, databases and errors."""

import datetime
import unittest

from bson import Int64, ObjectId
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

    def test_unknown_command_is_code_59(self):
        with self.assertRaises(OperationFailure) as ctx:
            self.client.admin.command("nosuch")
        self.assertEqual(ctx.exception.code, 59)
        self.assertEqual(ctx.exception.details["codeName"], "CommandNotFound")
        self.assertEqual(ctx.exception.details["errmsg"], "no such command: 'nosuch'")
        self.assertEqual(ctx.exception.details["ok"], 0.0)


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
    """A find of {_id: <scalar>} answers exactly as the general find does: numbers equal by
    value, the reply shape of a cursor, and options or operators that change the answer."""

    def test_find_by_id_answers_as_the_general_find(self):
        db = self.client.test
        db.byid.drop()
        db.byid.insert_many([{"_id": 1, "a": 1}, {"_id": "x", "b": 2}, {"_id": 2.5},
                             {"_id": ObjectId("65f000000000000000000001"), "c": 3}])
        for key in (1, 1.0, Int64(1)):
            self.assertEqual(db.byid.find_one({"_id": key}), {"_id": 1, "a": 1})
        self.assertEqual(db.byid.find_one({"_id": "x"}), {"_id": "x", "b": 2})
        self.assertEqual(db.byid.find_one({"_id": ObjectId("65f000000000000000000001")})["c"], 3)
        self.assertIsNone(db.byid.find_one({"_id": 9}))
        self.assertEqual(db.command("find", "byid", filter={"_id": 2.5}),
                         {"cursor": {"firstBatch": [{"_id": 2.5}], "id": 0, "ns": "test.byid"},
                          "ok": 1.0})
        self.assertEqual(db.command("find", "missing", filter={"_id": 1}),
                         {"cursor": {"firstBatch": [], "id": 0, "ns": "test.missing"}, "ok": 1.0})
        # Options and filters the plain lookup does not cover keep their meaning.
        self.assertEqual(list(db.byid.find({"_id": 1}, {"a": 0})), [{"_id": 1}])
        self.assertEqual(list(db.byid.find({"_id": 1}).skip(1)), [])
        self.assertEqual(list(db.byid.find({"_id": 1, "a": 2})), [])
        self.assertEqual(list(db.byid.find({"_id": "X"}).collation({"locale": "en",
                                                                    "strength": 2})),
                         [{"_id": "x", "b": 2}])
        opened = db.command("find", "byid", filter={"_id": 1}, batchSize=0)
        self.assertNotEqual(opened["cursor"]["id"], 0)
        self.assertEqual(opened["cursor"]["firstBatch"], [])
        with self.assertRaises(OperationFailure) as raised:
            db.command("find", "byid", filter={"_id": 1}, limit=-1)
        self.assertEqual(raised.exception.code, 51024)

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
        with self.assertRaises(OperationFailure) as raised:
            list(self.client.test.aggregate([{"$listLocalSessions": {}}]))
        self.assertEqual(raised.exception.code, 73)


class FindHintTest(ServerTestCase):
    """A hint names an existing index by name or by key pattern (numbers compared by value)."""

    def test_hint_by_name_or_equal_key_pattern_and_unknown_hints_fail(self):
        db = self.client.test
        db.hinted.drop()
        db.hinted.insert_many([{"_id": i} for i in range(3)])
        for hint in ("_id_", {"_id": 1}, {"_id": 1.0}, {}):
            result = db.command({"find": "hinted", "filter": {}, "hint": hint})
            self.assertEqual(len(result["cursor"]["firstBatch"]), 3, hint)
        with self.assertRaises(OperationFailure) as ctx:
            db.command({"find": "hinted", "filter": {}, "hint": {"a": 1}})
        self.assertEqual(ctx.exception.code, 2)
