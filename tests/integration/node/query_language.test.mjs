// The query and update language through the official Node driver, checked against MongoDB 7.0's
// documented results: find options (showRecordId, returnKey), update operators (field order, type
// promotion, positional, arrayFilters, pipeline updates, upserts with $setOnInsert),
// findAndModify, and collation in writes. Each test uses its own collection. The behaviours that
// are plainly a command and its reply (type order, comparisons, arrays, null and missing, $type,
// $regex, $expr, projections, bad filters and bad updates) are spec files: tests/spec/find/ and
// tests/spec/update/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, expectServerError, mongodb } from './harness.mjs';

const { Double, Int32, Long, ObjectId } = mongodb;

let server;
let client;
let db;

before(async () => {
  server = await startServer();
  client = await connect(server);
  db = client.db('querylang');
});

after(async () => {
  await client?.close();
  await server?.stop();
});

// The BSON type name of field `field` of the document with `_id`, as the server sees it.
async function typeOf(coll, _id, field) {
  const [doc] = await coll.aggregate([{ $match: { _id } }, { $project: { t: { $type: `$${field}` } } }]).toArray();
  return doc.t;
}

// ---------------------------------------------------------------------------------------------
// Find options.

test('showRecordId appends $recordId; returnKey answers {} for a collection scan and the key for an index scan', async () => {
  const c = db.collection('find_options');
  await c.insertMany([{ _id: 1, a: 10, b: 'x' }, { _id: 2, a: 20, b: 'y' }]);
  const find = (extra) => db.command({ find: 'find_options', ...extra });
  const shown = (await find({ showRecordId: true, projection: { a: 1 } })).cursor.firstBatch;
  assert.deepEqual(shown.map((d) => Object.keys(d)), [['_id', 'a', '$recordId'], ['_id', 'a', '$recordId']]);
  assert.ok(shown.every((d) => typeof d.$recordId === 'number' || d.$recordId instanceof Long));
  assert.notEqual(Number(shown[0].$recordId), Number(shown[1].$recordId));
  assert.deepEqual((await find({ returnKey: true })).cursor.firstBatch, [{}, {}]);
  assert.deepEqual((await find({ returnKey: true, showRecordId: true })).cursor.firstBatch, [{}, {}]);
  assert.deepEqual((await find({ returnKey: true, filter: { _id: 2 } })).cursor.firstBatch, [{ _id: 2 }]);
  // Sorting by _id scans the _id index, whose keys are then returned.
  assert.deepEqual((await find({ returnKey: true, sort: { _id: -1 } })).cursor.firstBatch, [{ _id: 2 }, { _id: 1 }]);
  await c.createIndex({ a: 1 });
  assert.deepEqual((await find({ returnKey: true, filter: { a: { $gt: 15 } }, hint: 'a_1' })).cursor.firstBatch,
    [{ a: 20 }]);
  await expectServerError(find({ max: { a: 15 } }), { code: 51173 });
});

// ---------------------------------------------------------------------------------------------
// Updates.

test('field operators: $set, $unset, $inc, $mul, $rename, $min, $max, $currentDate keep field order', async () => {
  const c = db.collection('field_ops');
  await c.insertOne({ _id: 1, a: 1, b: 'x', n: 10, lo: 5, hi: 5, old: 'o' });
  const res = await c.updateOne({ _id: 1 }, {
    $set: { b: 'y', 'nested.deep': true }, $unset: { a: '' }, $inc: { n: 5, fresh: 1 }, $mul: { lo: 2 },
    $rename: { old: 'renamed' }, $max: { hi: 7 }, $currentDate: { at: true },
  });
  assert.equal(res.matchedCount, 1);
  assert.equal(res.modifiedCount, 1);
  const doc = await c.findOne({ _id: 1 });
  assert.ok(doc.at instanceof Date);
  delete doc.at;
  // Existing fields stay in place; new ones are appended in lexicographic order.
  assert.deepEqual(Object.keys(doc), ['_id', 'b', 'n', 'lo', 'hi', 'fresh', 'nested', 'renamed']);
  assert.deepEqual(doc, { _id: 1, b: 'y', n: 15, lo: 10, hi: 7, fresh: 1, nested: { deep: true }, renamed: 'o' });
  assert.equal((await c.updateOne({ _id: 1 }, { $min: { hi: 9 } })).modifiedCount, 0);
  assert.equal((await c.updateOne({ _id: 1 }, { $set: { b: 'y' } })).modifiedCount, 0);
});

test('$inc past int32 promotes to long; $inc and $mul keep the widest type', async () => {
  const c = db.collection('overflow');
  await c.insertOne({ _id: 1, i: new Int32(2147483647), d: new Int32(2), l: Long.fromNumber(3) });
  await c.updateOne({ _id: 1 }, { $inc: { i: 1, d: new Double(0.5) }, $mul: { l: new Int32(2) } });
  const doc = await c.findOne({ _id: 1 });
  assert.equal(doc.i, 2147483648);
  assert.equal(await typeOf(c, 1, 'i'), 'long');
  assert.equal(doc.d, 2.5);
  assert.equal(await typeOf(c, 1, 'd'), 'double');
  assert.equal(await typeOf(c, 1, 'l'), 'long');
});

test('array operators: $push with $each/$position/$sort/$slice, $addToSet, $pop, $pull, $pullAll', async () => {
  const c = db.collection('array_ops');
  await c.insertOne({ _id: 1, a: [3, 1], s: ['x'], p: [1, 2, 3], q: [1, 5, 8, 2], r: [1, 2, 1, 3] });
  await c.updateOne({ _id: 1 }, {
    $push: { a: { $each: [5, 2], $sort: -1, $slice: 3 } },
    $addToSet: { s: { $each: ['x', 'y', 'y'] } },
    $pop: { p: -1 },
    $pull: { q: { $gte: 5 } },
    $pullAll: { r: [1, 3] },
  });
  assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, a: [5, 3, 2], s: ['x', 'y'], p: [2, 3], q: [1, 2], r: [2] });
  await c.updateOne({ _id: 1 }, { $push: { a: { $each: [9], $position: 0 } } });
  assert.deepEqual((await c.findOne({ _id: 1 })).a, [9, 5, 3, 2]);
  assert.equal((await c.updateOne({ _id: 1 }, { $addToSet: { s: 'x' } })).modifiedCount, 0);
  await c.updateOne({ _id: 1 }, { $push: { items: { n: 'b' } } });
  await c.updateOne({ _id: 1 }, { $push: { items: { $each: [{ n: 'c' }, { n: 'a' }], $sort: { n: 1 } } } });
  assert.deepEqual((await c.findOne({ _id: 1 })).items, [{ n: 'a' }, { n: 'b' }, { n: 'c' }]);
  await c.updateOne({ _id: 1 }, { $pull: { items: { n: { $in: ['a', 'c'] } } } });
  assert.deepEqual((await c.findOne({ _id: 1 })).items, [{ n: 'b' }]);
});

test('positional $, all-positional $[] and filtered $[id] with arrayFilters', async () => {
  const c = db.collection('positional');
  await c.insertMany([
    { _id: 1, grades: [80, 85, 90], items: [{ q: 1, ok: false }, { q: 5, ok: false }] },
    { _id: 2, grades: [85, 100], items: [] },
  ]);
  await c.updateOne({ _id: 1, grades: 85 }, { $set: { 'grades.$': 86 } });
  assert.deepEqual((await c.findOne({ _id: 1 })).grades, [80, 86, 90]);
  await c.updateOne({ _id: 1, 'items.q': 5 }, { $set: { 'items.$.ok': true } });
  assert.deepEqual((await c.findOne({ _id: 1 })).items, [{ q: 1, ok: false }, { q: 5, ok: true }]);
  await c.updateMany({}, { $inc: { 'grades.$[]': 1 } });
  assert.deepEqual((await c.find().sort({ _id: 1 }).toArray()).map((d) => d.grades), [[81, 87, 91], [86, 101]]);
  const res = await c.updateMany({}, { $set: { 'grades.$[g]': 100 } }, { arrayFilters: [{ g: { $gte: 90 } }] });
  assert.equal(res.matchedCount, 2);
  assert.equal(res.modifiedCount, 2);
  assert.deepEqual((await c.find().sort({ _id: 1 }).toArray()).map((d) => d.grades), [[81, 87, 100], [86, 100]]);
  await c.updateOne({ _id: 1 }, { $set: { 'items.$[it].ok': 'big' } }, { arrayFilters: [{ 'it.q': { $gt: 2 } }] });
  assert.deepEqual((await c.findOne({ _id: 1 })).items, [{ q: 1, ok: false }, { q: 5, ok: 'big' }]);
  await expectServerError(c.updateOne({ _id: 1 }, { $set: { 'grades.$': 1 } }), {
    code: 2, message: 'The positional operator did not find the match needed from the query.',
  });
  await expectServerError(c.updateOne({ _id: 1 }, { $set: { 'grades.$[x]': 1 } }), {
    code: 2, message: "No array filter found for identifier 'x' in path 'grades.$[x]'",
  });
});

test('pipeline-style updates compute from the document and the command\'s let', async () => {
  const c = db.collection('pipeline_updates');
  await c.insertMany([{ _id: 1, a: 2, b: 3, tmp: 'x' }, { _id: 2, a: 10, b: 1, tmp: 'y' }]);
  const res = await c.updateMany({}, [
    { $set: { total: { $add: ['$a', '$b'] }, scaled: { $multiply: ['$a', '$$factor'] } } },
    { $unset: 'tmp' },
  ], { let: { factor: 10 } });
  assert.equal(res.modifiedCount, 2);
  assert.deepEqual(await c.find().sort({ _id: 1 }).toArray(), [
    { _id: 1, a: 2, b: 3, total: 5, scaled: 20 },
    { _id: 2, a: 10, b: 1, total: 11, scaled: 100 },
  ]);
  await c.updateOne({ _id: 1 }, [{ $replaceWith: { _id: '$_id', sum: '$total' } }]);
  assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, sum: 5 });
  await expectServerError(c.updateOne({ _id: 1 }, [{ $group: { _id: null } }]), { code: 72 });
});

test('upserts: equality predicates seed the new document, $setOnInsert applies only on insert', async () => {
  const c = db.collection('upserts');
  const first = await c.updateOne(
    { sku: 'abc', 'dims.w': 2, qty: { $gt: 0 } },
    { $set: { price: 5 }, $setOnInsert: { created: true } },
    { upsert: true });
  assert.equal(first.upsertedCount, 1);
  assert.equal(first.matchedCount, 0);
  assert.ok(first.upsertedId instanceof ObjectId);
  const inserted = await c.findOne({ sku: 'abc' });
  assert.deepEqual(inserted, { _id: first.upsertedId, sku: 'abc', dims: { w: 2 }, price: 5, created: true });

  await c.updateOne({ sku: 'abc' }, { $set: { qty: 1 } });
  const second = await c.updateOne({ sku: 'abc' }, { $set: { price: 6 }, $setOnInsert: { created: false } }, { upsert: true });
  assert.equal(second.upsertedCount, 0);
  assert.equal(second.modifiedCount, 1);
  assert.equal((await c.findOne({ sku: 'abc' })).created, true);

  const replaced = await c.replaceOne({ _id: 'r1', kind: 'ignored' }, { kind: 'full' }, { upsert: true });
  assert.equal(replaced.upsertedId, 'r1');
  assert.deepEqual(await c.findOne({ _id: 'r1' }), { _id: 'r1', kind: 'full' });

  const withId = await c.updateOne({ _id: 7 }, { $inc: { n: 1 } }, { upsert: true });
  assert.equal(withId.upsertedId, 7);
  assert.deepEqual(await c.findOne({ _id: 7 }), { _id: 7, n: 1 });
});

// ---------------------------------------------------------------------------------------------
// findAndModify.

test('findAndModify: new, fields, sort, upsert, remove and lastErrorObject', async () => {
  const c = db.collection('fam');
  await c.insertMany([{ _id: 1, q: 'a', n: 1 }, { _id: 2, q: 'a', n: 5 }, { _id: 3, q: 'b', n: 3 }]);

  const before = await c.findOneAndUpdate({ q: 'a' }, { $inc: { n: 10 } }, { sort: { n: -1 } });
  assert.deepEqual(before, { _id: 2, q: 'a', n: 5 });
  const after = await c.findOneAndUpdate({ q: 'a' }, { $inc: { n: 1 } },
    { sort: { n: 1 }, returnDocument: 'after', projection: { _id: 0, n: 1, doubled: { $multiply: ['$n', 2] } } });
  assert.deepEqual(after, { n: 2, doubled: 4 });

  const meta = await c.findOneAndUpdate({ q: 'a', n: 2 }, { $set: { seen: true } },
    { includeResultMetadata: true, returnDocument: 'after' });
  assert.equal(meta.ok, 1);
  assert.deepEqual(meta.lastErrorObject, { n: 1, updatedExisting: true });
  assert.deepEqual(meta.value, { _id: 1, q: 'a', n: 2, seen: true });

  const upserted = await c.findOneAndUpdate({ _id: 9 }, { $set: { q: 'z' } },
    { upsert: true, returnDocument: 'after', includeResultMetadata: true });
  assert.deepEqual(upserted.lastErrorObject, { n: 1, updatedExisting: false, upserted: 9 });
  assert.deepEqual(upserted.value, { _id: 9, q: 'z' });

  const nothing = await c.findOneAndUpdate({ q: 'nope' }, { $set: { x: 1 } }, { includeResultMetadata: true });
  assert.deepEqual(nothing.lastErrorObject, { n: 0, updatedExisting: false });
  assert.equal(nothing.value, null);

  const removed = await c.findOneAndDelete({ q: { $in: ['a', 'b'] } }, { sort: { n: -1 }, projection: { n: 1 } });
  assert.deepEqual(removed, { _id: 2, n: 15 });
  assert.equal(await c.countDocuments({ _id: 2 }), 0);

  const replaced = await c.findOneAndReplace({ _id: 3 }, { q: 'c' }, { returnDocument: 'after' });
  assert.deepEqual(replaced, { _id: 3, q: 'c' });

  const pipelined = await c.findOneAndUpdate({ _id: 3 }, [{ $set: { len: { $strLenCP: '$q' } } }],
    { returnDocument: 'after' });
  assert.deepEqual(pipelined, { _id: 3, q: 'c', len: 1 });

  await c.insertOne({ _id: 10, arr: [1, 2, 3] });
  const filtered = await db.command({
    findAndModify: 'fam', query: { _id: 10 }, update: { $set: { 'arr.$[e]': 0 } }, new: true,
    arrayFilters: [{ e: { $gt: 1 } }], fields: { _id: 0 },
  });
  assert.deepEqual(filtered.lastErrorObject, { n: 1, updatedExisting: true });
  assert.deepEqual(filtered.value, { arr: [1, 0, 0] });
});

// ---------------------------------------------------------------------------------------------
// Errors.

// Write errors carry index, code and errmsg (no codeName), as MongoDB's do.
test('an arrayFilters identifier the update does not use is FailedToParse (9)', async () => {
  const c = db.collection('bad_updates');
  await c.insertOne({ _id: 1, a: 1, s: 'text', arr: [1, 2] });
  await expectServerError(c.updateOne({ _id: 1 }, { $set: { 'arr.$[]': 1 } }, { arrayFilters: [{ x: 1 }] }), {
    code: 9, message: /The array filter for identifier 'x' was not used in the update/,
  });
  // The document is unchanged by the failed statement.
  assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, a: 1, s: 'text', arr: [1, 2] });
});

test('updates and projections compare strings under the command\'s collation', async () => {
  const c = db.collection('collated_writes');
  await c.insertOne({ _id: 1, tags: ['apple', 'Pear'], best: 'b', list: [{ n: 'x' }, { n: 'Y' }] });
  const ci = { locale: 'en', strength: 2 };
  assert.equal((await c.updateOne({ _id: 1 }, { $addToSet: { tags: 'APPLE' } }, { collation: ci })).modifiedCount, 0);
  await c.updateOne({ _id: 1 }, { $pull: { tags: 'pear' } }, { collation: ci });
  await c.updateOne({ _id: 1 }, { $max: { best: 'C' } }, { collation: ci });
  await c.updateOne({ _id: 1 }, { $set: { 'list.$[e].hit': true } }, { collation: ci, arrayFilters: [{ 'e.n': 'y' }] });
  assert.deepEqual(await c.findOne({ _id: 1 }), {
    _id: 1, tags: ['apple'], best: 'C', list: [{ n: 'x' }, { n: 'Y', hit: true }],
  });
  // Without the collation, binary comparison: 'APPLE' is new.
  assert.equal((await c.updateOne({ _id: 1 }, { $addToSet: { tags: 'APPLE' } })).modifiedCount, 1);
  const projected = await c.findOne({}, { projection: { list: { $elemMatch: { n: 'X' } } }, collation: ci });
  assert.deepEqual(projected, { _id: 1, list: [{ n: 'x' }] });
});
