"""cairn: Cairn embedded in a Python process, over libcairn (ctypes; see _library.py for where
the library is found).

    import cairn, pymongo
    with cairn.Embedded(":memory:") as uri:          # a driver's view, for tests
        pymongo.MongoClient(uri).test.things.insert_one({"x": 1})
    with cairn.open("/path/to/data") as db:          # direct command calls, no socket
        db.command("test", {"insert": "things", "documents": [{"x": 1}]})

pytest fixtures: cairn.pytest_plugin (pytest_plugins = ["cairn.pytest_plugin"]).
"""

from . import _library
from .database import Database
from .embedded import Embedded
from .errors import CairnError, CommandError

__all__ = ["open", "version", "Database", "Embedded", "CairnError", "CommandError"]


def open(path=":memory:", options=None):  # noqa: A001 - the package's own open, as sqlite3.connect
    """Opens a data directory (created when missing) or ":memory:" for direct command calls."""
    return Database(path, options)


def version():
    """libcairn's version."""
    return _library.library().cairn_version().decode()
