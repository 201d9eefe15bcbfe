// Multi-document transactions through the Node driver against `cairnd --replSet rs0
// --initiate`: session.withTransaction (which retries a TransientTransactionError), two
// sessions racing on one document, and what a transaction aborted by the lifetime limit answers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, requirePackage } from './harness.mjs';

const { MongoClient } = requirePackage('mongodb');

let server;
let client;

before(async () => {
  server = await startServer({ args: ['--replSet', 'rs0', '--initiate'] });
  client = new MongoClient(`mongodb://127.0.0.1:${server.port}/?replicaSet=rs0`,
    { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
});

after(async () => {
  await client?.close();
  await server?.stop();
});

test('withTransaction commits every write at once', async () => {
  const coll = client.db('tx').collection('with');
  await coll.insertOne({ _id: 'stock', n: 5 });
  const session = client.startSession();
  try {
    await session.withTransaction(async () => {
      await coll.updateOne({ _id: 'stock' }, { $inc: { n: -1 } }, { session });
      await coll.insertOne({ _id: 'order', qty: 1 }, { session });
      assert.equal(await coll.countDocuments({}, { session }), 2);
      assert.equal(await coll.countDocuments({}), 1);
    });
  } finally {
    await session.endSession();
  }
  assert.deepEqual(await coll.find().sort({ _id: 1 }).toArray(),
    [{ _id: 'order', qty: 1 }, { _id: 'stock', n: 4 }]);
});

test('racing transactions: the later writer gets WriteConflict, withTransaction retries it', async () => {
  const coll = client.db('tx').collection('race');
  await coll.insertOne({ _id: 1, n: 0 });
  const first = client.startSession();
  const second = client.startSession();
  try {
    first.startTransaction();
    await coll.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session: first });
    second.startTransaction();
    const error = await coll.updateOne({ _id: 1 }, { $inc: { n: 10 } }, { session: second })
      .then(() => null, (e) => e);
    assert.equal(error?.code, 112);
    assert.ok(error.hasErrorLabel('TransientTransactionError'));
    await second.abortTransaction();
    // withTransaction retries while the first still holds the document, then succeeds.
    let attempts = 0;
    const retried = second.withTransaction(async () => {
      attempts += 1;
      await coll.updateOne({ _id: 1 }, { $inc: { n: 10 } }, { session: second });
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await first.commitTransaction();
    await retried;
    assert.ok(attempts >= 1);
  } finally {
    await first.endSession();
    await second.endSession();
  }
  assert.equal((await coll.findOne({ _id: 1 })).n, 11);
});

test('a transaction past transactionLifetimeLimitSeconds is aborted', async () => {
  const admin = client.db('admin');
  await admin.command({ setParameter: 1, transactionLifetimeLimitSeconds: 1 });
  const coll = client.db('tx').collection('expired');
  const session = client.startSession();
  try {
    session.startTransaction();
    await coll.insertOne({ _id: 1 }, { session });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const error = await session.commitTransaction().then(() => null, (e) => e);
    assert.equal(error?.code, 251);
    assert.equal(await coll.countDocuments({}), 0);
  } finally {
    await session.endSession();
    await admin.command({ setParameter: 1, transactionLifetimeLimitSeconds: 60 });
  }
});
