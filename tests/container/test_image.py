"""The container image as a compose file or a test suite uses it, driven with podman.

Run by docker/test_image.sh (a phase of tools/test.sh), which builds the image and sets
CAIRN_IMAGE (and the containers.conf podman needs on these machines) first. Each test starts its
own containers with a random host port on 127.0.0.1 and removes them, and their volumes, after.
"""

import json
import os
import subprocess
import tempfile
import time
import unittest
import uuid

import pymongo

IMAGE = os.environ.get("CAIRN_IMAGE", "localhost/cairn:ci")
MONGOSH = os.environ.get("MONGOSH", "mongosh")


def podman(*args, check=True, timeout=60):
    return subprocess.run(["podman", *args], capture_output=True, text=True, check=check,
                          timeout=timeout)


class ImageTest(unittest.TestCase):
    def setUp(self):
        self.containers = []
        self.volumes = []

    def tearDown(self):
        for name in self.containers:
            podman("rm", "-f", "-t", "0", name, check=False)
        for name in self.volumes:
            podman("volume", "rm", "-f", name, check=False)

    def volume(self):
        name = "cairn-test-" + uuid.uuid4().hex[:8]
        podman("volume", "create", name)
        self.volumes.append(name)
        return name

    def start(self, *cairnd_args, volume=None, env=None, mounts=(), wait=True):
        """Starts a container; returns (name, port). Waits until the server answers ping."""
        name = "cairn-test-" + uuid.uuid4().hex[:8]
        args = ["run", "-d", "--name", name, "-p", "127.0.0.1::27017"]
        if volume:
            args += ["-v", f"{volume}:/data/db"]
        for host, inside in mounts:
            args += ["-v", f"{host}:{inside}:ro"]
        for key, value in (env or {}).items():
            args += ["-e", f"{key}={value}"]
        podman(*args, IMAGE, *cairnd_args)
        self.containers.append(name)
        if not wait:
            return name, None
        port = int(podman("port", name, "27017").stdout.strip().rsplit(":", 1)[1])
        self.wait_for_ping(name, port)
        return name, port

    def wait_for_ping(self, name, port):
        deadline = time.monotonic() + 30
        while True:
            try:
                with pymongo.MongoClient(port=port, directConnection=True,
                                         serverSelectionTimeoutMS=500) as client:
                    client.admin.command("ping")
                return
            except pymongo.errors.PyMongoError:
                state = podman("inspect", "--format", "{{.State.Status}}", name).stdout.strip()
                if state != "running" or time.monotonic() > deadline:
                    self.fail(f"container {name} is {state} and does not answer:\n"
                              + self.logs(name))
                time.sleep(0.2)

    def logs(self, name):
        result = podman("logs", name, check=False)
        return result.stdout + result.stderr

    def client(self, port):
        client = pymongo.MongoClient(port=port, directConnection=True,
                                     serverSelectionTimeoutMS=5000)
        self.addCleanup(client.close)
        return client

    def wait_for_exit(self, name, timeout=30):
        podman("wait", name, timeout=timeout)
        return int(podman("inspect", "--format", "{{.State.ExitCode}}", name).stdout.strip())

    def initdb_dir(self, files):
        directory = tempfile.mkdtemp(prefix="cairn-initdb-")
        self.addCleanup(subprocess.run, ["rm", "-rf", directory])
        os.chmod(directory, 0o755)  # the server's user (cairn, uid 999) reads it
        for file_name, text in files.items():
            path = os.path.join(directory, file_name)
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
            os.chmod(path, 0o755 if file_name.endswith(".sh") else 0o644)
        return directory

    # --- connecting ---------------------------------------------------------------------------

    def test_pymongo_and_mongosh_connect(self):
        _, port = self.start()
        client = self.client(port)
        client.shop.orders.insert_many([{"_id": i, "total": i * 10} for i in range(5)])
        self.assertEqual(client.shop.orders.count_documents({"total": {"$gte": 20}}), 3)
        shell = subprocess.run(
            [MONGOSH, f"mongodb://127.0.0.1:{port}/shop", "--quiet", "--norc", "--eval",
             "EJSON.stringify(db.orders.find({_id: {$lt: 2}}).sort({_id: 1}).toArray())"],
            capture_output=True, text=True, timeout=60, check=True)
        self.assertEqual(json.loads(shell.stdout.strip()),
                         [{"_id": 0, "total": 0}, {"_id": 1, "total": 10}])

    def test_server_runs_as_a_non_root_user_on_data_db(self):
        name, port = self.start()
        self.assertEqual(podman("exec", name, "id", "-un").stdout.strip(), "cairn")
        opts = self.client(port).admin.command("getCmdLineOpts")
        self.assertEqual(opts["parsed"]["storage"]["dbPath"], "/data/db")
        config = json.loads(podman("image", "inspect", IMAGE).stdout)[0]["Config"]
        self.assertIn("27017/tcp", config["ExposedPorts"])
        self.assertIn("/data/db", config["Volumes"])

    def test_arguments_pass_through_to_cairnd(self):
        _, port = self.start("--replSet", "rs0", "--setParameter", "ttlMonitorSleepSecs=123")
        client = self.client(port)
        opts = client.admin.command("getCmdLineOpts")
        self.assertEqual(opts["parsed"]["replication"]["replSetName"], "rs0")
        self.assertEqual(
            client.admin.command("getParameter", 1, ttlMonitorSleepSecs=1)["ttlMonitorSleepSecs"],
            123)

    # --- lifecycle ----------------------------------------------------------------------------

    def test_data_survives_a_restart_and_a_new_container_on_the_volume(self):
        volume = self.volume()
        name, port = self.start(volume=volume)
        self.client(port).app.users.insert_one({"_id": "ada", "langs": ["en"]})
        self.client(port).app.users.create_index("langs")
        podman("restart", name, timeout=60)
        port = int(podman("port", name, "27017").stdout.strip().rsplit(":", 1)[1])
        self.wait_for_ping(name, port)
        self.assertEqual(self.client(port).app.users.find_one()["_id"], "ada")
        podman("rm", "-f", name)
        _, port = self.start(volume=volume)
        client = self.client(port)
        self.assertEqual(client.app.users.find_one({"langs": "en"})["_id"], "ada")
        self.assertIn("langs_1", client.app.users.index_information())

    def test_podman_stop_is_a_clean_shutdown(self):
        volume = self.volume()
        name, port = self.start(volume=volume)
        self.client(port).app.events.insert_one({"kind": "acknowledged before stop"})
        began = time.monotonic()
        podman("stop", "-t", "20", name, timeout=60)
        self.assertLess(time.monotonic() - began, 15, "SIGTERM should stop the server promptly")
        self.assertEqual(self.wait_for_exit(name), 0)  # not 137: no SIGKILL was needed
        self.assertIn('"Now exiting"', self.logs(name))
        _, port = self.start(volume=volume)
        self.assertEqual(self.client(port).app.events.count_documents({}), 1)

    def test_health_check_turns_healthy(self):
        name, _ = self.start()
        image = json.loads(podman("image", "inspect", IMAGE).stdout)[0]
        self.assertEqual(image["Healthcheck"]["Test"],
                         ["CMD", "/usr/local/bin/cairnd", "--ping"])
        # podman schedules health checks with systemd timers; where there is no systemd (these
        # machines) `podman healthcheck run` runs the image's check, as the timer would.
        deadline = time.monotonic() + 30
        while podman("healthcheck", "run", name, check=False).returncode != 0:
            self.assertLess(time.monotonic(), deadline, self.logs(name))
            time.sleep(0.5)
        status = podman("inspect", "--format", "{{.State.Health.Status}}", name).stdout.strip()
        self.assertEqual(status, "healthy")

    def test_health_check_fails_when_the_server_is_not_answering(self):
        # The same command inside a container whose server listens elsewhere: unhealthy.
        name, _ = self.start()
        result = podman("exec", name, "cairnd", "--ping", "--port", "27999", check=False)
        self.assertEqual(result.returncode, 1)
        self.assertIn("cannot connect to 127.0.0.1:27999", result.stderr)

    # --- the official image's first-start conventions -------------------------------------------

    def test_initdb_loads_json_files_and_runs_scripts_once(self):
        directory = self.initdb_dir({
            "people.jsonl": '{"_id": 1, "name": "Ada", "born": {"$date": "1815-12-10T00:00:00Z"}}\n'
                               '{"_id": 2, "name": "Alan", "id": {"$oid": "5f1e8a1b2c3d4e5f6a7b8c9d"}}\n',
            "prices.json": '[{"sku": "a", "price": {"$numberDecimal": "9.99"}}, {"sku": "b"}]',
            "10-announce.sh": '#!/bin/sh\necho "init script sees db=$MONGO_INITDB_DATABASE"\n'
                              'cairnd --ping --port 27017 && echo "init script reached the server"\n',
            "20-sourced.sh": 'echo "sourced script ran"\n',
            "README.txt": "not loaded",
        })
        volume = self.volume()
        name, port = self.start(volume=volume, env={"MONGO_INITDB_DATABASE": "shop"},
                                mounts=[(directory, "/docker-entrypoint-initdb.d")])
        client = self.client(port)
        people = list(client.shop.people.find().sort("_id", 1))
        self.assertEqual([p["name"] for p in people], ["Ada", "Alan"])
        self.assertEqual(people[0]["born"].year, 1815)
        self.assertEqual(str(client.shop.prices.find_one({"sku": "a"})["price"]), "9.99")
        logs = self.logs(name)
        self.assertIn("init script sees db=shop", logs)
        self.assertIn("init script reached the server", logs)
        self.assertIn("sourced script ran", logs)
        self.assertIn("ignoring /docker-entrypoint-initdb.d/README.txt", logs)
        # The temporary server listened on 127.0.0.1 only; the real one on every address.
        self.assertEqual(client.admin.command("getCmdLineOpts")["parsed"]["net"]["bindIpAll"],
                         True)
        # Second start on the same volume: nothing runs again.
        podman("rm", "-f", name)
        name, port = self.start(volume=volume, env={"MONGO_INITDB_DATABASE": "shop"},
                                mounts=[(directory, "/docker-entrypoint-initdb.d")])
        self.assertEqual(self.client(port).shop.people.count_documents({}), 2)
        self.assertNotIn("init script sees", self.logs(name))

    def test_initdb_stops_at_a_bad_json_file(self):
        directory = self.initdb_dir({"bad.jsonl": '{"_id": 1}\n{"_id": \n'})
        name, _ = self.start(mounts=[(directory, "/docker-entrypoint-initdb.d")], wait=False)
        self.assertEqual(self.wait_for_exit(name), 1)
        self.assertIn("bad.jsonl: document 2", self.logs(name))

    def test_javascript_init_scripts_are_refused(self):
        directory = self.initdb_dir({"init.js": "db.things.insertOne({a: 1})"})
        name, _ = self.start(mounts=[(directory, "/docker-entrypoint-initdb.d")], wait=False)
        self.assertEqual(self.wait_for_exit(name), 1)
        self.assertIn("init.js: JavaScript init scripts need a mongo shell", self.logs(name))

    def test_root_user_variables_are_refused_rather_than_starting_open(self):
        name, _ = self.start(env={"MONGO_INITDB_ROOT_USERNAME": "root",
                                  "MONGO_INITDB_ROOT_PASSWORD": "secret"}, wait=False)
        self.assertEqual(self.wait_for_exit(name), 1)
        self.assertIn("MONGO_INITDB_ROOT_USERNAME is set", self.logs(name))
        self.assertIn("Refusing to start a server open to everyone", self.logs(name))


if __name__ == "__main__":
    unittest.main()
