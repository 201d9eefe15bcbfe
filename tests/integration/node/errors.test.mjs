// Errors and edge cases a Node application meets: duplicate keys (ordered/unordered) as the
// driver reports them, size limits, createCollection on an existing name, w:0 writes,
// server-generated _id, and racing inserts of one _id. Expected results are MongoDB 7.0's. The
// raw insert reply with writeErrors, unknown commands and unknown fields are spec files
// (tests/spec/insert/duplicate_id_unordered.json, dispatch/, find/unknown_field.json).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, expectServerError, mongodb, countOf } from './harness.mjs';

const { ObjectId, BSON, MongoBulkWriteError, MongoServerError } = mongodb;

let server;
let client;
let db;

before(async () => {
  server = await startServer();
  client = await connect(server);
  db = client.db('errs');
});

after(async () => {
  await client?.close();
  await server?.stop();
});

const dupMessage = (ns, key) => `E11000 duplicate key error collection: ${ns} index: _id_ dup key: { _id: ${key} }`;

test('insertOne with an existing _id fails with E11000, keyPattern and keyValue', async () => {
  const c = db.collection('dup_one');
  await c.insertOne({ _id: 1, v: 'first' });
  const err = await expectServerError(c.insertOne({ _id: 1, v: 'second' }), {
    code: 11000,
    message: dupMessage('errs.dup_one', '1'),
  });
  assert.ok(err instanceof MongoServerError);
  assert.deepEqual(err.keyPattern, { _id: 1 });
  assert.deepEqual(err.keyValue, { _id: 1 });
  assert.deepEqual(await c.find().toArray(), [{ _id: 1, v: 'first' }]);

  // A string key is quoted in the message.
  await c.insertOne({ _id: 'k' });
  await expectServerError(c.insertOne({ _id: 'k' }), { code: 11000, message: dupMessage('errs.dup_one', '"k"') });
});

test('ordered insertMany stops at the duplicate; unordered inserts the rest and reports every duplicate', async () => {
  const c = db.collection('dup_many');
  await c.insertMany([{ _id: 1 }, { _id: 2 }]);

  const ordered = await expectServerError(c.insertMany([{ _id: 3 }, { _id: 1 }, { _id: 4 }]), { code: 11000 });
  assert.ok(ordered instanceof MongoBulkWriteError, `${ordered.name}`);
  assert.equal(ordered.insertedCount, 1);
  assert.equal(ordered.writeErrors.length, 1);
  assert.equal(ordered.writeErrors[0].index, 1);
  assert.equal(ordered.writeErrors[0].code, 11000);
  assert.equal(ordered.writeErrors[0].errmsg, dupMessage('errs.dup_many', '1'));
  assert.deepEqual((await c.find().sort({ _id: 1 }).toArray()).map((d) => d._id), [1, 2, 3]);

  const unordered = await expectServerError(
    c.insertMany([{ _id: 5 }, { _id: 1 }, { _id: 6 }, { _id: 2 }], { ordered: false }), { code: 11000 });
  assert.ok(unordered instanceof MongoBulkWriteError);
  assert.equal(unordered.insertedCount, 2);
  assert.deepEqual(unordered.writeErrors.map((e) => [e.index, e.code, e.errmsg]), [
    [1, 11000, dupMessage('errs.dup_many', '1')],
    [3, 11000, dupMessage('errs.dup_many', '2')],
  ]);
  assert.deepEqual((await c.find().sort({ _id: 1 }).toArray()).map((d) => d._id), [1, 2, 3, 5, 6]);
});

test('the server generates an ObjectId _id and stores it as the first field', async () => {
  // A raw insert command: the driver does not add an _id here, the server must.
  const reply = await db.command({ insert: 'gen_id', documents: [{ title: 'no id', n: 1 }] });
  assert.equal(reply.ok, 1);
  assert.equal(reply.n, 1);
  const doc = await db.collection('gen_id').findOne({ title: 'no id' });
  assert.ok(doc._id instanceof ObjectId, `_id is ${doc._id}`);
  assert.deepEqual(Object.keys(doc), ['_id', 'title', 'n']);

  // An _id given after other fields is moved first too.
  await db.command({ insert: 'gen_id', documents: [{ a: 1, b: 2, _id: 'late' }] });
  assert.deepEqual(Object.keys(await db.collection('gen_id').findOne({ _id: 'late' })), ['_id', 'a', 'b']);

  // The same with the server generating ids for a driver insert.
  const forced = await connect(server, { forceServerObjectId: true });
  try {
    await forced.db('errs').collection('gen_id').insertOne({ title: 'forced' });
    const f = await db.collection('gen_id').findOne({ title: 'forced' });
    assert.ok(f._id instanceof ObjectId);
    assert.deepEqual(Object.keys(f), ['_id', 'title']);
  } finally {
    await forced.close();
  }
});

test('a document over 16 MiB is refused with code 2 and nothing is written', async () => {
  const c = db.collection('big');
  // Just over the 16 MiB user limit but under the 16 MiB + 16 KiB wire limit, so the server
  // parses the command and refuses the document itself (fixDocumentForInsert).
  const doc = { _id: 'big', s: '' };
  const overhead = BSON.calculateObjectSize(doc);
  doc.s = 'x'.repeat(16 * 1024 * 1024 - overhead + 1000);
  const size = BSON.calculateObjectSize(doc);
  assert.equal(size, 16 * 1024 * 1024 + 1000);
  await expectServerError(c.insertOne(doc), {
    code: 2,
    message: `object to insert too large. size in bytes: ${size}, max size: 16777216`,
  });
  assert.equal(await countOf(c), 0);

  // A 17 MB string (the whole command is then beyond 16 MiB + 16 KiB): refused as well.
  // MongoDB 7.0 refuses the command itself (BSONObjectTooLarge, 10334); code 2 is also accepted.
  const huge = { _id: 'huge', s: 'y'.repeat(17_000_000) };
  await expectServerError(c.insertOne(huge), { code: (code) => code === 2 || code === 10334 });
  assert.equal(await countOf(c), 0);

  // The connection and the collection still work.
  await c.insertOne({ _id: 'small' });
  assert.equal(await countOf(c), 1);
});

test('an update that would grow a document past 16 MiB fails with 10334 and changes nothing', async () => {
  const c = db.collection('grow');
  const nine = 'a'.repeat(9 * 1024 * 1024);
  await c.insertOne({ _id: 1, a: nine });
  await expectServerError(c.updateOne({ _id: 1 }, { $set: { b: nine } }), {
    code: 10334,
    message: /Resulting document after update is larger than 16777216/,
  });
  const doc = await c.findOne({ _id: 1 });
  assert.deepEqual(Object.keys(doc), ['_id', 'a']);
  assert.equal(doc.a.length, nine.length);
  assert.equal(await countOf(c, { b: { $exists: true } }), 0);
});

test('createCollection again with the same options is a no-op (MongoDB 7.0)', async () => {
  const events = await db.createCollection('events');
  assert.equal(events.collectionName, 'events');
  // MongoDB 7.0's create succeeds when a collection with identical options exists.
  await db.createCollection('events');
  assert.deepEqual(await db.command({ create: 'events' }), { ok: 1 });
  // Also for a collection created implicitly by an insert.
  await db.collection('implicit').insertOne({ _id: 1 });
  await db.createCollection('implicit');
  const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
  assert.ok(names.includes('events') && names.includes('implicit'), names.join(','));
  assert.deepEqual(await db.collection('implicit').find().toArray(), [{ _id: 1 }]);
});

test('createCollection with other options on an existing name: NamespaceExists (48)', async () => {
  await db.createCollection('events2');
  await expectServerError(db.createCollection('events2', { capped: true, size: 4096 }), {
    code: 48,
    codeName: 'NamespaceExists',
    message: /^namespace errs\.events2 already exists, but with different options/,
  });
});

test('a w:0 insert is not acknowledged, and a later read sees it', async () => {
  // One connection, so the read is queued behind the unacknowledged write.
  const single = await connect(server, { maxPoolSize: 1 });
  try {
    const c = single.db('errs').collection('fire_and_forget');
    const res = await c.insertOne({ _id: 'w0', v: 1 }, { writeConcern: { w: 0 } });
    assert.equal(res.acknowledged, false);
    assert.deepEqual(await c.findOne({ _id: 'w0' }), { _id: 'w0', v: 1 });

    // A duplicate under w:0 is silent; the connection keeps working.
    await c.insertOne({ _id: 'w0', v: 2 }, { writeConcern: { w: 0 } });
    const ping = await single.db('admin').command({ ping: 1 });
    assert.equal(ping.ok, 1);
    assert.deepEqual(await c.find().toArray(), [{ _id: 'w0', v: 1 }]);
  } finally {
    await single.close();
  }
});

test('8 clients racing to insert the same _id: exactly one wins, the rest get 11000', async () => {
  const clients = await Promise.all(Array.from({ length: 8 }, () => connect(server)));
  try {
    for (let round = 0; round < 10; round++) {
      const id = `race-${round}`;
      const results = await Promise.allSettled(
        clients.map((cl, i) => cl.db('errs').collection('race').insertOne({ _id: id, by: i })));
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      assert.equal(won.length, 1, `round ${round}: ${won.length} inserts succeeded`);
      for (const r of lost) assert.equal(r.reason.code, 11000, `round ${round}: ${r.reason}`);
      assert.equal(await countOf(db.collection('race'), { _id: id }), 1);
    }
    assert.equal(await countOf(db.collection('race')), 10);

    // Distinct ids from all clients at once: all inserted.
    await Promise.all(clients.map((cl, i) => cl.db('errs').collection('race_ok')
      .insertMany(Array.from({ length: 50 }, (_, j) => ({ _id: i * 1000 + j })))));
    assert.equal(await countOf(db.collection('race_ok')), 400);
  } finally {
    await Promise.all(clients.map((cl) => cl.close()));
  }
});

test('a transaction on a standalone is refused as mongod refuses it, and leaves nothing written', async () => {
  const c = db.collection('txn');
  await c.insertOne({ _id: 'before' });
  const session = client.startSession();
  try {
    session.startTransaction();
    // The server answers IllegalOperation 20 "Transaction numbers are only allowed on a replica
    // set member or mongos"; the driver turns that answer into its retryWrites advice, exactly
    // as it does against a standalone mongod.
    await assert.rejects(c.insertOne({ _id: 'inside' }, { session }),
      /This MongoDB deployment does not support retryable writes/);
    await session.abortTransaction().catch(() => {});
  } finally {
    await session.endSession();
  }
  // withTransaction too: the callback's write fails, and nothing stays applied.
  const other = client.startSession();
  try {
    await assert.rejects(other.withTransaction(async () => {
      await c.insertOne({ _id: 'callback' }, { session: other });
    }), /This MongoDB deployment does not support retryable writes/);
  } finally {
    await other.endSession();
  }
  assert.deepEqual(await c.find().toArray(), [{ _id: 'before' }]);
});

test('a change stream on a standalone is refused with 40573', async () => {
  const stream = db.collection('txn').watch();
  await expectServerError(stream.next(), {
    code: 40573,
    message: 'The $changeStream stage is only supported on replica sets',
  });
  await stream.close();
});
