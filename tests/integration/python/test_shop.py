"""A shop's everyday flows through pymongo 3.11: products with categories, customers, orders with
line items; $in/$nin/$or/$exists/$ne filters, queries into arrays of documents, multi-key sorts,
projections, updates ($set/$unset/$inc/$push/$pull), upserts, deletes, counts, duplicate keys and
bulk writes. Expected results are MongoDB 7.0's. Each test uses its own database."""

import datetime
import unittest

from bson import ObjectId
from pymongo import ASCENDING, DESCENDING, DeleteMany, DeleteOne, InsertOne, ReplaceOne, \
    ReturnDocument, UpdateMany, UpdateOne
from pymongo.errors import BulkWriteError, DuplicateKeyError

from harness import ServerTestCase

PRODUCTS = [
    {"_id": "p1", "sku": "TEA-GRN", "name": "Green tea", "vendor": "Leafy", "price": 4.5,
     "categories": ["tea", "organic"], "stock": 20},
    {"_id": "p2", "sku": "TEA-BLK", "name": "Black tea", "vendor": "Leafy", "price": 3.9,
     "categories": ["tea"], "stock": 0},
    {"_id": "p3", "sku": "MUG-01", "name": "Mug", "vendor": "Potter", "price": 8.0,
     "categories": ["kitchen"], "stock": 5, "discontinued": True},
    {"_id": "p4", "sku": "KTL-02", "name": "Kettle", "vendor": "Potter", "price": 25.0,
     "categories": ["kitchen", "electric"], "stock": 2},
    {"_id": "p5", "sku": "COF-ARB", "name": "Arabica", "vendor": "Bean Co", "price": 7.25,
     "categories": ["coffee", "organic"], "stock": 12},
]

CUSTOMERS = [
    {"_id": "c1", "name": "Ann", "email": "ann@example.com", "address": {"city": "Paris", "zip": "75002"}},
    {"_id": "c2", "name": "Ben", "email": "ben@example.com", "address": {"city": "Lyon", "zip": "69002"}},
    {"_id": "c3", "name": "Cat", "email": "cat@example.com"},
]


def day(d, hour=10):
    return datetime.datetime(2024, 3, d, hour, 0, 0)


ORDERS = [
    {"_id": 1, "customerId": "c1", "status": "paid", "createdAt": day(1),
     "lines": [{"sku": "TEA-GRN", "qty": 2, "price": 4.5}, {"sku": "MUG-01", "qty": 1, "price": 8.0}],
     "total": 17.0},
    {"_id": 2, "customerId": "c2", "status": "shipped", "createdAt": day(2),
     "lines": [{"sku": "KTL-02", "qty": 1, "price": 25.0}], "total": 25.0},
    {"_id": 3, "customerId": "c1", "status": "paid", "createdAt": day(3),
     "lines": [{"sku": "COF-ARB", "qty": 4, "price": 7.25}], "total": 29.0},
    {"_id": 4, "customerId": "c3", "status": "cancelled", "createdAt": day(4),
     "lines": [{"sku": "TEA-BLK", "qty": 3, "price": 3.9}], "total": 11.7},
    {"_id": 5, "customerId": "c1", "status": "cancelled", "createdAt": day(5),
     "lines": [{"sku": "MUG-01", "qty": 2, "price": 8.0}, {"sku": "TEA-BLK", "qty": 1, "price": 3.9}],
     "total": 19.9},
]


def ids(cursor):
    return [doc["_id"] for doc in cursor]


class ShopTest(ServerTestCase):

    def setUp(self):
        # A database per test (no reliance on dropDatabase between tests).
        self.db = self.client["shop_" + self._testMethodName[len("test_"):][:50]]
        self.products = self.db.products
        self.customers = self.db.customers
        self.orders = self.db.orders
        self.products.insert_many([dict(p) for p in PRODUCTS])
        self.customers.insert_many([dict(c) for c in CUSTOMERS])
        self.orders.insert_many([dict(o) for o in ORDERS])

    def test_category_filters_in_nin_or_exists_ne(self):
        p = self.products
        self.assertEqual(ids(p.find({"categories": "tea"}).sort("_id")), ["p1", "p2"])
        self.assertEqual(ids(p.find({"categories": {"$in": ["coffee", "kitchen"]}}).sort("_id")), ["p3", "p4", "p5"])
        self.assertEqual(ids(p.find({"categories": {"$nin": ["tea", "kitchen"]}})), ["p5"])
        self.assertEqual(ids(p.find({"$or": [{"price": {"$lt": 4}}, {"categories": "electric"}]}).sort("_id")),
                         ["p2", "p4"])
        self.assertEqual(ids(p.find({"discontinued": {"$exists": True}})), ["p3"])
        self.assertEqual(ids(p.find({"discontinued": {"$exists": False}}).sort("_id")), ["p1", "p2", "p4", "p5"])
        self.assertEqual(ids(p.find({"stock": {"$ne": 0}}).sort("_id")), ["p1", "p3", "p4", "p5"])
        self.assertEqual(ids(p.find({"vendor": {"$ne": "Leafy"}, "price": {"$gte": 7.25, "$lte": 8}}).sort("_id")),
                         ["p3", "p5"])
        self.assertEqual(list(p.find({"categories": "toys"})), [])

    def test_array_operators_all_and_elem_match(self):
        self.assertEqual(ids(self.products.find({"categories": {"$all": ["tea", "organic"]}})), ["p1"])
        self.assertEqual(ids(self.orders.find({"lines": {"$elemMatch": {"sku": "TEA-BLK", "qty": {"$gte": 2}}}})),
                         [4])
        self.assertEqual(ids(self.orders.find({"lines": {"$size": 2}}).sort("_id")), [1, 5])

    def test_queries_into_order_lines(self):
        o = self.orders
        self.assertEqual(ids(o.find({"lines.sku": "MUG-01"}).sort("_id")), [1, 5])
        self.assertEqual(ids(o.find({"lines.qty": {"$gte": 3}}).sort("_id")), [3, 4])
        self.assertEqual(ids(o.find({"lines.sku": {"$in": ["KTL-02", "COF-ARB"]}}).sort("_id")), [2, 3])
        # A customer's orders, newest first, with their dates intact.
        mine = list(o.find({"customerId": "c1", "status": {"$ne": "cancelled"}}).sort("createdAt", DESCENDING))
        self.assertEqual([d["_id"] for d in mine], [3, 1])
        self.assertEqual(mine[0]["createdAt"], day(3))
        self.assertEqual(ids(o.find({"createdAt": {"$gte": day(2), "$lt": day(4)}}).sort("_id")), [2, 3])

    def test_sort_by_several_keys_and_project(self):
        p = self.products
        rows = list(p.find({}, {"_id": 0, "vendor": 1, "name": 1, "price": 1})
                    .sort([("vendor", ASCENDING), ("price", DESCENDING)]))
        self.assertEqual(rows, [
            {"name": "Arabica", "vendor": "Bean Co", "price": 7.25},
            {"name": "Green tea", "vendor": "Leafy", "price": 4.5},
            {"name": "Black tea", "vendor": "Leafy", "price": 3.9},
            {"name": "Kettle", "vendor": "Potter", "price": 25.0},
            {"name": "Mug", "vendor": "Potter", "price": 8.0},
        ])
        # The projection keeps the stored field order.
        self.assertEqual(list(rows[0].keys()), ["name", "vendor", "price"])
        # Exclusion projection.
        self.assertEqual(p.find_one({"_id": "p2"}, {"categories": 0, "stock": 0, "sku": 0}),
                         {"_id": "p2", "name": "Black tea", "vendor": "Leafy", "price": 3.9})
        # Sort, skip and limit for paging.
        self.assertEqual(ids(p.find().sort([("stock", DESCENDING), ("_id", ASCENDING)]).skip(1).limit(3)),
                         ["p5", "p3", "p4"])
        # Projection into an array of documents.
        self.assertEqual(self.orders.find_one({"_id": 5}, {"lines.sku": 1, "_id": 0}),
                         {"lines": [{"sku": "MUG-01"}, {"sku": "TEA-BLK"}]})

    def test_orders_reference_customers(self):
        order = self.orders.find_one({"_id": 2})
        customer = self.customers.find_one({"_id": order["customerId"]})
        self.assertEqual(customer["name"], "Ben")
        self.assertEqual(self.customers.find_one({"address.city": "Paris"})["_id"], "c1")
        self.assertIsNone(self.customers.find_one({"address.city": "Rome"}))
        self.assertEqual(ids(self.customers.find({"address": {"$exists": False}})), ["c3"])
        spenders = self.orders.distinct("customerId", {"status": "paid"})
        self.assertEqual(sorted(spenders), ["c1"])

    def test_update_operators(self):
        p, o = self.products, self.orders
        # Sell two green teas only if in stock.
        r = p.update_one({"_id": "p1", "stock": {"$gte": 2}}, {"$inc": {"stock": -2}})
        self.assertEqual((r.matched_count, r.modified_count), (1, 1))
        r = p.update_one({"_id": "p2", "stock": {"$gte": 2}}, {"$inc": {"stock": -2}})
        self.assertEqual((r.matched_count, r.modified_count), (0, 0))
        self.assertEqual(p.find_one({"_id": "p1"})["stock"], 18)

        r = p.update_one({"_id": "p3"}, {"$unset": {"discontinued": ""}, "$set": {"price": 7.5}})
        self.assertEqual(r.modified_count, 1)
        self.assertEqual(p.find_one({"_id": "p3"}),
                         {"_id": "p3", "sku": "MUG-01", "name": "Mug", "vendor": "Potter", "price": 7.5,
                          "categories": ["kitchen"], "stock": 5})

        r = o.update_one({"_id": 1}, {"$set": {"status": "shipped"},
                                      "$push": {"history": {"status": "shipped", "at": day(6)}}})
        self.assertEqual(r.modified_count, 1)
        self.assertEqual(o.find_one({"_id": 1}, {"status": 1, "history": 1}),
                         {"_id": 1, "status": "shipped", "history": [{"status": "shipped", "at": day(6)}]})

        # Setting a field to its current value matches but does not modify.
        r = p.update_one({"_id": "p4"}, {"$set": {"price": 25.0}})
        self.assertEqual((r.matched_count, r.modified_count), (1, 0))

        # $set on a nested path creates the intermediate document.
        p.update_one({"_id": "p5"}, {"$set": {"origin.country": "Colombia"}})
        self.assertEqual(p.find_one({"_id": "p5"})["origin"], {"country": "Colombia"})

    def test_update_many_with_pull(self):
        r = self.products.update_many({}, {"$pull": {"categories": "organic"}})
        self.assertEqual(r.matched_count, 5)
        self.assertEqual(r.modified_count, 2)
        self.assertEqual(list(self.products.find({"categories": "organic"})), [])
        self.assertEqual(self.products.find_one({"_id": "p5"})["categories"], ["coffee"])
        # $pull with a condition on array elements.
        r = self.orders.update_many({}, {"$pull": {"lines": {"sku": "TEA-BLK"}}})
        self.assertEqual((r.matched_count, r.modified_count), (5, 2))
        self.assertEqual(self.orders.find_one({"_id": 4})["lines"], [])
        self.assertEqual(self.orders.find_one({"_id": 5})["lines"], [{"sku": "MUG-01", "qty": 2, "price": 8.0}])

    def test_upserts(self):
        r = self.products.update_one({"sku": "TEA-WHT"}, {"$set": {"name": "White tea", "price": 6.0}}, upsert=True)
        self.assertEqual(r.matched_count, 0)
        self.assertIsInstance(r.upserted_id, ObjectId)
        created = self.products.find_one({"sku": "TEA-WHT"})
        self.assertEqual(created, {"_id": r.upserted_id, "sku": "TEA-WHT", "name": "White tea", "price": 6.0})
        self.assertEqual(list(created.keys()), ["_id", "sku", "name", "price"])

        r = self.products.update_one({"sku": "TEA-WHT"}, {"$inc": {"stock": 3}}, upsert=True)
        self.assertEqual((r.matched_count, r.modified_count, r.upserted_id), (1, 1, None))

        # An order-number sequence.
        counters = self.db.counters
        first = counters.find_one_and_update({"_id": "orderNo"}, {"$inc": {"seq": 1}},
                                             upsert=True, return_document=ReturnDocument.AFTER)
        self.assertEqual(first, {"_id": "orderNo", "seq": 1})
        before = counters.find_one_and_update({"_id": "orderNo"}, {"$inc": {"seq": 1}})
        self.assertEqual(before, {"_id": "orderNo", "seq": 1})
        self.assertEqual(counters.find_one({"_id": "orderNo"}), {"_id": "orderNo", "seq": 2})
        self.assertIsNone(counters.find_one_and_update({"_id": "nope"}, {"$inc": {"seq": 1}}))

    def test_deletes_and_counts(self):
        self.assertEqual(self.orders.count_documents({}), 5)
        self.assertEqual(self.orders.count_documents({"status": "cancelled"}), 2)
        self.assertEqual(self.orders.estimated_document_count(), 5)
        r = self.orders.delete_many({"status": "cancelled"})
        self.assertEqual(r.deleted_count, 2)
        self.assertEqual(self.orders.delete_many({"status": "cancelled"}).deleted_count, 0)
        self.assertEqual(self.orders.delete_one({"customerId": "c1"}).deleted_count, 1)
        self.assertEqual(self.orders.count_documents({}), 2)
        self.assertEqual(self.orders.count_documents({"customerId": "c1"}), 1)
        self.assertEqual(self.orders.estimated_document_count(), 2)
        self.assertEqual(self.products.count_documents({"stock": {"$gt": 0}}, skip=1, limit=2), 2)

    def test_duplicate_key(self):
        with self.assertRaises(DuplicateKeyError) as ctx:
            self.products.insert_one({"_id": "p1", "name": "again"})
        err = ctx.exception
        self.assertEqual(err.code, 11000)
        self.assertEqual(err.details["keyPattern"], {"_id": 1})
        self.assertEqual(err.details["keyValue"], {"_id": "p1"})
        self.assertEqual(err.details["errmsg"],
                         'E11000 duplicate key error collection: %s.products index: _id_ dup key: { _id: "p1" }'
                         % self.db.name)
        self.assertEqual(self.products.find_one({"_id": "p1"})["name"], "Green tea")

        # insert_many (ordered) stops at the first duplicate.
        with self.assertRaises(BulkWriteError) as ctx:
            self.products.insert_many([{"_id": "p6"}, {"_id": "p2"}, {"_id": "p7"}])
        details = ctx.exception.details
        self.assertEqual(details["nInserted"], 1)
        self.assertEqual([(e["index"], e["code"]) for e in details["writeErrors"]], [(1, 11000)])
        self.assertEqual(ids(self.products.find({"_id": {"$in": ["p6", "p7"]}})), ["p6"])

    def test_bulk_write_mixing_inserts_updates_deletes(self):
        result = self.products.bulk_write([
            InsertOne({"_id": "p6", "sku": "CUP-03", "name": "Cup", "price": 5.0, "categories": ["kitchen"]}),
            UpdateOne({"_id": "p2"}, {"$inc": {"stock": 10}}),
            UpdateMany({"categories": "kitchen"}, {"$set": {"aisle": 3}}),
            DeleteOne({"_id": "p3"}),
            ReplaceOne({"_id": "p4"}, {"sku": "KTL-02", "name": "Kettle v2", "price": 27.0}),
            UpdateOne({"_id": "p9"}, {"$set": {"name": "Gift card"}}, upsert=True),
            DeleteMany({"price": {"$gt": 26}}),
        ])
        self.assertTrue(result.acknowledged)
        self.assertEqual(result.inserted_count, 1)
        # UpdateMany matches p3, p4 and p6 (all modified); UpdateOne p2; ReplaceOne p4.
        self.assertEqual(result.matched_count, 5)
        self.assertEqual(result.modified_count, 5)
        self.assertEqual(result.deleted_count, 2)  # p3, then p4 (27.0 > 26)
        self.assertEqual(result.upserted_count, 1)
        self.assertEqual(result.upserted_ids, {5: "p9"})
        self.assertEqual(ids(self.products.find().sort("_id")), ["p1", "p2", "p5", "p6", "p9"])
        self.assertEqual(self.products.find_one({"_id": "p2"})["stock"], 10)
        self.assertEqual(self.products.find_one({"_id": "p6"})["aisle"], 3)
        self.assertEqual(self.products.find_one({"_id": "p9"}), {"_id": "p9", "name": "Gift card"})

    def test_unordered_bulk_write_reports_every_error(self):
        with self.assertRaises(BulkWriteError) as ctx:
            self.products.bulk_write([
                InsertOne({"_id": "p1"}),
                InsertOne({"_id": "p8"}),
                InsertOne({"_id": "p2"}),
                UpdateOne({"_id": "p8"}, {"$set": {"name": "Eight"}}),
            ], ordered=False)
        details = ctx.exception.details
        self.assertEqual(details["nInserted"], 1)
        self.assertEqual(details["nMatched"], 1)
        self.assertEqual(details["nModified"], 1)
        self.assertEqual(sorted((e["index"], e["code"]) for e in details["writeErrors"]), [(0, 11000), (2, 11000)])
        self.assertEqual(self.products.find_one({"_id": "p8"}), {"_id": "p8", "name": "Eight"})


if __name__ == "__main__":
    unittest.main()
