// A blog's everyday CRUD through the official Node driver: users with embedded addresses, posts
// and comments referenced by postId, counters, upserts, findOneAndUpdate and distinct. Expected
// results are MongoDB 7.0's. Deletes, replaces and counts, plainly commands and their replies,
// are spec files (tests/spec/delete/, update/replacement.json, aggregate/count_documents.json).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, mongodb, countOf } from './harness.mjs';

const { ObjectId } = mongodb;

let server;
let client;
let db;

before(async () => {
  server = await startServer();
  client = await connect(server);
  db = client.db('blog');
});

after(async () => {
  await client?.close();
  await server?.stop();
});

const day = (d, minute = 0) => new Date(Date.UTC(2024, 0, d, 12, minute));

test('users with embedded addresses are found by a dotted path into the array', async () => {
  const users = db.collection('users');
  const res = await users.insertMany([
    { _id: 1, name: 'Ada', addresses: [{ city: 'Paris', zip: '75001' }, { city: 'Lyon', zip: '69001' }] },
    { _id: 2, name: 'Bob', addresses: [{ city: 'Berlin', zip: '10115' }] },
    { _id: 3, name: 'Cyd', addresses: [{ city: 'Paris', zip: '75011' }] },
    { _id: 4, name: 'Dee', addresses: [] },
  ]);
  assert.equal(res.insertedCount, 4);
  assert.deepEqual(res.insertedIds, { 0: 1, 1: 2, 2: 3, 3: 4 });

  const inParis = await users.find({ 'addresses.city': 'Paris' }).sort({ _id: 1 }).toArray();
  assert.deepEqual(inParis, [
    { _id: 1, name: 'Ada', addresses: [{ city: 'Paris', zip: '75001' }, { city: 'Lyon', zip: '69001' }] },
    { _id: 3, name: 'Cyd', addresses: [{ city: 'Paris', zip: '75011' }] },
  ]);

  const names = await users
    .find({ 'addresses.city': 'Paris' }, { projection: { _id: 0, name: 1 } })
    .sort({ name: -1 })
    .toArray();
  assert.deepEqual(names, [{ name: 'Cyd' }, { name: 'Ada' }]);

  assert.deepEqual(await users.findOne({ 'addresses.zip': '10115' }), {
    _id: 2, name: 'Bob', addresses: [{ city: 'Berlin', zip: '10115' }],
  });
  assert.equal(await users.findOne({ 'addresses.city': 'Rome' }), null);
  assert.equal(await countOf(users, { 'addresses.city': { $in: ['Lyon', 'Berlin'] } }), 2);
});

test('posts and comments: comments by postId, sorted by date, paged with skip/limit, projected', async () => {
  const posts = db.collection('posts');
  const comments = db.collection('comments');
  const { insertedId: postId } = await posts.insertOne({
    title: 'Hello, world', author: 'ada', tags: ['intro'], createdAt: day(1),
  });
  assert.ok(postId instanceof ObjectId);
  const { insertedId: otherId } = await posts.insertOne({ title: 'Second post', author: 'bob', createdAt: day(2) });

  const docs = [];
  for (let i = 0; i < 25; i++) {
    // Inserted out of date order on purpose: the server must sort.
    const n = (i * 7) % 25;
    docs.push({ postId, author: `reader${n % 4}`, text: `comment ${n}`, n, createdAt: day(3, n) });
  }
  docs.push({ postId: otherId, author: 'ada', text: 'on the other post', n: 100, createdAt: day(3, 30) });
  await comments.insertMany(docs);

  assert.equal(await countOf(comments, { postId }), 25);

  // Page 2 (5 per page) of the newest-first listing.
  const page = await comments
    .find({ postId }, { projection: { _id: 0, n: 1, createdAt: 1 } })
    .sort({ createdAt: -1 })
    .skip(5)
    .limit(5)
    .toArray();
  assert.deepEqual(page, [19, 18, 17, 16, 15].map((n) => ({ n, createdAt: day(3, n) })));
  assert.ok(page[0].createdAt instanceof Date);
  // An inclusion projection keeps the stored field order (n was stored before createdAt).
  assert.deepEqual(Object.keys(page[0]), ['n', 'createdAt']);

  const oldest = await comments.find({ postId }).sort({ createdAt: 1 }).limit(3).toArray();
  assert.deepEqual(oldest.map((c) => c.n), [0, 1, 2]);
  assert.ok(oldest.every((c) => c.postId.equals(postId) && c._id instanceof ObjectId));

  // Exclusion projection.
  const one = await comments.findOne({ postId: otherId }, { projection: { postId: 0, createdAt: 0 } });
  assert.deepEqual(Object.keys(one), ['_id', 'author', 'text', 'n']);
  assert.equal(one.text, 'on the other post');

  // Date range.
  assert.equal(await countOf(comments, { postId, createdAt: { $gte: day(3, 10), $lt: day(3, 20) } }), 10);
});

test('counters with $inc and lists with $push/$each', async () => {
  const posts = db.collection('counters_posts');
  await posts.insertOne({ _id: 'p1', title: 'Counting', tags: ['x'] });

  for (let i = 0; i < 3; i++) {
    const r = await posts.updateOne({ _id: 'p1' }, { $inc: { views: 1, 'stats.likes': 2 } });
    assert.equal(r.matchedCount, 1);
    assert.equal(r.modifiedCount, 1);
    assert.equal(r.upsertedId, null);
  }
  const r = await posts.updateOne({ _id: 'p1' }, { $push: { tags: { $each: ['a', 'b'] } }, $inc: { views: -1 } });
  assert.equal(r.modifiedCount, 1);
  await posts.updateOne({ _id: 'p1' }, { $push: { tags: 'c' } });

  assert.deepEqual(await posts.findOne({ _id: 'p1' }), {
    _id: 'p1', title: 'Counting', tags: ['x', 'a', 'b', 'c'], views: 2, stats: { likes: 6 },
  });

  // No match: nothing modified, nothing created.
  const none = await posts.updateOne({ _id: 'nope' }, { $inc: { views: 1 } });
  assert.equal(none.matchedCount, 0);
  assert.equal(none.modifiedCount, 0);
  assert.equal(await countOf(posts, {}), 1);

  // updateMany over several documents.
  await posts.insertMany([{ _id: 'p2', views: 10 }, { _id: 'p3', views: 20 }]);
  const many = await posts.updateMany({ views: { $gte: 10 } }, { $inc: { views: 5 } });
  assert.equal(many.matchedCount, 2);
  assert.equal(many.modifiedCount, 2);
  assert.deepEqual(await posts.find({}, { projection: { views: 1 } }).sort({ _id: 1 }).toArray(),
    [{ _id: 'p1', views: 2 }, { _id: 'p2', views: 15 }, { _id: 'p3', views: 25 }]);
});

test('updateOne with upsert reports the upsertedId and seeds the new document from the filter', async () => {
  const counters = db.collection('pageviews');
  const first = await counters.updateOne({ _id: 'home', page: '/' }, { $inc: { n: 1 } }, { upsert: true });
  assert.equal(first.matchedCount, 0);
  assert.equal(first.modifiedCount, 0);
  assert.equal(first.upsertedCount, 1);
  assert.equal(first.upsertedId, 'home');
  assert.deepEqual(await counters.findOne({ _id: 'home' }), { _id: 'home', page: '/', n: 1 });

  const second = await counters.updateOne({ _id: 'home', page: '/' }, { $inc: { n: 1 } }, { upsert: true });
  assert.equal(second.matchedCount, 1);
  assert.equal(second.modifiedCount, 1);
  assert.equal(second.upsertedCount, 0);
  assert.equal(second.upsertedId, null);
  assert.deepEqual(await counters.findOne({ _id: 'home' }), { _id: 'home', page: '/', n: 2 });

  // Without _id in the filter the server generates an ObjectId, placed first.
  const gen = await counters.updateOne({ slug: 'about' }, { $set: { title: 'About us' } }, { upsert: true });
  assert.equal(gen.upsertedCount, 1);
  assert.ok(gen.upsertedId instanceof ObjectId, `upsertedId ${gen.upsertedId}`);
  const created = await counters.findOne({ slug: 'about' });
  assert.deepEqual(Object.keys(created), ['_id', 'slug', 'title']);
  assert.ok(created._id.equals(gen.upsertedId));
  assert.equal(await countOf(counters, {}), 2);
});

test('findOneAndUpdate returns the document before or after, with upsert', async () => {
  const seq = db.collection('sequences');

  const created = await seq.findOneAndUpdate(
    { _id: 'postNo' }, { $inc: { value: 1 } }, { upsert: true, returnDocument: 'after' });
  assert.deepEqual(created, { _id: 'postNo', value: 1 });

  const before = await seq.findOneAndUpdate({ _id: 'postNo' }, { $inc: { value: 1 } }, { returnDocument: 'before' });
  assert.deepEqual(before, { _id: 'postNo', value: 1 });
  const afterDoc = await seq.findOneAndUpdate({ _id: 'postNo' }, { $inc: { value: 1 } }, { returnDocument: 'after' });
  assert.deepEqual(afterDoc, { _id: 'postNo', value: 3 });

  // Upsert with returnDocument 'before' on a new document: null, but the document exists.
  const nothing = await seq.findOneAndUpdate(
    { _id: 'commentNo' }, { $set: { value: 10 } }, { upsert: true, returnDocument: 'before' });
  assert.equal(nothing, null);
  assert.deepEqual(await seq.findOne({ _id: 'commentNo' }), { _id: 'commentNo', value: 10 });

  // No match, no upsert.
  assert.equal(await seq.findOneAndUpdate({ _id: 'missing' }, { $inc: { value: 1 } }), null);
  assert.equal(await seq.findOne({ _id: 'missing' }), null);

  // With the raw findAndModify metadata.
  const meta = await seq.findOneAndUpdate(
    { _id: 'tagNo' }, { $inc: { value: 1 } },
    { upsert: true, returnDocument: 'after', includeResultMetadata: true });
  assert.equal(meta.ok, 1);
  assert.deepEqual(meta.value, { _id: 'tagNo', value: 1 });
  assert.deepEqual(meta.lastErrorObject, { n: 1, updatedExisting: false, upserted: 'tagNo' });

  const meta2 = await seq.findOneAndUpdate(
    { _id: 'tagNo' }, { $inc: { value: 1 } }, { returnDocument: 'after', includeResultMetadata: true });
  assert.deepEqual(meta2.lastErrorObject, { n: 1, updatedExisting: true });
  assert.deepEqual(meta2.value, { _id: 'tagNo', value: 2 });

  // Sort picks which document is modified; projection shapes the returned one.
  await seq.insertMany([{ _id: 'q1', queue: 'mail', pri: 2 }, { _id: 'q2', queue: 'mail', pri: 5 }]);
  const top = await seq.findOneAndUpdate(
    { queue: 'mail', taken: { $exists: false } }, { $set: { taken: true } },
    { sort: { pri: -1 }, projection: { _id: 1, taken: 1 }, returnDocument: 'after' });
  assert.deepEqual(top, { _id: 'q2', taken: true });

  // findOneAndDelete / findOneAndReplace.
  assert.deepEqual(await seq.findOneAndDelete({ _id: 'q1' }), { _id: 'q1', queue: 'mail', pri: 2 });
  assert.equal(await seq.findOne({ _id: 'q1' }), null);
  assert.deepEqual(
    await seq.findOneAndReplace({ _id: 'q2' }, { queue: 'sms' }, { returnDocument: 'after' }),
    { _id: 'q2', queue: 'sms' });
});

async function seedTagged(name) {
  const posts = db.collection(name);
  await posts.insertMany([
    { _id: 1, author: 'ada', tags: ['db', 'c++'], published: true },
    { _id: 2, author: 'bob', tags: ['db'], published: false },
    { _id: 3, author: 'ada', tags: ['js', 'db'], published: true },
    { _id: 4, author: 'cyd', tags: [], published: true },
    { _id: 5, author: 'ada', published: true },
  ]);
  return posts;
}

// estimatedDocumentCount and an empty distinct are spec files (tests/spec/count/, distinct/).
test('distinct', async () => {
  const posts = await seedTagged('tagged_distinct');
  const authors = await posts.distinct('author');
  assert.deepEqual([...authors].sort(), ['ada', 'bob', 'cyd']);
  // Arrays are unwound: distinct values are the elements.
  const tags = await posts.distinct('tags', { published: true });
  assert.deepEqual([...tags].sort(), ['c++', 'db', 'js']);
});
