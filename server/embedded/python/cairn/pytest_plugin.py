"""pytest fixtures for tests against an embedded Cairn. Enable with
`pytest_plugins = ["cairn.pytest_plugin"]` in a conftest.py, or `pytest -p cairn.pytest_plugin`.

- cairn_uri: a fresh in-memory database served on 127.0.0.1 (an ephemeral port) for the test;
  its mongodb:// URI.
- cairn_client: a pymongo.MongoClient connected to cairn_uri, closed after the test.
- cairn_database: a fresh in-memory cairn.Database for direct command calls.
"""

import pytest

from .database import Database
from .embedded import Embedded


@pytest.fixture
def cairn_uri():
    with Embedded(":memory:") as uri:
        yield uri


@pytest.fixture
def cairn_client(cairn_uri):
    import pymongo

    client = pymongo.MongoClient(cairn_uri)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def cairn_database():
    with Database(":memory:") as database:
        yield database
