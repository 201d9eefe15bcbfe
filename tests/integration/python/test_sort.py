"""Blocking sorts past MongoDB's 100 MB memory limit (pymongo 3.11): they spill to disk by
default (allowDiskUse defaults to true since MongoDB 6.0) and return every document in order;
with allowDiskUse: false they fail with QueryExceededMemoryLimitNoDiskUseAllowed 292."""

import unittest

from pymongo.errors import OperationFailure

from harness import ServerTestCase


class BlockingSortTest(ServerTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        coll = cls.client.sort_tests.big
        payload = "x" * 20000
        # About 120 MB: past the 100 MB a blocking sort may hold in memory.
        for batch in range(30):
            coll.insert_many([{"_id": batch * 200 + i, "k": (batch * 200 + i) * 7919 % 6007,
                               "pad": payload} for i in range(200)])

    def test_sort_spills_to_disk_by_default(self):
        keys = [d["k"] for d in self.client.sort_tests.big.find({}, {"k": 1}).sort("k", 1)]
        self.assertEqual(len(keys), 6000)
        self.assertEqual(keys, sorted(keys))

    def test_sort_without_disk_use_fails_with_292(self):
        with self.assertRaises(OperationFailure) as caught:
            self.client.sort_tests.command(
                {"find": "big", "sort": {"k": 1}, "allowDiskUse": False, "projection": {"k": 1}})
        self.assertEqual(caught.exception.code, 292)
        self.assertIn("Sort exceeded memory limit of 104857600 bytes", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
