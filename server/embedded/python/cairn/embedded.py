"""Embedded: an embedded database served over the wire protocol from inside this process, for
tests and tools that talk to it with an ordinary driver:

    with cairn.Embedded(":memory:") as uri:
        client = pymongo.MongoClient(uri)
"""

from .database import Database


class Embedded:
    """Opens `path` (default ":memory:"), serves it on `host` port `port` (0: an ephemeral
    port) or on the unix socket `unix_socket`, and yields the URI; closes everything on exit.
    `options` are cairn_open's (cairnd's flags as a dict). `.database` is the Database, for
    direct calls beside the driver's."""

    def __init__(self, path=":memory:", host="127.0.0.1", port=0, unix_socket=None,
                 options=None):
        self.path = path
        self.host = unix_socket or host
        self.port = port
        self.options = options
        self.database = None
        self.uri = None

    def start(self):
        self.database = Database(self.path, self.options)
        try:
            self.uri = self.database.serve(self.host, self.port)
        except BaseException:
            self.database.close()
            raise
        return self.uri

    def stop(self):
        if self.database is not None:
            self.database.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
