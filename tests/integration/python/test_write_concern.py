"""Write concerns as a standalone mongod takes them (pymongo 3.11): w 0/1/"majority" and j or
fsync succeed (j: true syncs the WAL before the reply); w > 1 and unknown modes fail the
command before anything is written."""

import unittest

from pymongo.errors import OperationFailure
from pymongo.write_concern import WriteConcern

from harness import ServerTestCase


class WriteConcernTest(ServerTestCase):

    def coll(self, **concern):
        return self.client.wc_tests.get_collection("c", write_concern=WriteConcern(**concern))

    def test_acknowledged_concerns_write(self):
        self.client.wc_tests.c.drop()
        for concern in (dict(w=1), dict(w=1, j=True), dict(w="majority"), dict(fsync=True),
                        dict(w=1, wtimeout=100)):
            self.coll(**concern).insert_one({"concern": str(concern)})
        self.assertEqual(self.client.wc_tests.c.count_documents({}), 5)

    def test_w_above_one_fails_on_a_standalone_and_writes_nothing(self):
        self.client.wc_tests.c.drop()
        with self.assertRaises(OperationFailure) as caught:
            self.coll(w=2).insert_one({"x": 1})
        self.assertEqual(caught.exception.code, 2)
        self.assertIn("cannot use 'w' > 1 with a standalone", str(caught.exception))
        self.assertEqual(self.client.wc_tests.c.count_documents({}), 0)

    def test_unknown_mode_is_79(self):
        with self.assertRaises(OperationFailure) as caught:
            self.coll(w="dc1").insert_one({"x": 1})
        self.assertEqual(caught.exception.code, 79)

    def test_unknown_write_concern_field_is_40415(self):
        with self.assertRaises(OperationFailure) as caught:
            self.client.wc_tests.command(
                {"insert": "c", "documents": [{"a": 1}], "writeConcern": {"w": 1, "x": 1}})
        self.assertEqual(caught.exception.code, 40415)


if __name__ == "__main__":
    unittest.main()
