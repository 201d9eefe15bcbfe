"""Text indexes through pymongo: createIndexes stores MongoDB's normal form ({_fts, _ftsx},
weights, languages, textIndexVersion 3), one text index per collection, $text in find, count
and aggregate's leading $match (stemming, stop words, phrases, negations, $language,
$caseSensitive), every write path keeping the index exact, explain's TEXT_MATCH, and the errors
MongoDB answers."""

import unittest

from pymongo import TEXT
from pymongo.errors import OperationFailure

from harness import ServerTestCase


def ids(cursor):
    return sorted(doc["_id"] for doc in cursor)


class TextIndexTest(ServerTestCase):

    def setUp(self):
        self.db = self.client["py_text"]
        self.coll = self.db.articles
        self.coll.drop()
        self.coll.insert_many([
            {"_id": 1, "title": "Running shoes", "body": "the best shoes for a morning run"},
            {"_id": 2, "title": "Coffee shop", "body": "a small coffee shop in the old town"},
            {"_id": 3, "title": "Tea", "body": "green tea and coffee cake"},
            {"_id": 4, "title": "Stop words", "body": "the and of"},
            {"_id": 5, "title": "no text", "n": 5},
        ])
        self.coll.create_index([("title", TEXT), ("body", TEXT)])

    def find(self, search, **options):
        text = {"$search": search}
        text.update(options)
        return ids(self.coll.find({"$text": text}))

    def test_list_indexes_prints_the_normal_form(self):
        specs = {spec["name"]: dict(spec) for spec in self.coll.list_indexes()}
        self.assertEqual(specs["title_text_body_text"], {
            "v": 2, "key": {"_fts": "text", "_ftsx": 1}, "name": "title_text_body_text",
            "weights": {"body": 1, "title": 1}, "default_language": "english",
            "language_override": "language", "textIndexVersion": 3})

    def test_only_one_text_index_per_collection(self):
        # The same normal form under another name, then other options: IndexOptionsConflict.
        with self.assertRaises(OperationFailure) as caught:
            self.coll.create_index([("title", TEXT), ("body", TEXT)], name="other")
        self.assertEqual(caught.exception.code, 85)
        with self.assertRaises(OperationFailure) as caught:
            self.coll.create_index([("summary", TEXT)])
        self.assertEqual(caught.exception.code, 85)
        # The same request again is a no-op.
        self.coll.create_index([("title", TEXT), ("body", TEXT)])

    def test_stemming_stop_words_and_case(self):
        self.assertEqual(self.find("run"), [1])
        self.assertEqual(self.find("RUNS"), [1])
        self.assertEqual(self.find("coffee"), [2, 3])
        self.assertEqual(self.find("the and"), [])  # only stop words
        self.assertEqual(self.find("tea shoes"), [1, 3])

    def test_phrases_and_negations(self):
        self.assertEqual(self.find('"coffee shop"'), [2])
        self.assertEqual(self.find('coffee -shop'), [3])
        self.assertEqual(self.find('coffee -"coffee shop"'), [3])
        self.assertEqual(self.find('"coffee cake" shop'), [3])

    def test_case_sensitive_and_language_none(self):
        self.assertEqual(self.find("Coffee", **{"$caseSensitive": True}), [2])
        # "none" neither stems nor drops stop words: "running" is not a key of an English index.
        self.assertEqual(self.find("running", **{"$language": "none"}), [])
        self.assertEqual(self.find("run", **{"$language": "none"}), [1])
        with self.assertRaises(OperationFailure) as caught:
            self.find("run", **{"$language": "klingon"})
        self.assertEqual(caught.exception.code, 2)

    def test_rest_of_filter_count_and_aggregate(self):
        self.assertEqual(ids(self.coll.find({"$text": {"$search": "coffee"}, "_id": {"$gt": 2}})),
                         [3])
        self.assertEqual(ids(self.coll.find({"$and": [{"$text": {"$search": "coffee"}},
                                                      {"title": "Tea"}]})), [3])
        self.assertEqual(self.coll.count_documents({"$text": {"$search": "coffee"}}), 2)
        got = list(self.coll.aggregate([{"$match": {"$text": {"$search": "coffee"}}},
                                        {"$project": {"_id": 1}}, {"$sort": {"_id": 1}}]))
        self.assertEqual(got, [{"_id": 2}, {"_id": 3}])

    def test_weights_and_languages(self):
        coll = self.db.weighted
        coll.drop()
        coll.insert_many([{"_id": 1, "a": "apple", "b": "pear"},
                          {"_id": 2, "a": "pear", "b": "apple"},
                          {"_id": 3, "a": "manzana", "idioma": "spanish"}])
        coll.create_index([("a", TEXT), ("b", TEXT)], weights={"a": 10},
                          default_language="english", language_override="idioma")
        spec = [s for s in coll.list_indexes() if s["name"] == "a_text_b_text"][0]
        self.assertEqual(spec["weights"], {"a": 10, "b": 1})
        self.assertEqual(spec["language_override"], "idioma")
        self.assertEqual(ids(coll.find({"$text": {"$search": "apple"}})), [1, 2])
        self.assertEqual(ids(coll.find({"$text": {"$search": "manzanas",
                                                  "$language": "es"}})), [3])

    def test_text_score_projection(self):
        got = {d["_id"]: d for d in self.coll.find({"$text": {"$search": "coffee shop"}},
                                                  {"score": {"$meta": "textScore"}})}
        self.assertEqual(sorted(got), [2, 3])
        # Both terms in both fields of 2; one term of 3's body: 2 scores higher.
        self.assertGreater(got[2]["score"], got[3]["score"])
        self.assertIn("body", got[2])  # a $meta-only projection keeps every field
        got = list(self.coll.find({"$text": {"$search": "tea"}}, {"_id": 0, "title": 1,
                                                                 "s": {"$meta": "textScore"}}))
        self.assertEqual(len(got), 1)
        self.assertEqual(sorted(got[0]), ["s", "title"])
        # Weights: the same word in a field of weight 10 scores higher than in one of weight 1.
        coll = self.db.scored
        coll.drop()
        coll.insert_many([{"_id": 1, "a": "pear", "b": "apple"},
                          {"_id": 2, "a": "apple", "b": "pear"}])
        coll.create_index([("a", TEXT), ("b", TEXT)], weights={"a": 10})
        got = {d["_id"]: d["score"] for d in coll.find({"$text": {"$search": "apple"}},
                                                       {"score": {"$meta": "textScore"}})}
        self.assertGreater(got[2], got[1])
        with self.assertRaises(OperationFailure) as caught:
            list(self.coll.find({"n": 5}, {"score": {"$meta": "textScore"}}))
        self.assertEqual(caught.exception.code, 40218)

    def test_text_score_sort(self):
        coll = self.db.sorted
        coll.drop()
        coll.insert_many([{"_id": 1, "a": "pear", "b": "apple"},
                          {"_id": 2, "a": "apple", "b": "pear"},
                          {"_id": 3, "a": "apple apple", "b": "apple"},
                          {"_id": 4, "a": "pear"}])
        coll.create_index([("a", TEXT), ("b", TEXT)], weights={"a": 10})
        query = {"$text": {"$search": "apple"}}
        got = list(coll.find(query, {"score": {"$meta": "textScore"}})
                   .sort([("score", {"$meta": "textScore"})]))
        self.assertEqual([d["_id"] for d in got], [3, 2, 1])
        self.assertEqual([d["score"] for d in got], sorted([d["score"] for d in got],
                                                          reverse=True))
        # Sorted without being projected: the score stays out of the documents.
        got = list(coll.find(query).sort([("score", {"$meta": "textScore"})]).limit(2))
        self.assertEqual(got, [{"_id": 3, "a": "apple apple", "b": "apple"},
                               {"_id": 2, "a": "apple", "b": "pear"}])
        plan = coll.find(query).sort([("score", {"$meta": "textScore"})]).explain()
        sort = plan["queryPlanner"]["winningPlan"]
        self.assertEqual(sort["stage"], "SORT")
        self.assertEqual(sort["sortPattern"], {"score": {"$meta": "textScore"}})
        self.assertEqual(sort["inputStage"]["stage"], "TEXT_MATCH")
        with self.assertRaises(OperationFailure) as caught:
            list(coll.find({"a": "pear"}).sort([("score", {"$meta": "textScore"})]))
        self.assertEqual(caught.exception.code, 40218)

    def test_every_write_path_keeps_the_index_exact(self):
        self.coll.update_one({"_id": 3}, {"$set": {"body": "black tea only"}})
        self.assertEqual(self.find("coffee"), [2])
        self.coll.replace_one({"_id": 5}, {"title": "coffee beans"})
        self.assertEqual(self.find("coffee"), [2, 5])
        self.coll.delete_one({"_id": 2})
        self.assertEqual(self.find("coffee"), [5])
        self.coll.insert_one({"_id": 6, "body": "Coffee"})
        self.assertEqual(self.find("coffee"), [5, 6])
        self.coll.find_one_and_update({"_id": 6}, {"$unset": {"body": 1}})
        self.assertEqual(self.find("coffee"), [5])
        self.coll.delete_many({"$text": {"$search": "coffee"}})
        self.assertEqual(self.find("coffee"), [])
        self.assertEqual(self.coll.count_documents({}), 4)

    def test_index_built_over_existing_documents(self):
        coll = self.db.later
        coll.drop()
        coll.insert_many([{"_id": i, "t": "word%d common" % i} for i in range(50)])
        coll.create_index([("t", TEXT)])
        self.assertEqual(len(ids(coll.find({"$text": {"$search": "common"}}))), 50)
        self.assertEqual(ids(coll.find({"$text": {"$search": "word7"}})), [7])

    def test_explain_shows_text_match(self):
        plan = self.coll.find({"$text": {"$search": "coffee -tea \"coffee shop\""}}).explain()
        node = plan["queryPlanner"]["winningPlan"]
        stages = []
        while node is not None:
            stages.append(node)
            node = node.get("inputStage")
        # Two terms: one IXSCAN each under an OR.
        self.assertEqual([s["stage"] for s in stages], ["TEXT_MATCH", "FETCH", "OR"])
        self.assertEqual([s["stage"] for s in stages[2]["inputStages"]], ["IXSCAN", "IXSCAN"])
        self.assertNotIn("filter", stages[1])
        self.assertEqual(stages[2]["inputStages"][0]["keyPattern"], {"_fts": "text", "_ftsx": 1})
        self.assertEqual(stages[0]["indexName"], "title_text_body_text")
        self.assertEqual(stages[0]["textIndexVersion"], 3)
        self.assertEqual(stages[0]["parsedTextQuery"], {
            "terms": ["coffe", "shop"], "negatedTerms": ["tea"], "phrases": ["coffee shop"],
            "negatedPhrases": []})
        plan = self.coll.find({"$text": {"$search": "coffee"}, "n": 5}).explain()
        node = plan["queryPlanner"]["winningPlan"]
        self.assertEqual(node["inputStage"]["filter"], {"n": 5})
        self.assertEqual(node["inputStage"]["inputStage"]["stage"], "IXSCAN")

    def test_errors(self):
        cases = [
            (self.db.no_index, {"$text": {"$search": "x"}}, 27),
            (self.coll, {"$text": "x"}, 2),
            (self.coll, {"$text": {"$search": 1}}, 14),
            (self.coll, {"$text": {"$search": "x", "$other": 1}}, 2),
            (self.coll, {"$text": {"$search": "x", "$caseSensitive": 1}}, 14),
            (self.coll, {"$and": [{"$text": {"$search": "x"}}, {"$text": {"$search": "y"}}]}, 2),
            (self.coll, {"$nor": [{"$text": {"$search": "x"}}]}, 2),
            (self.coll, {"$or": [{"$text": {"$search": "x"}}, {"n": 1}]}, 291),
            (self.coll, {"a": {"$elemMatch": {"$text": {"$search": "x"}}}}, 2),
        ]
        self.db.no_index.insert_one({"a": "x"})
        for coll, query, code in cases:
            with self.assertRaises(OperationFailure, msg=str(query)) as caught:
                list(coll.find(query))
            self.assertEqual(caught.exception.code, code, str(query))
        with self.assertRaises(OperationFailure) as caught:
            list(self.coll.aggregate([{"$match": {"n": 5}},
                                      {"$match": {"$text": {"$search": "x"}}}]))
        self.assertEqual(caught.exception.code, 17313)


if __name__ == "__main__":
    unittest.main()
