"""Time-series bucketing through pymongo 3.11 over sensor readings kept in a regular collection
(Cairn does not implement `timeseries` collections, see README): a time-range $match, hourly
rollups per sensor ($group on {sensor, $dateTrunc} with $avg/$min/$max/$count), $sort, value
histograms with $bucket and $bucketAuto, and daily labels with $dateToString. Every expected
result is computed here in Python from the same readings. Values are multiples of 0.5, so sums
and averages are exact in binary and independent of summation order."""

import datetime
import unittest
from collections import defaultdict

from harness import ServerTestCase

START = datetime.datetime(2024, 3, 9, 22, 0, 0)
SENSORS = ["s1", "s2", "s3"]
STEP = datetime.timedelta(minutes=10)
N_STEPS = 2 * 24 * 6  # two days of 10-minute readings


def readings():
    docs, n = [], 0
    for i in range(N_STEPS):
        for k, sensor in enumerate(SENSORS):
            if (i + k) % 11 == 0:
                continue  # a missed reading now and then, so the groups differ in size
            docs.append({"_id": n, "sensor": sensor, "ts": START + i * STEP,
                         "value": float((i * 7 + k * 5) % 23) + 0.5 * k})
            n += 1
    return docs


def hour_of(ts):
    return ts.replace(minute=0, second=0, microsecond=0)


def bucket_auto(values, buckets):
    """MongoDB's $bucketAuto without granularity: sorted values cut into buckets of about
    n / buckets documents, a bucket extended while the next value equals its last; each bucket's
    max is the next bucket's min (the last one's is its own maximum)."""
    values = sorted(values)
    size = len(values) // buckets if len(values) >= buckets else 1
    groups, i = [], 0
    while i < len(values):
        j = min(i + size, len(values))
        if len(groups) == buckets - 1:
            j = len(values)
        while j < len(values) and values[j] == values[j - 1]:
            j += 1
        groups.append(values[i:j])
        i = j
    out = []
    for g, group in enumerate(groups):
        upper = groups[g + 1][0] if g + 1 < len(groups) else group[-1]
        out.append({"_id": {"min": group[0], "max": upper}, "count": len(group)})
    return out


class TimeSeriesBucketsTest(ServerTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.docs = readings()
        cls.coll = cls.client.py_timeseries.readings
        cls.coll.drop()
        cls.coll.insert_many(cls.docs)
        cls.coll.create_index([("ts", 1)])

    def window(self):
        lo, hi = START + datetime.timedelta(hours=3), START + datetime.timedelta(hours=27)
        return lo, hi, [d for d in self.docs if lo <= d["ts"] < hi]

    def test_hourly_rollup_per_sensor(self):
        lo, hi, chosen = self.window()
        groups = defaultdict(list)
        for d in chosen:
            groups[(d["sensor"], hour_of(d["ts"]))].append(d["value"])
        expected = [{"_id": {"sensor": s, "hour": h}, "avg": sum(v) / len(v), "min": min(v),
                     "max": max(v), "n": len(v)} for (s, h), v in sorted(groups.items())]
        got = list(self.coll.aggregate([
            {"$match": {"ts": {"$gte": lo, "$lt": hi}}},
            {"$group": {"_id": {"sensor": "$sensor",
                                "hour": {"$dateTrunc": {"date": "$ts", "unit": "hour"}}},
                        "avg": {"$avg": "$value"}, "min": {"$min": "$value"},
                        "max": {"$max": "$value"}, "n": {"$count": {}}}},
            {"$sort": {"_id.sensor": 1, "_id.hour": 1}},
        ]))
        self.assertEqual(len(got), 3 * 24)
        self.assertEqual(got, expected)

    def test_value_histogram_with_bucket(self):
        lo, hi, chosen = self.window()
        bounds = [0, 5, 10, 15, 20]
        counts = defaultdict(list)
        for d in chosen:
            v = d["value"]
            key = "high" if v >= 20 else max(b for b in bounds[:-1] if b <= v)
            counts[key].append(v)
        expected = [{"_id": b, "count": len(counts[b]), "avg": sum(counts[b]) / len(counts[b])}
                    for b in bounds[:-1] if counts[b]]
        expected.append({"_id": "high", "count": len(counts["high"]),
                         "avg": sum(counts["high"]) / len(counts["high"])})
        got = list(self.coll.aggregate([
            {"$match": {"ts": {"$gte": lo, "$lt": hi}}},
            {"$bucket": {"groupBy": "$value", "boundaries": bounds, "default": "high",
                         "output": {"count": {"$sum": 1}, "avg": {"$avg": "$value"}}}},
        ]))
        self.assertEqual(got, expected)

    def test_value_quartiles_with_bucket_auto(self):
        values = [d["value"] for d in self.docs if d["sensor"] == "s2"]
        got = list(self.coll.aggregate([
            {"$match": {"sensor": "s2"}},
            {"$bucketAuto": {"groupBy": "$value", "buckets": 4}},
        ]))
        self.assertEqual(got, bucket_auto(values, 4))
        self.assertEqual(sum(b["count"] for b in got), len(values))

    def test_daily_summary_labelled_with_date_to_string(self):
        per_day = defaultdict(lambda: {"n": 0, "peak": None, "sensors": set()})
        for d in self.docs:
            day = per_day[d["ts"].strftime("%Y-%m-%d")]
            day["n"] += 1
            day["peak"] = d["value"] if day["peak"] is None else max(day["peak"], d["value"])
            day["sensors"].add(d["sensor"])
        expected = [{"_id": k, "n": v["n"], "peak": v["peak"], "sensors": len(v["sensors"])}
                    for k, v in sorted(per_day.items())]
        got = list(self.coll.aggregate([
            {"$group": {"_id": {"$dateToString": {"format": "%Y-%m-%d", "date": "$ts"}},
                        "n": {"$sum": 1}, "peak": {"$max": "$value"},
                        "sensors": {"$addToSet": "$sensor"}}},
            {"$set": {"sensors": {"$size": "$sensors"}}},
            {"$sort": {"_id": 1}},
        ]))
        self.assertEqual(got, expected)

    def test_hourly_rollups_merged_into_a_summary_collection(self):
        # The materialised-view pattern: each run folds new hourly rollups into the summary.
        summary = self.client.py_timeseries.hourly
        summary.drop()
        summary.create_index([("sensor", 1), ("hour", 1)], unique=True)
        pipeline = [
            {"$group": {"_id": {"sensor": "$sensor",
                                "hour": {"$dateTrunc": {"date": "$ts", "unit": "hour"}}},
                        "n": {"$sum": 1}}},
            {"$project": {"_id": 0, "sensor": "$_id.sensor", "hour": "$_id.hour", "n": 1}},
            {"$merge": {"into": "hourly", "on": ["sensor", "hour"],
                        "whenMatched": [{"$set": {"n": {"$add": [{"$ifNull": ["$n", 0]},
                                                                  "$$new.n"]}}}],
                        "whenNotMatched": "insert"}},
        ]
        list(self.coll.aggregate(pipeline))
        counts = defaultdict(int)
        for d in self.docs:
            counts[(d["sensor"], hour_of(d["ts"]))] += 1
        # No match: the pipeline runs on the {sensor, hour} seed ($n missing, so 0 + $$new.n).
        got = {(d["sensor"], d["hour"]): d["n"] for d in summary.find()}
        self.assertEqual(got, dict(counts))
        list(self.coll.aggregate(pipeline))
        got = {(d["sensor"], d["hour"]): d["n"] for d in summary.find()}
        self.assertEqual(got, {k: 2 * v for k, v in counts.items()})

if __name__ == "__main__":
    unittest.main()
