"""mongod's startup options as test harnesses, compose files and ops scripts pass them: the YAML
config file (--config/-f) and its merge with the command line, the unix domain socket, the
in-memory mode, --fork with --pidfilepath, --logappend, --timeStampFormat, -v and --slowms
(the "Slow query" line), --bind_ip_all and --ipv6, --wiredTigerCacheSizeGB; and the refusals,
exit status 2, of what Cairn cannot honour."""

import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
import unittest
import urllib.parse

import pymongo

from harness import CAIRND, CairnServer, free_port, read, wait_for


def run(*args, timeout=20, env=None):
    return subprocess.run([CAIRND, *args], stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=timeout, env=env)




def log_entries(lines):
    out = []
    for line in lines:
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def unix_client(path):
    return pymongo.MongoClient("mongodb://%s/?directConnection=true" % urllib.parse.quote_plus(path),
                               serverSelectionTimeoutMS=5000)


class TempDirTestCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="cairn-startup-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path


class ConfigFileTest(TempDirTestCase):
    def test_a_config_file_sets_mongods_options_and_the_command_line_wins(self):
        dbpath = os.path.join(self.dir, "db")
        logpath = os.path.join(self.dir, "cairnd.log")
        config = self.write("mongod.conf", f"""
storage:
  dbPath: {dbpath}
systemLog:
  destination: file
  path: {logpath}
  logAppend: true
net:
  port: 1
  bindIp: 127.0.0.1
replication:
  replSetName: rs0
setParameter:
  ttlMonitorSleepSecs: 7
processManagement:
  timeZoneInfo: /usr/share/zoneinfo
""")
        port = free_port()
        proc = subprocess.Popen([CAIRND, "-f", config, "--port", str(port)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        try:
            def listening():
                return os.path.exists(logpath) and "Waiting for connections" in read(logpath)
            self.assertTrue(wait_for(listening), proc.stderr.read1().decode() if proc.poll() else "")
            client = pymongo.MongoClient(port=port, directConnection=True)
            opts = client.admin.command("getCmdLineOpts")
            parsed = opts["parsed"]
            self.assertEqual(parsed["config"], config)
            self.assertEqual(parsed["net"], {"bindIp": "127.0.0.1", "port": port})
            self.assertEqual(parsed["storage"]["dbPath"], dbpath)
            self.assertEqual(parsed["systemLog"], {"destination": "file", "path": logpath,
                                                   "logAppend": True})
            self.assertEqual(parsed["replication"], {"replSetName": "rs0"})
            self.assertEqual(parsed["setParameter"], {"ttlMonitorSleepSecs": "7"})
            self.assertEqual(client.admin.command("getParameter", 1, ttlMonitorSleepSecs=1)
                             ["ttlMonitorSleepSecs"], 7)
            # --replSet from the file: a set member awaiting replSetInitiate.
            with self.assertRaises(pymongo.errors.OperationFailure) as caught:
                client.admin.command("replSetGetStatus")
            self.assertEqual(caught.exception.code, 94)
            self.assertTrue(os.path.isdir(dbpath))
            client.close()
        finally:
            proc.send_signal(signal.SIGTERM)
            self.assertEqual(proc.wait(20), 0)
            proc.stderr.close()

    def test_what_the_file_cannot_say_stops_startup_with_status_2(self):
        cases = {
            "net:\n  bogus: 1\n": "Unrecognized option: net.bogus",
            "security:\n  authorization: enabled\n": "authorization",
            "storage:\n  engine: mmapv1\n": "mmapv1",
            "net:\n  port: [1, 2]\n": "net.port",
            "systemLog:\n  destination: syslog\n": "syslog",
            "systemLog:\n  destination: file\n": "systemLog.path is required",
            "processManagement:\n  timeZoneInfo: /nonexistent/zoneinfo\n": "zoneinfo",
            "net: [unclosed\n": "config file",
        }
        for text, word in cases.items():
            result = run("-f", self.write("bad.conf", text))
            self.assertEqual(result.returncode, 2, text)
            self.assertIn(word, result.stderr.decode(), text)
        result = run("--config", os.path.join(self.dir, "missing.conf"))
        self.assertEqual(result.returncode, 2)


class PingTest(TempDirTestCase):
    """cairnd --ping: the health check a container image runs (exit 0 healthy, 1 not)."""

    def test_ping_answers_whether_the_server_described_is_up(self):
        server = CairnServer().start()
        try:
            self.assertEqual(run("--ping", "--port", str(server.port)).returncode, 0)
            # The same options as the server's, a config file included; a wildcard bind
            # address is reached on the loopback.
            config = self.write("cairnd.conf", "net:\n  port: %d\n  bindIp: 0.0.0.0\n" % server.port)
            self.assertEqual(run("--ping", "-f", config).returncode, 0)
        finally:
            server.stop()
        result = run("--ping", "--port", str(server.port))
        self.assertEqual(result.returncode, 1)
        self.assertIn(b"cannot connect to 127.0.0.1:%d" % server.port, result.stderr)
        # A bad option is still a bad option.
        self.assertEqual(run("--ping", "--nonsense").returncode, 2)

    def test_a_server_that_accepts_but_never_answers_is_unhealthy(self):
        import socket
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        try:
            result = run("--ping", "--port", str(listener.getsockname()[1]))
            self.assertEqual(result.returncode, 1)
            self.assertIn(b"no reply", result.stderr)
        finally:
            listener.close()


class LoadJsonTest(TempDirTestCase):
    """cairnd --load-json DB.COLL FILE: how the container image loads its init *.json files."""

    def setUp(self):
        super().setUp()
        self.server = CairnServer().start()
        self.client = self.server.client()

    def tearDown(self):
        self.client.close()
        self.server.stop()
        super().tearDown()

    def load(self, ns, text):
        path = self.write("data.json", text)
        return run("--load-json", ns, path, "--port", str(self.server.port))

    def test_json_lines_and_arrays_of_extended_json_are_inserted(self):
        result = self.load("app.people",
                           '{"_id": 1, "born": {"$date": "1815-12-10T00:00:00Z"}}\n'
                           '{"_id": 2, "ref": {"$oid": "5f1e8a1b2c3d4e5f6a7b8c9d"},\n'
                           ' "n": {"$numberLong": "9007199254740993"}}\n')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(b"2 document(s) inserted into app.people", result.stdout)
        docs = list(self.client.app.people.find().sort("_id", 1))
        self.assertEqual(docs[0]["born"].year, 1815)
        self.assertEqual(str(docs[1]["ref"]), "5f1e8a1b2c3d4e5f6a7b8c9d")
        self.assertEqual(docs[1]["n"], 9007199254740993)
        many = "[" + ",".join('{"i": %d}' % i for i in range(2500)) + "]"
        result = self.load("app.many", many)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.client.app.many.count_documents({}), 2500)  # three batches

    def test_failures_name_the_document_and_exit_1(self):
        result = self.load("app.dups", '{"_id": 1}\n{"_id": 2}\n{"_id": 1}\n')
        self.assertEqual(result.returncode, 1)
        self.assertIn(b"document 3: E11000 duplicate key error collection: app.dups", result.stderr)
        result = self.load("app.bad", '{"_id": 1}\n{"_id": \n')
        self.assertEqual(result.returncode, 1)
        self.assertIn(b"document 2:", result.stderr)
        result = self.load("app.arr", '[{"a": 1}, 7]')
        self.assertEqual(result.returncode, 1)
        self.assertIn(b"element 2 of the array is not a document", result.stderr)
        self.assertEqual(self.load("nodot", "{}").returncode, 1)
        self.assertEqual(run("--load-json", "app.x").returncode, 2)  # FILE missing
        result = run("--load-json", "app.x", os.path.join(self.dir, "absent.json"))
        self.assertEqual(result.returncode, 1)
        self.assertIn(b"cannot read", result.stderr)


class RefusedFlagsTest(unittest.TestCase):
    def test_flags_cairn_cannot_honour_exit_with_status_2(self):
        for args, word in ((("--auth",), "--auth"), (("--storageEngine", "mmapv1"), "mmapv1"),
                           (("--profile", "7"), "profile"),
                           (("--fork",), "--fork has to be used with --logpath"),
                           (("--timeStampFormat", "ctime"), "iso8601-utc"),
                           (("--wiredTigerCacheSizeGB", "0.1"), "wiredTigerCacheSizeGB"),
                           (("--bind_ip", "::1"), "--ipv6"),
                           (("--bind_ip", "127.0.0.1", "--bind_ip_all"), "bind_ip_all"),
                           (("--filePermissions", "999"), "filePermissions"),
                           (("--auth", "--noauth"), "--noauth"), (("-vvvvvv",), "verbosity")):
            result = run(*args)
            self.assertEqual(result.returncode, 2, args)
            self.assertIn(word, result.stderr.decode(), args)

    def test_help_says_what_the_cache_size_sets(self):
        text = run("--help").stdout.decode()
        self.assertIn("--wiredTigerCacheSizeGB", text)
        self.assertIn("block", text)
        for flag in ("--config", "--fork", "--pidfilepath", "--unixSocketPrefix", "--nounixsocket",
                     "--filePermissions", "--bind_ip_all", "--ipv6", "--logappend",
                     "--timeStampFormat", "--slowms", "--profile", "--setParameter"):
            self.assertIn(flag, text)


class UnixSocketTest(TempDirTestCase):
    def test_drivers_connect_through_mongods_unix_socket(self):
        server = CairnServer(args=("--unixSocketPrefix", self.dir))
        server.start()
        try:
            path = os.path.join(self.dir, "mongodb-%d.sock" % server.port)
            mode = os.stat(path).st_mode
            self.assertTrue(stat.S_ISSOCK(mode))
            self.assertEqual(stat.S_IMODE(mode), 0o700)  # mongod's default filePermissions
            client = unix_client(path)
            client.test.c.insert_one({"_id": 1})
            self.assertEqual(client.test.c.find_one(), {"_id": 1})
            self.assertEqual(client.admin.command("whatsmyuri")["you"],
                             "anonymous unix socket:%d" % server.port)
            client.close()
            server.stop()
            self.assertFalse(os.path.exists(path), "the socket file outlived the server")
        finally:
            server.stop(allow_unclean=True)

    def test_file_permissions_and_nounixsocket(self):
        server = CairnServer(args=("--unixSocketPrefix", self.dir, "--filePermissions", "0777"))
        server.start()
        try:
            path = os.path.join(self.dir, "mongodb-%d.sock" % server.port)
            self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o777)
        finally:
            server.stop()
        server = CairnServer(args=("--unixSocketPrefix", self.dir, "--nounixsocket"))
        server.start()
        try:
            self.assertEqual(os.listdir(self.dir), [])
        finally:
            server.stop()

    def test_a_stale_socket_file_is_replaced(self):
        port = free_port()
        path = os.path.join(self.dir, "mongodb-%d.sock" % port)
        stale = socket.socket(socket.AF_UNIX)
        stale.bind(path)
        stale.close()  # the file stays, nobody listens: what a killed server leaves
        server = CairnServer(port=port, args=("--unixSocketPrefix", self.dir))
        server.start()
        try:
            client = unix_client(path)
            client.admin.command("ping")
            client.close()
        finally:
            server.stop()


class InMemoryTest(TempDirTestCase):
    def test_nothing_is_written_to_the_dbpath_and_nothing_persists(self):
        for engine in ("inMemory", "ephemeralForTest"):
            server = CairnServer(dbpath=self.dir, args=("--storageEngine", engine))
            server.start()
            try:
                client = server.client()
                client.test.c.insert_many([{"_id": i, "v": "x" * 100} for i in range(2000)])
                client.test.c.create_index("v")
                self.assertEqual(client.test.c.count_documents({}), 2000)
                self.assertEqual(client.admin.command("getCmdLineOpts")["parsed"]["storage"]
                                 ["engine"], engine)
                client.close()
                server.stop(keep_dbpath=True)
                self.assertEqual(os.listdir(self.dir), [], engine)
                server.start()  # the same dbpath: an empty server
                client = server.client()
                self.assertNotIn("test", client.list_database_names())
                client.close()
            finally:
                server.stop(keep_dbpath=True)

    def test_a_replica_set_in_memory_carries_a_transaction(self):
        server = CairnServer(args=("--storageEngine", "inMemory", "--replSet", "rs0",
                                   "--initiate"))
        server.start()
        try:
            client = server.client()
            self.assertTrue(wait_for(lambda: client.admin.command("hello")["isWritablePrimary"]))
            client.test.c.insert_one({"_id": 0})
            with client.start_session() as session:
                with session.start_transaction():
                    client.test.c.insert_one({"_id": 1}, session=session)
                    client.test.c.insert_one({"_id": 2}, session=session)
            self.assertEqual(client.test.c.count_documents({}), 3)
            client.close()
        finally:
            server.stop()


class ForkTest(TempDirTestCase):
    def test_fork_returns_once_the_server_listens_and_the_pid_file_names_it(self):
        logpath = os.path.join(self.dir, "cairnd.log")
        pidfile = os.path.join(self.dir, "cairnd.pid")
        port = free_port()
        result = run("--fork", "--logpath", logpath, "--pidfilepath", pidfile, "--port", str(port),
                     "--dbpath", os.path.join(self.dir, "db"), "--nounixsocket")
        out = result.stdout.decode()
        self.assertEqual(result.returncode, 0, out + result.stderr.decode())
        self.assertIn("child process started successfully, parent exiting", out)
        pid = int(re.search(r"forked process: (\d+)", out).group(1))
        try:
            self.assertEqual(read(pidfile), "%d\n" % pid)
            client = pymongo.MongoClient(port=port, directConnection=True)
            self.assertEqual(client.admin.command("ping")["ok"], 1)  # listening already
            client.close()
        finally:
            os.kill(pid, signal.SIGTERM)
        self.assertTrue(wait_for(lambda: not os.path.exists("/proc/%d" % pid)))
        self.assertIn("Now exiting", read(logpath))

    def test_a_forked_server_that_fails_makes_the_parent_fail(self):
        blocker = socket.socket()
        blocker.bind(("127.0.0.1", 0))
        blocker.listen(1)
        port = blocker.getsockname()[1]
        try:
            result = run("--fork", "--logpath", os.path.join(self.dir, "cairnd.log"), "--port",
                         str(port), "--dbpath", os.path.join(self.dir, "db"), "--nounixsocket")
        finally:
            blocker.close()
        self.assertEqual(result.returncode, 48, result.stdout.decode())
        self.assertIn("ERROR: child process failed, exited with 48", result.stderr.decode())


class LogOptionsTest(TempDirTestCase):
    def start_logging(self, *args, env=None):
        logpath = os.path.join(self.dir, "cairnd.log")
        port = free_port()

        def listened():  # times the log says so (an appended log may say it already)
            return read(logpath).count("Waiting for connections") if os.path.exists(logpath) else 0
        before = listened()
        proc = subprocess.Popen([CAIRND, "--port", str(port), "--dbpath",
                                 os.path.join(self.dir, "db"), "--logpath", logpath,
                                 "--nounixsocket", *args], stdin=subprocess.DEVNULL, env=env)
        self.assertTrue(wait_for(lambda: listened() > before or
                                 ("--logappend" not in args and listened() > 0)))
        return proc, port, logpath

    def stop(self, proc):
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(proc.wait(20), 0)

    def test_without_logappend_an_existing_log_is_moved_aside(self):
        logpath = self.write("cairnd.log", "an old line\n")
        proc, _, _ = self.start_logging()
        self.stop(proc)
        self.assertNotIn("an old line", read(logpath))
        rotated = [n for n in os.listdir(self.dir) if n.startswith("cairnd.log.")]
        self.assertEqual(len(rotated), 1, os.listdir(self.dir))
        self.assertRegex(rotated[0], r"^cairnd\.log\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d$")
        self.assertEqual(read(os.path.join(self.dir, rotated[0])), "an old line\n")
        proc, _, _ = self.start_logging("--logappend")
        self.stop(proc)
        self.assertEqual(read(logpath).count("Cairn starting"), 2)

    def test_iso8601_local_timestamps_carry_the_local_offset(self):
        env = dict(os.environ, TZ="Etc/GMT-3")  # POSIX sign: three hours east of UTC
        proc, _, logpath = self.start_logging("--timeStampFormat", "iso8601-local", env=env)
        self.stop(proc)
        dates = [e["t"]["$date"] for e in log_entries(read(logpath).splitlines())]
        self.assertTrue(dates)
        for date in dates:
            self.assertTrue(date.endswith("+03:00"), date)

    def test_slow_operations_are_logged_as_mongods_slow_query_line(self):
        proc, port, logpath = self.start_logging("--slowms", "-1")
        try:
            client = pymongo.MongoClient(port=port, directConnection=True, appname="slowapp")
            client.test.c.insert_one({"_id": 1})
            client.test.c.find_one({"_id": 1})
            client.close()
        finally:
            self.stop(proc)
        slow = [e for e in log_entries(read(logpath).splitlines()) if e["id"] == 51803]
        finds = [e for e in slow if "find" in e["attr"]["command"]]
        self.assertTrue(finds, slow)
        attr = finds[0]["attr"]
        self.assertEqual(finds[0]["msg"], "Slow query")
        self.assertEqual(finds[0]["c"], "COMMAND")
        self.assertEqual(attr["ns"], "test.c")
        self.assertEqual(attr["appName"], "slowapp")
        self.assertIsInstance(attr["durationMillis"], int)
        # What the plan did: find_one by _id reads one key and one document.
        self.assertEqual(attr["planSummary"], "IDHACK")
        self.assertEqual((attr["keysExamined"], attr["docsExamined"], attr["nreturned"]), (1, 1, 1))
        self.assertTrue(attr["cursorExhausted"])
        inserts = [e for e in slow if "insert" in e["attr"]["command"]]
        self.assertEqual(inserts[0]["attr"]["ninserted"], 1)

    def test_the_profile_command_sets_the_slow_log_threshold(self):
        proc, port, logpath = self.start_logging()
        try:
            client = pymongo.MongoClient(port=port, directConnection=True)
            db = client.test
            self.assertEqual(db.command("profile", -1),
                             {"was": 0, "slowms": 100, "sampleRate": 1.0, "ok": 1.0})
            reply = db.command("profile", 0, slowms=-1)  # mongosh db.setProfilingLevel(0, {slowms})
            self.assertEqual(reply["slowms"], 100)
            self.assertEqual(db.command("profile", -1)["slowms"], -1)
            db.command("ping", comment="after-slowms")
            self.assertTrue(wait_for(lambda: "after-slowms" in read(logpath)))
            for args, code in (({"profile": 3}, 2), ({"profile": 0, "sampleRate": 2}, 2),
                               ({"profile": 0, "filter": {"millis": {"$bad": 1}}}, 2),
                               ({"profile": 0, "filter": "x"}, 2), ({"profile": "x"}, 14)):
                with self.assertRaises(pymongo.errors.OperationFailure) as caught:
                    db.command(args)
                self.assertEqual(caught.exception.code, code, args)
            self.assertEqual(db.command("profile", -1)["slowms"], -1)  # the refusals changed nothing
            client.close()
        finally:
            self.stop(proc)

    def test_fast_operations_are_not_logged_at_the_default_slowms(self):
        proc, port, logpath = self.start_logging("-vv")
        client = pymongo.MongoClient(port=port, directConnection=True)
        self.assertEqual(client.admin.command("getCmdLineOpts")["parsed"]["systemLog"]
                         ["verbosity"], 2)
        client.close()
        self.stop(proc)
        # -v and more log every operation, as mongod does at log level 1.
        self.assertTrue(any(e["id"] == 51803 for e in log_entries(read(logpath).splitlines())))
        proc, port, logpath = self.start_logging("--logappend")
        client = pymongo.MongoClient(port=port, directConnection=True)
        before = read(logpath).count('"id":51803')
        client.admin.command("ping")
        client.close()
        self.stop(proc)
        self.assertEqual(read(logpath).count('"id":51803'), before)


    def test_log_component_verbosity_as_mongosh_sets_it(self):
        proc, port, logpath = self.start_logging()
        try:
            client = pymongo.MongoClient(port=port, directConnection=True)
            admin = client.admin
            levels = admin.command("getParameter", 1, logComponentVerbosity=1)["logComponentVerbosity"]
            self.assertEqual(levels["verbosity"], 0)
            self.assertEqual(levels["command"], {"verbosity": -1})
            self.assertEqual(levels["replication"]["election"], {"verbosity": -1})
            # db.setLogLevel(1, "command"): every command is now logged, as at mongod's level 1.
            reply = admin.command("setParameter", 1,
                                  logComponentVerbosity={"command": {"verbosity": 1}})
            self.assertEqual(reply["was"]["command"], {"verbosity": -1})
            client.test.command("ping", comment="logged")
            self.assertTrue(wait_for(lambda: '"comment":"logged"' in read(logpath).replace(" ", "")))
            admin.command("setParameter", 1, logComponentVerbosity={"command": {"verbosity": -1}})
            client.test.command("ping", comment="quiet")
            # logLevel is the global verbosity, which components without their own inherit.
            self.assertEqual(admin.command("setParameter", 1, logLevel=2)["was"], 0)
            self.assertEqual(admin.command("getParameter", 1, logLevel=1)["logLevel"], 2)
            self.assertEqual(admin.command("getParameter", 1, logComponentVerbosity=1)
                             ["logComponentVerbosity"]["verbosity"], 2)
            admin.command("setParameter", 1, logLevel=0)
            for bad in ({"bogus": {"verbosity": 1}}, {"verbosity": "x"}, 3, {"verbosity": -1}):
                with self.assertRaises(pymongo.errors.OperationFailure) as caught:
                    admin.command("setParameter", 1, logComponentVerbosity=bad)
                self.assertEqual(caught.exception.code, 2, bad)
            client.close()
        finally:
            self.stop(proc)
        self.assertNotIn('"comment":"quiet"', read(logpath).replace(" ", ""))


class FeatureCompatibilityVersionTest(unittest.TestCase):
    def test_fcv_is_70_and_cannot_be_downgraded(self):
        server = CairnServer()
        server.start()
        try:
            admin = server.client().admin
            self.assertEqual(admin.command("getParameter", 1, featureCompatibilityVersion=1)
                             ["featureCompatibilityVersion"], {"version": "7.0"})
            self.assertEqual(admin.command("setFeatureCompatibilityVersion", "7.0",
                                           confirm=True)["ok"], 1)
            for args, code in ((("6.0",), 7369100), (("5.0",), 2), ((7,), 14)):
                with self.assertRaises(pymongo.errors.OperationFailure) as caught:
                    admin.command("setFeatureCompatibilityVersion", *args)
                self.assertEqual(caught.exception.code, code, args)
            with self.assertRaises(pymongo.errors.OperationFailure) as caught:
                admin.command("setFeatureCompatibilityVersion", "6.0", confirm=True)
            self.assertEqual(caught.exception.code, 20)
            with self.assertRaises(pymongo.errors.OperationFailure) as caught:
                server.client().test.command("setFeatureCompatibilityVersion", "7.0")
            self.assertEqual(caught.exception.code, 13)  # admin only
        finally:
            server.stop()


class BindOptionsTest(unittest.TestCase):
    def test_bind_ip_all_with_ipv6_listens_on_both_families(self):
        server = CairnServer(args=("--nounixsocket",))
        # The harness passes --bind_ip 127.0.0.1; --bind_ip_all replaces it here.
        server._command = lambda: [CAIRND, "--port", str(server.port), "--dbpath", server.dbpath,
                                   "--bind_ip_all", "--ipv6", "--nounixsocket"]
        server.start()
        try:
            for host in ("127.0.0.1", "[::1]"):
                client = pymongo.MongoClient(host=host, port=server.port, directConnection=True,
                                             serverSelectionTimeoutMS=5000)
                self.assertEqual(client.admin.command("ping")["ok"], 1, host)
                client.close()
            client = server.client()
            net = client.admin.command("getCmdLineOpts")["parsed"]["net"]
            self.assertTrue(net["bindIpAll"])
            self.assertTrue(net["ipv6"])
            client.close()
        finally:
            server.stop()

    def test_cache_size_is_accepted_in_mongods_range(self):
        server = CairnServer(args=("--wiredTigerCacheSizeGB", "0.25"))
        server.start()
        try:
            client = server.client()
            parsed = client.admin.command("getCmdLineOpts")["parsed"]
            self.assertEqual(parsed["storage"]["wiredTiger"]["engineConfig"]["cacheSizeGB"], 0.25)
            client.close()
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main()
