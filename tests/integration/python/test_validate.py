"""The validate command as MongoDB 7.0 answers it on a standalone (pymongo 3.11, Debian's).

Sources: mongodb/mongo src/mongo/db/commands/validate.cpp (options and their errors, `advice`),
catalog/collection_validation.cpp and validate_state.cpp (NamespaceNotFound "Collection '<ns>'
does not exist to validate.", the order of the reply), validate_adaptor.cpp (nInvalidDocuments,
nNonCompliantDocuments, nrecords; the BSON-conformance and schema warnings),
index_consistency.cpp (keysPerIndex, multikey metadata adjusted in the foreground) and
validate_results.cpp (valid, repaired, warnings, errors, extraIndexEntries, missingIndexEntries,
corruptRecords). Cairn's corruption detection itself (missing/extra entries, corrupt records,
repair) is exercised on a tampered store in tests/unit/server/validate_test.cc.
"""

import threading
import unittest

from bson.binary import Binary
from bson.code import Code
from pymongo import ASCENDING, DESCENDING, TEXT
from pymongo.errors import OperationFailure

from harness import ServerTestCase

# The fields of a full reply, in MongoDB 7.0's order.
REPLY_FIELDS = ["ns", "uuid", "nInvalidDocuments", "nNonCompliantDocuments", "nrecords",
                "nIndexes", "keysPerIndex", "indexDetails", "valid", "repaired", "warnings",
                "errors", "extraIndexEntries", "missingIndexEntries", "corruptRecords", "ok"]
METADATA_FIELDS = ["ns", "uuid", "valid", "repaired", "warnings", "errors", "extraIndexEntries",
                   "missingIndexEntries", "corruptRecords", "ok"]
ADVICE = ("A corrupt namespace has been detected. See "
          "http://dochub.mongodb.org/core/data-recovery for recovery steps.")
BSON_NON_CONFORMANT = ("Detected one or more documents in this collection not conformant to BSON "
                       "specifications. For more info, see logs with log id 6825900")
SCHEMA_NON_COMPLIANT = ("Detected one or more documents not compliant with the collection's "
                        "schema. Check logs for log id 5363500.")
WORDS = ["apple", "banana", "cherry", "grape", "melon"]


def shop_docs():
    """Documents exercising every index kind below; returns (docs, expected keysPerIndex)."""
    docs = []
    for i in range(60):
        doc = {"_id": i, "a": i % 7, "b": "b%d" % (i % 4), "u": "unique-%03d" % i}
        if i % 5 == 0:
            doc["tags"] = []                      # one key: undefined
        elif i % 5 == 1:
            pass                                  # one key: null
        else:
            doc["tags"] = ["x%d" % (i % 3), "y", "y", {"k": i}]  # three distinct keys
        if i % 2 == 0:
            doc["s"] = i                          # sparse: only these
        doc["p"] = i % 10                         # partial: only p > 5
        if i % 3 == 0:
            doc["t"] = " ".join(WORDS[:1 + i % len(WORDS)])
        docs.append(doc)
    keys = {
        "_id_": len(docs),
        "a_1": len(docs),
        "a_1_b_-1": len(docs),
        "u_1": len(docs),
        "tags_1": sum(3 if "tags" in d and d["tags"] else 1 for d in docs),
        "s_1": sum(1 for d in docs if "s" in d),
        "p_1": sum(1 for d in docs if d["p"] > 5),
        "t_text": sum(len(set(d["t"].split())) for d in docs if "t" in d),
    }
    return docs, keys


class ValidateTest(ServerTestCase):
    def setUp(self):
        self.db = self.client["vdb_" + self._testMethodName[:40]]
        self.client.drop_database(self.db.name)

    def tearDown(self):
        self.client.drop_database(self.db.name)

    # -- helpers ---------------------------------------------------------------------------
    def validate(self, name, **options):
        return self.db.command("validate", name, **options)

    def assert_error(self, code, code_name, message, name, **options):
        with self.assertRaises(OperationFailure) as caught:
            self.validate(name, **options)
        details = caught.exception.details
        self.assertEqual((details.get("code"), details.get("codeName"), details.get("errmsg")),
                         (code, code_name, message), details)

    def uuid_of(self, name):
        info = next(self.db.list_collections(filter={"name": name}))
        return info["info"]["uuid"]

    def make_shop(self):
        coll = self.db.items
        coll.create_index([("a", ASCENDING)])
        coll.create_index([("a", ASCENDING), ("b", DESCENDING)])
        coll.create_index([("u", ASCENDING)], unique=True)
        coll.create_index([("tags", ASCENDING)])
        coll.create_index([("s", ASCENDING)], sparse=True)
        coll.create_index([("p", ASCENDING)], partialFilterExpression={"p": {"$gt": 5}})
        coll.create_index([("t", TEXT)])
        docs, keys = shop_docs()
        coll.insert_many(docs)
        return coll, docs, keys

    def assert_valid_reply(self, reply, name, nrecords, keys):
        self.assertEqual(list(reply.keys()), REPLY_FIELDS, reply)
        self.assertEqual(reply["ns"], "%s.%s" % (self.db.name, name))
        self.assertEqual(reply["uuid"], self.uuid_of(name))
        for field in ("nInvalidDocuments", "nNonCompliantDocuments", "nrecords", "nIndexes"):
            # appendNumber(long long) stores an int32 when the value fits.
            self.assertIs(type(reply[field]), int, field)
        self.assertEqual(reply["nInvalidDocuments"], 0)
        self.assertEqual(reply["nNonCompliantDocuments"], 0)
        self.assertEqual(reply["nrecords"], nrecords)
        self.assertEqual(reply["nIndexes"], len(keys))
        self.assertEqual(dict(reply["keysPerIndex"]), keys)
        self.assertEqual(dict(reply["indexDetails"]), {name: {"valid": True} for name in keys})
        self.assertIs(reply["valid"], True)
        self.assertIs(reply["repaired"], False)
        for field in ("warnings", "errors", "extraIndexEntries", "missingIndexEntries",
                      "corruptRecords"):
            self.assertEqual(reply[field], [], field)
        self.assertEqual(reply["ok"], 1.0)

    # -- valid collections -----------------------------------------------------------------
    def test_every_index_kind_is_consistent(self):
        _, docs, keys = self.make_shop()
        reply = self.validate("items")
        self.assert_valid_reply(reply, "items", len(docs), keys)
        self.assertEqual(list(reply["keysPerIndex"].keys()),
                         ["_id_", "a_1", "a_1_b_-1", "u_1", "tags_1", "s_1", "p_1", "t_text"],
                         "keysPerIndex lists the indexes in catalog order")

    def test_full_and_check_bson_conformance_agree(self):
        _, docs, keys = self.make_shop()
        for options in ({"full": True}, {"checkBSONConformance": True},
                        {"full": True, "checkBSONConformance": True}, {"full": False},
                        {"enforceFastCount": True}):
            with self.subTest(options=options):
                self.assert_valid_reply(self.validate("items", **options), "items", len(docs),
                                        keys)

    def test_after_updates_and_deletes(self):
        coll, docs, _ = self.make_shop()
        coll.update_many({"a": 3}, {"$set": {"tags": ["z"], "s": None, "p": 9},
                                    "$unset": {"t": ""}})
        coll.update_one({"_id": 10}, {"$set": {"u": "renamed"}})
        coll.delete_many({"a": 1})
        coll.replace_one({"_id": 2}, {"a": 100, "u": "replaced", "p": 7})
        live = list(coll.find())
        keys = {
            "_id_": len(live),
            "a_1": len(live),
            "a_1_b_-1": len(live),
            "u_1": len(live),
            "tags_1": sum(len({repr(t) for t in d["tags"]}) if d.get("tags") else 1 for d in live),
            "s_1": sum(1 for d in live if "s" in d),
            "p_1": sum(1 for d in live if d.get("p", 0) > 5),
            "t_text": sum(len(set(d["t"].split())) for d in live if "t" in d),
        }
        self.assert_valid_reply(self.validate("items", full=True), "items", len(live), keys)

    def test_empty_collection(self):
        self.db.create_collection("empty")
        self.assert_valid_reply(self.validate("empty"), "empty", 0, {"_id_": 0})

    def test_capped_collection(self):
        capped = self.db.create_collection("capped", capped=True, size=4096, max=5)
        capped.insert_many([{"_id": i, "x": "y" * 10} for i in range(20)])
        self.assert_valid_reply(self.validate("capped", full=True), "capped", 5, {"_id_": 5})

    def test_metadata_only(self):
        self.make_shop()
        reply = self.validate("items", metadata=True)
        self.assertEqual(list(reply.keys()), METADATA_FIELDS, reply)
        self.assertIs(reply["valid"], True)
        self.assertEqual(reply["uuid"], self.uuid_of("items"))

    def test_unknown_fields_are_ignored(self):
        # validate is not an IDL command in 7.0: options are read with trueValue() and other
        # fields are ignored.
        self.db.create_collection("c")
        reply = self.validate("c", foo=1, full="yes", comment="hi")
        self.assertIs(reply["valid"], True)

    # -- what validate reports without failing ---------------------------------------------
    def test_documents_not_conformant_to_bson_specifications(self):
        coll = self.db.nonconformant
        coll.insert_many([
            {"_id": 1, "ok": True},
            {"_id": 2, "code": Code("function() {}", {"scope": 1})},  # deprecated type 15
            {"_id": 3, "uuid": Binary(b"short", 4)},                  # a UUID is 16 bytes
        ])
        reply = self.validate("nonconformant")
        self.assertEqual(list(reply.keys()), REPLY_FIELDS, reply)
        self.assertEqual(reply["nNonCompliantDocuments"], 2)
        self.assertEqual(reply["nInvalidDocuments"], 0)
        self.assertEqual(reply["warnings"], [BSON_NON_CONFORMANT])
        self.assertEqual(reply["errors"], [])
        self.assertIs(reply["valid"], True)

    def test_documents_failing_the_collection_validator(self):
        self.db.create_collection("schema", validator={"qty": {"$gte": 0}})
        coll = self.db.schema
        coll.insert_one({"_id": 1, "qty": 3})
        coll.insert_many([{"_id": 2, "qty": -1}, {"_id": 3, "qty": -2}],
                         bypass_document_validation=True)
        reply = self.validate("schema")
        self.assertEqual(reply["nNonCompliantDocuments"], 2)
        self.assertEqual(reply["errors"], [SCHEMA_NON_COMPLIANT])
        self.assertIs(reply["valid"], False)
        self.assertEqual(reply["advice"], ADVICE)
        self.assertEqual(list(reply.keys()), REPLY_FIELDS[:-1] + ["advice", "ok"], reply)

        self.db.command("collMod", "schema", validationAction="warn")
        reply = self.validate("schema")
        self.assertEqual(reply["nNonCompliantDocuments"], 2)
        self.assertEqual(reply["warnings"], [SCHEMA_NON_COMPLIANT])
        self.assertEqual(reply["errors"], [])
        self.assertIs(reply["valid"], True)
        self.assertNotIn("advice", reply)

    def test_multikey_metadata_is_tightened_in_the_foreground(self):
        coll = self.db.mk
        coll.create_index([("m", ASCENDING)])
        coll.insert_many([{"_id": 1, "m": [1, 2]}, {"_id": 2, "m": 3}])
        self.assertIs(self.validate("mk")["repaired"], False)
        coll.delete_one({"_id": 1})
        # No document needs the index multikey any more: foreground validation unsets it.
        reply = self.validate("mk")
        self.assertIs(reply["valid"], True)
        self.assertIs(reply["repaired"], True)
        self.assertEqual(reply["warnings"], ["Unset index multikey metadata: m_1"])
        for field in ("numRemovedCorruptRecords", "numRemovedExtraIndexEntries",
                      "numInsertedMissingIndexEntries", "numDocumentsMovedToLostAndFound",
                      "numOutdatedMissingIndexEntry"):
            self.assertEqual(reply[field], 0, field)
        self.assertEqual(list(reply.keys())[-6:],
                         ["numRemovedCorruptRecords", "numRemovedExtraIndexEntries",
                          "numInsertedMissingIndexEntries", "numDocumentsMovedToLostAndFound",
                          "numOutdatedMissingIndexEntry", "ok"])
        reply = self.validate("mk")
        self.assertIs(reply["repaired"], False)
        self.assertEqual(reply["warnings"], [])
        # The index answers queries as before.
        self.assertEqual(list(coll.find({"m": 3})), [{"_id": 2, "m": 3}])
        self.assertEqual(coll.find({"m": 3}).explain()["queryPlanner"]["winningPlan"]
                         ["inputStage"]["isMultiKey"], False)

    def test_repair_of_a_consistent_collection(self):
        _, docs, keys = self.make_shop()
        self.assert_valid_reply(self.validate("items", repair=True), "items", len(docs), keys)

    def test_during_concurrent_writes(self):
        # validate holds the collection's write lock: each answer describes one state, in which
        # every index has exactly one key per document.
        coll = self.db.busy
        coll.create_index([("k", ASCENDING)])
        coll.create_index([("u", ASCENDING)], unique=True)
        stop = threading.Event()
        errors = []

        def write():
            client = self.server.client()
            try:
                busy = client[self.db.name].busy
                n = 0
                while not stop.is_set():
                    busy.insert_many([{"_id": n + i, "k": (n + i) % 13, "u": n + i}
                                      for i in range(50)])
                    busy.delete_many({"_id": {"$lt": n - 500}})
                    n += 50
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)
            finally:
                client.close()

        writer = threading.Thread(target=write)
        writer.start()
        try:
            for _ in range(15):
                reply = self.validate("busy")
                self.assertIs(reply["valid"], True, reply)
                n = reply["nrecords"]
                self.assertEqual(dict(reply["keysPerIndex"]), {"_id_": n, "k_1": n, "u_1": n})
        finally:
            stop.set()
            writer.join(30)
        self.assertEqual(errors, [])

    # -- errors ----------------------------------------------------------------------------
    def test_missing_collection(self):
        self.db.create_collection("present")
        self.assert_error(26, "NamespaceNotFound",
                          "Collection '%s.absent' does not exist to validate." % self.db.name,
                          "absent")
        other = self.client["vdb_no_such_database"]
        with self.assertRaises(OperationFailure) as caught:
            other.command("validate", "c")
        self.assertEqual(caught.exception.code, 26)
        self.assertEqual(caught.exception.details["errmsg"],
                         "Collection 'vdb_no_such_database.c' does not exist to validate.")

    def test_collection_name_must_be_a_string(self):
        with self.assertRaises(OperationFailure) as caught:
            self.db.command({"validate": 1})
        self.assertEqual((caught.exception.code, caught.exception.details["errmsg"]),
                         (73, "collection name has invalid type int"))

    def test_options_mongod_refuses(self):
        self.db.create_collection("c")
        both = "Running the validate command with both { background: true } and "
        cases = [
            ({"background": True, "full": True}, 72, "InvalidOptions",
             both + "{ full: true } is not supported."),
            ({"background": True, "enforceFastCount": True}, 72, "InvalidOptions",
             both + "{ enforceFastCount: true } is not supported."),
            ({"full": True, "checkBSONConformance": False}, 72, "InvalidOptions",
             "Cannot explicitly set 'checkBSONConformance: false' with full validation set."),
            ({"background": True, "repair": True}, 72, "InvalidOptions",
             both + "{ repair: true } is not supported."),
            ({"enforceFastCount": True, "repair": True}, 72, "InvalidOptions",
             "Running the validate command with both { enforceFastCount: true } and "
             "{ repair: true } is not supported."),
            ({"checkBSONConformance": True, "repair": True}, 72, "InvalidOptions",
             "Running the validate command with both { checkBSONConformance: true } and "
             "{ repair: true } is not supported."),
            ({"metadata": True, "full": True}, 72, "InvalidOptions",
             "Running the validate command with { metadata: true } is not supported with any "
             "other options"),
            ({"background": True}, 115, "CommandNotSupported",
             "Running the validate command with { background: true } is not supported in "
             "standalone mode"),
        ]
        for options, code, code_name, message in cases:
            with self.subTest(options=options):
                self.assert_error(code, code_name, message, "c", **options)
        # The options are checked before the collection is looked up.
        self.assert_error(115, "CommandNotSupported",
                          "Running the validate command with { background: true } is not "
                          "supported in standalone mode", "absent", background=True)

    def test_listed_by_list_commands(self):
        commands = self.client.admin.command("listCommands")["commands"]
        self.assertIn("validate", commands)
        self.assertTrue(commands["validate"]["help"].startswith(
            "Validate contents of a namespace by scanning its data structures for correctness."))


if __name__ == "__main__":
    unittest.main()
