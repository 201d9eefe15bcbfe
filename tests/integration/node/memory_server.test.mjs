// mongodb-memory-server with cairnd as its binary (MONGOMS_SYSTEM_BINARY), as a test suite uses
// it: MongoMemoryReplSet starts `cairnd --replSet … --storageEngine wiredTiger --noauth`, sends
// replSetInitiate, waits for the "Transition to primary complete" log line, and its URI then
// carries transactions and change streams; MongoMemoryServer gives a standalone. stop() ends
// both (the shutdown command, then a signal). With instance.storageEngine 'inMemory' the server
// keeps everything in memory and writes nothing to the dbPath mongodb-memory-server made.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { CAIRND, requirePackage } from './harness.mjs';

const { MongoMemoryReplSet, MongoMemoryServer } = requirePackage('mongodb-memory-server-core');
const { MongoClient } = requirePackage('mongodb');

const binary = { systemBinary: CAIRND, version: '7.0.0' };
const started = [];

after(async () => {
  for (const instance of started) await instance.stop().catch(() => {});
});

test('MongoMemoryReplSet: a one-member set with transactions and change streams', async () => {
  const replSet = await MongoMemoryReplSet.create({ binary, replSet: { count: 1, name: 'rs0' } });
  started.push(replSet);
  const client = await MongoClient.connect(replSet.getUri());
  try {
    const hello = await client.db('admin').command({ hello: 1 });
    assert.equal(hello.setName, 'rs0');
    assert.equal(hello.isWritablePrimary, true);

    const orders = client.db('shop').collection('orders');
    const changes = orders.watch();
    const next = changes.next();
    await new Promise((resolve) => setTimeout(resolve, 100));  // the stream is open

    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await orders.insertOne({ _id: 1, total: 10 }, { session });
        await orders.insertOne({ _id: 2, total: 20 }, { session });
      });
    } finally {
      await session.endSession();
    }
    assert.equal(await orders.countDocuments(), 2);
    const event = await next;
    assert.equal(event.operationType, 'insert');
    assert.deepEqual(event.documentKey, { _id: 1 });
    assert.ok(event.txnNumber !== undefined, 'a change made in a transaction names it');
    await changes.close();
  } finally {
    await client.close();
  }
  await replSet.stop();
  started.splice(started.indexOf(replSet), 1);
});

test('MongoMemoryServer: a standalone', async () => {
  const server = await MongoMemoryServer.create({ binary });
  started.push(server);
  const client = await MongoClient.connect(server.getUri());
  try {
    const hello = await client.db('admin').command({ hello: 1 });
    assert.equal(hello.setName, undefined);
    await client.db('t').collection('c').insertOne({ a: 1 });
    assert.equal(await client.db('t').collection('c').countDocuments(), 1);
  } finally {
    await client.close();
  }
  await server.stop();
  started.splice(started.indexOf(server), 1);
});

test('MongoMemoryServer: the in-memory mode', async () => {
  const server = await MongoMemoryServer.create({ binary, instance: { storageEngine: 'inMemory' } });
  started.push(server);
  const client = await MongoClient.connect(server.getUri());
  try {
    const opts = await client.db('admin').command({ getCmdLineOpts: 1 });
    assert.equal(opts.parsed.storage.engine, 'inMemory');
    const c = client.db('t').collection('c');
    await c.insertMany(Array.from({ length: 1000 }, (_, i) => ({ _id: i, v: 'x'.repeat(100) })));
    await c.createIndex({ v: 1 });
    assert.equal(await c.countDocuments({ v: 'x'.repeat(100) }), 1000);
    assert.deepEqual(readdirSync(server.instanceInfo.dbPath), []);
  } finally {
    await client.close();
  }
  await server.stop();
  started.splice(started.indexOf(server), 1);
});
