"""cairnd's command line as a user meets it: mongod's flag names, --version and --help, clear
refusals of unknown or malformed flags, several --bind_ip addresses, --logpath, --quiet, and
log lines in mongod's JSON shape."""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

import pymongo

from harness import CAIRND, CairnServer, free_port, read, wait_for


def run(*args, timeout=20):
    return subprocess.run([CAIRND, *args], stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=timeout)




class CommandLineTest(unittest.TestCase):
    def test_version_prints_mongods_first_line_then_cairns_version(self):
        result = run("--version")
        self.assertEqual(result.returncode, 0)
        lines = result.stdout.decode().splitlines()
        self.assertEqual(lines[0], "db version v7.0.0")
        self.assertTrue(lines[1].startswith("Cairn version v"), lines)

    def test_help_lists_the_flags(self):
        result = run("--help")
        self.assertEqual(result.returncode, 0)
        text = result.stdout.decode()
        for flag in ("--port", "--bind_ip", "--dbpath", "--logpath", "--quiet", "--version"):
            self.assertIn(flag, text)

    def test_an_unknown_flag_stops_startup_with_a_clear_message(self):
        result = run("--bogus")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("bogus", result.stderr.decode())

    def test_a_malformed_port_stops_startup(self):
        for value in ("abc", "70000"):
            result = run("--port", value)
            self.assertNotEqual(result.returncode, 0, value)
            self.assertIn("port", result.stderr.decode().lower(), value)

    def test_mongods_engine_and_auth_flags(self):
        # What test harnesses pass (mongodb-memory-server: --storageEngine wiredTiger --noauth) is
        # accepted; what Cairn cannot honour is refused with exit status 2, never ignored.
        dbpath = tempfile.mkdtemp(prefix="cairn-cli-")
        try:
            server = CairnServer(dbpath=dbpath, args=("--storageEngine", "wiredTiger", "--noauth"))
            server.start()
            server.stop(keep_dbpath=True)
        finally:
            shutil.rmtree(dbpath, ignore_errors=True)
        for args, word in ((("--storageEngine", "mmapv1"), "mmapv1"), (("--auth",), "--auth")):
            result = run(*args)
            self.assertEqual(result.returncode, 2, args)
            self.assertIn(word, result.stderr.decode(), args)

    def test_the_shutdown_command_stops_the_server_cleanly(self):
        server = CairnServer()
        server.start()
        try:
            client = server.client()
            client.admin.command("ping")
            with self.assertRaises(pymongo.errors.OperationFailure) as caught:
                client.test.command("shutdown")  # admin only
            self.assertEqual(caught.exception.code, 13)
            with self.assertRaises(pymongo.errors.OperationFailure) as caught:
                client.admin.command({"shutdown": 1, "force": "yes"})
            self.assertEqual(caught.exception.code, 14)
            # As with mongod, the client gets no reply: the connection closes, the server exits.
            with self.assertRaises(pymongo.errors.AutoReconnect):
                client.admin.command({"shutdown": 1, "force": True, "timeoutSecs": 1})
            self.assertEqual(server.proc.wait(20), 0)
            client.close()
            server.stop()  # collects the last log lines
            self.assertIn("Terminating via shutdown command", server.log_tail(200))
        finally:
            server.stop(allow_unclean=True)

    def test_several_bind_ip_addresses_all_listen(self):
        dbpath = tempfile.mkdtemp(prefix="cairn-cli-")
        port = free_port()
        proc = subprocess.Popen([CAIRND, "--port", str(port), "--bind_ip", "127.0.0.1,127.0.0.2",
                                 "--dbpath", dbpath, "--quiet"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            def listening(address):
                try:
                    socket.create_connection((address, port), timeout=1).close()
                    return True
                except OSError:
                    return False
            self.assertTrue(wait_for(lambda: listening("127.0.0.1")), "127.0.0.1 never listened")
            self.assertTrue(listening("127.0.0.2"), "127.0.0.2 does not listen")
        finally:
            proc.send_signal(signal.SIGTERM)
            self.assertEqual(proc.wait(20), 0)
            proc.stdout.close()
            shutil.rmtree(dbpath, ignore_errors=True)


class LoggingTest(unittest.TestCase):
    def test_log_lines_have_mongods_json_shape_and_go_to_logpath(self):
        logdir = tempfile.mkdtemp(prefix="cairn-log-")
        logpath = os.path.join(logdir, "cairnd.log")
        # With --logpath nothing reaches stdout, so wait on the file instead of the harness.
        port = free_port()
        proc = subprocess.Popen([CAIRND, "--port", str(port), "--dbpath", os.path.join(logdir, "db"),
                                 "--logpath", logpath],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            self.assertTrue(wait_for(lambda: os.path.exists(logpath) and
                                     "Waiting for connections" in read(logpath)))
            client = __import__("pymongo").MongoClient("127.0.0.1", port,
                                                        serverSelectionTimeoutMS=5000)
            client.admin.command("ping")
            client.close()
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(20)
        self.assertEqual(code, 0)
        self.assertEqual(proc.stdout.read(), b"")
        proc.stdout.close()
        lines = read(logpath).splitlines()
        self.assertGreater(len(lines), 3)
        for line in lines:
            entry = json.loads(line)
            self.assertIn("$date", entry["t"])
            self.assertIn(entry["s"], ("I", "W", "E", "F", "D1"))
            for key in ("c", "id", "ctx", "msg"):
                self.assertIn(key, entry)
        waiting = [json.loads(l) for l in lines if "Waiting for connections" in l][0]
        self.assertEqual(waiting["c"], "NETWORK")
        self.assertEqual(waiting["id"], 23016)
        self.assertEqual(waiting["attr"]["port"], port)
        self.assertTrue(any("Connection accepted" in l for l in lines))
        shutil.rmtree(logdir, ignore_errors=True)

    def test_quiet_leaves_out_connection_chatter(self):
        server = CairnServer(args=["--quiet"]).start()
        try:
            client = server.client()
            client.admin.command("ping")
            client.close()
            time.sleep(0.2)
            self.assertFalse(any("Connection accepted" in l for l in server.lines), server.log_tail())
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main()
