"""The data tools (tools/cairn: `cairn dump|restore|export|import`) against a real cairnd.

dump/restore: a round trip keeps documents byte for byte, indexes (unique, TTL, compound),
capped options and validators, in directory form, with --gzip and as an --archive (to a file and
through a pipe); --db/--collection/--query/--excludeCollection filter; the files have the shape
mongodump writes (checked by reading them here, from the format's documentation: metadata.json
in canonical Extended JSON, the archive's magic number, prelude, segments, EOF CRCs); and a
mongodump-shaped directory and archive built here from that documentation restore.
export/import: Extended JSON lines (canonical and relaxed), JSON arrays, CSV with --fields and
--headerline, bad lines reported by number, --stopOnError, and the docker entrypoint's call.

Environment: CAIRN_TOOL (the cairn binary; default <repo>/build/tools/cairn/cairn).
"""

import datetime
import gzip
import json
import os
import shutil
import struct
import subprocess
import tempfile
import unittest
import uuid

import bson
from bson import json_util
from bson.binary import Binary
from bson.decimal128 import Decimal128
from bson.int64 import Int64
from bson.objectid import ObjectId
from bson.raw_bson import RawBSONDocument
from bson.son import SON
from pymongo.errors import OperationFailure, WriteError

from harness import REPO, ServerTestCase

TOOL = os.environ.get("CAIRN_TOOL") or os.path.join(
    REPO, os.environ.get("BUILD_DIR", "build"), "tools", "cairn", "cairn")

ARCHIVE_MAGIC = b"\x6d\xe2\x99\x81"  # 0x8199e26d little-endian (mongo-tools archive/spec.md)
TERMINATOR = b"\xff\xff\xff\xff"


def crc64_ecma(data, crc=0):
    """Go's hash/crc64 with the ECMA table (what mongodump's EOF headers carry)."""
    table = crc64_ecma.table
    crc ^= 0xFFFFFFFFFFFFFFFF
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFFFFFFFFFF


def _make_table():
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ 0xC96C5795D7870F42 if crc & 1 else crc >> 1
        table.append(crc)
    return table


crc64_ecma.table = _make_table()


def signed64(value):
    return value - (1 << 64) if value >= (1 << 63) else value


def read_bson_stream(data):
    docs, pos = [], 0
    while pos < len(data):
        (length,) = struct.unpack_from("<i", data, pos)
        docs.append(data[pos:pos + length])
        pos += length
    return docs


def parse_archive(data):
    """(header, prelude entries, {ns: [raw docs]}, {ns: eof CRC}) of a mongodump archive."""
    assert data[:4] == ARCHIVE_MAGIC, data[:4]
    pos = 4

    def entry():
        nonlocal pos
        if data[pos:pos + 4] == TERMINATOR:
            pos += 4
            return None
        (length,) = struct.unpack_from("<i", data, pos)
        raw = data[pos:pos + length]
        pos += length
        return raw

    header = bson.decode(entry())
    prelude = []
    while True:
        raw = entry()
        if raw is None:
            break
        prelude.append(bson.decode(raw))
    docs, crcs = {}, {}
    while pos < len(data):
        ns_header = bson.decode(entry())
        ns = ns_header["db"] + "." + ns_header["collection"]
        if ns_header["EOF"]:
            assert entry() is None
            crcs[ns] = ns_header["CRC"]
            continue
        while True:
            raw = entry()
            if raw is None:
                break
            docs.setdefault(ns, []).append(raw)
    return header, prelude, docs, crcs


def build_archive(collections, server_version="7.0.0"):
    """An archive as the format documentation describes it: `collections` is a list of
    (db, name, metadata json text, [documents], type)."""
    out = bytearray(ARCHIVE_MAGIC)
    out += bson.encode(SON([("concurrent_collections", 4), ("version", "0.1"),
                            ("server_version", server_version), ("tool_version", "100.9.4")]))
    for db, name, metadata, docs, kind in collections:
        size = sum(len(bson.encode(d)) for d in docs)
        out += bson.encode(SON([("db", db), ("collection", name), ("metadata", metadata),
                                ("size", size), ("type", kind)]))
    out += TERMINATOR
    # Interleaved segments, as a parallel mongodump writes them, then the EOFs.
    crcs = {}
    for i in range(max(len(c[3]) for c in collections)):
        for db, name, _, docs, _ in collections:
            if i < len(docs):
                raw = bson.encode(docs[i])
                out += bson.encode(SON([("db", db), ("collection", name), ("EOF", False),
                                        ("CRC", Int64(0))]))
                out += raw + TERMINATOR
                crcs[(db, name)] = crc64_ecma(raw, crcs.get((db, name), 0))
    for db, name, _, _, _ in collections:
        out += bson.encode(SON([("db", db), ("collection", name), ("EOF", True),
                                ("CRC", Int64(signed64(crcs.get((db, name), 0))))]))
        out += TERMINATOR
    return bytes(out)


def metadata_json(name, options=None, indexes=None, kind="collection"):
    """A metadata.json as mongodump writes it (canonical Extended JSON)."""
    doc = SON([("indexes", indexes or [SON([("v", 2), ("key", SON([("_id", 1)])), ("name", "_id_")])]),
               ("uuid", uuid.uuid4().hex), ("collectionName", name), ("type", kind),
               ("options", options or {})])
    return json_util.dumps(doc, json_options=json_util.CANONICAL_JSON_OPTIONS)


class CairnToolsTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not os.path.exists(TOOL):
            raise unittest.SkipTest("cairn binary not found at %s (set CAIRN_TOOL)" % TOOL)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cairn-tools-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def cairn(self, *args, input=None, ok=True):
        """Runs `cairn args... --uri <server>`; returns the CompletedProcess (bytes)."""
        command = [TOOL] + list(args) + ["--uri", self.server.uri]
        done = subprocess.run(command, input=input, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=120)
        if ok is not None:
            self.assertEqual(done.returncode == 0, ok,
                             "%s\nstdout: %s\nstderr: %s" % (command, done.stdout[:2000],
                                                             done.stderr.decode()[-3000:]))
        return done

    # -- data ---------------------------------------------------------------------------
    def sample_docs(self, n=1500):
        return [{"_id": i, "n": i, "s": "name %d, \"quoted\"" % i,
                 "at": datetime.datetime(2024, 1, 1) + datetime.timedelta(minutes=i),
                 "price": Decimal128("%d.10" % i), "big": Int64(1 << 40), "ratio": i / 7.0,
                 "oid": ObjectId(), "bin": Binary(b"\x00\x01" * 3, 0x80),
                 "tags": ["a", "b"], "sub": {"k": i, "deep": {"x": [1, {"y": 2}]}}}
                for i in range(n)]

    def make_shop(self, db_name):
        self.client.drop_database(db_name)
        db = self.client[db_name]
        db.orders.insert_many(self.sample_docs())
        db.orders.create_index([("n", 1), ("s", -1)], unique=True, name="n_s")
        db.orders.create_index("at", expireAfterSeconds=3600)
        db.orders.create_index("sub.k")
        db.create_collection("log", capped=True, size=65536, max=50)
        db.log.insert_many([{"i": i} for i in range(60)])
        db.create_collection("people", validator={"$jsonSchema": {"required": ["name"]}},
                             validationAction="error")
        db.people.insert_many([{"name": "ann"}, {"name": "bob"}])
        return db

    def raw_docs(self, coll, **kw):
        return [d.raw for d in coll.with_options(
            codec_options=coll.codec_options.with_options(document_class=RawBSONDocument)).find(
                {}, sort=[("_id", 1)], **kw)]

    def snapshot(self, db):
        """Everything a restore must bring back, keyed by collection."""
        out = {}
        for info in db.list_collections():
            name = info["name"]
            indexes = sorted((i["name"], dict(i["key"]), i.get("unique", False),
                              i.get("expireAfterSeconds")) for i in db[name].list_indexes())
            docs = self.raw_docs(db[name]) if name != "log" else [
                d.raw for d in db[name].with_options(codec_options=db[name].codec_options.with_options(
                    document_class=RawBSONDocument)).find()]
            out[name] = (info.get("options", {}), indexes, docs)
        return out

    def assert_restored(self, before, db):
        after = self.snapshot(db)
        self.assertEqual(sorted(before), sorted(after))
        for name in before:
            self.assertEqual(before[name][0], after[name][0], name)
            self.assertEqual(before[name][1], after[name][1], name)
            self.assertEqual(len(before[name][2]), len(after[name][2]), name)
            self.assertEqual(before[name][2], after[name][2], name)

    # -- dump / restore -----------------------------------------------------------------
    def test_dump_restore_directory(self):
        db = self.make_shop("tools_rt")
        before = self.snapshot(db)
        done = self.cairn("dump", "-d", "tools_rt", "-o", self.path("dump"))
        # Not a terminal: one summary line per collection, no progress redraws.
        self.assertIn(b"tools_rt.orders: 1500 document(s)", done.stderr)
        self.assertNotIn(b"\r", done.stderr)
        files = sorted(os.listdir(self.path("dump", "tools_rt")))
        self.assertEqual(files, ["log.bson", "log.metadata.json", "orders.bson",
                                 "orders.metadata.json", "people.bson", "people.metadata.json"])
        with open(self.path("dump", "tools_rt", "orders.bson"), "rb") as f:
            self.assertEqual(read_bson_stream(f.read()), self.raw_docs(db.orders))
        with open(self.path("dump", "tools_rt", "orders.metadata.json")) as f:
            text = f.read()
        self.assertIn('"$numberInt"', text)  # canonical Extended JSON, as mongodump writes
        meta = json_util.loads(text)
        self.assertEqual(meta["collectionName"], "orders")
        self.assertEqual(meta["type"], "collection")
        self.assertRegex(meta["uuid"], "^[0-9a-f]{32}$")
        names = {i["name"]: i for i in meta["indexes"]}
        self.assertEqual(set(names), {"_id_", "n_s", "at_1", "sub.k_1"})
        self.assertTrue(names["n_s"]["unique"])
        self.assertEqual(names["at_1"]["expireAfterSeconds"], 3600)
        with open(self.path("dump", "tools_rt", "log.metadata.json")) as f:
            log_meta = json_util.loads(f.read())
        self.assertEqual(log_meta["options"]["capped"], True)
        self.assertEqual(log_meta["options"]["max"], 50)

        self.client.drop_database("tools_rt")
        done = self.cairn("restore", self.path("dump"))
        self.assertIn(b"1552 document(s) restored successfully. 0 document(s) failed", done.stderr)
        self.assertIn(b"tools_rt.orders: building 3 index(es)", done.stderr)
        self.assert_restored(before, db)
        # The validator is in force again, and the capped collection still caps.
        with self.assertRaises(WriteError):
            db.people.insert_one({"nameless": True})
        db.log.insert_many([{"i": 100 + i} for i in range(10)])
        self.assertEqual(db.log.count_documents({}), 50)

        # Again over the restored data: duplicates are counted, not fatal; --drop replaces.
        done = self.cairn("restore", self.path("dump"))
        self.assertIn(b"(1490 more failure(s) not shown)", done.stderr)
        self.assertIn(b"document(s) failed to restore", done.stderr)
        self.assertEqual(db.orders.count_documents({}), 1500)
        self.cairn("restore", "--drop", self.path("dump"))
        self.assert_restored(before, db)
        # One database's directory into another name, and one .bson file.
        self.cairn("restore", "-d", "tools_rt_copy", self.path("dump", "tools_rt"))
        self.assertEqual(self.raw_docs(self.client.tools_rt_copy.orders), self.raw_docs(db.orders))
        self.cairn("restore", "-d", "tools_rt_file", "-c", "o2",
                   self.path("dump", "tools_rt", "orders.bson"))
        self.assertEqual(self.client.tools_rt_file.o2.count_documents({}), 1500)
        self.assertIn("n_s", self.client.tools_rt_file.o2.index_information())
        # --noIndexRestore leaves only _id.
        self.client.drop_database("tools_rt_copy")
        self.cairn("restore", "--noIndexRestore", "-d", "tools_rt_copy", self.path("dump", "tools_rt"))
        self.assertEqual(list(self.client.tools_rt_copy.orders.index_information()), ["_id_"])

    def test_dump_restore_gzip(self):
        db = self.make_shop("tools_gz")
        before = self.snapshot(db)
        self.cairn("dump", "-d", "tools_gz", "--gzip", "-o", self.path("dump"))
        files = sorted(os.listdir(self.path("dump", "tools_gz")))
        self.assertIn("orders.bson.gz", files)
        self.assertIn("orders.metadata.json.gz", files)
        with gzip.open(self.path("dump", "tools_gz", "orders.bson.gz")) as f:
            self.assertEqual(len(read_bson_stream(f.read())), 1500)
        with gzip.open(self.path("dump", "tools_gz", "orders.metadata.json.gz")) as f:
            self.assertEqual(json_util.loads(f.read())["collectionName"], "orders")
        self.client.drop_database("tools_gz")
        self.cairn("restore", "--gzip", self.path("dump"))
        self.assert_restored(before, db)

    def test_archive_file_and_pipe(self):
        db = self.make_shop("tools_ar")
        before = self.snapshot(db)
        archive = self.path("shop.archive")
        self.cairn("dump", "-d", "tools_ar", "--archive=" + archive)
        with open(archive, "rb") as f:
            data = f.read()
        header, prelude, docs, crcs = parse_archive(data)
        self.assertEqual(header["version"], "0.1")
        self.assertEqual(sorted(p["collection"] for p in prelude), ["log", "orders", "people"])
        orders_meta = [p for p in prelude if p["collection"] == "orders"][0]
        self.assertEqual(json_util.loads(orders_meta["metadata"])["collectionName"], "orders")
        self.assertEqual(orders_meta["type"], "collection")
        self.assertEqual(docs["tools_ar.orders"], self.raw_docs(db.orders))
        for ns, raws in docs.items():
            crc = 0
            for raw in raws:
                crc = crc64_ecma(raw, crc)
            self.assertEqual(crcs[ns], signed64(crc), ns)
        self.assertEqual(set(crcs), {"tools_ar.log", "tools_ar.orders", "tools_ar.people"})

        self.client.drop_database("tools_ar")
        self.cairn("restore", "--archive=" + archive)
        self.assert_restored(before, db)

        # stdout to stdin, gzipped, into the same names with --drop.
        dumped = self.cairn("dump", "-d", "tools_ar", "--archive", "--gzip").stdout
        self.assertEqual(gzip.decompress(dumped)[:4], ARCHIVE_MAGIC)
        db.orders.delete_many({"n": {"$lt": 100}})
        self.cairn("restore", "--archive", "--gzip", "--drop", input=dumped)
        self.assert_restored(before, db)
        # A corrupted document fails the CRC check.
        broken = bytearray(data)
        at = data.index(b"name 7, ")
        broken[at] = ord("N")
        done = self.cairn("restore", "--archive", "--drop", input=bytes(broken), ok=False)
        self.assertIn(b"CRC mismatch for tools_ar.orders", done.stderr)

    def test_dump_filters(self):
        db = self.make_shop("tools_f")
        self.cairn("dump", "-d", "tools_f", "-c", "orders", "-q", '{"n": {"$gte": 1490}}',
                   "-o", self.path("q"))
        self.assertEqual(sorted(os.listdir(self.path("q", "tools_f"))),
                         ["orders.bson", "orders.metadata.json"])
        with open(self.path("q", "tools_f", "orders.bson"), "rb") as f:
            self.assertEqual([bson.decode(d)["n"] for d in read_bson_stream(f.read())],
                             list(range(1490, 1500)))
        # Extended JSON in the query: a date bound.
        self.cairn("dump", "-d", "tools_f", "-c", "orders", "-o", self.path("d"),
                   "--query", '{"at": {"$lt": {"$date": "2024-01-01T00:05:00Z"}}}')
        with open(self.path("d", "tools_f", "orders.bson"), "rb") as f:
            self.assertEqual(len(read_bson_stream(f.read())), 5)
        self.cairn("dump", "-d", "tools_f", "--excludeCollection", "orders",
                   "--excludeCollection", "log", "-o", self.path("x"))
        self.assertEqual(sorted(os.listdir(self.path("x", "tools_f"))),
                         ["people.bson", "people.metadata.json"])
        # Refusals, each with its reason.
        done = self.cairn("dump", "-q", "{}", ok=False)
        self.assertIn(b"--query needs --db and --collection", done.stderr)
        done = self.cairn("dump", "--oplog", ok=False)
        self.assertIn(b"unknown option --oplog", done.stderr)
        done = self.cairn("dump", "-d", "tools_f", "-c", "nope", "-o", self.path("n"), ok=False)
        self.assertIn(b"does not exist", done.stderr)
        # restore's filters: --nsInclude and -d/-c over a whole dump.
        self.cairn("dump", "-d", "tools_f", "-o", self.path("all"))
        self.client.drop_database("tools_f")
        self.cairn("restore", "--nsInclude", "tools_f.peo*", self.path("all"))
        self.assertEqual(db.list_collection_names(), ["people"])
        self.cairn("restore", "-d", "tools_f", "-c", "log", self.path("all"))
        self.assertEqual(sorted(db.list_collection_names()), ["log", "people"])

    def view_supported(self):
        db = self.client.tools_probe
        try:
            db.command("create", "probe_view", viewOn="x", pipeline=[])
        except OperationFailure:
            return False
        db.drop_collection("probe_view")
        return True

    def test_restore_mongodump_directory(self):
        # A dump directory laid out as the mongodump manual and metadata_dump.go describe.
        root = self.path("mongodump")
        os.makedirs(os.path.join(root, "legacy"))
        items = [{"_id": ObjectId(), "sku": "a%d" % i, "qty": Int64(i), "when": datetime.datetime(2023, 5, i + 1)}
                 for i in range(20)]
        with open(os.path.join(root, "legacy", "items.bson"), "wb") as f:
            for d in items:
                f.write(bson.encode(d))
        indexes = [SON([("v", 2), ("key", SON([("_id", 1)])), ("name", "_id_")]),
                   SON([("v", 2), ("unique", True), ("key", SON([("sku", 1)])), ("name", "sku_1"),
                        ("ns", "legacy.items")])]  # "ns": index specs before 4.4 carried it
        with open(os.path.join(root, "legacy", "items.metadata.json"), "w") as f:
            f.write(metadata_json("items", indexes=indexes))
        with open(os.path.join(root, "legacy", "ring.metadata.json"), "w") as f:
            f.write(metadata_json("ring", options={"capped": True, "size": 4096, "max": 3}))
        with open(os.path.join(root, "legacy", "ring.bson"), "wb") as f:
            for i in range(5):
                f.write(bson.encode({"_id": i}))
        view_options = SON([("viewOn", "items"), ("pipeline", [{"$match": {"qty": {"$gt": 10}}}])])
        with open(os.path.join(root, "legacy", "big.metadata.json"), "w") as f:
            f.write(metadata_json("big", options=view_options, indexes=[], kind="view"))
        self.client.drop_database("legacy")
        views = self.view_supported()
        done = self.cairn("restore", root, ok=views)
        db = self.client.legacy
        self.assertEqual(list(db.items.find({}, sort=[("when", 1)])), items)
        self.assertTrue(db.items.index_information()["sku_1"]["unique"])
        self.assertEqual(db.command("listCollections", filter={"name": "ring"})["cursor"]["firstBatch"][0]["options"],
                         {"capped": True, "size": 4096, "max": 3})
        self.assertEqual(db.ring.count_documents({}), 3)  # capped at max 3 as the data went in
        if views:
            self.assertEqual(db.big.count_documents({}), 9)
        else:
            # Views are created last, after the data and indexes, so only they are missing; the
            # server's refusal is reported.
            self.assertIn(b"creating legacy.big", done.stderr)
            self.assertIn(b"viewOn", done.stderr)

    def test_restore_mongodump_archive(self):
        # An archive built from common/archive/spec.md, two collections interleaved.
        a = [{"_id": i, "k": "a"} for i in range(7)]
        b = [{"_id": i, "k": "b", "at": datetime.datetime(2022, 1, 1)} for i in range(3)]
        idx = [SON([("v", 2), ("key", SON([("_id", 1)])), ("name", "_id_")]),
               SON([("v", 2), ("key", SON([("k", 1)])), ("name", "k_1")])]
        archive = build_archive([("arch", "a", metadata_json("a", indexes=idx), a, "collection"),
                                 ("arch", "b", metadata_json("b"), b, "collection")])
        self.client.drop_database("arch")
        done = self.cairn("restore", "--archive", input=archive)
        self.assertIn(b"10 document(s) restored successfully", done.stderr)
        self.assertEqual(list(self.client.arch.a.find({}, sort=[("_id", 1)])), a)
        self.assertEqual(list(self.client.arch.b.find({}, sort=[("_id", 1)])), b)
        self.assertIn("k_1", self.client.arch.a.index_information())
        # Gzipped whole, as mongodump --archive --gzip writes it; -c filters.
        self.client.drop_database("arch")
        self.cairn("restore", "--archive", "--gzip", "-d", "arch", "-c", "b",
                   input=gzip.compress(archive))
        self.assertEqual(self.client.arch.list_collection_names(), ["b"])
        done = self.cairn("restore", "--archive", input=b"not an archive", ok=False)
        self.assertIn(b"is not a mongodump archive", done.stderr)

    # -- export / import ----------------------------------------------------------------
    def test_export_import_json_lines(self):
        db = self.client.tools_json
        db.drop_collection("src")
        db.src.insert_many(self.sample_docs(300))
        before = self.raw_docs(db.src)
        for fmt in ("canonical", "relaxed"):
            out = self.path("src-%s.json" % fmt)
            self.cairn("export", "-d", "tools_json", "-c", "src", "--jsonFormat", fmt, "-o", out)
            with open(out) as f:
                lines = f.read().splitlines()
            self.assertEqual(len(lines), 300)
            if fmt == "canonical":
                self.assertIn('"$numberLong"', lines[0])
                self.assertIn('"$numberDecimal"', lines[0])
            done = self.cairn("import", "-d", "tools_json", "-c", "dst_" + fmt, "--file", out,
                              "--drop")
            self.assertIn(b"300 document(s) imported successfully. 0 document(s) failed to import.",
                          done.stderr)
            after = list(db["dst_" + fmt].find({}, sort=[("_id", 1)]))
            if fmt == "canonical":
                self.assertEqual(self.raw_docs(db["dst_" + fmt]), before)
            else:
                # Relaxed keeps dates, ObjectIds, decimals, binaries and doubles exactly; an
                # int64 that fits in 32 bits would come back as int32 (no int64 here does).
                self.assertEqual(after, list(db.src.find({}, sort=[("_id", 1)])))
                self.assertIsInstance(after[0]["big"], Int64)
                self.assertIsInstance(after[0]["price"], Decimal128)
        # A query, sort, skip and limit.
        done = self.cairn("export", "-d", "tools_json", "-c", "src", "-q", '{"n": {"$lt": 50}}',
                          "--sort", '{"n": -1}', "--skip", "5", "--limit", "3")
        self.assertEqual([json_util.loads(l)["n"] for l in done.stdout.decode().splitlines()],
                         [44, 43, 42])

    def test_json_array(self):
        db = self.client.tools_arr
        db.drop_collection("src")
        db.src.insert_many(self.sample_docs(50))
        out = self.path("arr.json")
        self.cairn("export", "-d", "tools_arr", "-c", "src", "--jsonArray", "-o", out)
        with open(out) as f:
            parsed = json.load(f)
        self.assertEqual(len(parsed), 50)
        self.cairn("import", "-d", "tools_arr", "-c", "dst", "--jsonArray", "--file", out)
        self.assertEqual(list(db.dst.find({}, sort=[("_id", 1)])), list(db.src.find({}, sort=[("_id", 1)])))
        # A pretty-printed array over many lines, with a bad element named by its line.
        text = '[\n  {"a": 1},\n  {"a":\n     2},\n  17,\n  {"a": {"$date": "bad"}},\n  {"a": 5}\n]\n'
        done = self.cairn("import", "-d", "tools_arr", "-c", "pretty", "--jsonArray", input=text.encode())
        self.assertIn(b"line 5: ", done.stderr)
        self.assertIn(b"line 6: ", done.stderr)
        self.assertIn(b"3 document(s) imported successfully. 2 document(s) failed to import.", done.stderr)
        self.assertEqual(sorted(d["a"] for d in db.pretty.find()), [1, 2, 5])
        done = self.cairn("import", "-d", "tools_arr", "-c", "x", "--jsonArray", input=b'{"a": 1}', ok=False)
        self.assertIn(b"must be a JSON array", done.stderr)

    def test_csv(self):
        db = self.client.tools_csv
        db.drop_collection("src")
        db.src.insert_many([{"_id": i, "name": "n%d, \"q\"" % i, "qty": i * 10, "price": i + 0.5,
                             "at": datetime.datetime(2024, 2, 3, 4, 5, 6), "addr": {"city": "c%d" % i}}
                            for i in range(5)])
        out = self.path("src.csv")
        self.cairn("export", "-d", "tools_csv", "-c", "src", "--type", "csv",
                   "--fields", "_id,name,qty,price,at,addr.city,missing", "-o", out)
        with open(out, newline="") as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "_id,name,qty,price,at,addr.city,missing")
        self.assertEqual(lines[2], '1,"n1, ""q""",10,1.5,2024-02-03T04:05:06.000Z,c1,')
        done = self.cairn("export", "-d", "tools_csv", "-c", "src", "--type", "csv", ok=False)
        self.assertIn(b"CSV export needs --fields", done.stderr)

        self.cairn("import", "-d", "tools_csv", "-c", "dst", "--type", "csv", "--headerline",
                   "--file", out, "--drop")
        got = db.dst.find_one({"_id": 1})
        self.assertEqual(got["name"], 'n1, "q"')
        self.assertEqual(got["qty"], 10)
        self.assertEqual(got["price"], 1.5)
        self.assertEqual(got["addr"], {"city": "c1"})  # dotted names nest
        self.assertEqual(got["missing"], "")
        # --fields names the columns of a file without a header; a row with too many fields is
        # reported by its line.
        text = b"x,1,2.5\ny,2,3\nz,3,4,extra\n\"multi\nline\",4,5\n"
        done = self.cairn("import", "-d", "tools_csv", "-c", "f", "--type", "csv",
                          "--fields", "name,a,b", "--drop", input=text)
        self.assertIn(b"line 3: 4 fields, but only 3 field names", done.stderr)
        self.assertEqual([(d["name"], d["a"], d["b"]) for d in db.f.find({}, sort=[("a", 1)])],
                         [("x", 1, 2.5), ("y", 2, 3), ("multi\nline", 4, 5)])
        # TSV.
        self.cairn("import", "-d", "tools_csv", "-c", "t", "--type", "tsv", "--headerline",
                   "--drop", input=b"a\tb\n1\thello, world\n")
        self.assertEqual(db.t.find_one({}, {"_id": 0}), {"a": 1, "b": "hello, world"})
        done = self.cairn("import", "-d", "tools_csv", "-c", "t", "--type", "csv", input=b"a\n", ok=False)
        self.assertIn(b"need either --fields or --headerline", done.stderr)

    def test_bad_lines_and_stop_on_error(self):
        db = self.client.tools_bad
        text = (b'{"_id": 1}\n'
                b'{"_id": 2, "d": {"$date": "2020-01-01T00:00:00Z"}}\n'
                b'{"_id": 3, "a": }\n'
                b'\n'
                b'not json at all\n'
                b'{"_id": 6}\n'
                b'{"_id": 1}\n'
                b'{"_id": 8}\n')
        db.drop_collection("c")
        done = self.cairn("import", "-d", "tools_bad", "-c", "c", input=text)
        err = done.stderr.decode()
        self.assertIn("line 3: ", err)
        self.assertIn("line 5: expected a JSON document", err)
        self.assertIn("line 7: E11000 duplicate key", err)
        self.assertIn("4 document(s) imported successfully. 3 document(s) failed to import.", err)
        self.assertEqual(sorted(d["_id"] for d in db.c.find()), [1, 2, 6, 8])
        self.assertEqual(db.c.find_one({"_id": 2})["d"], datetime.datetime(2020, 1, 1))

        # --stopOnError: the first bad line ends the run with a non-zero status; what came
        # before it is in.
        db.drop_collection("c")
        done = self.cairn("import", "-d", "tools_bad", "-c", "c", "--stopOnError", input=text, ok=False)
        err = done.stderr.decode()
        self.assertIn("line 3: ", err)
        self.assertNotIn("line 5", err)
        self.assertIn("2 document(s) imported successfully. 1 document(s) failed to import.", err)
        self.assertEqual(sorted(d["_id"] for d in db.c.find()), [1, 2])
        # ... and a refused insert stops it too.
        db.drop_collection("c")
        good_then_dup = b'{"_id": 1}\n{"_id": 1}\n{"_id": 3}\n'
        done = self.cairn("import", "-d", "tools_bad", "-c", "c", "--stopOnError", input=good_then_dup, ok=False)
        self.assertIn(b"line 2: E11000", done.stderr)
        self.assertEqual(sorted(d["_id"] for d in db.c.find()), [1])
        # Unsupported modes are refused, not ignored.
        done = self.cairn("import", "-d", "tools_bad", "-c", "c", "--mode", "upsert", input=b"", ok=False)
        self.assertIn(b"--mode upsert is not supported", done.stderr)

    def test_large_import_batches(self):
        # More than one batch (1000 documents): everything arrives, in order.
        text = "".join('{"_id": %d, "pad": "%s"}\n' % (i, "x" * 100) for i in range(2500)).encode()
        self.client.tools_big.drop_collection("c")
        done = self.cairn("import", "-d", "tools_big", "-c", "c", input=text)
        self.assertIn(b"2500 document(s) imported successfully", done.stderr)
        self.assertEqual(self.client.tools_big.c.count_documents({}), 2500)

    def test_docker_entrypoint_invocation(self):
        # docker/'s entrypoint runs exactly this for /docker-entrypoint-initdb.d/*.json(l).
        lines = self.path("seed.jsonl")
        with open(lines, "w") as f:
            f.write('{"name": "a"}\n{"name": "b"}\n')
        array = self.path("seed_array.json")
        with open(array, "w") as f:
            f.write('[{"name": "c"}, {"name": "d"}, {"name": "e"}]')
        self.client.drop_database("initdb")
        self.cairn("import", "--db", "initdb", "--collection", "seed", "--file", lines)
        self.cairn("import", "--db", "initdb", "--collection", "seed_array", "--file", array, "--jsonArray")
        self.assertEqual(self.client.initdb.seed.count_documents({}), 2)
        self.assertEqual(self.client.initdb.seed_array.count_documents({}), 3)
        # Without --collection, the file's name (as mongoimport does).
        self.cairn("import", "--db", "initdb", "--file", lines)
        self.assertEqual(self.client.initdb.seed.count_documents({}), 4)


if __name__ == "__main__":
    unittest.main()
