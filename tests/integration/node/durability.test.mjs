// Data survives the server: a clean stop (SIGTERM) and restart on the same --dbpath, and a
// crash (SIGKILL right after acknowledged writes) and restart.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, connect as connectClient, countOf } from './harness.mjs';

const dbpath = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-node-durable-'));
const running = new Set();
const clients = new Set();

async function connect(server) {
  const client = await connectClient(server);
  clients.add(client);
  return client;
}

async function start() {
  const server = await startServer({ dbpath });
  running.add(server);
  return server;
}

after(async () => {
  // A failed test may leave clients and servers behind: close and kill them all.
  for (const client of clients) await client.close(true).catch(() => {});
  for (const server of running) await server.kill();
  if (!process.env.CAIRN_KEEP_TMP) fs.rmSync(dbpath, { recursive: true, force: true });
});

async function snapshot(client) {
  const db = client.db('durable');
  return {
    collections: (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort(),
    notes: await db.collection('notes').find().sort({ _id: 1 }).toArray(),
    counters: await db.collection('counters').find().sort({ _id: 1 }).toArray(),
  };
}

test('a clean stop (SIGTERM) and a restart on the same dbpath keep everything', async () => {
  const first = await start();
  const client = await connect(first);
  const db = client.db('durable');
  await db.collection('notes').insertMany(
    Array.from({ length: 50 }, (_, i) => ({ _id: i, text: `note ${i}`, at: new Date(Date.UTC(2024, 1, 1, 0, i)) })));
  await db.collection('notes').updateOne({ _id: 7 }, { $set: { pinned: true } });
  await db.collection('notes').deleteOne({ _id: 13 });
  await db.collection('counters').updateOne({ _id: 'notes' }, { $inc: { n: 49 } }, { upsert: true });
  await db.createCollection('empty_but_created');
  const expected = await snapshot(client);
  assert.equal(expected.notes.length, 49);
  assert.deepEqual(expected.collections, ['counters', 'empty_but_created', 'notes']);
  await client.close();

  const exit = await first.stop({ keepDbpath: true });
  running.delete(first);
  assert.equal(exit.code, 0, 'cairnd exits 0 on SIGTERM');

  const second = await start();
  const client2 = await connect(second);
  try {
    assert.deepEqual(await snapshot(client2), expected);
    assert.deepEqual(await client2.db('durable').collection('notes').findOne({ _id: 7 }),
      { _id: 7, text: 'note 7', at: new Date(Date.UTC(2024, 1, 1, 0, 7)), pinned: true });
    // And it keeps accepting writes.
    await client2.db('durable').collection('notes').insertOne({ _id: 100, text: 'after restart' });
  } finally {
    await client2.close();
  }
  await second.stop({ keepDbpath: true });
  running.delete(second);
});

test('acknowledged writes survive SIGKILL', async () => {
  const server = await start();
  const client = await connect(server);
  const notes = client.db('durable').collection('notes');
  const before = await countOf(notes); // 50 when the first test passed

  // Default (w:1) acknowledged writes, then one with j:true.
  await notes.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: 200 + i, text: `crash ${i}` })));
  await notes.updateOne({ _id: 200 }, { $set: { text: 'updated before crash' } });
  await notes.deleteOne({ _id: 219 });
  await notes.insertOne({ _id: 'journaled' }, { writeConcern: { w: 1, j: true } });
  await client.db('durable').collection('counters').updateOne({ _id: 'crashes' }, { $inc: { n: 1 } }, { upsert: true });
  const expected = await snapshot(client);
  await client.close().catch(() => {});

  const exit = await server.kill();
  running.delete(server);
  assert.equal(exit.signal, 'SIGKILL');

  const again = await start();
  const client2 = await connect(again);
  try {
    assert.deepEqual(await snapshot(client2), expected);
    const notes2 = client2.db('durable').collection('notes');
    assert.equal(await countOf(notes2), before + 19 + 1);
    assert.deepEqual(await notes2.findOne({ _id: 200 }), { _id: 200, text: 'updated before crash' });
    assert.equal(await notes2.findOne({ _id: 219 }), null);
    assert.deepEqual(await notes2.findOne({ _id: 'journaled' }), { _id: 'journaled' });
    assert.deepEqual(await client2.db('durable').collection('counters').findOne({ _id: 'crashes' }),
      { _id: 'crashes', n: 1 });
  } finally {
    await client2.close();
  }
  await again.stop({ keepDbpath: true });
  running.delete(again);
});
