#!/usr/bin/python3
"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/) and dictionaries
(tests/fuzz/dict/<target>.dict) from the seeds listed here: real commands, filters, updates,
projections and pipelines as drivers send them. Run it after editing the seeds and commit its
output; CI does not run it. Needs Debian's python3-pymongo (the `bson` module), hence
/usr/bin/python3.

Seeds of the BSON targets are Extended JSON text (fuzz_support.h reads both JSON and raw BSON);
the `wire` seeds are binary frames: the drivers' handshakes recorded in tests/unit/wire/testdata
and the `dispatch` seeds encoded as OP_MSG (one with a checksum) and one OP_QUERY.
"""
import hashlib
import json
import os
import re
import shutil
import struct
import sys

import bson
from bson import json_util

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

DOCS = [
    '{"_id": 1, "a": 1, "b": "x", "c": [1, 2, 3], "d": {"e": 5, "f": [{"g": 1}, {"g": 2}]}}',
    '{"_id": 2, "a": 2.5, "b": "Xy", "c": [], "d": {"e": null}, "t": {"$date": "2024-03-01T10:00:00Z"}}',
    '{"_id": {"$oid": "65f000000000000000000001"}, "a": {"$numberLong": "3"}, "b": ["x", "y"], '
    '"c": [[1, 2], {"h": 3}], "n": {"$numberDecimal": "1.10"}}',
    '{"_id": "s", "a": null, "b": {"$regularExpression": {"pattern": "^x", "options": "i"}}, '
    '"c": [null, {"$minKey": 1}, {"$maxKey": 1}], "bin": {"$binary": {"base64": "AAEC", "subType": "00"}}}',
    '{"_id": 5, "a": -0.0, "b": true, "c": [{"k": 1, "v": 2}, {"k": 2, "v": 1}], '
    '"ts": {"$timestamp": {"t": 1, "i": 2}}, "nan": {"$numberDouble": "NaN"}}',
    '{"_id": 6, "arr": [1, [2, [3]], {"x": [4]}], "str": "caf\\u00e9", "big": {"$numberLong": "9007199254740993"}}',
]


def with_docs(command, docs=DOCS):
    return "\n".join([command] + docs)


FILTER = [
    '{"filter": {}}',
    '{"filter": {"a": 1}}',
    '{"filter": {"a": {"$gt": 1, "$lte": {"$numberDecimal": "2.5"}}}}',
    '{"filter": {"b": {"$in": ["x", {"$regularExpression": {"pattern": "^X", "options": ""}}]}, "a": {"$ne": null}}}',
    '{"filter": {"$or": [{"a": {"$exists": false}}, {"d.e": {"$type": ["int", "null"]}}]}}',
    '{"filter": {"$nor": [{"c": {"$size": 0}}], "c": {"$all": [1, 2]}}}',
    '{"filter": {"d.f": {"$elemMatch": {"g": {"$gte": 2}}}, "c": {"$elemMatch": {"$gt": 1, "$lt": 3}}}}',
    '{"filter": {"a": {"$not": {"$mod": [2, 0]}}, "c.1": 2}}',
    '{"filter": {"a": {"$bitsAllSet": [0], "$bitsAnyClear": 6}}}',
    '{"filter": {"b": {"$regex": "x|y", "$options": "ix"}}, "collation": {"locale": "fr", "strength": 1}}',
    '{"filter": {"$expr": {"$gt": [{"$size": {"$ifNull": ["$c", []]}}, "$$limit"]}}, "let": {"limit": 1}}',
    '{"filter": {"$jsonSchema": {"bsonType": "object", "required": ["a"], "properties": {"a": {"bsonType": ["int", "double"], "minimum": 0}, "b": {"type": "string", "pattern": "^x", "maxLength": 3}, "c": {"type": "array", "items": {"bsonType": "int"}, "uniqueItems": true}}, "additionalProperties": true}}}',
    '{"filter": {"$and": [{"a": {"$eq": 1}}, {"$comment": "seed"}, {"b": {"$nin": [null, "z"]}}]}}',
    '{"filter": {"str": "CAFE"}, "collation": {"locale": "en", "strength": 1, "caseLevel": false}}',
    '{"filter": {"$alwaysFalse": 1}}',
    '{"filter": {"_id": {"$eq": 1}}}',
]

UPDATE = [
    '{"q": {"_id": 1}, "u": {"$set": {"a": 2, "d.e": 6}, "$inc": {"x": 1}}}',
    '{"q": {}, "u": {"$unset": {"b": ""}, "$rename": {"a": "z"}, "$currentDate": {"t": {"$type": "date"}}}}',
    '{"q": {"c": 2}, "u": {"$set": {"c.$": 20}, "$mul": {"a": 2}}}',
    '{"q": {}, "u": {"$push": {"c": {"$each": [5, 4], "$position": 0, "$sort": 1, "$slice": 3}}, "$addToSet": {"b": {"$each": ["x", "q"]}}}}',
    '{"q": {}, "u": {"$pull": {"c": {"$gte": 2}}, "$pop": {"b": -1}, "$pullAll": {"arr": [1]}}}',
    '{"q": {}, "u": {"$set": {"d.f.$[el].g": 9}}, "arrayFilters": [{"el.g": {"$gt": 1}}]}',
    '{"q": {}, "u": {"$set": {"c.$[]": 0}, "$min": {"a": 0}, "$max": {"m": 10}}}',
    '{"q": {}, "u": {"$bit": {"a": {"and": 1, "or": 4}}}}',
    '{"q": {"_id": 1}, "u": {"a": 5, "b": "replaced"}}',
    '{"q": {"_id": 7, "k": {"$eq": 3}, "z.y": 1}, "u": {"$setOnInsert": {"created": true}, "$set": {"u": 1}}, "upsert": true}',
    '{"q": {}, "u": [{"$set": {"total": {"$add": ["$a", 1]}}}, {"$unset": "b"}, {"$replaceWith": {"$mergeObjects": ["$$ROOT", {"x": "$$v"}]}}], "let": {"v": 1}}',
    '{"q": {}, "u": [{"$project": {"a": 1, "sum": {"$sum": "$c"}}}]}',
    '{"q": {"b": "xy"}, "u": {"$set": {"b": "XY"}}, "collation": {"locale": "en", "strength": 2}}',
]

PROJECTION = [
    '{"projection": {"a": 1, "d.e": 1}}',
    '{"projection": {"_id": 0, "c": 0, "d.f.g": 0}}',
    '{"projection": {"c": {"$slice": [1, 2]}, "d": 1}}',
    '{"projection": {"c": {"$elemMatch": {"$gt": 1}}, "a": 1}}',
    '{"filter": {"c": {"$gt": 1}}, "projection": {"c.$": 1}}',
    '{"projection": {"x": {"$add": ["$a", 1]}, "y": "$d.e", "z": {"$literal": "$q"}, "w": {"p": "$b"}}}',
    '{"projection": {"a": 1}, "sort": {"a": 1, "_id": -1}}',
    '{"projection": {}, "sort": {"c": -1, "b": 1}, "collation": {"locale": "de", "numericOrdering": true}}',
    '{"projection": {"s": {"$slice": ["$c", -2]}, "m": {"$map": {"input": "$c", "as": "v", "in": {"$multiply": ["$$v", "$$k"]}}}}, "let": {"k": 3}}',
    '{"projection": {"d.f": {"$slice": 1}}, "sort": {"d.f.g": 1}}',
]

PIPELINE = [
    '{"pipeline": [{"$match": {"a": {"$gte": 1}}}, {"$group": {"_id": "$b", "n": {"$sum": 1}, "avg": {"$avg": "$a"}, "all": {"$push": "$$ROOT"}}}, {"$sort": {"n": -1}}]}',
    '{"pipeline": [{"$unwind": {"path": "$c", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true}}, {"$project": {"c": 1, "i": 1}}, {"$limit": 5}]}',
    '{"pipeline": [{"$addFields": {"len": {"$strLenCP": {"$toString": "$b"}}, "when": {"$dateToString": {"date": "$$NOW", "format": "%Y-%m-%d", "timezone": "Europe/Paris"}}}}, {"$unset": ["d"]}]}',
    '{"pipeline": [{"$bucket": {"groupBy": "$a", "boundaries": [0, 2, 10], "default": "other", "output": {"c": {"$sum": 1}}}}]}',
    '{"pipeline": [{"$bucketAuto": {"groupBy": "$_id", "buckets": 3}}, {"$count": "n"}]}',
    '{"pipeline": [{"$facet": {"a": [{"$sortByCount": "$b"}], "b": [{"$skip": 1}, {"$sample": {"size": 2}}]}}]}',
    '{"pipeline": [{"$lookup": {"from": "other", "localField": "a", "foreignField": "a", "as": "j"}}, {"$unwind": "$j"}]}',
    '{"pipeline": [{"$lookup": {"from": "indexed", "let": {"x": "$a"}, "pipeline": [{"$match": {"$expr": {"$eq": ["$a", "$$x"]}}}], "as": "j"}}]}',
    '{"pipeline": [{"$unionWith": {"coll": "other", "pipeline": [{"$project": {"_id": 0}}]}}, {"$replaceRoot": {"newRoot": {"$mergeObjects": [{"z": 1}, "$$ROOT"]}}}]}',
    '{"pipeline": [{"$documents": [{"x": 1}, {"x": 2}]}, {"$set": {"y": {"$range": [0, "$x"]}}}]}',
    '{"pipeline": [{"$group": {"_id": null, "top": {"$topN": {"n": 2, "sortBy": {"a": -1}, "output": "$b"}}, "sd": {"$stdDevPop": "$a"}, "set": {"$addToSet": "$b"}, "first": {"$first": "$a"}}}]}',
    '{"pipeline": [{"$sort": {"b": 1, "a": -1}}, {"$group": {"_id": {"$type": "$a"}, "m": {"$max": "$a"}}}], "spill": true}',
    '{"pipeline": [{"$project": {"r": {"$reduce": {"input": "$c", "initialValue": 0, "in": {"$add": ["$$value", {"$cond": [{"$isNumber": "$$this"}, "$$this", 0]}]}}}, "f": {"$filter": {"input": "$c", "cond": {"$gt": ["$$this", 1]}}}}}]}',
    '{"pipeline": [{"$project": {"s": {"$switch": {"branches": [{"case": {"$eq": ["$a", 1]}, "then": "one"}], "default": "many"}}, "rx": {"$regexFindAll": {"input": {"$toString": "$b"}, "regex": "x"}}}}]}',
    '{"pipeline": [{"$set": {"d2": {"$dateAdd": {"startDate": "$t", "unit": "day", "amount": 3}}, "tr": {"$dateTrunc": {"date": "$t", "unit": "week"}}}}]}',
    '{"pipeline": [{"$match": {"b": "x"}}, {"$out": "copy"}]}',
    '{"pipeline": [{"$group": {"_id": "$b"}}, {"$merge": {"into": "m", "whenMatched": "merge"}}]}',
    '{"pipeline": [{"$sort": {"str": 1}}], "collation": {"locale": "fr", "strength": 1}}',
    '{"pipeline": [{"$project": {"c": {"$convert": {"input": "$b", "to": "int", "onError": -1}}, "o": {"$objectToArray": "$d"}, "n": {"$round": ["$n", 1]}}}]}',
]

KEY_STRING = [
    '{"a": 1, "b": {"$numberLong": "1"}, "c": 1.0, "d": {"$numberDecimal": "1"}, "e": 1.5, "f": {"$numberDecimal": "1.50"}}',
    '{"a": {"$numberDouble": "NaN"}, "b": {"$numberDouble": "-Infinity"}, "c": {"$numberDouble": "Infinity"}, "d": {"$numberDecimal": "-Infinity"}, "e": -0.0, "f": 0}',
    '{"a": {"$numberLong": "9007199254740993"}, "b": 9007199254740992.0, "c": {"$numberDecimal": "9007199254740993"}, "d": {"$numberLong": "-9223372036854775808"}}',
    '{"a": "", "b": "a", "c": "a\\u0000b", "d": {"$symbol": "a"}, "e": "\\u00ff"}',
    '{"a": {}, "b": {"x": 1}, "c": [], "d": [1, [2]], "e": [null], "f": {"": null}}',
    '{"a": null, "b": {"$undefined": true}, "c": {"$minKey": 1}, "d": {"$maxKey": 1}, "e": true, "f": false}',
    '{"a": {"$oid": "65f000000000000000000001"}, "b": {"$date": "1969-12-31T23:59:59.999Z"}, "c": {"$timestamp": {"t": 5, "i": 1}}, "d": {"$binary": {"base64": "AAEC", "subType": "04"}}}',
    '{"a": {"$regularExpression": {"pattern": "a.b", "options": "im"}}, "b": {"$code": "x"}, "c": {"$dbPointer": {"$ref": "c", "$id": {"$oid": "65f000000000000000000002"}}}}',
    '{"a": 1e-300, "b": 1e300, "c": {"$numberDecimal": "1E-6000"}, "d": {"$numberDecimal": "9.999999999999999999999999999999999E+6144"}, "e": 0.1, "f": {"$numberDecimal": "0.1"}}',
]

INDEX_BOUNDS = [
    '{"filter": {"a": {"$gt": 1}}, "indexes": [{"key": {"a": 1}, "name": "a_1"}]}',
    '{"filter": {"a": {"$in": [1, "x", null]}, "b": {"$lt": 5}}, "indexes": [{"key": {"a": 1, "b": -1}, "name": "a_1_b_-1"}, {"key": {"b": 1}, "name": "b_1"}]}',
    '{"filter": {"c": {"$elemMatch": {"$gt": 1, "$lt": 3}}}, "indexes": [{"key": {"c": 1}, "name": "c_1"}]}',
    '{"filter": {"b": {"$regex": "^x"}}, "sort": {"b": -1}, "indexes": [{"key": {"b": -1}, "name": "b_-1"}]}',
    '{"filter": {"$or": [{"a": 1}, {"b": "x"}]}, "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"b": 1}, "name": "b_1"}]}',
    '{"filter": {"a": null}, "indexes": [{"key": {"a": 1}, "name": "a_1", "sparse": true}, {"key": {"a": 1, "_id": 1}, "name": "a_id"}]}',
    '{"filter": {"a": {"$gte": 2}}, "indexes": [{"key": {"a": 1}, "name": "a_part", "partialFilterExpression": {"a": {"$gt": 1}}}]}',
    '{"filter": {"d.f.g": {"$in": [1, 2]}, "d.e": {"$exists": true}}, "indexes": [{"key": {"d.f.g": 1, "d.e": 1}, "name": "dfg"}]}',
    '{"filter": {"a": {"$type": "number"}, "_id": {"$ne": 2}}, "sort": {"_id": 1}, "indexes": [{"key": {"_id": 1}, "name": "_id_"}, {"key": {"a": -1, "_id": 1}, "name": "a_-1"}]}',
    '{"filter": {"c": [1, 2, 3]}, "indexes": [{"key": {"c": 1}, "name": "c_1"}]}',
    '{"filter": {"arr.1": {"$lte": [3]}}, "indexes": [{"key": {"arr.1": 1}, "name": "arr1"}]}',
]

DISPATCH = [
    ['{"hello": 1, "client": {"driver": {"name": "fuzz", "version": "1"}}}', '{"ping": 1}', '{"buildInfo": 1}'],
    ['{"insert": "c", "$seq:documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": [1, 2], "b": "x"}]}',
     '{"find": "c", "filter": {"a": {"$gte": 1}}, "projection": {"b": 0}, "sort": {"_id": -1}, "batchSize": 1}',
     '{"getMore": 0, "collection": "c", "batchSize": 1}',
     '{"count": "c", "query": {"a": 1}}', '{"distinct": "c", "key": "a"}'],
    ['{"insert": "c", "documents": [{"_id": 1, "a": 1, "t": "x"}, {"_id": 2, "a": 2}]}',
     '{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "unique": true}, {"key": {"t": "text"}, "name": "t_text"}]}',
     '{"find": "c", "filter": {"a": {"$in": [1, 2]}}, "hint": "a_1"}',
     '{"explain": {"find": "c", "filter": {"a": 1}}, "verbosity": "executionStats"}',
     '{"find": "c", "filter": {"$text": {"$search": "x"}}, "projection": {"s": {"$meta": "textScore"}}}',
     '{"listIndexes": "c"}', '{"dropIndexes": "c", "index": "a_1"}'],
    ['{"insert": "c", "documents": [{"_id": 1, "a": [1, 2]}]}',
     '{"update": "c", "$seq:updates": [{"q": {"a": 1}, "u": {"$set": {"a.$": 5}}}, {"q": {"_id": 9}, "u": {"$inc": {"n": 1}}, "upsert": true}], "ordered": false}',
     '{"findAndModify": "c", "query": {"_id": 1}, "update": [{"$set": {"z": 1}}], "new": true, "fields": {"z": 1}}',
     '{"delete": "c", "deletes": [{"q": {"_id": 9}, "limit": 1}], "writeConcern": {"w": 1, "j": false}}'],
    ['{"insert": "o", "documents": [{"_id": 1, "k": 1}, {"_id": 2, "k": 2}]}',
     '{"insert": "c", "documents": [{"_id": 1, "k": 1}, {"_id": 2, "k": 3}]}',
     '{"aggregate": "c", "pipeline": [{"$lookup": {"from": "o", "localField": "k", "foreignField": "k", "as": "j"}}, {"$unwind": "$j"}, {"$group": {"_id": "$k", "n": {"$sum": 1}}}], "cursor": {}}',
     '{"aggregate": "c", "pipeline": [{"$merge": {"into": "o", "on": "_id", "whenMatched": "replace"}}], "cursor": {}}',
     '{"aggregate": 1, "pipeline": [{"$documents": [{"x": 1}]}, {"$out": "fromdocs"}], "cursor": {}}'],
    ['{"create": "capped", "capped": true, "size": 4096, "max": 3}',
     '{"insert": "capped", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}, {"_id": 4}]}',
     '{"find": "capped", "tailable": true, "awaitData": true, "batchSize": 2}',
     '{"getMore": 0, "collection": "capped", "maxTimeMS": 10}',
     '{"collStats": "capped"}', '{"convertToCapped": "capped", "size": 8192}'],
    ['{"create": "v", "validator": {"$jsonSchema": {"required": ["a"]}}, "validationAction": "error"}',
     '{"insert": "v", "documents": [{"b": 1}]}',
     '{"collMod": "v", "validationLevel": "moderate"}',
     '{"listCollections": 1, "filter": {"name": "v"}}',
     '{"renameCollection": "fuzz.v", "to": "fuzz.w", "$db": "admin"}',
     '{"dropDatabase": 1}'],
    ['{"setParameter": 1, "internalQueryMaxBlockingSortMemoryUsageBytes": 100, "$db": "admin"}',
     '{"insert": "s", "documents": [{"a": 3}, {"a": 1}, {"a": 2}]}',
     '{"find": "s", "sort": {"a": 1}, "allowDiskUse": true}',
     '{"getParameter": "*", "$db": "admin"}', '{"serverStatus": 1}'],
    ['{"currentOp": 1, "$db": "admin"}', '{"aggregate": 1, "pipeline": [{"$currentOp": {}}], "cursor": {}, "$db": "admin"}',
     '{"endSessions": [{"id": {"$binary": {"base64": "AAAAAAAAAAAAAAAAAAAAAA==", "subType": "04"}}}], "$db": "admin"}',
     '{"listDatabases": 1, "$db": "admin"}', '{"dbStats": 1}', '{"hostInfo": 1}', '{"getCmdLineOpts": 1, "$db": "admin"}'],
    ['{"isMaster": 1, "$opQuery": true}', '{"listCommands": 1}', '{"killCursors": "c", "cursors": [{"$numberLong": "1"}]}',
     '{"noSuchCommand": 1}', '{"find": "c", "filter": {"$where": "1"}}'],
    ['{"insert": "t", "documents": [{"_id": 1, "at": {"$date": "2020-01-01T00:00:00Z"}}]}',
     '{"createIndexes": "t", "indexes": [{"key": {"at": 1}, "name": "ttl", "expireAfterSeconds": 0}]}',
     '{"cloneCollectionAsCapped": "t", "toCollection": "t2", "size": 10000}',
     '{"drop": "t"}', '{"whatsmyuri": 1}', '{"connectionStatus": 1}', '{"getLog": "global", "$db": "admin"}'],
]

# Field names and keywords of commands and stages the dictionaries add to the operator names.
KEYWORDS = """filter projection sort let collation locale strength pipeline cursor batchSize
    documents updates deletes q u upsert multi arrayFilters limit hint explain verbosity
    allowDiskUse new fields query update remove key indexes name unique sparse partialFilterExpression
    expireAfterSeconds hidden capped size max validator validationLevel validationAction
    writeConcern w j wtimeout ordered bypassDocumentValidation lsid txnNumber comment maxTimeMS
    tailable awaitData collection from localField foreignField as coll into on whenMatched
    whenNotMatched input initialValue in cond then else branches default groupBy boundaries
    buckets output n sortBy path includeArrayIndex preserveNullAndEmptyArrays newRoot
    startDate endDate unit amount timezone format date onError onNull to regex options find
    insert delete aggregate count distinct create drop getMore killCursors listIndexes
    createIndexes dropIndexes findAndModify collMod renameCollection dropDatabase $db $seq:documents
    $seq:updates $seq:deletes $opQuery returnKey showRecordId min max singleBatch skip""".split()


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def seed_name(data, ext):
    return hashlib.sha1(data).hexdigest()[:12] + ext


def write_corpus(target, seeds):
    directory = os.path.join(HERE, "corpus", target)
    shutil.rmtree(directory, ignore_errors=True)
    for seed in seeds:
        data = seed if isinstance(seed, bytes) else (seed + "\n").encode()
        for line in ([] if isinstance(seed, bytes) else seed.split("\n")):
            json.loads(line)  # every seed line is one JSON document
        write(os.path.join(directory, seed_name(data, ".bin" if isinstance(seed, bytes) else ".json")), data)


def op_msg(body, sequences=(), checksum=False, request_id=1):
    flags = 1 if checksum else 0
    sections = b"\x00" + bson.encode(body)
    for name, docs in sequences:
        payload = name.encode() + b"\x00" + b"".join(bson.encode(d) for d in docs)
        sections += b"\x01" + struct.pack("<i", 4 + len(payload)) + payload
    message = struct.pack("<I", flags) + sections
    length = 16 + len(message) + (4 if checksum else 0)
    frame = struct.pack("<iiii", length, request_id, 0, 2013) + message
    if checksum:
        frame += struct.pack("<I", crc32c(frame))
    return frame


def op_query(ns, query, request_id=1):
    message = struct.pack("<i", 0) + ns.encode() + b"\x00" + struct.pack("<ii", 0, -1) + bson.encode(query)
    return struct.pack("<iiii", 16 + len(message), request_id, 0, 2004) + message


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def wire_seeds():
    seeds = []
    testdata = os.path.join(REPO, "tests", "unit", "wire", "testdata")
    for name in sorted(os.listdir(testdata)):
        with open(os.path.join(testdata, name)) as f:
            seeds.append(bytes.fromhex(re.sub(r"\s+", "", f.read())))
    for i, sequence in enumerate(DISPATCH):
        for j, text in enumerate(sequence):
            command = json_util.loads(text)
            if command.pop("$opQuery", False):
                seeds.append(op_query("admin.$cmd", command))
                continue
            sequences = [(k[5:], command.pop(k)) for k in list(command) if k.startswith("$seq:")]
            command.setdefault("$db", "fuzz")
            seeds.append(op_msg(command, sequences, checksum=(i + j) % 5 == 0))
    return seeds


def operator_names():
    names = set()
    for directory in ("query", "index", "server"):
        for root, _, files in os.walk(os.path.join(REPO, directory)):
            for file in files:
                if file.endswith((".cc", ".h")):
                    with open(os.path.join(root, file), encoding="utf-8") as f:
                        names.update(re.findall(r'"(\$[a-zA-Z][a-zA-Z0-9]*)"', f.read()))
    return sorted(names)


def write_dict(target, words):
    lines = ["# Generated by tests/fuzz/make_corpus.py: JSON tokens for %s." % target]
    for word in words:
        lines.append('"\\"%s\\""' % word)
    write(os.path.join(HERE, "dict", target + ".dict"), ("\n".join(lines) + "\n").encode())


def main():
    write_corpus("filter", [with_docs(s) for s in FILTER])
    write_corpus("update", [with_docs(s) for s in UPDATE])
    write_corpus("projection", [with_docs(s) for s in PROJECTION])
    write_corpus("pipeline", [with_docs(s) for s in PIPELINE])
    write_corpus("key_string", KEY_STRING + ["\n".join(DOCS)])
    write_corpus("index_bounds", [with_docs(s) for s in INDEX_BOUNDS])
    write_corpus("dispatch", ["\n".join(sequence) for sequence in DISPATCH])
    write_corpus("wire", wire_seeds())
    operators = operator_names()
    for target in ("filter", "update", "projection", "pipeline", "index_bounds", "dispatch"):
        write_dict(target, operators + KEYWORDS)
    write_dict("key_string", ["$numberDecimal", "$numberLong", "$numberDouble", "NaN", "Infinity",
                              "-Infinity", "$date", "$oid", "$minKey", "$maxKey", "$symbol",
                              "$binary", "$timestamp", "$regularExpression", "$code", "$undefined"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
