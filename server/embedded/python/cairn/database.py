"""Database: an open libcairn handle (cairn.open) for direct command calls, BSON in and out
through Debian's bson package (python3-bson, pymongo's). Thread-safe, as the C API is."""

import ctypes
import json
import threading

import bson

from . import _library
from .errors import CairnError, CommandError


class Database:
    """An embedded database: a data directory, or ":memory:". Close it (or use `with`)."""

    def __init__(self, path=":memory:", options=None):
        lib = _library.library()
        handle = ctypes.c_void_p()
        errmsg = ctypes.c_void_p()
        encoded = json.dumps(options).encode() if options else None
        rc = lib.cairn_open(str(path).encode(), encoded, ctypes.byref(handle),
                            ctypes.byref(errmsg))
        message = _library.take_string(errmsg)
        if rc != _library.CAIRN_OK:
            raise CairnError(message or f"cairn_open failed ({rc})")
        self._lib = lib
        self._handle = handle
        self._close_lock = threading.Lock()
        self.path = str(path)

    def command(self, dbname, command, check=True, **fields):
        """Runs `command` (a dict, SON, or a command name for {name: 1}) against `dbname` and
        returns the reply as a dict. Extra keyword fields are appended to the command. Raises
        CommandError on ok: 0 unless check is False."""
        if isinstance(command, str):
            command = {command: 1}
        if fields:
            command = dict(command, **fields)
        request = bson.encode(command)
        reply = self.run_bson(dbname, request)
        document = bson.decode(reply)
        if check and not document.get("ok"):
            raise CommandError(document)
        return document

    def run_bson(self, dbname, request):
        """The raw call: a BSON command (bytes) in, the reply's BSON bytes out."""
        if self._handle is None:
            raise CairnError("the database is closed")
        reply = ctypes.c_void_p()
        length = ctypes.c_size_t()
        rc = self._lib.cairn_command(self._handle, dbname.encode() if dbname else None, request,
                                     len(request), ctypes.byref(reply), ctypes.byref(length))
        if rc != _library.CAIRN_OK:
            raise CairnError(f"cairn_command failed ({rc})")
        try:
            return ctypes.string_at(reply.value, length.value)
        finally:
            self._lib.cairn_free(reply)

    def cursor(self, dbname, command, batch_size=None):
        """Runs a command that opens a cursor (find, aggregate, listCollections, ...) and yields
        every document, sending getMore for the batches after the first."""
        reply = self.command(dbname, command)
        cursor = reply["cursor"]
        collection = cursor["ns"].split(".", 1)[1]
        while True:
            batch = cursor.get("firstBatch", cursor.get("nextBatch", []))
            yield from batch
            if not cursor["id"]:
                return
            more = {"getMore": cursor["id"], "collection": collection}
            if batch_size:
                more["batchSize"] = batch_size
            cursor = self.command(dbname, more)["cursor"]

    def serve(self, host="127.0.0.1", port=0):
        """Serves the wire protocol on host:port (0: ephemeral) or, when `host` is a path, on a
        unix socket; returns the mongodb:// URI for a driver (e.g. pymongo.MongoClient(uri))."""
        if self._handle is None:
            raise CairnError("the database is closed")
        uri = ctypes.c_void_p()
        errmsg = ctypes.c_void_p()
        rc = self._lib.cairn_serve(self._handle, str(host).encode(), int(port), ctypes.byref(uri),
                                   ctypes.byref(errmsg))
        text = _library.take_string(uri)
        message = _library.take_string(errmsg)
        if rc != _library.CAIRN_OK:
            raise CairnError(message or f"cairn_serve failed ({rc})")
        return text

    def close(self):
        """Stops serving, waits for calls in flight, closes the storage engine. Idempotent."""
        with self._close_lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            self._lib.cairn_close(handle)

    @property
    def closed(self):
        return self._handle is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        # A forgotten close still closes RocksDB cleanly; not at interpreter exit, when ctypes
        # may be gone.
        try:
            self.close()
        except Exception:  # noqa: BLE001 - nothing to report to from a finalizer
            pass
