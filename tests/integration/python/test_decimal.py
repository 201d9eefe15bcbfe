"""Decimal128 arithmetic through pymongo: $add/$multiply/$divide in aggregate with exact decimal
results, $sum/$avg of decimals in $group, and $inc/$mul with decimals (int field + decimal
operand makes a decimal), as MongoDB 7.0 answers them."""

import unittest

from bson.decimal128 import Decimal128
from pymongo.errors import OperationFailure

from harness import ServerTestCase


def D(text):
    return Decimal128(text)


class DecimalArithmeticTest(ServerTestCase):

    def setUp(self):
        self.coll = self.client["py_decimal"]["values"]
        self.coll.drop()

    def project(self, expression, doc=None):
        self.coll.drop()
        self.coll.insert_one(dict(doc or {}, _id=1))
        out = list(self.coll.aggregate([{"$project": {"_id": 0, "r": expression}}]))
        return out[0]["r"]

    def test_expressions_give_exact_decimal_results(self):
        self.assertEqual(self.project({"$add": [D("0.1"), D("0.2")]}), D("0.3"))
        self.assertEqual(self.project({"$add": ["$i", D("1.50")]}, {"i": 1}), D("2.50"))
        self.assertEqual(self.project({"$multiply": [D("1.10"), 3]}), D("3.30"))
        self.assertEqual(self.project({"$divide": [D("1"), 4]}), D("0.25"))
        self.assertEqual(self.project({"$divide": [1, D("3")]}),
                         D("0.3333333333333333333333333333333333"))
        self.assertEqual(self.project({"$subtract": [D("5"), D("0.5")]}), D("4.5"))
        self.assertEqual(self.project({"$mod": [D("7.5"), 2]}), D("1.5"))
        self.assertEqual(self.project({"$round": [D("1.2345"), 2]}), D("1.23"))
        self.assertEqual(self.project({"$trunc": [D("-1.239"), 2]}), D("-1.23"))
        self.assertEqual(self.project({"$abs": D("-2.50")}), D("2.50"))
        self.assertEqual(self.project({"$ceil": D("1.2")}), D("2"))
        self.assertEqual(self.project({"$floor": D("-1.2")}), D("-2"))

    def test_division_by_a_decimal_zero_fails_as_for_other_numbers(self):
        with self.assertRaises(OperationFailure) as ctx:
            self.project({"$divide": [1, D("0")]})
        self.assertEqual(ctx.exception.code, 2)
        with self.assertRaises(OperationFailure) as ctx:
            self.project({"$mod": [1, D("0")]})
        self.assertEqual(ctx.exception.code, 16610)

    def test_group_sums_and_averages_decimals_exactly(self):
        self.coll.insert_many([{"k": 1, "v": D("0.1")}, {"k": 1, "v": D("0.2")},
                               {"k": 1, "v": 3}, {"k": 1, "v": "x"}])
        out = list(self.coll.aggregate([{"$group": {"_id": "$k", "s": {"$sum": "$v"},
                                                    "a": {"$avg": "$v"}}}]))
        self.assertEqual(out, [{"_id": 1, "s": D("3.3"), "a": D("1.1")}])

    def test_inc_and_mul_with_decimals(self):
        self.coll.insert_one({"_id": 1, "n": 1, "m": 3, "d": D("0.1")})
        self.coll.update_one({"_id": 1}, {"$inc": {"n": D("0.5"), "d": D("0.2")},
                                          "$mul": {"m": D("1.10")}})
        self.assertEqual(self.coll.find_one({"_id": 1}),
                         {"_id": 1, "n": D("1.5"), "m": D("3.30"), "d": D("0.3")})
        self.coll.update_one({"_id": 1}, {"$inc": {"new": D("2.50")}, "$mul": {"n": 2}})
        self.assertEqual(self.coll.find_one({"_id": 1}),
                         {"_id": 1, "n": D("3.0"), "m": D("3.30"), "d": D("0.3"),
                          "new": D("2.50")})


if __name__ == "__main__":
    unittest.main()
