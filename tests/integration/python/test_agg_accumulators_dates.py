"""$stdDevPop/$stdDevSamp through pymongo, on the example of MongoDB's documentation, compared
with a tolerance. The n-accumulators, $top/$bottom and the date operators are spec files
(tests/spec/aggregate/n_accumulators.json, date_operators.json)."""

import unittest

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


class AccumulatorTest(ServerTestCase):
    def setUp(self):
        self.db = self.client["acc_" + self._testMethodName[len("test_"):][:40]]
        self.db.gamescores.insert_many([dict(d) for d in GAMESCORES])

    def group(self, field):
        return list(self.db.gamescores.aggregate([
            {"$group": {"_id": "$gameId", "r": field}}, {"$sort": {"_id": 1}}]))

    def test_standard_deviations(self):
        out = self.group({"$stdDevSamp": "$score"})
        self.assertAlmostEqual(out[0]["r"], 41.34408462323641)
        out = self.group({"$stdDevPop": "$score"})
        self.assertAlmostEqual(out[1]["r"], 30.931375656443088)


if __name__ == "__main__":
    unittest.main()
