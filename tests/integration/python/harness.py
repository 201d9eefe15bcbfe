"""Test harness for the Python suites (run with /usr/bin/python3: pymongo 3.11 is Debian's).

CairnServer starts a real cairnd on a free port with a fresh temporary --dbpath, waits for its
"Waiting for connections" log line (20 s at most, the log is shown on failure) and stops it
with SIGTERM (SIGKILL after a timeout). ServerTestCase gives each test class its own server.

Also a small wire-protocol toolkit for the raw-socket tests: OP_MSG / OP_QUERY encoders,
message reading, OP_MSG / OP_REPLY decoders and CRC-32C.

Environment: CAIRND (the binary; default <repo>/build/server/cairnd), CAIRN_KEEP_TMP=1 keeps
the temporary dbpath for debugging.
"""

import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
import unittest

import bson

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
CAIRND = os.environ.get("CAIRND") or os.path.join(
    REPO, os.environ.get("BUILD_DIR", "build"), "server", "cairnd")

STARTUP_TIMEOUT = 20.0
STOP_TIMEOUT = 15.0
LOG_LINES_KEPT = 5000


def free_port():
    """A port nobody listens on right now (bind port 0, read it, release it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout=20):
    """Polls `predicate` every 50 ms until it holds (True) or `timeout` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def read(path):
    with open(path) as f:
        return f.read()


def _is_listening_line(line):
    if not line.startswith("{"):
        return False
    try:
        entry = json.loads(line)
    except ValueError:
        return False
    return entry.get("id") == 23016 or entry.get("msg") == "Waiting for connections"


class ServerError(AssertionError):
    pass


class CairnServer:
    """One cairnd process. `dbpath=None` makes (and later removes) a temporary directory."""

    def __init__(self, dbpath=None, args=(), port=None):
        self.owns_dbpath = dbpath is None
        self.fixed_port = port  # None: a free port at each start
        self.dbpath = dbpath or tempfile.mkdtemp(prefix="cairn-py-")
        self.args = list(args)
        self.port = None
        self.proc = None
        self.lines = []
        self._listening = threading.Event()
        self._readers = []

    # -- lifecycle -------------------------------------------------------------------------
    def start(self):
        if not os.path.exists(CAIRND):
            raise ServerError("cairnd binary not found at %s (set CAIRND or run tools/build.sh)" % CAIRND)
        last = None
        for _ in range(3):
            self.port = self.fixed_port or free_port()
            self.lines = []
            self._listening.clear()
            outcome = self._launch()
            if outcome == "listening":
                return self
            if outcome == "timeout":
                self.kill()
            last = ServerError(
                "cairnd did not log \"Waiting for connections\" (%s); command: %s\n--- cairnd log ---\n%s"
                % ("timeout after %gs" % STARTUP_TIMEOUT if outcome == "timeout"
                   else "exited with %s" % self.proc.returncode,
                   " ".join(self._command()), self.log_tail(200)))
            # Another process may have taken the port in between: retry only then.
            if "address already in use" not in self.log_tail(200).lower():
                break
        self.cleanup()
        raise last

    def _command(self):
        return [CAIRND, "--port", str(self.port), "--bind_ip", "127.0.0.1",
                "--dbpath", self.dbpath] + self.args

    def _launch(self):
        self.proc = subprocess.Popen(self._command(), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        reader = threading.Thread(target=self._read_log, args=(self.proc,), daemon=True)
        reader.start()
        self._readers.append(reader)
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self._listening.wait(0.05):
                return "listening"
            if self.proc.poll() is not None:
                reader.join(2)  # collect the last lines
                return "listening" if self._listening.is_set() else "exited"
        return "timeout"

    def _read_log(self, proc):
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.lines.append(line)
            if len(self.lines) > LOG_LINES_KEPT:
                del self.lines[:len(self.lines) - LOG_LINES_KEPT]
            if _is_listening_line(line):
                self._listening.set()

    def log_tail(self, n=60):
        return "\n".join(self.lines[-n:])

    @property
    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, keep_dbpath=False, allow_unclean=False):
        """SIGTERM, wait, SIGKILL if needed; returns the exit code. Raises if not a clean exit."""
        forced = False
        if self.alive:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                forced = True
                self.proc.kill()
                self.proc.wait()
        code = self.proc.returncode if self.proc else None
        for reader in self._readers:
            reader.join(2)
        if not keep_dbpath:
            self.cleanup()
        if not allow_unclean and (forced or code != 0):
            raise ServerError("cairnd (port %s) did not stop cleanly on SIGTERM: %s\n--- cairnd log (tail) ---\n%s"
                              % (self.port, "killed after %gs" % STOP_TIMEOUT if forced else "exit code %s" % code,
                                 self.log_tail()))
        return code

    def kill(self):
        """SIGKILL; the dbpath is kept."""
        if self.alive:
            self.proc.kill()
            self.proc.wait()
        return self.proc.returncode if self.proc else None

    def cleanup(self):
        if self.owns_dbpath and not os.environ.get("CAIRN_KEEP_TMP"):
            shutil.rmtree(self.dbpath, ignore_errors=True)

    # -- clients ---------------------------------------------------------------------------
    @property
    def uri(self):
        return "mongodb://127.0.0.1:%d/?directConnection=true" % self.port

    def client(self, **kwargs):
        import pymongo
        options = dict(serverSelectionTimeoutMS=5000, connectTimeoutMS=5000, socketTimeoutMS=60000)
        options.update(kwargs)
        return pymongo.MongoClient("127.0.0.1", self.port, **options)


class ServerTestCase(unittest.TestCase):
    """Each subclass gets its own cairnd (setUpClass) and a pymongo client `cls.client`."""

    server_args = ()
    make_client = True
    client_options = {}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server = CairnServer(args=cls.server_args).start()
        cls.client = cls.server.client(**cls.client_options) if cls.make_client else None

    @classmethod
    def tearDownClass(cls):
        try:
            if cls.client is not None:
                cls.client.close()
        finally:
            cls.server.stop()
        super().tearDownClass()


class Kill9TestCase(unittest.TestCase):
    """A server on a dbpath of the test's own that the test SIGKILLs and restarts on that dbpath
    (kill -9 cycles). `server_args` are the server's flags."""

    server_args = ()

    def setUp(self):
        self.dbpath = tempfile.mkdtemp(prefix="cairn-kill9-")
        self.server = None

    def tearDown(self):
        if self.server is not None and self.server.alive:
            self.kill()
        if not os.environ.get("CAIRN_KEEP_TMP"):
            shutil.rmtree(self.dbpath, ignore_errors=True)

    def kill(self):
        self.server.kill()
        # Reap the log reader and its pipe (the dbpath stays for the restart).
        self.server.stop(keep_dbpath=True, allow_unclean=True)
        self.server.proc.stdout.close()

    def start(self, **client_options):
        """Starts (or restarts) the server on the dbpath; returns a client without retries."""
        self.server = CairnServer(dbpath=self.dbpath, args=self.server_args).start()
        return self.server.client(retryWrites=False, **client_options)

    def stop(self):
        self.server.stop(keep_dbpath=True)
        self.server.proc.stdout.close()


# -- wire protocol -------------------------------------------------------------------------
OP_REPLY = 1
OP_QUERY = 2004
OP_MSG = 2013
CHECKSUM_PRESENT = 1 << 0
MORE_TO_COME = 1 << 1
EXHAUST_ALLOWED = 1 << 16

_CRC32C_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _CRC32C_TABLE.append(_c)


def crc32c(data, crc=0):
    """CRC-32C (Castagnoli), as OP_MSG checksums use; crc32c(b"123456789") == 0xE3069283."""
    crc ^= 0xFFFFFFFF
    table = _CRC32C_TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


_next_request_id = [1000]


def next_request_id():
    _next_request_id[0] += 1
    return _next_request_id[0]


def encode(doc):
    return bson.BSON.encode(doc)


def header(length, request_id, response_to, opcode):
    return struct.pack("<iiii", length, request_id, response_to, opcode)


def op_msg(body, flags=0, sequences=(), checksum=False, request_id=None, raw_body=None, extra_sections=b""):
    """An OP_MSG: kind-0 `body` (a dict, or `raw_body` bytes), then kind-1 `sequences`
    [(identifier, [docs])], then `extra_sections` bytes; with a correct CRC-32C if `checksum`."""
    request_id = request_id or next_request_id()
    if checksum:
        flags |= CHECKSUM_PRESENT
    sections = b"\x00" + (raw_body if raw_body is not None else encode(body))
    for identifier, docs in sequences:
        payload = identifier.encode() + b"\x00" + b"".join(encode(d) for d in docs)
        sections += b"\x01" + struct.pack("<i", 4 + len(payload)) + payload
    sections += extra_sections
    length = 16 + 4 + len(sections) + (4 if flags & CHECKSUM_PRESENT else 0)
    message = header(length, request_id, 0, OP_MSG) + struct.pack("<I", flags) + sections
    if flags & CHECKSUM_PRESENT:
        message += struct.pack("<I", crc32c(message))
    return request_id, message


def op_query(namespace, query, flags=0, skip=0, limit=-1, request_id=None):
    request_id = request_id or next_request_id()
    payload = (struct.pack("<i", flags) + namespace.encode() + b"\x00"
               + struct.pack("<ii", skip, limit) + encode(query))
    return request_id, header(16 + len(payload), request_id, 0, OP_QUERY) + payload


class Closed(Exception):
    """The server closed the connection."""


def recv_exact(sock, n):
    chunks = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise Closed()
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


class Reply:
    def __init__(self, length, request_id, response_to, opcode, payload, raw):
        self.length, self.request_id, self.response_to, self.opcode = length, request_id, response_to, opcode
        self.payload = payload
        self.raw = raw
        self.flags = None
        self.doc = None
        self.checksum = None
        if opcode == OP_MSG:
            self._parse_op_msg()
        elif opcode == OP_REPLY:
            self._parse_op_reply()

    def _parse_op_msg(self):
        (self.flags,) = struct.unpack_from("<I", self.payload, 0)
        end = len(self.payload)
        if self.flags & CHECKSUM_PRESENT:
            end -= 4
            (self.checksum,) = struct.unpack_from("<I", self.payload, end)
        pos = 4
        while pos < end:
            kind = self.payload[pos]
            pos += 1
            (size,) = struct.unpack_from("<i", self.payload, pos)
            if kind == 0:
                self.doc = bson.BSON(self.payload[pos:pos + size]).decode()
            pos += size

    def _parse_op_reply(self):
        self.flags, _cursor_id, _start, number = struct.unpack_from("<iqii", self.payload, 0)
        docs = bson.decode_all(self.payload[20:])
        self.doc = docs[0] if docs else None
        self.number_returned = number

    def checksum_ok(self):
        return self.checksum is not None and crc32c(self.raw[:-4]) == self.checksum


def recv_message(sock):
    """One whole message from `sock` (a Reply); raises Closed, or socket.timeout."""
    head = recv_exact(sock, 16)
    length, request_id, response_to, opcode = struct.unpack("<iiii", head)
    if length < 16 or length > 48_000_000:
        raise AssertionError("reply with an invalid messageLength %d" % length)
    payload = recv_exact(sock, length - 16)
    return Reply(length, request_id, response_to, opcode, payload, head + payload)


def exchange(sock, message, shutdown_write=False):
    """Sends `message` on `sock` and returns the Reply, or "closed" when the server closes the
    connection instead (before or after reading it); socket.timeout when neither happens."""
    try:
        sock.sendall(message)
        if shutdown_write:
            sock.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError):
        return "closed"
    try:
        return recv_message(sock)
    except (Closed, ConnectionResetError, BrokenPipeError):
        return "closed"


def connect_raw(port, timeout=5.0):
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.settimeout(timeout)
    return sock


def command(sock, body, db="admin", **kwargs):
    """Sends `body` as an OP_MSG command on `db` and returns the Reply (checks responseTo)."""
    body = dict(body)
    body.setdefault("$db", db)
    request_id, message = op_msg(body, **kwargs)
    sock.sendall(message)
    reply = recv_message(sock)
    if reply.response_to != request_id:
        raise AssertionError("reply responseTo %d, expected %d" % (reply.response_to, request_id))
    return reply
