// The query and update language through the official Node driver, checked against MongoDB 7.0's
// documented results: BSON type order in sort and comparison, arrays (any element, dotted paths
// through arrays of documents, numeric path components, $elemMatch, $size, $all), missing versus
// null, numbers across int/long/double/decimal, $regex options, $type aliases, $expr with let,
// find projections with expressions, find options (showRecordId, returnKey), update operators
// (positional, arrayFilters, pipeline updates, upserts with $setOnInsert), findAndModify, and the
// error codes of bad filters and updates. Each test uses its own collection.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, expectServerError, mongodb } from './harness.mjs';

const {
  Binary, BSONRegExp, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp,
} = mongodb;

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

// The _ids a query returns, in order (sorted by _id unless `sort` is given).
async function ids(coll, filter, { sort = { _id: 1 }, ...options } = {}) {
  const docs = await coll.find(filter, { ...options, projection: { _id: 1 } }).sort(sort).toArray();
  return docs.map((d) => d._id);
}

// The BSON type name of field `field` of the document with `_id`, as the server sees it.
async function typeOf(coll, _id, field) {
  const [doc] = await coll.aggregate([{ $match: { _id } }, { $project: { t: { $type: `$${field}` } } }]).toArray();
  return doc.t;
}

// ---------------------------------------------------------------------------------------------
// Type order, comparison and sort.

test('sort orders values by BSON type first: MinKey < null = missing < numbers < string < object < binData < ObjectId < bool < date < timestamp < regex < MaxKey', async () => {
  const c = db.collection('type_order');
  await c.insertMany([
    { _id: 'maxkey', v: new MaxKey() },
    { _id: 'regex', v: new BSONRegExp('a', '') },
    { _id: 'timestamp', v: new Timestamp({ t: 1, i: 1 }) },
    { _id: 'date', v: new Date(0) },
    { _id: 'true', v: true },
    { _id: 'false', v: false },
    { _id: 'oid', v: new ObjectId('000000000000000000000001') },
    { _id: 'bin', v: new Binary(Buffer.from([1])) },
    { _id: 'object', v: { a: 1 } },
    { _id: 'string', v: 'a' },
    { _id: 'decimal3', v: Decimal128.fromString('3') },
    { _id: 'double2.5', v: new Double(2.5) },
    { _id: 'long2', v: Long.fromNumber(2) },
    { _id: 'int1', v: new Int32(1) },
    { _id: 'null', v: null },
    { _id: 'missing' },
    { _id: 'minkey', v: new MinKey() },
  ]);
  const ascending = await ids(c, {}, { sort: { v: 1, _id: 1 } });
  assert.deepEqual(ascending, [
    'minkey', 'missing', 'null', 'int1', 'long2', 'double2.5', 'decimal3', 'string', 'object', 'bin',
    'oid', 'false', 'true', 'date', 'timestamp', 'regex', 'maxkey',
  ]);
  const descending = await ids(c, {}, { sort: { v: -1, _id: 1 } });
  assert.deepEqual(descending, [
    'maxkey', 'regex', 'timestamp', 'date', 'true', 'false', 'oid', 'bin', 'object', 'string',
    'decimal3', 'double2.5', 'long2', 'int1', 'missing', 'null', 'minkey',
  ]);
});

test('comparison operators only match values of the same type bracket', async () => {
  const c = db.collection('type_bracket');
  await c.insertMany([
    { _id: 1, v: 5 }, { _id: 2, v: '5' }, { _id: 3, v: 'abc' }, { _id: 4, v: null }, { _id: 5 },
    { _id: 6, v: new Date(5) }, { _id: 7, v: true }, { _id: 8, v: [1, 'z'] },
  ]);
  assert.deepEqual(await ids(c, { v: { $gt: 1 } }), [1]);
  assert.deepEqual(await ids(c, { v: { $lt: 'b' } }), [2, 3]);
  assert.deepEqual(await ids(c, { v: { $gte: 'z' } }), [8]);  // an array element matches
  assert.deepEqual(await ids(c, { v: { $gt: new Date(0) } }), [6]);
  assert.deepEqual(await ids(c, { v: { $gte: null } }), [4, 5]);
  assert.deepEqual(await ids(c, { v: { $lte: null } }), [4, 5]);
  assert.deepEqual(await ids(c, { v: { $gt: new MinKey() } }), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(await ids(c, { v: { $lt: new MaxKey() } }), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(await ids(c, { v: { $ne: 5 } }), [2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(await ids(c, { v: { $in: [5, 'abc'] } }), [1, 3]);
  assert.deepEqual(await ids(c, { v: { $nin: [5, 'abc', null] } }), [2, 6, 7, 8]);
});

test('numbers compare by value across int, long, double and decimal', async () => {
  const c = db.collection('numbers');
  await c.insertMany([
    { _id: 'int', n: new Int32(1) },
    { _id: 'long', n: Long.fromNumber(1) },
    { _id: 'double', n: new Double(1.0) },
    { _id: 'decimal', n: Decimal128.fromString('1.0') },
    { _id: 'half', n: new Double(1.5) },
    { _id: 'big', n: Long.fromString('9007199254740993') },
    { _id: 'nan', n: NaN },
  ]);
  assert.deepEqual(await ids(c, { n: 1 }), ['decimal', 'double', 'int', 'long']);
  assert.deepEqual(await ids(c, { n: Decimal128.fromString('1') }), ['decimal', 'double', 'int', 'long']);
  assert.deepEqual(await ids(c, { n: { $gt: 1, $lt: 2 } }), ['half']);
  // A long beyond 2^53 is compared exactly, not through a double.
  assert.deepEqual(await ids(c, { n: Long.fromString('9007199254740993') }), ['big']);
  assert.deepEqual(await ids(c, { n: Long.fromString('9007199254740992') }), []);
  assert.deepEqual(await ids(c, { n: { $gt: Long.fromString('9007199254740992') } }), ['big']);
  // NaN equals NaN and sorts below every other number.
  assert.deepEqual(await ids(c, { n: NaN }), ['nan']);
  assert.deepEqual((await ids(c, {}, { sort: { n: 1, _id: 1 } })).slice(0, 2), ['nan', 'decimal']);
  assert.deepEqual(await ids(c, { n: { $type: 'number' } }), ['big', 'decimal', 'double', 'half', 'int', 'long', 'nan']);
  assert.deepEqual(await ids(c, { n: { $type: 'long' } }), ['big', 'long']);
  assert.deepEqual(await ids(c, { n: { $type: 'decimal' } }), ['decimal']);
  assert.deepEqual(await ids(c, { n: { $type: 16 } }), ['int']);
  assert.deepEqual(await ids(c, { n: { $type: ['int', 'long'] } }), ['big', 'int', 'long']);
});

// ---------------------------------------------------------------------------------------------
// Arrays.

test('a predicate on an array matches any element, or the whole array', async () => {
  const c = db.collection('arrays');
  await c.insertMany([
    { _id: 1, tags: ['a', 'b'] },
    { _id: 2, tags: ['b', 'a'] },
    { _id: 3, tags: 'a' },
    { _id: 4, tags: [['a', 'b'], 'c'] },
    { _id: 5, tags: [] },
  ]);
  assert.deepEqual(await ids(c, { tags: 'a' }), [1, 2, 3]);
  assert.deepEqual(await ids(c, { tags: ['a', 'b'] }), [1, 4]);  // whole array, or an element that is one
  assert.deepEqual(await ids(c, { tags: [] }), [5]);
  assert.deepEqual(await ids(c, { tags: { $size: 2 } }), [1, 2, 4]);
  assert.deepEqual(await ids(c, { tags: { $size: 0 } }), [5]);
  assert.deepEqual(await ids(c, { tags: { $all: ['a', 'b'] } }), [1, 2]);
  assert.deepEqual(await ids(c, { tags: { $all: [['a', 'b']] } }), [1, 4]);
  assert.deepEqual(await ids(c, { 'tags.1': 'b' }), [1]);
  assert.deepEqual(await ids(c, { 'tags.0.1': 'b' }), [4]);
  assert.deepEqual(await ids(c, { tags: { $ne: 'a' } }), [4, 5]);
  assert.deepEqual(await ids(c, { tags: { $nin: ['c', 'b'] } }), [3, 5]);
});

test('dotted paths reach through arrays of documents, and numeric components pick an element', async () => {
  const c = db.collection('orders');
  await c.insertMany([
    { _id: 1, items: [{ sku: 'x', qty: 5 }, { sku: 'y', qty: 1 }] },
    { _id: 2, items: [{ sku: 'y', qty: 5 }] },
    { _id: 3, items: { sku: 'x', qty: 2 } },
    { _id: 4, items: [{ sku: 'z', sub: [{ n: 1 }, { n: 2 }] }] },
  ]);
  assert.deepEqual(await ids(c, { 'items.sku': 'x' }), [1, 3]);
  assert.deepEqual(await ids(c, { 'items.qty': { $gte: 5 } }), [1, 2]);
  assert.deepEqual(await ids(c, { 'items.0.qty': 5 }), [1, 2]);
  assert.deepEqual(await ids(c, { 'items.1.sku': 'y' }), [1]);
  assert.deepEqual(await ids(c, { 'items.sub.n': 2 }), [4]);
  // Without $elemMatch the two conditions may hold for different elements.
  assert.deepEqual(await ids(c, { 'items.sku': 'x', 'items.qty': 1 }), [1]);
  assert.deepEqual(await ids(c, { items: { $elemMatch: { sku: 'x', qty: 1 } } }), []);
  assert.deepEqual(await ids(c, { items: { $elemMatch: { sku: 'x', qty: 5 } } }), [1]);
  assert.deepEqual(await ids(c, { items: { $size: 1 } }), [2, 4]);
});

test('$elemMatch on scalars, $all with $elemMatch, and array sort keys', async () => {
  const c = db.collection('scores');
  await c.insertMany([
    { _id: 1, results: [82, 85, 88] },
    { _id: 2, results: [75, 88, 89] },
    { _id: 3, results: [90] },
  ]);
  // The documented example: one element must satisfy both bounds.
  assert.deepEqual(await ids(c, { results: { $elemMatch: { $gte: 80, $lt: 85 } } }), [1]);
  assert.deepEqual(await ids(c, { results: { $gte: 80, $lt: 85 } }), [1, 2]);
  assert.deepEqual(
    await ids(c, { results: { $all: [{ $elemMatch: { $gt: 87 } }, { $elemMatch: { $lt: 80 } }] } }), [2]);
  // Ascending sorts arrays by their smallest element, descending by their largest.
  assert.deepEqual(await ids(c, {}, { sort: { results: 1 } }), [2, 1, 3]);
  assert.deepEqual(await ids(c, {}, { sort: { results: -1 } }), [3, 2, 1]);
});

// ---------------------------------------------------------------------------------------------
// Missing versus null, $exists, $type, $regex, $expr.

test('missing versus null: {a: null}, $exists, $type null, $ne null', async () => {
  const c = db.collection('nulls');
  await c.insertMany([
    { _id: 1, a: null }, { _id: 2 }, { _id: 3, a: 0 }, { _id: 4, a: [null, 1] }, { _id: 5, a: [] },
    { _id: 6, a: { b: null } }, { _id: 7, a: [{ b: 1 }, { c: 1 }] },
  ]);
  assert.deepEqual(await ids(c, { a: null }), [1, 2, 4]);
  assert.deepEqual(await ids(c, { a: { $exists: false } }), [2]);
  assert.deepEqual(await ids(c, { a: { $exists: true } }), [1, 3, 4, 5, 6, 7]);
  assert.deepEqual(await ids(c, { a: { $type: 'null' } }), [1, 4]);
  assert.deepEqual(await ids(c, { a: { $ne: null } }), [3, 5, 6, 7]);
  assert.deepEqual(await ids(c, { a: { $in: [null, 0] } }), [1, 2, 3, 4]);
  // a.b is null or missing where a is not a document or array, or is a document (or an array
  // holding one) without b; arrays of scalars and empty arrays hold no a.b at all.
  assert.deepEqual(await ids(c, { 'a.b': null }), [1, 2, 3, 6, 7]);
  assert.deepEqual(await ids(c, { 'a.b': { $exists: true } }), [6, 7]);
  assert.deepEqual(await ids(c, { 'a.b': { $exists: false } }), [1, 2, 3, 4, 5]);
});

test('$type takes BSON type numbers and aliases; an unknown alias is BadValue', async () => {
  const c = db.collection('types');
  await c.insertMany([
    { _id: 1, v: 'text' }, { _id: 2, v: [1, 2] }, { _id: 3, v: { x: 1 } }, { _id: 4, v: new Int32(3) },
    { _id: 5, v: new Double(3.5) }, { _id: 6, v: true }, { _id: 7, v: new Date() }, { _id: 8, v: new ObjectId() },
  ]);
  assert.deepEqual(await ids(c, { v: { $type: 'string' } }), [1]);
  assert.deepEqual(await ids(c, { v: { $type: 2 } }), [1]);
  assert.deepEqual(await ids(c, { v: { $type: 'array' } }), [2]);
  assert.deepEqual(await ids(c, { v: { $type: 'object' } }), [3]);
  assert.deepEqual(await ids(c, { v: { $type: 'int' } }), [2, 4]);  // an element of the array
  assert.deepEqual(await ids(c, { v: { $type: 'double' } }), [5]);
  assert.deepEqual(await ids(c, { v: { $type: 'bool' } }), [6]);
  assert.deepEqual(await ids(c, { v: { $type: 'date' } }), [7]);
  assert.deepEqual(await ids(c, { v: { $type: 'objectId' } }), [8]);
  await expectServerError(c.find({ v: { $type: 'strin' } }).toArray(), {
    code: 2, codeName: 'BadValue', message: 'Unknown type name alias: strin',
  });
});

test('$regex with the i, m, s and x options, inside $in, and as a regex literal', async () => {
  const c = db.collection('regex');
  await c.insertMany([
    { _id: 1, s: 'Apple pie' }, { _id: 2, s: 'apple\nBanana' }, { _id: 3, s: 'cherry' }, { _id: 4, s: ['x', 'APPLE'] },
  ]);
  assert.deepEqual(await ids(c, { s: { $regex: '^apple' } }), [2]);
  assert.deepEqual(await ids(c, { s: { $regex: '^apple', $options: 'i' } }), [1, 2, 4]);
  assert.deepEqual(await ids(c, { s: /^banana/i }), []);
  assert.deepEqual(await ids(c, { s: { $regex: '^banana', $options: 'im' } }), [2]);
  assert.deepEqual(await ids(c, { s: { $regex: 'apple.banana', $options: 'is' } }), [2]);
  assert.deepEqual(await ids(c, { s: { $regex: 'apple.banana', $options: 'i' } }), []);
  assert.deepEqual(await ids(c, { s: { $regex: ' c h e r r y  # a comment', $options: 'x' } }), [3]);
  assert.deepEqual(await ids(c, { s: { $in: [/^cher/, 'Apple pie'] } }), [1, 3]);
  assert.deepEqual(await ids(c, { s: { $not: /e/ } }), [4]);
  assert.deepEqual(await ids(c, { s: { $nin: [/a/i] } }), [3]);
  await expectServerError(c.find({ s: { $regex: '(' } }).toArray(), { code: 51091 });
});

test('$expr compares fields of one document and reads the command\'s let variables', async () => {
  const c = db.collection('expr');
  await c.insertMany([
    { _id: 1, spent: 100, budget: 120 }, { _id: 2, spent: 150, budget: 100 }, { _id: 3, spent: 90, budget: 90 },
  ]);
  assert.deepEqual(await ids(c, { $expr: { $gt: ['$spent', '$budget'] } }), [2]);
  assert.deepEqual(await ids(c, { $expr: { $gte: ['$spent', '$$limit'] } }, { let: { limit: 100 } }), [1, 2]);
  assert.deepEqual(
    await ids(c, { $expr: { $lt: [{ $subtract: ['$budget', '$spent'] }, '$$margin'] } }, { let: { margin: 1 } }),
    [2, 3]);
  await expectServerError(c.find({ $expr: { $gt: ['$spent', '$$nope'] } }).toArray(), { code: 17276 });
});

// ---------------------------------------------------------------------------------------------
// Find projections and find options.

test('find projections: inclusion, exclusion, computed fields with let, $slice, $elemMatch and .$', async () => {
  const c = db.collection('projection');
  await c.insertOne({ _id: 1, name: 'Ada', qty: 3, price: 2.5, tags: ['a', 'b', 'c'], grades: [{ g: 80 }, { g: 95 }] });
  const one = (projection, filter = {}, options = {}) => c.findOne(filter, { ...options, projection });
  assert.deepEqual(await one({ name: 1 }), { _id: 1, name: 'Ada' });
  assert.deepEqual(await one({ tags: 0, grades: 0, _id: 0 }), { name: 'Ada', qty: 3, price: 2.5 });
  assert.deepEqual(await one({ _id: 0, total: { $multiply: ['$qty', '$price'] }, who: '$name' }), { total: 7.5, who: 'Ada' });
  assert.deepEqual(await one({ name: 1, label: { $concat: ['$name', '$$suffix'] } }, {}, { let: { suffix: '!' } }),
    { _id: 1, name: 'Ada', label: 'Ada!' });
  assert.deepEqual(await one({ _id: 0, k: { $literal: 1 }, s: 'text' }), { k: 1, s: 'text' });
  assert.deepEqual(await one({ _id: 0, tags: { $slice: -2 } , name: 1 }), { name: 'Ada', tags: ['b', 'c'] });
  assert.deepEqual(await one({ _id: 0, first: { $slice: ['$tags', 1] } }), { first: ['a'] });
  assert.deepEqual(await one({ grades: { $elemMatch: { g: { $gt: 90 } } } }), { _id: 1, grades: [{ g: 95 }] });
  assert.deepEqual(await one({ 'grades.$': 1 }, { 'grades.g': 80 }), { _id: 1, grades: [{ g: 80 }] });
  await expectServerError(one({ name: 0, x: { $add: [1, 2] } }), {
    code: 31252, message: 'Cannot use expression other than $meta in exclusion projection',
  });
  await expectServerError(one({ name: 1, qty: 0 }), {
    code: 31254, message: 'Cannot do exclusion on field qty in inclusion projection',
  });
  await expectServerError(one({ name: 0, qty: 1 }), {
    code: 31253, message: 'Cannot do inclusion on field qty in exclusion projection',
  });
  await expectServerError(one({ x: { $bogus: 1 } }), { code: 31325, message: 'Unknown expression $bogus' });
});

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

test('bad filters answer MongoDB\'s codes', async () => {
  const c = db.collection('bad_filters');
  await c.insertOne({ _id: 1, a: 1 });
  await expectServerError(c.find({ a: { $foo: 1 } }).toArray(), {
    code: 2, codeName: 'BadValue', message: 'unknown operator: $foo',
  });
  await expectServerError(c.find({ $foo: [{ a: 1 }] }).toArray(), {
    code: 2, message: 'unknown top level operator: $foo. If you have a field name that starts with a \'$\' symbol, consider using $getField or $setField.',
  });
  await expectServerError(c.find({ a: { $in: 1 } }).toArray(), { code: 2, message: '$in needs an array' });
  await expectServerError(c.find({ $and: [] }).toArray(), {
    code: 2, message: '$and/$or/$nor must be a nonempty array',
  });
  await expectServerError(c.find({ a: { $size: -1 } }).toArray(), { code: 2 });
  await expectServerError(c.find({ a: { $exists: true, $regex: 1 } }).toArray(), { code: 2 });
  // As a mongod without a JavaScript engine answers.
  await expectServerError(c.find({ $where: 'this.a == 1' }).toArray(), { code: 6108304 });
});

// Write errors carry index, code and errmsg (no codeName), as MongoDB's do.
test('bad updates answer 40, 66, 28, 14 and FailedToParse, per statement', async () => {
  const c = db.collection('bad_updates');
  await c.insertOne({ _id: 1, a: 1, s: 'text', arr: [1, 2] });
  await expectServerError(c.updateOne({ _id: 1 }, { $set: { a: 2 }, $inc: { a: 1 } }), {
    code: 40, message: "Updating the path 'a' would create a conflict at 'a'",
  });
  await expectServerError(c.updateOne({ _id: 1 }, { $set: { 'x.y': 1, x: 2 } }), { code: 40 });
  await expectServerError(c.updateOne({ _id: 1 }, { $set: { _id: 2 } }), {
    code: 66,
    message: "Performing an update on the path '_id' would modify the immutable field '_id'",
  });
  await expectServerError(c.replaceOne({ _id: 1 }, { _id: 2, a: 1 }), { code: 66 });
  await expectServerError(c.updateOne({ _id: 1 }, { $set: { 'a.b': 1 } }), {
    code: 28, message: "Cannot create field 'b' in element {a: 1}",
  });
  await expectServerError(c.updateOne({ _id: 1 }, { $inc: { s: 1 } }), {
    code: 14,
    message: "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 's' of non-numeric type string",
  });
  await expectServerError(c.updateOne({ _id: 1 }, { $bogus: { a: 1 } }), { code: 9 });
  await expectServerError(c.updateOne({ _id: 1 }, { $push: { a: 1 } }), { code: 2 });
  await expectServerError(c.updateOne({ _id: 1 }, { $set: { 'arr.$[]': 1 } }, { arrayFilters: [{ x: 1 }] }), {
    code: 9, message: /The array filter for identifier 'x' was not used in the update/,
  });
  // The document is unchanged by every failed statement.
  assert.deepEqual(await c.findOne({ _id: 1 }), { _id: 1, a: 1, s: 'text', arr: [1, 2] });

  // Unordered bulk writes report each failing statement and apply the others.
  const bulk = await expectServerError(c.bulkWrite([
    { updateOne: { filter: { _id: 1 }, update: { $inc: { s: 1 } } } },
    { updateOne: { filter: { _id: 1 }, update: { $set: { ok: true } } } },
    { updateOne: { filter: { _id: 1 }, update: { $set: { _id: 5 } } } },
  ], { ordered: false }), { code: 14 });
  assert.deepEqual(bulk.writeErrors.map((e) => [e.index, e.code]), [[0, 14], [2, 66]]);
  assert.equal((await c.findOne({ _id: 1 })).ok, true);
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
