"""The cairn Python package (server/embedded/python) over libcairn: a driver through
cairn.Embedded's URI, direct calls through cairn.open, errors, cursors, threads, the fixtures.
Run by CTest (embedded_python) with CAIRN_LIBRARY pointing at the built library."""

import concurrent.futures
import os
import pathlib
import re
import tempfile

import bson
import pymongo
import pytest

import cairn


def test_embedded_uri_serves_a_driver():
    # README.md's Python example.
    with cairn.Embedded(":memory:") as uri:
        client = pymongo.MongoClient(uri)
        things = client.test.things
        things.insert_many([{"_id": i, "kind": "odd" if i % 2 else "even"} for i in range(10)])
        assert things.count_documents({"kind": "odd"}) == 5
        assert [d["_id"] for d in things.find({}, sort=[("_id", 1)], batch_size=3)] == list(
            range(10))
        totals = list(things.aggregate([{"$group": {"_id": "$kind", "n": {"$sum": 1}}},
                                        {"$sort": {"_id": 1}}]))
        assert totals == [{"_id": "even", "n": 5}, {"_id": "odd", "n": 5}]
        client.close()


def test_embedded_on_a_unix_socket():
    path = os.path.join(tempfile.gettempdir(), f"cairn-py-{os.getpid()}.sock")
    with cairn.Embedded(unix_socket=path) as uri:
        assert uri.startswith("mongodb://%2F")
        client = pymongo.MongoClient(uri)
        assert client.admin.command("ping")["ok"] == 1
        client.close()
    assert not os.path.exists(path)


def test_driver_and_direct_calls_share_the_data():
    embedded = cairn.Embedded()
    with embedded as uri:
        client = pymongo.MongoClient(uri)
        client.shop.orders.insert_one({"_id": 1, "total": 12.5})
        reply = embedded.database.command("shop", {"find": "orders", "filter": {"_id": 1}})
        assert reply["cursor"]["firstBatch"] == [{"_id": 1, "total": 12.5}]
        client.close()


def test_open_runs_commands_and_getmore():
    with cairn.open(":memory:") as db:
        reply = db.command("app", {"insert": "items",
                                   "documents": [{"_id": i} for i in range(25)]})
        assert reply["n"] == 25
        first = db.command("app", {"find": "items", "batchSize": 10, "sort": {"_id": 1}})
        assert len(first["cursor"]["firstBatch"]) == 10
        cursor_id = first["cursor"]["id"]
        assert cursor_id != 0
        more = db.command("app", {"getMore": bson.Int64(cursor_id), "collection": "items"})
        assert [d["_id"] for d in more["cursor"]["nextBatch"]] == list(range(10, 25))
        assert more["cursor"]["id"] == 0
        everything = list(db.cursor("app", {"find": "items", "batchSize": 7}, batch_size=7))
        assert len(everything) == 25
        assert db.command("admin", "ping") == {"ok": 1.0}


def test_errors_raise_command_error():
    with cairn.open() as db:
        with pytest.raises(cairn.CommandError) as raised:
            db.command("app", {"noSuchCommand": 1})
        assert raised.value.code == 59
        assert raised.value.code_name == "CommandNotFound"


def test_write_errors_come_back_in_the_reply():
    with cairn.open() as db:
        db.command("app", {"insert": "u", "documents": [{"_id": 1}]})
        reply = db.command("app", {"insert": "u", "documents": [{"_id": 1}]})
        assert reply["writeErrors"][0]["code"] == 11000
        unchecked = db.command("app", {"find": "u", "filter": {"$bogus": 1}}, check=False)
        assert unchecked["ok"] == 0 and unchecked["code"] == 2


def test_open_a_directory_and_reopen(tmp_path):
    path = tmp_path / "data"
    with cairn.open(path) as db:
        db.command("app", {"insert": "kept", "documents": [{"_id": "a"}]})
    with cairn.open(path) as db:
        assert db.command("app", {"count": "kept"})["n"] == 1


def test_bad_options_raise():
    with pytest.raises(cairn.CairnError, match="port"):
        cairn.open(":memory:", options={"port": 1})


def test_closed_database_raises():
    db = cairn.open()
    db.close()
    db.close()  # idempotent
    with pytest.raises(cairn.CairnError, match="closed"):
        db.command("admin", "ping")


def test_threads_share_one_database():
    with cairn.open() as db:
        def work(t):
            for i in range(100):
                db.command("app", {"insert": "t", "documents": [{"t": t, "i": i}]})
            return db.command("app", {"count": "t", "query": {"t": t}})["n"]

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            assert list(pool.map(work, range(8))) == [100] * 8
        assert db.command("app", {"count": "t"})["n"] == 800


def test_version():
    assert cairn.version().count(".") == 2


def test_fixture_client(cairn_client):
    cairn_client.fixtures.docs.insert_one({"x": 1})
    assert cairn_client.fixtures.docs.find_one({}, {"_id": 0}) == {"x": 1}


def test_fixture_database_is_fresh(cairn_database):
    assert cairn_database.command("fixtures", {"count": "docs"})["n"] == 0


def _readme_section():
    readme = pathlib.Path(__file__).resolve().parents[3] / "README.md"
    text = readme.read_text()
    start = text.index("## Embedding Cairn")
    return text[start:text.index("\n## ", start + 1)]


def _blocks(section, language):
    return re.findall(r"```" + language + r"\n(.*?)```", section, re.S)


def test_readme_python_example_runs(tmp_path):
    [example] = _blocks(_readme_section(), "python")
    exec(compile(example.replace("/tmp/app-data", str(tmp_path / "app-data")), "README", "exec"),
         {})


def test_readme_c_and_cpp_examples_are_the_tested_files():
    # tests/embedded/example.c and example.cc are compiled and run by CTest; the README shows
    # them without their first comment line.
    section = _readme_section()
    here = pathlib.Path(__file__).resolve().parents[1]
    for language, name in (("c", "example.c"), ("cpp", "example.cc")):
        source = (here / name).read_text().split("\n", 1)[1]
        assert _blocks(section, language) == [source], name
