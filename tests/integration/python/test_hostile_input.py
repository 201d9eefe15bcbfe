"""Hostile input over raw sockets (/usr/bin/python3, bson from python3-pymongo), held to what
mongod 7.0 answers:

- deep nesting: BSON deeper than maxBSONDepth (200) anywhere in a message is refused while the
  message is parsed, Overflow 15 "BSONObj exceeds maximum nested object depth ..."
  (src/mongo/bson/bson_validate.cpp); a document to store deeper than 180 levels is a write
  error Overflow "cannot insert document because it exceeds 180 levels of nesting"
  (src/mongo/db/ops/insert.cpp validateDepth: empty objects add no level);
- framing: a messageLength below 16 or above 48,000,000 closes the connection without a reply
  (transport layer), as does a message cut short by the client;
- invalid BSON in a section: InvalidBSON 22 error reply, the connection stays usable
  (rpc/op_msg.cpp reads every section as Validated<BSONObj>; service_entry_point_common.cpp
  replies to parse errors unless they are connection-fatal: IllegalOpMsgFlag,
  TooManyDocumentSequences);
- checksums: ChecksumMismatch 288 "OP_MSG checksum does not match contents"; 51251 "Invalid
  message size for an OpMsg containing a checksum";
- sizes: a section document over 16 MiB + 16 KiB is BSONObjectTooLarge 10334 "BSONObj size: N
  (0xH) is invalid. Size must be between 0 and 16793600(16MB) ..." (bson/bsonobj.cpp); a
  document to insert over 16 MiB is the write error BadValue 2 "object to insert too large.
  size in bytes: N, max size: 16777216" (ops/insert.cpp fixDocumentForInsert);
- duplicated fields: 40413 "BSON field 'insert.documents' is a duplicate field" (IDL), 40433
  "Duplicate field between body and document sequence documents" (rpc/op_msg.cpp);
- load: many connections at once all answered; connections that announce 48 MB and send nothing
  cost the server nothing like 48 MB each.

After every case: a NEW connection answers ping, and the documents stored before the suite are
all there (count and an indexed find).
"""

import socket
import struct
import time
import unittest

from harness import (CHECKSUM_PRESENT, OP_MSG, ServerTestCase, command, connect_raw, encode,
                     exchange, header, next_request_id, op_msg, recv_message)

REPLY_TIMEOUT = 10.0
DB = "hostile"
MAX_MESSAGE = 48_000_000
MAX_USER_BSON = 16 * 1024 * 1024
MAX_INTERNAL_BSON = MAX_USER_BSON + 16 * 1024
DEPTH_MESSAGE = "BSONObj exceeds maximum nested object depth"
NESTING_180 = "cannot insert document because it exceeds 180 levels of nesting"
INTACT_DOCS = 200


# -- raw BSON (the cases need bytes no encoder produces) --------------------------------------
def cstring(name):
    return name.encode() + b"\x00"


def int32(v):
    return struct.pack("<i", v)


def doc_bytes(elements):
    """A document around already-encoded elements."""
    return int32(4 + len(elements) + 1) + elements + b"\x00"


def elements_of(doc):
    """The encoded elements of a dict (its bytes without length and terminator)."""
    return encode(doc)[4:-1]


def elements_of_raw(raw_doc):
    return raw_doc[4:-1]


def elem_doc(name, raw_doc, array=False):
    return (b"\x04" if array else b"\x03") + cstring(name) + raw_doc


def elem_str(name, value):
    data = value.encode() + b"\x00"
    return b"\x02" + cstring(name) + int32(len(data)) + data


def chain(levels, key="x", leaf=None):
    """A document `levels` deep counting itself: chain(1) = {x: 1}, chain(2) = {x: {x: 1}}.
    Built iteratively: Python's encoder recurses."""
    raw = doc_bytes(leaf if leaf is not None else b"\x10" + cstring(key) + int32(1))
    for _ in range(levels - 1):
        raw = doc_bytes(elem_doc(key, raw))
    return raw


def body(*elements, db=DB):
    return doc_bytes(b"".join(elements) + elem_str("$db", db))


def sequence_section(identifier, raw_docs):
    payload = cstring(identifier) + b"".join(raw_docs)
    return b"\x01" + int32(4 + len(payload)) + payload


def vm_rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class HostileInputTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        intact = cls.client[DB].intact
        intact.create_index("k")
        intact.insert_many([{"_id": i, "k": i, "v": "value-%d" % i} for i in range(INTACT_DOCS)])

    # -- helpers ---------------------------------------------------------------------------
    def assert_healthy(self):
        """The process is alive, a NEW connection answers ping, the stored data is intact."""
        self.assertTrue(self.server.alive, "cairnd died:\n" + self.server.log_tail())
        fresh = connect_raw(self.server.port, timeout=REPLY_TIMEOUT)
        try:
            reply = command(fresh, {"ping": 1})
            self.assertEqual(reply.doc.get("ok"), 1.0, reply.doc)
        finally:
            fresh.close()
        intact = self.client[DB].intact
        self.assertEqual(intact.count_documents({}), INTACT_DOCS)
        self.assertEqual(list(intact.find({"k": 42})), [{"_id": 42, "k": 42, "v": "value-42"}])

    def exchange(self, message, sock=None, shutdown_write=False):
        """Sends `message` (on a new connection unless `sock`); returns the Reply, or "closed"
        when the server closes the connection. Fails if neither happens in time."""
        own = sock is None
        sock = sock or connect_raw(self.server.port, timeout=REPLY_TIMEOUT)
        try:
            return exchange(sock, message, shutdown_write)
        except socket.timeout:
            self.fail("the server neither answered nor closed the connection in %gs"
                      % REPLY_TIMEOUT)
        finally:
            if own:
                sock.close()

    def assert_error(self, result, code, code_name, message=None, prefix=None):
        self.assertNotEqual(result, "closed", "mongod answers this with error %d" % code)
        doc = result.doc
        self.assertEqual((doc.get("ok"), doc.get("code"), doc.get("codeName")),
                         (0.0, code, code_name), doc)
        if message is not None:
            self.assertEqual(doc.get("errmsg"), message)
        if prefix is not None:
            self.assertTrue(str(doc.get("errmsg")).startswith(prefix), doc.get("errmsg"))

    def assert_closed(self, result):
        self.assertEqual(result, "closed", "mongod closes the connection without a reply, got %r"
                         % (getattr(result, "doc", result),))

    def send_body(self, raw_body, sequences=b"", sock=None):
        _, message = op_msg(None, raw_body=raw_body, extra_sections=sequences)
        return self.exchange(message, sock=sock)

    def assert_error_keeps_connection(self, raw_body, code, code_name, **expect):
        """mongod answers a parse error and keeps the connection: the same socket pings next."""
        sock = connect_raw(self.server.port, timeout=REPLY_TIMEOUT)
        try:
            self.assert_error(self.send_body(raw_body, sock=sock), code, code_name, **expect)
            self.assertEqual(command(sock, {"ping": 1}).doc.get("ok"), 1.0)
        finally:
            sock.close()

    def insert_raw(self, collection, raw_docs, as_sequence=True):
        if as_sequence:
            return self.send_body(body(elem_str("insert", collection)),
                                  sequences=sequence_section("documents", raw_docs))
        array = doc_bytes(b"".join(elem_doc(str(i), d) for i, d in enumerate(raw_docs)))
        return self.send_body(body(elem_str("insert", collection),
                                   elem_doc("documents", array, array=True)))

    # -- deep nesting ----------------------------------------------------------------------
    def test_ping_with_a_25000_deep_field(self):
        raw = body(b"\x10" + cstring("ping") + int32(1), elem_doc("deep", chain(25_000)),
                   db="admin")
        self.assert_error_keeps_connection(raw, 15, "Overflow", prefix=DEPTH_MESSAGE)
        self.assert_healthy()

    def test_find_filter_300_deep(self):
        raw = body(elem_str("find", "intact"), elem_doc("filter", chain(300, key="k")))
        self.assert_error_keeps_connection(raw, 15, "Overflow", prefix=DEPTH_MESSAGE)
        self.assert_healthy()

    def test_insert_nesting_limits(self):
        # In a document sequence each document is parsed on its own (200 levels pass the parse)
        # and the insert refuses more than 180 levels as a write error.
        for levels, stored in ((180, True), (181, False), (200, False)):
            with self.subTest(levels=levels):
                _id = "deep-%d" % levels
                raw = chain(levels, leaf=elem_str("leaf", "bottom"))
                doc = doc_bytes(elem_str("_id", _id) + elements_of_raw(raw))
                reply = self.insert_raw("nesting", [doc])
                self.assertNotEqual(reply, "closed")
                if stored:
                    self.assertEqual((reply.doc.get("ok"), reply.doc.get("n")), (1.0, 1),
                                     reply.doc)
                    self.assertNotIn("writeErrors", reply.doc)
                else:
                    self.assertEqual((reply.doc.get("ok"), reply.doc.get("n")), (1.0, 0),
                                     reply.doc)
                    errors = reply.doc.get("writeErrors")
                    self.assertEqual(len(errors or []), 1, reply.doc)
                    self.assertEqual((errors[0]["index"], errors[0]["code"], errors[0]["errmsg"]),
                                     (0, 15, NESTING_180))
                self.assertEqual(self.client[DB].nesting.count_documents({"_id": _id}),
                                 1 if stored else 0)
                self.assert_healthy()
        # In the command body the documents array adds two levels: 200 is past maxBSONDepth.
        raw = chain(200, leaf=elem_str("leaf", "bottom"))
        doc = doc_bytes(elem_str("_id", "deep-body") + elements_of_raw(raw))
        self.assert_error(self.insert_raw("nesting", [doc], as_sequence=False), 15, "Overflow",
                          prefix=DEPTH_MESSAGE)
        self.assertEqual(self.client[DB].nesting.count_documents({"_id": "deep-body"}), 0)
        reply = self.client[DB].command("validate", "nesting", full=True)
        self.assertIs(reply["valid"], True, reply)
        self.assert_healthy()

    # -- framing ---------------------------------------------------------------------------
    def test_message_lengths_out_of_range_close_the_connection(self):
        flags_and_body = struct.pack("<I", 0) + b"\x00" + encode({"ping": 1, "$db": "admin"})
        for length in (MAX_MESSAGE + 1, 2 ** 31 - 1, 1 << 30, -1, -(2 ** 31), -16, 0, 15):
            with self.subTest(messageLength=length):
                result = self.exchange(header(length, next_request_id(), 0, OP_MSG)
                                       + flags_and_body)
                self.assert_closed(result)
                self.assert_healthy()

    def test_announced_length_larger_than_sent_then_client_leaves(self):
        for announced, sent in ((1_000_000, 1_000), (MAX_MESSAGE, 64 * 1024), (200, 40)):
            with self.subTest(announced=announced, sent=sent):
                sock = connect_raw(self.server.port, timeout=REPLY_TIMEOUT)
                sock.sendall(header(announced, next_request_id(), 0, OP_MSG)
                             + b"\x00" * (sent - 16))
                sock.close()
                self.assert_healthy()

    def test_truncated_message(self):
        _, good = op_msg({"ping": 1, "$db": "admin"})
        for cut in (8, 16, 21, len(good) // 2, len(good) - 1):
            with self.subTest(bytes_sent=cut):
                self.assert_closed(self.exchange(good[:cut], shutdown_write=True))
                self.assert_healthy()

    def test_slow_message_is_answered(self):
        request_id, good = op_msg({"ping": 1, "$db": "admin"})
        sock = connect_raw(self.server.port, timeout=REPLY_TIMEOUT)
        try:
            for i, byte in enumerate(good):
                sock.sendall(bytes([byte]))
                time.sleep(0.01)
                if i == len(good) // 2:
                    self.assert_healthy()  # a slow client holds nobody else up
            reply = recv_message(sock)
            self.assertEqual(reply.response_to, request_id)
            self.assertEqual(reply.doc.get("ok"), 1.0, reply.doc)
        finally:
            sock.close()
        self.assert_healthy()

    # -- invalid BSON ----------------------------------------------------------------------
    def test_bad_lengths_at_every_level(self):
        ping = b"\x10" + cstring("ping") + int32(1)
        nested = elem_doc("sub", doc_bytes(b"\x10" + cstring("y") + int32(2)))
        array = elem_doc("arr", doc_bytes(b"\x10" + cstring("0") + int32(7)), array=True)
        good = body(ping, nested, array, db="admin")

        def patched(offset, delta):
            (value,) = struct.unpack_from("<i", good, offset)
            return good[:offset] + int32(value + delta) + good[offset + 4:]

        sub_at = good.index(b"sub\x00") + 4
        arr_at = good.index(b"arr\x00") + 4
        db_at = good.index(b"$db\x00") + 4
        cases = {
            "document longer than its section": patched(0, +7),
            "document shorter than its elements": patched(0, -3),
            "document length below 5": int32(4) + good[4:],
            "nested document length +1": patched(sub_at, +1),
            "nested document length -1": patched(sub_at, -1),
            "nested document length 0": patched(sub_at, -12),
            "array length +2": patched(arr_at, +2),
            "array length -2": patched(arr_at, -2),
            "string length past the document": patched(db_at, +100),
            "string length 0": patched(db_at, -6),
            "string length negative": good[:db_at] + int32(-5) + good[db_at + 4:],
        }
        for name, raw in cases.items():
            with self.subTest(case=name):
                self.assert_error_keeps_connection(raw, 22, "InvalidBSON")
                self.assert_healthy()

    def test_string_not_nul_terminated(self):
        raw = body(b"\x10" + cstring("ping") + int32(1),
                   b"\x02" + cstring("s") + int32(4) + b"abcd", db="admin")
        self.assert_error_keeps_connection(raw, 22, "InvalidBSON")
        self.assert_healthy()

    def test_bad_element_types_and_values(self):
        ping = b"\x10" + cstring("ping") + int32(1)
        for name, element in {
            "type 0x20": b"\x20" + cstring("t") + int32(1),
            "type 0x7E": b"\x7e" + cstring("t") + int32(1),
            "type 0xEE": b"\xee" + cstring("t") + int32(1),
            "bool 2": b"\x08" + cstring("b") + b"\x02",
            "binData length past the end": b"\x05" + cstring("bin") + int32(1000) + b"\x00ab",
        }.items():
            with self.subTest(case=name):
                self.assert_error_keeps_connection(body(ping, element, db="admin"), 22,
                                                   "InvalidBSON")
                self.assert_healthy()

    def test_nested_document_ending_in_0x01_in_an_indexed_find(self):
        # {find: "intact", filter: {k: {$gte: 5}}} whose inner document ends in 0x01, not 0x00.
        inner = bytearray(doc_bytes(b"\x10" + cstring("$gte") + int32(5)))
        inner[-1] = 0x01
        raw = body(elem_str("find", "intact"),
                   elem_doc("filter", doc_bytes(elem_doc("k", bytes(inner)))))
        self.assert_error_keeps_connection(raw, 22, "InvalidBSON")
        self.assert_healthy()

    def test_nested_document_ending_in_0x01_in_a_lookup_pipeline(self):
        match = bytearray(doc_bytes(elem_doc("$match",
                                             doc_bytes(b"\x10" + cstring("k") + int32(3)))))
        match[-1] = 0x01
        inner_pipeline = doc_bytes(elem_doc("0", bytes(match)))
        lookup = doc_bytes(elem_str("from", "intact")
                           + elem_doc("pipeline", inner_pipeline, array=True)
                           + elem_str("as", "joined"))
        stage = doc_bytes(elem_doc("$lookup", lookup))
        raw = body(elem_str("aggregate", "intact"),
                   elem_doc("pipeline", doc_bytes(elem_doc("0", stage)), array=True),
                   elem_doc("cursor", doc_bytes(b"")))
        self.assert_error_keeps_connection(raw, 22, "InvalidBSON")
        self.assert_healthy()

    # -- checksums -------------------------------------------------------------------------
    def test_bad_checksum(self):
        _, message = op_msg({"ping": 1, "$db": "admin"}, checksum=True)
        (crc,) = struct.unpack("<I", message[-4:])
        for name, bad in {
            "flipped bits": message[:-4] + struct.pack("<I", crc ^ 0x5A5A5A5A),
            "zero": message[:-4] + struct.pack("<I", 0),
            "payload changed": message[:-9] + b"\x01" + message[-8:],
        }.items():
            with self.subTest(case=name):
                # ("payload changed" edits a byte of $db's string: still valid BSON, so only
                # the checksum, compared after the sections parse, tells.)
                self.assert_error(self.exchange(bad), 288, "ChecksumMismatch",
                                  message="OP_MSG checksum does not match contents")
                self.assert_healthy()

    def test_checksum_flag_without_room_for_it(self):
        request_id = next_request_id()
        payload = struct.pack("<I", CHECKSUM_PRESENT) + struct.pack("<I", 0)
        message = header(16 + len(payload), request_id, 0, OP_MSG) + payload
        self.assert_error(self.exchange(message), 51251, "Location51251",
                          message="Invalid message size for an OpMsg containing a checksum")
        self.assert_healthy()

    # -- sizes -----------------------------------------------------------------------------
    def test_oversize_message_announced(self):
        for length in (MAX_MESSAGE + 1, 64 * 1024 * 1024, 2 ** 31 - 1):
            with self.subTest(messageLength=length):
                sock = connect_raw(self.server.port, timeout=REPLY_TIMEOUT)
                try:
                    result = self.exchange(header(length, next_request_id(), 0, OP_MSG)
                                           + b"\x00" * 4096, sock=sock)
                finally:
                    sock.close()
                self.assert_closed(result)
                self.assert_healthy()

    def test_oversize_document_in_the_message(self):
        size = MAX_INTERNAL_BSON + 1
        filler_len = size - len(body(elem_str("insert", "big"), elem_str("pad", "")))
        raw = body(elem_str("insert", "big"), elem_str("pad", "p" * filler_len))
        self.assertEqual(len(raw), size)
        self.assert_error(self.send_body(raw), 10334, "BSONObjectTooLarge",
                          prefix="BSONObj size: %d (0x%X) is invalid. Size must be between 0 and "
                                 "16793600(16MB)" % (size, size))
        self.assert_healthy()

    def test_insert_of_a_document_over_16_mib(self):
        for size, accepted in ((MAX_USER_BSON + 1, False), (MAX_USER_BSON, True)):
            with self.subTest(size=size):
                _id = "big-%d" % size
                base = doc_bytes(elem_str("_id", _id) + elem_str("pad", ""))
                doc = doc_bytes(elem_str("_id", _id) + elem_str("pad", "p" * (size - len(base))))
                self.assertEqual(len(doc), size)
                reply = self.insert_raw("big", [doc])
                self.assertNotEqual(reply, "closed")
                if accepted:
                    self.assertEqual((reply.doc.get("ok"), reply.doc.get("n")), (1.0, 1), reply.doc)
                else:
                    errors = reply.doc.get("writeErrors") or [{}]
                    self.assertEqual((reply.doc.get("ok"), reply.doc.get("n")), (1.0, 0), reply.doc)
                    self.assertEqual((errors[0].get("index"), errors[0].get("code"),
                                      errors[0].get("errmsg")),
                                     (0, 2, "object to insert too large. size in bytes: %d, "
                                            "max size: %d" % (size, MAX_USER_BSON)))
                self.assertEqual(self.client[DB].big.count_documents({"_id": _id}),
                                 1 if accepted else 0)
                self.assert_healthy()

    # -- duplicated fields -----------------------------------------------------------------
    def test_duplicate_command_fields(self):
        one = doc_bytes(elements_of({"0": {"_id": "dup-1"}}))
        two = doc_bytes(elements_of({"0": {"_id": "dup-2"}}))
        filt = doc_bytes(elements_of({"k": 1}))
        cases = [
            ("insert.documents",
             doc_bytes(elem_str("insert", "dups") + elem_doc("documents", one, array=True)
                       + elem_doc("documents", two, array=True) + elem_str("$db", DB))),
            ("find.filter",
             doc_bytes(elem_str("find", "intact") + elem_doc("filter", filt)
                       + elem_doc("filter", filt) + elem_str("$db", DB))),
            ("find.$db",
             doc_bytes(elem_str("find", "intact") + elem_str("$db", DB) + elem_str("$db", DB))),
        ]
        for field, raw in cases:
            with self.subTest(field=field):
                self.assert_error_keeps_connection(
                    raw, 40413, "Location40413",
                    message="BSON field '%s' is a duplicate field" % field)
                self.assert_healthy()
        self.assertEqual(self.client[DB].dups.count_documents({}), 0)

    def test_a_body_of_a_million_fields_is_checked_in_linear_time(self):
        # ~7 MB of distinct one-element fields, then a repeat of an early one: found, and fast
        # (a quadratic check would take hours). Without the repeat, the command's own parser
        # answers the first unknown field.
        many = b"".join(b"\x0a" + b"f%d\x00" % i for i in range(1_000_000))
        started = time.monotonic()
        raw = doc_bytes(elem_str("find", "intact") + many + b"\x0af5\x00" + elem_str("$db", DB))
        self.assert_error_keeps_connection(raw, 40413, "Location40413",
                                           message="BSON field 'find.f5' is a duplicate field")
        raw = doc_bytes(elem_str("find", "intact") + many + elem_str("$db", DB))
        self.assert_error_keeps_connection(raw, 40415, "Location40415",
                                           message="BSON field 'find.f0' is an unknown field.")
        self.assertLess(time.monotonic() - started, 60)
        self.assert_healthy()

    def test_documents_in_body_and_in_a_sequence(self):
        raw = body(elem_str("insert", "dups"),
                   elem_doc("documents", doc_bytes(elements_of({"0": {"_id": "b"}})), array=True))
        result = self.send_body(raw, sequences=sequence_section("documents",
                                                                [encode({"_id": "s"})]))
        self.assert_error(result, 40433, "Location40433",
                          message="Duplicate field between body and document sequence documents")
        self.assertEqual(self.client[DB].dups.count_documents({}), 0)
        self.assert_healthy()

    def test_a_sequence_is_an_array_field_of_any_command(self):
        # mongod parses every kind-1 section as an array field of the body, not only the write
        # commands' (a fuzzer found createIndexes with `indexes` in a sequence crashing Cairn).
        sock = connect_raw(self.server.port, timeout=REPLY_TIMEOUT)
        try:
            reply = command(sock, {"createIndexes": "seq"}, db=DB,
                            sequences=[("indexes", [{"key": {"a": 1}, "name": "a_1"},
                                                    {"key": {"t": "text"}, "name": "t_text"}])])
            self.assertEqual((reply.doc["ok"], reply.doc["numIndexesAfter"]), (1.0, 3))
            reply = command(sock, {"aggregate": "seq", "cursor": {}}, db=DB,
                            sequences=[("pipeline", [{"$match": {"a": 1}}, {"$count": "n"}])])
            self.assertEqual(reply.doc["ok"], 1.0)
            reply = command(sock, {"createIndexes": "seq"}, db=DB,
                            sequences=[("indexes", [{"key": {"b": 1}, "name": "a_1"}])])
            self.assertEqual(reply.doc["code"], 86)  # IndexKeySpecsConflict: a_1 has another key
            reply = command(sock, {"insert": "seq"}, db=DB,
                            sequences=[("documents", [{"_id": 1}]), ("extra", [{}])])
            self.assertEqual((reply.doc["code"], reply.doc["errmsg"]),
                             (40415, "BSON field 'insert.extra' is an unknown field."))
            reply = command(sock, {"ping": 1}, db=DB, sequences=[("extra", [{}])])
            self.assertEqual(reply.doc["ok"], 1.0)  # generic commands ignore fields, as mongod
        finally:
            sock.close()
        self.assertEqual(sorted(i["name"] for i in self.client[DB].seq.list_indexes()),
                         ["_id_", "a_1", "t_text"])
        self.assert_healthy()

    # -- load ------------------------------------------------------------------------------
    def test_many_connections_at_once(self):
        count = 300
        socks = []
        try:
            for _ in range(count):
                socks.append(connect_raw(self.server.port, timeout=REPLY_TIMEOUT))
            ids = []
            for sock in socks:
                request_id, message = op_msg({"ping": 1, "$db": "admin"})
                sock.sendall(message)
                ids.append(request_id)
            for sock, request_id in zip(socks, ids):
                reply = recv_message(sock)
                self.assertEqual((reply.response_to, reply.doc.get("ok")), (request_id, 1.0))
        finally:
            for sock in socks:
                sock.close()
        self.assert_healthy()

    def test_connections_announcing_48mb_and_sending_nothing(self):
        pid = self.server.proc.pid
        before = vm_rss_kib(pid)
        socks = []
        try:
            for i in range(40):
                sock = connect_raw(self.server.port, timeout=REPLY_TIMEOUT)
                # The header only; half of them also start the flags and a body section.
                tail = struct.pack("<I", 0) + b"\x00" if i % 2 else b""
                sock.sendall(header(MAX_MESSAGE, next_request_id(), 0, OP_MSG) + tail)
                socks.append(sock)
            time.sleep(0.5)
            self.assert_healthy()
            grown_mib = (vm_rss_kib(pid) - before) / 1024
            # 40 x 48 MB would be 1.8 GiB: a server reads what arrives, it does not reserve
            # what a header announces.
            self.assertLess(grown_mib, 256, "cairnd grew by %.0f MiB for 40 idle connections "
                            "announcing 48 MB" % grown_mib)
        finally:
            for sock in socks:
                sock.close()
        self.assert_healthy()


if __name__ == "__main__":
    unittest.main()
