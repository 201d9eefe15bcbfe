"""The n-accumulators, $top/$bottom, $stdDevPop/$stdDevSamp and the date operators ($dateAdd,
$dateSubtract, $dateDiff, $dateTrunc, $dateFromParts, $dateFromString) through pymongo, on the
examples of MongoDB's documentation. Expected results and error codes are MongoDB 7.0's."""

import datetime
import unittest

from pymongo.errors import OperationFailure

from harness import ServerTestCase

GAMESCORES = [
    {"playerId": "PlayerA", "gameId": "G1", "score": 31},
    {"playerId": "PlayerB", "gameId": "G1", "score": 33},
    {"playerId": "PlayerC", "gameId": "G1", "score": 99},
    {"playerId": "PlayerD", "gameId": "G1", "score": 1},
    {"playerId": "PlayerA", "gameId": "G2", "score": 10},
    {"playerId": "PlayerB", "gameId": "G2", "score": 14},
    {"playerId": "PlayerC", "gameId": "G2", "score": 66},
    {"playerId": "PlayerD", "gameId": "G2", "score": 80},
]


def utc(*parts):
    return datetime.datetime(*parts)


class AccumulatorTest(ServerTestCase):
    def setUp(self):
        self.db = self.client["acc_" + self._testMethodName[len("test_"):][:40]]
        self.db.gamescores.insert_many([dict(d) for d in GAMESCORES])

    def group(self, field):
        return list(self.db.gamescores.aggregate([
            {"$group": {"_id": "$gameId", "r": field}}, {"$sort": {"_id": 1}}]))

    def test_top_n_and_bottom_n(self):
        self.assertEqual(
            self.group({"$topN": {"output": ["$playerId", "$score"], "sortBy": {"score": -1},
                                  "n": 3}}),
            [{"_id": "G1", "r": [["PlayerC", 99], ["PlayerB", 33], ["PlayerA", 31]]},
             {"_id": "G2", "r": [["PlayerD", 80], ["PlayerC", 66], ["PlayerB", 14]]}])
        self.assertEqual(
            self.group({"$bottom": {"output": "$playerId", "sortBy": {"score": -1}}}),
            [{"_id": "G1", "r": "PlayerD"}, {"_id": "G2", "r": "PlayerA"}])

    def test_first_n_last_n_max_n_min_n(self):
        self.assertEqual(self.group({"$firstN": {"input": "$score", "n": 2}}),
                         [{"_id": "G1", "r": [31, 33]}, {"_id": "G2", "r": [10, 14]}])
        self.assertEqual(self.group({"$lastN": {"input": "$score", "n": 1}}),
                         [{"_id": "G1", "r": [1]}, {"_id": "G2", "r": [80]}])
        self.assertEqual(self.group({"$maxN": {"input": "$score", "n": 2}}),
                         [{"_id": "G1", "r": [99, 33]}, {"_id": "G2", "r": [80, 66]}])
        self.assertEqual(self.group({"$minN": {"input": "$score", "n": 2}}),
                         [{"_id": "G1", "r": [1, 31]}, {"_id": "G2", "r": [10, 14]}])

    def test_n_from_the_group_key(self):
        out = list(self.db.gamescores.aggregate([
            {"$group": {"_id": {"gameId": "$gameId"}, "r": {"$firstN": {
                "input": "$score",
                "n": {"$cond": {"if": {"$eq": ["$gameId", "G2"]}, "then": 1, "else": 3}}}}}},
            {"$sort": {"_id.gameId": 1}}]))
        self.assertEqual(out, [{"_id": {"gameId": "G1"}, "r": [31, 33, 99]},
                               {"_id": {"gameId": "G2"}, "r": [10]}])

    def test_standard_deviations(self):
        out = self.group({"$stdDevSamp": "$score"})
        self.assertAlmostEqual(out[0]["r"], 41.34408462323641)
        out = self.group({"$stdDevPop": "$score"})
        self.assertAlmostEqual(out[1]["r"], 30.931375656443088)

    def test_bad_n_answers_mongodbs_code(self):
        with self.assertRaises(OperationFailure) as caught:
            self.group({"$firstN": {"input": "$score", "n": 0}})
        self.assertEqual(caught.exception.code, 5787908)
        with self.assertRaises(OperationFailure) as caught:
            self.group({"$topN": {"output": "$score", "n": 2}})
        self.assertEqual(caught.exception.code, 5788005)

    def test_array_expressions(self):
        out = list(self.db.gamescores.aggregate([
            {"$limit": 1},
            {"$project": {"_id": 0, "max": {"$maxN": {"input": [3, None, 7, 5], "n": 2}},
                          "last": {"$lastN": {"input": [1, 2, 3], "n": 2}}}}]))
        self.assertEqual(out, [{"max": [7, 5], "last": [2, 3]}])


class DateOperatorTest(ServerTestCase):
    def setUp(self):
        self.db = self.client["dates_" + self._testMethodName[len("test_"):][:40]]
        self.db.shipping.insert_one({"_id": 1, "purchaseDate": utc(2020, 10, 31, 12, 10, 5),
                                     "deliveryDate": utc(2020, 11, 3, 9, 0, 0)})

    def project(self, expr):
        out = list(self.db.shipping.aggregate([{"$project": {"_id": 0, "r": expr}}]))
        return out[0]["r"]

    def test_date_add_subtract_clamp_month_ends(self):
        self.assertEqual(self.project({"$dateAdd": {"startDate": "$purchaseDate", "unit": "month",
                                                    "amount": 1}}), utc(2020, 11, 30, 12, 10, 5))
        self.assertEqual(self.project({"$dateSubtract": {"startDate": "$purchaseDate",
                                                         "unit": "day", "amount": 31}}),
                         utc(2020, 9, 30, 12, 10, 5))

    def test_date_diff_counts_boundaries(self):
        self.assertEqual(self.project({"$dateDiff": {"startDate": "$purchaseDate",
                                                     "endDate": "$deliveryDate", "unit": "day"}}), 3)
        self.assertEqual(self.project({"$dateDiff": {"startDate": "$purchaseDate",
                                                     "endDate": "$deliveryDate",
                                                     "unit": "month"}}), 1)

    def test_date_trunc(self):
        self.assertEqual(self.project({"$dateTrunc": {"date": "$purchaseDate", "unit": "week",
                                                      "startOfWeek": "monday"}}),
                         utc(2020, 10, 26))
        self.assertEqual(self.project({"$dateTrunc": {"date": "$purchaseDate", "unit": "hour",
                                                      "binSize": 6,
                                                      "timezone": "America/New_York"}}),
                         utc(2020, 10, 31, 11))

    def test_date_from_parts_and_string(self):
        self.assertEqual(self.project({"$dateFromParts": {"year": 2017, "month": 14, "day": 1}}),
                         utc(2018, 2, 1))
        self.assertEqual(self.project({"$dateFromString": {
            "dateString": "2017-02-08T12:10:40.787", "timezone": "America/New_York"}}),
            utc(2017, 2, 8, 17, 10, 40, 787000))
        self.assertEqual(self.project({"$dateFromString": {"dateString": "15-06-2018",
                                                           "format": "%d-%m-%Y"}}),
                         utc(2018, 6, 15))
        self.assertEqual(self.project({"$dateFromString": {"dateString": "not a date",
                                                           "onError": "bad"}}), "bad")

    def test_date_from_string_failure_is_conversion_failure(self):
        with self.assertRaises(OperationFailure) as caught:
            self.project({"$dateFromString": {"dateString": "2017-13-45"}})
        self.assertEqual(caught.exception.code, 241)


if __name__ == "__main__":
    unittest.main()
