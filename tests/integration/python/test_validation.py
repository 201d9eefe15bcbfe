"""Document validation through pymongo 3.11, as MongoDB 7.0 behaves: create and collMod with
validator / validationLevel / validationAction (and their errors), listCollections showing them,
DocumentValidationFailure 121 with errInfo on insert, update, replace, upsert, findAndModify and
$out / $merge targets, per-document writeErrors in batches, action "warn", level "moderate" and
bypassDocumentValidation. Deletes are never validated."""

import json
import time
import unittest

from pymongo.errors import BulkWriteError, OperationFailure, WriteError

from harness import ServerTestCase

SCHEMA = {"$jsonSchema": {
    "bsonType": "object",
    "required": ["name", "year"],
    "properties": {
        "name": {"bsonType": "string"},
        "year": {"bsonType": "int", "minimum": 2017},
    },
}}


class ValidationOptionsTest(ServerTestCase):

    def setUp(self):
        self.db = self.client["py_validation_opts"]

    def test_create_stores_the_options_as_given_and_list_collections_shows_them(self):
        self.db.drop_collection("given")
        self.db.create_collection("given", validator=SCHEMA)
        info = self.db.command("listCollections", filter={"name": "given"})["cursor"]["firstBatch"][0]
        self.assertEqual(info["options"], {"validator": SCHEMA})
        self.db.drop_collection("levels")
        self.db.create_collection("levels", validator={"a": {"$exists": True}},
                                  validationLevel="moderate", validationAction="warn")
        info = self.db.command("listCollections", filter={"name": "levels"})["cursor"]["firstBatch"][0]
        self.assertEqual(info["options"], {"validator": {"a": {"$exists": True}},
                                           "validationLevel": "moderate",
                                           "validationAction": "warn"})

    def test_create_refuses_bad_validators_and_enums_with_mongodb_codes(self):
        cases = [
            ({"validator": {"a": {"$foo": 1}}}, 2),
            ({"validator": {"$where": "this.a == 1"}}, 2),
            ({"validator": {"$text": {"$search": "x"}}}, 2),
            ({"validator": {"loc": {"$near": [0, 0]}}}, 5626500),
            ({"validator": {"$jsonSchema": {"$ref": "#/x"}}}, 9),
            ({"validator": {"$jsonSchema": {"format": "date"}}}, 9),
            ({"validator": {"$jsonSchema": {"invalid": 1}}}, 9),
            ({"validationLevel": "loose"}, 2),
            ({"validationAction": "log"}, 2),
        ]
        for options, code in cases:
            self.db.drop_collection("bad")
            with self.assertRaises(OperationFailure, msg=str(options)) as ctx:
                self.db.command(dict({"create": "bad"}, **options))
            self.assertEqual(ctx.exception.code, code, str(options))
            self.assertNotIn("bad", self.db.list_collection_names())
        with self.assertRaises(OperationFailure) as ctx:
            self.db.command({"create": "bad", "validationLevel": "loose"})
        self.assertEqual(ctx.exception.details["errmsg"],
                         "Enumeration value 'loose' for field 'create.validationLevel' is not "
                         "a valid value.")

    def test_no_validators_in_internal_databases(self):
        with self.assertRaises(OperationFailure) as ctx:
            self.client["admin"].command({"create": "v", "validator": {"a": 1}})
        self.assertEqual(ctx.exception.code, 72)

    def test_coll_mod_changes_each_option(self):
        coll = self.db.modded
        coll.drop()
        self.db.create_collection("modded")
        coll.insert_one({"_id": 1})
        self.db.command({"collMod": "modded", "validator": {"a": {"$gt": 0}}})
        with self.assertRaises(WriteError) as ctx:
            coll.insert_one({"_id": 2, "a": 0})
        self.assertEqual(ctx.exception.code, 121)
        self.db.command({"collMod": "modded", "validationAction": "warn"})
        coll.insert_one({"_id": 3, "a": 0})
        self.db.command({"collMod": "modded", "validationAction": "error",
                         "validationLevel": "off"})
        coll.insert_one({"_id": 4, "a": 0})
        info = self.db.command("listCollections", filter={"name": "modded"})["cursor"]["firstBatch"][0]
        self.assertEqual(info["options"], {"validator": {"a": {"$gt": 0}},
                                           "validationAction": "error",
                                           "validationLevel": "off"})
        self.db.command({"collMod": "modded", "validator": {}, "validationLevel": "strict"})
        coll.insert_one({"_id": 5, "a": 0})

    def test_coll_mod_refuses_bad_validators(self):
        self.db.drop_collection("modbad")
        self.db.create_collection("modbad")
        with self.assertRaises(OperationFailure) as ctx:
            self.db.command({"collMod": "modbad", "validator": {"a": {"$foo": 1}}})
        self.assertEqual(ctx.exception.code, 2)
        self.assertEqual(ctx.exception.details["errmsg"],
                         "Parsing of collection validator failed :: caused by :: unknown "
                         "operator: $foo")
        with self.assertRaises(OperationFailure) as ctx:
            self.db.command({"collMod": "modbad", "validator": 5})
        self.assertEqual(ctx.exception.code, 14)
        with self.assertRaises(OperationFailure) as ctx:
            self.db.command({"collMod": "modbad", "validationLevel": "sometimes"})
        self.assertEqual(ctx.exception.code, 2)
        # A bad option changes nothing, not even the good ones beside it.
        with self.assertRaises(OperationFailure) as ctx:
            self.db.command({"collMod": "modbad", "validator": {"a": 1},
                             "validationLevel": "sometimes"})
        self.assertEqual(ctx.exception.details["errmsg"],
                         "Enumeration value 'sometimes' for field 'collMod.validationLevel' is "
                         "not a valid value.")
        info = self.db.command("listCollections", filter={"name": "modbad"})["cursor"]["firstBatch"][0]
        self.assertEqual(info["options"], {})


class EnforcementTest(ServerTestCase):

    def setUp(self):
        self.db = self.client["py_validation"]
        self.db.drop_collection("students")
        self.coll = self.db.create_collection("students", validator=SCHEMA)

    def test_insert_answers_121_with_errinfo(self):
        with self.assertRaises(WriteError) as ctx:
            self.coll.insert_one({"_id": 1, "name": "x", "year": 2000})
        error = ctx.exception.details
        self.assertEqual(error["code"], 121)
        self.assertEqual(error["errmsg"], "Document failed validation")
        self.assertEqual(error["errInfo"], {
            "failingDocumentId": 1,
            "details": {"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
                {"operatorName": "properties", "propertiesNotSatisfied": [
                    {"propertyName": "year", "details": [
                        {"operatorName": "minimum", "specifiedAs": {"minimum": 2017},
                         "reason": "comparison failed", "consideredValue": 2000}]}]}]}})
        self.assertEqual(self.coll.count_documents({}), 0)

    def test_missing_required_properties_are_named(self):
        with self.assertRaises(WriteError) as ctx:
            self.coll.insert_one({"_id": 2})
        rules = ctx.exception.details["errInfo"]["details"]["schemaRulesNotSatisfied"]
        self.assertEqual(rules, [{"operatorName": "required",
                                  "specifiedAs": {"required": ["name", "year"]},
                                  "missingProperties": ["name", "year"]}])

    def test_unordered_batch_reports_each_failing_document(self):
        with self.assertRaises(BulkWriteError) as ctx:
            self.coll.insert_many([{"_id": 1, "name": "a", "year": 2020},
                                   {"_id": 2, "name": 5, "year": 2020},
                                   {"_id": 3, "name": "c", "year": 2021},
                                   {"_id": 4}], ordered=False)
        details = ctx.exception.details
        self.assertEqual(details["nInserted"], 2)
        self.assertEqual([(e["index"], e["code"]) for e in details["writeErrors"]],
                         [(1, 121), (3, 121)])
        self.assertEqual(details["writeErrors"][0]["errInfo"]["failingDocumentId"], 2)
        self.assertEqual(sorted(d["_id"] for d in self.coll.find()), [1, 3])

    def test_ordered_batch_stops_at_the_first_failure(self):
        with self.assertRaises(BulkWriteError) as ctx:
            self.coll.insert_many([{"_id": 1, "name": "a", "year": 2020}, {"_id": 2},
                                   {"_id": 3, "name": "c", "year": 2021}])
        self.assertEqual(ctx.exception.details["nInserted"], 1)
        self.assertEqual(sorted(d["_id"] for d in self.coll.find()), [1])

    def test_updates_replaces_and_upserts_are_validated(self):
        self.coll.insert_one({"_id": 1, "name": "a", "year": 2020})
        with self.assertRaises(WriteError) as ctx:
            self.coll.update_one({"_id": 1}, {"$set": {"year": 1999}})
        self.assertEqual(ctx.exception.code, 121)
        self.assertEqual(ctx.exception.details["errInfo"]["failingDocumentId"], 1)
        with self.assertRaises(WriteError):
            self.coll.replace_one({"_id": 1}, {"name": "b"})
        with self.assertRaises(WriteError) as ctx:
            self.coll.update_one({"_id": 9}, {"$set": {"name": "z"}}, upsert=True)
        self.assertEqual(ctx.exception.details["errInfo"]["failingDocumentId"], 9)
        self.assertEqual(list(self.coll.find()), [{"_id": 1, "name": "a", "year": 2020}])
        self.coll.update_one({"_id": 1}, {"$set": {"year": 2030}})
        self.assertEqual(self.coll.find_one({"_id": 1})["year"], 2030)

    def test_find_and_modify_error_carries_errinfo(self):
        self.coll.insert_one({"_id": 1, "name": "a", "year": 2020})
        with self.assertRaises(OperationFailure) as ctx:
            self.coll.find_one_and_update({"_id": 1}, {"$set": {"name": 3}})
        self.assertEqual(ctx.exception.code, 121)
        self.assertEqual(ctx.exception.details["codeName"], "DocumentValidationFailure")
        self.assertEqual(ctx.exception.details["errInfo"]["failingDocumentId"], 1)
        self.assertEqual(ctx.exception.details["errInfo"]["details"]["operatorName"],
                         "$jsonSchema")

    def test_bypass_document_validation(self):
        self.coll.insert_one({"_id": 1}, bypass_document_validation=True)
        self.coll.update_one({"_id": 1}, {"$set": {"year": 1}}, bypass_document_validation=True)
        self.db.command({"findAndModify": "students", "query": {"_id": 1},
                         "update": {"$set": {"name": 1}}, "bypassDocumentValidation": True})
        self.assertEqual(self.coll.find_one({"_id": 1}), {"_id": 1, "year": 1, "name": 1})

    def test_deletes_are_never_validated(self):
        self.coll.insert_one({"_id": 1}, bypass_document_validation=True)
        self.assertEqual(self.coll.delete_one({"_id": 1}).deleted_count, 1)

    def test_out_and_merge_targets_are_validated(self):
        source = self.db.source
        source.drop()
        source.insert_many([{"_id": 1, "name": "a", "year": 2020}, {"_id": 2, "name": "b"}])
        with self.assertRaises(OperationFailure) as ctx:
            list(source.aggregate([{"$out": "students"}]))
        self.assertEqual(ctx.exception.code, 121)
        self.assertEqual(self.coll.count_documents({}), 0)
        with self.assertRaises(OperationFailure) as ctx:
            list(source.aggregate([{"$merge": {"into": "students"}}]))
        self.assertEqual(ctx.exception.code, 121)
        list(source.aggregate([{"$out": "students"}], bypassDocumentValidation=True))
        self.assertEqual(self.coll.count_documents({}), 2)
        # $out keeps the target's options, validator included.
        info = self.db.command("listCollections", filter={"name": "students"})["cursor"]["firstBatch"][0]
        self.assertEqual(info["options"], {"validator": SCHEMA})


class QueryOperatorValidatorTest(ServerTestCase):

    def setUp(self):
        self.db = self.client["py_validation_query"]

    def test_query_operator_errinfo(self):
        self.db.drop_collection("q")
        coll = self.db.create_collection("q", validator={"a": {"$gte": 5}, "b": {"$type": "string"}})
        with self.assertRaises(WriteError) as ctx:
            coll.insert_one({"_id": 1, "a": 1, "b": "x"})
        self.assertEqual(ctx.exception.details["errInfo"]["details"], {
            "operatorName": "$and", "clausesNotSatisfied": [
                {"index": 0, "details": {"operatorName": "$gte", "specifiedAs": {"a": {"$gte": 5}},
                                         "reason": "comparison failed", "consideredValue": 1}}]})

    def test_warn_logs_and_writes(self):
        self.db.drop_collection("w")
        coll = self.db.create_collection("w", validator={"a": {"$exists": True}},
                                         validationAction="warn")
        coll.insert_one({"_id": "warned"})
        self.assertEqual(coll.count_documents({}), 1)
        deadline = time.time() + 5
        found = None
        while found is None and time.time() < deadline:
            for line in list(self.server.lines):
                if "Document would fail validation" in line and "warned" in line:
                    found = json.loads(line)
            time.sleep(0.05)
        self.assertIsNotNone(found, self.server.log_tail() if hasattr(self.server, "log_tail") else "")
        self.assertEqual(found["s"], "W")
        self.assertEqual(found["id"], 20294)
        self.assertEqual(found["attr"]["errInfo"]["details"]["operatorName"], "$exists")

    def test_moderate_skips_documents_that_were_already_invalid(self):
        self.db.drop_collection("m")
        coll = self.db.create_collection("m")
        coll.insert_many([{"_id": 1, "a": 10}, {"_id": 2, "a": -1}])
        self.db.command({"collMod": "m", "validator": {"a": {"$gt": 0}},
                         "validationLevel": "moderate"})
        coll.update_one({"_id": 2}, {"$set": {"a": -5}})  # was invalid: not checked
        self.assertEqual(coll.find_one({"_id": 2})["a"], -5)
        with self.assertRaises(WriteError):
            coll.update_one({"_id": 1}, {"$set": {"a": -5}})  # was valid: checked
        with self.assertRaises(WriteError):
            coll.insert_one({"_id": 3, "a": -1})  # inserts always checked


if __name__ == "__main__":
    unittest.main()
