"""Malformed and unusual wire-protocol input over raw sockets (/usr/bin/python3, bson from
python3-pymongo). For every bad message the server must, within a few seconds, either answer
with an error reply (ok: 0 and a code) or close that connection - never hang - while a separate
connection opened beforehand keeps answering `ping` and the process stays alive. Also checks
OP_MSG checksums, moreToCome, document sequences and the legacy OP_QUERY paths."""

import random
import select
import socket
import struct
import unittest

from harness import (CHECKSUM_PRESENT, MORE_TO_COME, OP_MSG, OP_REPLY, ServerTestCase,
                     command, connect_raw, crc32c, encode, exchange, header, next_request_id, op_msg,
                     op_query, recv_message)

REPLY_TIMEOUT = 5.0
# Codes a server may reasonably use for a message it cannot parse, besides the specific one.
GENERIC = {2, 9, 17, 22}  # BadValue, FailedToParse, ProtocolError, InvalidBSON


def ping_body(db="admin"):
    return {"ping": 1, "$db": db}


class BadInputTest(ServerTestCase):
    make_client = False

    def setUp(self):
        self.healthy = connect_raw(self.server.port)
        self.assert_ping(self.healthy)

    def tearDown(self):
        self.healthy.close()

    # -- helpers ---------------------------------------------------------------------------
    def assert_ping(self, sock):
        reply = command(sock, {"ping": 1})
        self.assertEqual(reply.opcode, OP_MSG)
        self.assertEqual(reply.doc.get("ok"), 1.0, reply.doc)

    def assert_server_survived(self):
        self.assertTrue(self.server.alive, "cairnd died:\n" + self.server.log_tail())
        self.assert_ping(self.healthy)
        fresh = connect_raw(self.server.port)
        try:
            self.assert_ping(fresh)
        finally:
            fresh.close()

    def send_bad(self, message, codes=(), shutdown_write=False):
        """Sends `message` on a new connection. Returns "closed" or the error Reply; fails if the
        server neither replies nor closes within REPLY_TIMEOUT, or replies with a success."""
        sock = connect_raw(self.server.port, timeout=REPLY_TIMEOUT)
        try:
            try:
                reply = exchange(sock, message, shutdown_write)
            except socket.timeout:
                self.fail("the server neither answered nor closed the connection within %gs" % REPLY_TIMEOUT)
            if reply == "closed":
                return reply
            doc = reply.doc or {}
            self.assertTrue(doc.get("ok") == 0 or "$err" in doc, "expected an error reply, got %r" % (doc,))
            self.assertIsInstance(doc.get("code"), int, doc)
            if codes:
                self.assertIn(doc["code"], set(codes) | GENERIC, doc)
            return reply
        finally:
            sock.close()

    # -- message framing -------------------------------------------------------------------
    def test_message_length_out_of_range(self):
        body = struct.pack("<I", 0) + b"\x00" + encode(ping_body())
        for length in (48_000_001, 2 ** 31 - 1, -1, -100, 0, 8, 15):
            with self.subTest(messageLength=length):
                self.send_bad(header(length, next_request_id(), 0, OP_MSG) + body)
                self.assert_server_survived()

    def test_message_length_smaller_than_its_contents(self):
        _, good = op_msg(ping_body())
        bad = struct.pack("<i", 20) + good[4:]  # says 20 bytes: flags only, no section
        self.send_bad(bad, codes={40587})  # "OP_MSG messages must have a body"
        self.assert_server_survived()

    def test_truncated_message_then_close(self):
        _, good = op_msg(ping_body())
        for cut in (3, 10, 16, 20, len(good) - 1):
            with self.subTest(bytes_sent=cut):
                sock = connect_raw(self.server.port)
                sock.sendall(good[:cut])
                sock.close()
                self.assert_server_survived()

    def test_truncated_message_then_half_close(self):
        _, good = op_msg(ping_body())
        self.send_bad(good[:len(good) // 2], shutdown_write=True)
        self.assert_server_survived()

    def test_unknown_opcode(self):
        payload = b"\x00" * 20
        self.send_bad(header(16 + len(payload), next_request_id(), 0, 9999) + payload)
        self.assert_server_survived()

    def test_random_garbage_connections(self):
        rng = random.Random(20240517)
        for i in range(20):
            with self.subTest(connection=i):
                junk = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 200)))
                sock = connect_raw(self.server.port, timeout=REPLY_TIMEOUT)
                try:
                    sock.sendall(junk)
                except OSError:
                    pass
                sock.close()
        self.assert_server_survived()

    # -- OP_MSG contents -------------------------------------------------------------------
    def test_invalid_bson_string_length_runs_past_the_document(self):
        # {ping: "x"} whose string claims 1000 bytes.
        elements = b"\x02ping\x00" + struct.pack("<i", 1000) + b"x\x00"
        doc = struct.pack("<i", 4 + len(elements) + 1) + elements + b"\x00"
        _, message = op_msg(None, raw_body=doc)
        self.send_bad(message, codes={22})
        self.assert_server_survived()

    def test_invalid_bson_document_length(self):
        good = encode(ping_body())
        cases = {
            "longer than the message": struct.pack("<i", len(good) + 50) + good[4:],
            "shorter than its elements": struct.pack("<i", 6) + good[4:],
            "below the BSON minimum": struct.pack("<i", 4) + good[4:],
            "no terminating NUL": good[:-1] + b"\x01",
        }
        for name, doc in cases.items():
            with self.subTest(case=name):
                _, message = op_msg(None, raw_body=doc)
                self.send_bad(message, codes={22, 10334})
                self.assert_server_survived()

    def test_wrong_checksum(self):
        _, message = op_msg(ping_body(), checksum=True)
        bad = message[:-4] + struct.pack("<I", (struct.unpack("<I", message[-4:])[0] ^ 0xDEADBEEF))
        self.send_bad(bad, codes={288})
        self.assert_server_survived()

    def test_unknown_required_flag_bit(self):
        _, message = op_msg(ping_body(), flags=1 << 5)
        self.send_bad(message, codes={223})
        self.assert_server_survived()

    def test_unknown_optional_flag_bit_is_ignored(self):
        # Bits 16-31 are optional: a server ignores the ones it does not know.
        reply = command(self.healthy, {"ping": 1}, flags=1 << 20)
        self.assertEqual(reply.doc.get("ok"), 1.0, reply.doc)

    def test_two_body_sections(self):
        _, message = op_msg(ping_body(), extra_sections=b"\x00" + encode({"ping": 1}))
        self.send_bad(message, codes={40430})
        self.assert_server_survived()

    def test_unknown_section_kind(self):
        _, message = op_msg(ping_body(), extra_sections=b"\x07" + encode({"x": 1}))
        self.send_bad(message, codes={40432})
        self.assert_server_survived()

    def test_no_body_section(self):
        request_id = next_request_id()
        payload = struct.pack("<I", 0)
        self.send_bad(header(16 + len(payload), request_id, 0, OP_MSG) + payload, codes={40587})
        self.assert_server_survived()

    # -- legacy OP_QUERY -------------------------------------------------------------------
    def test_op_query_is_master_handshake(self):
        # pymongo 3.11 and mongosh may start with a legacy hello over OP_QUERY.
        request_id, message = op_query("admin.$cmd", {"isMaster": 1})
        self.healthy.sendall(message)
        reply = recv_message(self.healthy)
        self.assertEqual(reply.opcode, OP_REPLY)
        self.assertEqual(reply.response_to, request_id)
        self.assertIs(reply.doc["ismaster"], True)
        self.assertEqual(reply.doc["maxWireVersion"], 21)
        self.assertEqual(reply.doc["ok"], 1.0)

    def assert_op_query_refused(self, namespace, query, code):
        request_id, message = op_query(namespace, query)
        sock = connect_raw(self.server.port, timeout=REPLY_TIMEOUT)
        try:
            sock.sendall(message)
            reply = recv_message(sock)
        finally:
            sock.close()
        self.assertEqual(reply.opcode, OP_REPLY)
        self.assertEqual(reply.response_to, request_id)
        self.assertEqual(reply.doc.get("code"), code, reply.doc)
        self.assertTrue("$err" in reply.doc or "errmsg" in reply.doc, reply.doc)
        self.assertNotEqual(reply.doc.get("ok"), 1.0)

    def test_op_query_command_other_than_hello(self):
        self.assert_op_query_refused("admin.$cmd", {"find": "c", "filter": {}}, 352)  # UnsupportedOpQueryCommand
        self.assert_server_survived()

    def test_op_query_on_a_collection(self):
        self.assert_op_query_refused("testdb.items", {"x": 1}, 5739101)
        self.assert_server_survived()

    # -- valid but unusual -----------------------------------------------------------------
    def test_checksum_is_echoed_on_the_reply(self):
        self.assertEqual(crc32c(b"123456789"), 0xE3069283)
        reply = command(self.healthy, {"ping": 1}, checksum=True)
        self.assertEqual(reply.doc.get("ok"), 1.0, reply.doc)
        self.assertTrue(reply.flags & CHECKSUM_PRESENT, "the reply has no checksum")
        self.assertTrue(reply.checksum_ok(), "the reply's CRC-32C is wrong")

    def test_more_to_come_gets_no_reply(self):
        sock = connect_raw(self.server.port)
        try:
            body = {"insert": "fire", "documents": [{"_id": 1, "v": "w0"}],
                    "writeConcern": {"w": 0}, "$db": "rawdb"}
            _, message = op_msg(body, flags=MORE_TO_COME)
            sock.sendall(message)
            # A duplicate under moreToCome: still no reply, the connection stays usable.
            _, message = op_msg(dict(body), flags=MORE_TO_COME)
            sock.sendall(message)
            readable, _, _ = select.select([sock], [], [], 0.5)
            self.assertEqual(readable, [], "the server answered a moreToCome message")

            ping_id, message = op_msg(ping_body())
            sock.sendall(message)
            reply = recv_message(sock)
            self.assertEqual(reply.response_to, ping_id, "the first reply must be the ping's")
            self.assertEqual(reply.doc.get("ok"), 1.0)

            found = command(sock, {"find": "fire", "filter": {}}, db="rawdb")
            self.assertEqual(found.doc.get("ok"), 1.0, found.doc)
            self.assertEqual(found.doc["cursor"]["firstBatch"], [{"_id": 1, "v": "w0"}])
        finally:
            sock.close()
        self.assert_server_survived()

    def test_document_sequence_insert(self):
        reply = command(self.healthy, {"insert": "seq", "ordered": True}, db="rawdb",
                        sequences=[("documents", [{"_id": 1}, {"_id": 2}, {"_id": 3}])])
        self.assertEqual(reply.doc.get("ok"), 1.0, reply.doc)
        self.assertEqual(reply.doc.get("n"), 3)
        found = command(self.healthy, {"find": "seq", "filter": {}, "sort": {"_id": 1}}, db="rawdb")
        self.assertEqual(found.doc.get("ok"), 1.0, found.doc)
        self.assertEqual(found.doc["cursor"]["firstBatch"], [{"_id": 1}, {"_id": 2}, {"_id": 3}])

    def test_many_commands_pipelined_on_one_connection(self):
        ids = []
        batch = b""
        for _ in range(50):
            request_id, message = op_msg(ping_body())
            ids.append(request_id)
            batch += message
        self.healthy.sendall(batch)
        replies = [recv_message(self.healthy) for _ in ids]
        self.assertEqual([r.response_to for r in replies], ids)
        self.assertTrue(all(r.doc.get("ok") == 1.0 for r in replies))


if __name__ == "__main__":
    unittest.main()
