"""tools/bench/shop_data.py, the project's own shop generator: the documents it writes are those
of ../shared/benchdata/gen_data.py, byte for byte (compared whenever the benchdata directory is
beside the repository), and in a clone without it, the same bytes as when they were compared
(digests recorded here), so the benchmark's data never drifts from the published figures'."""
import hashlib
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
OURS = os.path.join(REPO, "tools", "bench", "shop_data.py")
SHARED = os.path.normpath(os.path.join(REPO, "..", "shared", "benchdata", "gen_data.py"))

# (arguments, md5 of the output), recorded from ../shared/benchdata/gen_data.py on 2026-11-29.
RECORDED = [
    (["customers", "--count", "5000", "--seed", "7", "--format", "ejson"],
     "01e77eaa37061b8df57edc57e04ee642"),
    (["orders", "--count", "1000", "--seed", "3", "--format", "ejson"],
     "ebf0fb3612c23e73ab6ed49b3b1f51f3"),
]
# Compared with the shared generator when it is there: the full customer table and enough orders
# to cover every branch (1-5 line items, every status, tier, city and category).
COMPARED = [
    ["customers"],
    ["orders", "--count", "100000"],
    ["orders", "--count", "50000", "--format", "ejson", "--customers", "5000"],
    ["orders", "--count", "2000", "--seed", "11", "--format", "pg"],
]


def digest(script, args):
    out = subprocess.run([sys.executable, script] + args, check=True, stdout=subprocess.PIPE).stdout
    return hashlib.md5(out).hexdigest(), out


class ShopDataTest(unittest.TestCase):
    def test_the_recorded_outputs_are_reproduced(self):
        for args, md5 in RECORDED:
            self.assertEqual(digest(OURS, args)[0], md5, args)

    def test_documents_have_the_published_shape(self):
        _, out = digest(OURS, ["orders", "--count", "3", "--format", "ejson"])
        lines = out.decode("ascii").splitlines()
        self.assertEqual(len(lines), 3)
        self.assertTrue(lines[0].startswith('{"_id":1,"customerId":'))
        self.assertIn('"createdAt":{"$date":"2025-', lines[0])
        self.assertIn('"lineItems":[{"sku":"SKU-', lines[0])

    @unittest.skipUnless(os.path.exists(SHARED), "no ../shared/benchdata/gen_data.py beside the repository")
    def test_the_same_bytes_as_the_shared_generator(self):
        for args in COMPARED:
            self.assertEqual(digest(OURS, args)[0], digest(SHARED, args)[0], args)


if __name__ == "__main__":
    if not os.path.exists(SHARED):
        print("shop_data: ../shared/benchdata/gen_data.py absent: compared with recorded digests only")
    unittest.main()
