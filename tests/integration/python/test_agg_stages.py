"""The aggregation stages $unionWith, $facet and $bucketAuto through pymongo against a real
cairnd: a $unionWith of two real collections (and the 7.0 collectionless form), a $facet with
$sortByCount and $bucketAuto inside, and one MongoDB error per stage as the driver reports it. A
$bucketAuto with a granularity is tests/spec/aggregate/bucket_auto_granularity.json."""

import unittest

from bson.decimal128 import Decimal128
from pymongo.errors import OperationFailure

from harness import ServerTestCase


class AggregationStagesTest(ServerTestCase):

    def setUp(self):
        self.db = self.client["py_agg_stages"]

    def test_atlas_search_stages_are_refused_as_a_community_mongod_refuses_them(self):
        for stage in ({"$search": {"text": {"query": "x", "path": "a"}}}, {"$searchMeta": {}},
                      {"$vectorSearch": {}}, {"$listSearchIndexes": {}}):
            name = next(iter(stage))
            with self.assertRaises(OperationFailure) as caught:
                list(self.db.c.aggregate([stage]))
            self.assertEqual(caught.exception.code, 6047401, name)
            self.assertIn(name + " stage is only allowed on MongoDB Atlas", str(caught.exception))

    def test_union_with_reads_a_second_collection_after_the_input(self):
        suppliers, warehouses = self.db.suppliers, self.db.warehouses
        suppliers.drop()
        warehouses.drop()
        suppliers.insert_many([
            {"_id": 1, "supplier": "Aardvark and Sons", "state": "Texas"},
            {"_id": 2, "supplier": "Bears Run Amok.", "state": "Colorado"},
            {"_id": 3, "supplier": "Squid Mark Inc. ", "state": "Rhode Island"}])
        warehouses.insert_many([
            {"_id": 1, "warehouse": "A", "region": "West", "state": "California"},
            {"_id": 2, "warehouse": "B", "region": "Central", "state": "Colorado"},
            {"_id": 3, "warehouse": "C", "region": "East", "state": "Florida"}])
        states = list(suppliers.aggregate([
            {"$project": {"state": 1, "_id": 0}},
            {"$unionWith": {"coll": "warehouses",
                            "pipeline": [{"$project": {"state": 1, "_id": 0}}]}},
            {"$group": {"_id": "$state"}},
            {"$sort": {"_id": 1}}]))
        self.assertEqual([s["_id"] for s in states],
                         ["California", "Colorado", "Florida", "Rhode Island", "Texas"])
        both = list(suppliers.aggregate([{"$unionWith": "warehouses"},
                                         {"$project": {"_id": 1, "supplier": 1, "warehouse": 1}}]))
        self.assertEqual([d.get("supplier", d.get("warehouse")) for d in both],
                         ["Aardvark and Sons", "Bears Run Amok.", "Squid Mark Inc. ", "A", "B", "C"])
        extra = list(warehouses.aggregate([
            {"$match": {"_id": 1}},
            {"$unionWith": {"pipeline": [{"$documents": [{"_id": 9, "warehouse": "Z"}]}]}}]))
        self.assertEqual([d["warehouse"] for d in extra], ["A", "Z"])
        with self.assertRaises(OperationFailure) as caught:
            list(suppliers.aggregate([{"$unionWith": {"coll": "warehouses",
                                                      "pipeline": [{"$out": "x"}]}}]))
        self.assertEqual(caught.exception.code, 31441)

    def test_facet_with_sort_by_count_and_bucket_auto(self):
        artwork = self.db.artwork
        artwork.drop()
        artwork.insert_many([
            {"_id": 1, "title": "The Pillars of Society", "year": 1926,
             "price": Decimal128("199.99"), "tags": ["painting", "satire", "Expressionism"]},
            {"_id": 2, "title": "Melancholy III", "year": 1902,
             "price": Decimal128("280.00"), "tags": ["woodcut", "Expressionism"]},
            {"_id": 3, "title": "Dancer", "year": 1925,
             "price": Decimal128("76.04"), "tags": ["oil", "Surrealism", "painting"]},
            {"_id": 4, "title": "The Great Wave off Kanagawa",
             "price": Decimal128("167.30"), "tags": ["woodblock", "ukiyo-e"]},
            {"_id": 5, "title": "The Persistence of Memory", "year": 1931,
             "price": Decimal128("483.00"), "tags": ["Surrealism", "painting", "oil"]},
            {"_id": 6, "title": "Composition VII", "year": 1913,
             "price": Decimal128("385.00"), "tags": ["oil", "painting", "abstract"]},
            {"_id": 7, "title": "The Scream", "tags": ["Expressionism", "painting", "oil"]},
            {"_id": 8, "title": "Blue Flower", "year": 1918,
             "price": Decimal128("118.42"), "tags": ["abstract", "painting"]}])
        [result] = list(artwork.aggregate([{"$facet": {
            "categorizedByTags": [{"$unwind": "$tags"}, {"$sortByCount": "$tags"},
                                  {"$match": {"count": {"$gte": 4}}}],
            "categorizedByYears(Auto)": [{"$bucketAuto": {"groupBy": "$year", "buckets": 4}}],
            "total": [{"$count": "n"}]}}]))
        self.assertEqual(list(result), ["categorizedByTags", "categorizedByYears(Auto)", "total"])
        self.assertEqual(result["categorizedByTags"],
                         [{"_id": "painting", "count": 6}, {"_id": "oil", "count": 4}])
        self.assertEqual(result["categorizedByYears(Auto)"], [
            {"_id": {"min": None, "max": 1902}, "count": 2},
            {"_id": {"min": 1902, "max": 1918}, "count": 2},
            {"_id": {"min": 1918, "max": 1926}, "count": 2},
            {"_id": {"min": 1926, "max": 1931}, "count": 2}])
        self.assertEqual(result["total"], [{"n": 8}])
        with self.assertRaises(OperationFailure) as caught:
            list(artwork.aggregate([{"$facet": {"a": [{"$out": "x"}]}}]))
        self.assertEqual(caught.exception.code, 40600)


if __name__ == "__main__":
    unittest.main()
