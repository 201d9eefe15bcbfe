"""$group and $sort spilling to disk (pymongo 3.11). With the budgets set low through MongoDB's
test parameters (internalDocumentSourceGroupMaxMemoryBytes,
internalQueryMaxBlockingSortMemoryUsageBytes) they spill sorted runs under <dbpath>/_tmp and
return exactly what they return in memory; with allowDiskUse: false they fail with
QueryExceededMemoryLimitNoDiskUseAllowed 292; the run files are gone once the cursor is
exhausted or killed."""

import os
import time
import unittest

from pymongo.errors import OperationFailure

from harness import ServerTestCase

DEFAULT_BUDGET = 100 * 1024 * 1024
SMALL_BUDGET = 16 * 1024

GROUP_PIPELINE = [
    {"$group": {"_id": "$k", "n": {"$sum": 1}, "total": {"$sum": "$v"}, "avg": {"$avg": "$v"},
                "lo": {"$min": "$v"}, "hi": {"$max": "$v"}, "first": {"$first": "$v"},
                "last": {"$last": "$v"}, "vs": {"$push": "$v"}, "tags": {"$addToSet": "$tag"},
                "top": {"$topN": {"n": 2, "sortBy": {"v": -1}, "output": "$v"}}}},
]
SORT_PIPELINE = [{"$sort": {"k": 1, "v": -1}}, {"$project": {"_id": 1, "k": 1, "v": 1}}]


class SpillTest(ServerTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        coll = cls.client.spill_tests.docs
        coll.insert_many([{"_id": i, "k": (i * 7919) % 5000, "v": i,
                           "tag": "t%d" % (i % 7)} for i in range(20000)])

    def tearDown(self):
        self.set_budgets(DEFAULT_BUDGET, DEFAULT_BUDGET)

    # -- helpers ------------------------------------------------------------------------------
    def set_budgets(self, group, sort):
        self.client.admin.command({"setParameter": 1,
                                   "internalDocumentSourceGroupMaxMemoryBytes": group,
                                   "internalQueryMaxBlockingSortMemoryUsageBytes": sort})

    def run_files(self):
        tmp = os.path.join(self.server.dbpath, "_tmp")
        if not os.path.isdir(tmp):
            return []
        return [name for name in os.listdir(tmp) if name.startswith("extsort-")]

    def wait_no_run_files(self):
        deadline = time.time() + 5
        while self.run_files() and time.time() < deadline:
            time.sleep(0.05)
        return self.run_files()

    def aggregate(self, pipeline, **kwargs):
        return list(self.client.spill_tests.docs.aggregate(pipeline, **kwargs))

    # -- tests --------------------------------------------------------------------------------
    def test_parameters_are_readable_and_settable(self):
        self.set_budgets(12345, 23456)
        reply = self.client.admin.command({"getParameter": 1,
                                           "internalDocumentSourceGroupMaxMemoryBytes": 1,
                                           "internalQueryMaxBlockingSortMemoryUsageBytes": 1})
        self.assertEqual(reply["internalDocumentSourceGroupMaxMemoryBytes"], 12345)
        self.assertEqual(reply["internalQueryMaxBlockingSortMemoryUsageBytes"], 23456)

    def test_group_spills_with_the_in_memory_result(self):
        in_memory = sorted(self.aggregate(GROUP_PIPELINE), key=lambda d: d["_id"])
        self.assertEqual(len(in_memory), 5000)
        self.set_budgets(SMALL_BUDGET, DEFAULT_BUDGET)
        spilled = sorted(self.aggregate(GROUP_PIPELINE), key=lambda d: d["_id"])
        for doc in in_memory + spilled:
            doc["tags"] = sorted(doc["tags"])  # $addToSet's order is unspecified
        self.assertEqual(spilled, in_memory)
        self.assertEqual(self.wait_no_run_files(), [])

    def test_sort_spills_with_the_in_memory_result(self):
        in_memory = self.aggregate(SORT_PIPELINE)
        self.assertEqual(len(in_memory), 20000)
        self.set_budgets(DEFAULT_BUDGET, SMALL_BUDGET)
        self.assertEqual(self.aggregate(SORT_PIPELINE), in_memory)
        self.assertEqual(self.wait_no_run_files(), [])

    def test_without_disk_use_group_and_sort_fail_with_292(self):
        self.set_budgets(SMALL_BUDGET, SMALL_BUDGET)
        with self.assertRaises(OperationFailure) as caught:
            self.aggregate(GROUP_PIPELINE, allowDiskUse=False)
        self.assertEqual(caught.exception.code, 292)
        self.assertIn("Exceeded memory limit for $group, but didn't allow external sort",
                      str(caught.exception))
        with self.assertRaises(OperationFailure) as caught:
            self.aggregate(SORT_PIPELINE, allowDiskUse=False)
        self.assertEqual(caught.exception.code, 292)
        self.assertIn("Sort exceeded memory limit of %d bytes" % SMALL_BUDGET,
                      str(caught.exception))
        # The default budget holds these in memory: allowDiskUse false is no error then.
        self.set_budgets(DEFAULT_BUDGET, DEFAULT_BUDGET)
        self.assertEqual(len(self.aggregate(SORT_PIPELINE, allowDiskUse=False)), 20000)

    def test_explain_reports_used_disk_and_spills(self):
        pipeline = [{"$group": {"_id": "$k", "n": {"$sum": 1}}}, {"$sort": {"n": -1, "_id": 1}}]
        explain = {"explain": {"aggregate": "docs", "pipeline": pipeline, "cursor": {}},
                   "verbosity": "executionStats"}
        stages = self.client.spill_tests.command(explain)["stages"][1:]
        self.assertEqual([(s["usedDisk"], s["spills"]) for s in stages], [(False, 0), (False, 0)])
        self.set_budgets(SMALL_BUDGET, SMALL_BUDGET)
        stages = self.client.spill_tests.command(explain)["stages"][1:]
        self.assertEqual([s["usedDisk"] for s in stages], [True, True])
        self.assertTrue(all(s["spills"] > 0 for s in stages))

    def test_run_files_last_while_the_cursor_does(self):
        self.set_budgets(SMALL_BUDGET, SMALL_BUDGET)
        for pipeline in (GROUP_PIPELINE, SORT_PIPELINE):
            # Exhausted.
            cursor = self.client.spill_tests.docs.aggregate(pipeline, batchSize=10)
            next(cursor)
            self.assertNotEqual(self.run_files(), [], pipeline)
            for _ in cursor:
                pass
            self.assertEqual(self.wait_no_run_files(), [], pipeline)
            # Killed.
            cursor = self.client.spill_tests.docs.aggregate(pipeline, batchSize=10)
            next(cursor)
            self.assertNotEqual(self.run_files(), [], pipeline)
            cursor.close()
            self.assertEqual(self.wait_no_run_files(), [], pipeline)


if __name__ == "__main__":
    unittest.main()
