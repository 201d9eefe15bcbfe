// Tailable cursors through the Node driver: a client tailing a capped log collection with
// find({}, {tailable: true, awaitData: true}) sees the entries inserted after it started (the
// server wakes its waiting getMore on insert), the cursor stays open across empty batches, and a
// tailable find on a collection that is not capped fails with MongoDB's BadValue.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, expectServerError } from './harness.mjs';

let server;
let tailer; // the tailing client
let writer; // a second client that writes log entries
let db;

before(async () => {
  server = await startServer();
  tailer = await connect(server);
  writer = await connect(server);
  db = tailer.db('tailing');
  await db.createCollection('log', { capped: true, size: 64 * 1024, max: 100 });
  await db.collection('log').insertOne({ _id: 0, msg: 'started' });
});

after(async () => {
  await tailer?.close();
  await writer?.close();
  await server?.stop();
});

test('a tailable awaitData cursor sees log entries inserted after it started', async () => {
  const cursor = db.collection('log').find({}, { tailable: true, awaitData: true, maxAwaitTimeMS: 2000 });
  const first = await cursor.next();
  assert.equal(first.msg, 'started');

  const log = writer.db('tailing').collection('log');
  const inserts = (async () => {
    for (let i = 1; i <= 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await log.insertOne({ _id: i, msg: `entry ${i}` });
    }
  })();

  const seen = [];
  const startedAt = Date.now();
  while (seen.length < 5) {
    const doc = await cursor.next();
    seen.push(doc.msg);
  }
  await inserts;
  assert.deepEqual(seen, ['entry 1', 'entry 2', 'entry 3', 'entry 4', 'entry 5']);
  // Woken by the inserts, not by the 2 s await timeout each time.
  assert.ok(Date.now() - startedAt < 4000, `took ${Date.now() - startedAt} ms`);
  assert.equal(cursor.closed, false);
  await cursor.close();
});

test('an empty awaitData getMore keeps the cursor open', async () => {
  const cursor = db.collection('log').find({}, { tailable: true, awaitData: true, maxAwaitTimeMS: 200 });
  const all = [];
  for (let i = 0; i < 6; i++) all.push((await cursor.next())._id);
  assert.deepEqual(all, [0, 1, 2, 3, 4, 5]);
  const startedAt = Date.now();
  assert.equal(await cursor.tryNext(), null);
  assert.ok(Date.now() - startedAt >= 150, 'the getMore waited for maxAwaitTimeMS');
  assert.equal(cursor.closed, false);
  await writer.db('tailing').collection('log').insertOne({ _id: 6, msg: 'late' });
  assert.equal((await cursor.next()).msg, 'late');
  await cursor.close();
});

test('a tailable find on a collection that is not capped is BadValue', async () => {
  await db.collection('plain').insertOne({ a: 1 });
  await expectServerError(db.collection('plain').find({}, { tailable: true }).toArray(), {
    code: 2,
    codeName: 'BadValue',
    message: /tailable cursor requested on non capped collection$/,
  });
});
