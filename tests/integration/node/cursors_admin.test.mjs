// Cursors (getMore batches, early close with killCursors) and namespace administration
// (drop, dropDatabase, listCollections, listDatabases, renameCollection) through the Node driver.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, expectServerError, mongodb, countOf } from './harness.mjs';

const { Long } = mongodb;

let server;
let client; // with command monitoring
let db;
const started = [];
const succeeded = [];

before(async () => {
  server = await startServer();
  client = await connect(server, { monitorCommands: true, maxPoolSize: 1 });
  client.on('commandStarted', (e) => started.push(e));
  client.on('commandSucceeded', (e) => succeeded.push(e));
  db = client.db('cursors');
  const docs = Array.from({ length: 1000 }, (_, i) => ({ _id: i, name: `item ${i}`, even: i % 2 === 0 }));
  const res = await db.collection('items').insertMany(docs);
  assert.equal(res.insertedCount, 1000);
});

after(async () => {
  await client?.close();
  await server?.stop();
});

function eventsSince(list, mark, name) {
  return list.slice(mark).filter((e) => e.commandName === name);
}

test('iterating 1000 documents with batchSize 100 walks through getMore batches', async () => {
  const s0 = started.length;
  const ok0 = succeeded.length;
  const seen = [];
  for await (const doc of db.collection('items').find({}, { batchSize: 100 }).sort({ _id: 1 })) {
    seen.push(doc._id);
  }
  assert.equal(seen.length, 1000);
  assert.deepEqual(seen, Array.from({ length: 1000 }, (_, i) => i));

  const finds = eventsSince(succeeded, ok0, 'find');
  assert.equal(finds.length, 1);
  assert.equal(finds[0].reply.cursor.firstBatch.length, 100);
  assert.equal(finds[0].reply.cursor.ns, 'cursors.items');
  assert.notEqual(String(finds[0].reply.cursor.id), '0');

  const getMores = eventsSince(started, s0, 'getMore');
  // 9 full batches; a server may need one more (empty) batch to see the end.
  assert.ok(getMores.length === 9 || getMores.length === 10, `${getMores.length} getMore commands`);
  for (const g of getMores) {
    assert.equal(Number(g.command.batchSize), 100);
    assert.equal(g.command.collection, 'items');
  }
  const replies = eventsSince(succeeded, ok0, 'getMore');
  assert.ok(replies.every((r) => r.reply.cursor.nextBatch.length <= 100));
  assert.equal(String(replies.at(-1).reply.cursor.id), '0', 'the last batch closes the cursor');
  // An exhausted cursor is not killed explicitly.
  assert.equal(eventsSince(started, s0, 'killCursors').length, 0);
});

test('a filtered, limited cursor returns exactly what was asked', async () => {
  const docs = await db.collection('items')
    .find({ even: true, _id: { $gte: 500 } }, { batchSize: 7, projection: { name: 1 } })
    .sort({ _id: -1 }).limit(20).toArray();
  assert.equal(docs.length, 20);
  assert.deepEqual(docs[0], { _id: 998, name: 'item 998' });
  assert.deepEqual(docs.at(-1), { _id: 960, name: 'item 960' });
});

test('closing a cursor early sends killCursors, and the cursor is gone afterwards', async () => {
  const s0 = started.length;
  const ok0 = succeeded.length;
  const cursor = db.collection('items').find({}, { batchSize: 100 }).sort({ _id: 1 });
  for (let i = 0; i < 150; i++) {
    const doc = await cursor.next();
    assert.equal(doc._id, i);
  }
  const id = eventsSince(succeeded, ok0, 'find')[0].reply.cursor.id;
  assert.notEqual(String(id), '0');
  await cursor.close();

  const kills = eventsSince(started, s0, 'killCursors');
  assert.equal(kills.length, 1);
  assert.equal(kills[0].command.killCursors, 'items');
  assert.deepEqual(kills[0].command.cursors.map(String), [String(id)]);
  const killReply = eventsSince(succeeded, ok0, 'killCursors')[0].reply;
  assert.deepEqual(killReply.cursorsKilled.map(String), [String(id)]);

  await expectServerError(
    db.command({ getMore: Long.fromString(String(id)), collection: 'items', batchSize: 10 }),
    { code: 43, codeName: 'CursorNotFound' });
});

test('listCollections, drop, and renameCollection', async () => {
  const adm = client.db('admin_ops');
  await adm.collection('a').insertOne({ _id: 1 });
  await adm.collection('b').insertMany([{ _id: 1 }, { _id: 2 }]);
  await adm.createCollection('empty');

  const infos = await adm.listCollections().toArray();
  assert.deepEqual(infos.map((c) => c.name).sort(), ['a', 'b', 'empty']);
  for (const info of infos) assert.equal(info.type, 'collection');
  const nameOnly = await adm.listCollections({}, { nameOnly: true }).toArray();
  assert.deepEqual(nameOnly.map((c) => c.name).sort(), ['a', 'b', 'empty']);
  const filtered = await adm.listCollections({ name: 'b' }).toArray();
  assert.deepEqual(filtered.map((c) => c.name), ['b']);

  assert.equal(await adm.collection('a').drop(), true);
  assert.deepEqual((await adm.listCollections().toArray()).map((c) => c.name).sort(), ['b', 'empty']);
  assert.equal(await countOf(adm.collection('a')), 0);

  const renamed = await adm.renameCollection('b', 'c');
  assert.equal(renamed.collectionName, 'c');
  assert.deepEqual((await adm.listCollections().toArray()).map((c) => c.name).sort(), ['c', 'empty']);
  assert.deepEqual(await adm.collection('c').find().sort({ _id: 1 }).toArray(), [{ _id: 1 }, { _id: 2 }]);
  assert.equal(await countOf(adm.collection('b')), 0);

  // Renaming onto an existing collection needs dropTarget.
  await expectServerError(adm.renameCollection('c', 'empty'), { code: 48, codeName: 'NamespaceExists' });
  await adm.renameCollection('c', 'empty', { dropTarget: true });
  assert.deepEqual((await adm.listCollections().toArray()).map((c) => c.name), ['empty']);
  assert.equal(await countOf(adm.collection('empty')), 2);

  // Renaming a collection that does not exist.
  await expectServerError(adm.renameCollection('nope', 'other'), { code: 26, codeName: 'NamespaceNotFound' });
});

test('listDatabases and dropDatabase', async () => {
  const tmp = client.db('to_drop');
  await tmp.collection('x').insertOne({ _id: 1 });
  await tmp.collection('y').insertOne({ _id: 1 });

  const list = await client.db('admin').admin().listDatabases();
  const entry = list.databases.find((d) => d.name === 'to_drop');
  assert.ok(entry, `to_drop missing from ${list.databases.map((d) => d.name)}`);
  assert.equal(entry.empty, false);
  assert.equal(typeof entry.sizeOnDisk, 'number');
  assert.equal(typeof list.totalSize, 'number');
  assert.equal(list.ok, 1);
  const names = await client.db('admin').admin().listDatabases({ nameOnly: true });
  assert.ok(names.databases.some((d) => d.name === 'to_drop'));
  assert.ok(!names.databases.some((d) => d.name === 'never_written'));

  assert.equal(await tmp.dropDatabase(), true);
  const later = await client.db('admin').admin().listDatabases();
  assert.ok(!later.databases.some((d) => d.name === 'to_drop'));
  assert.deepEqual(await tmp.listCollections().toArray(), []);
  assert.equal(await countOf(tmp.collection('x')), 0);
  // Dropping a database that does not exist succeeds.
  assert.equal(await client.db('never_written').dropDatabase(), true);
});
