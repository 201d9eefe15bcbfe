// Replica-set mode through the Node driver and mongosh: `cairnd --replSet rs0` initiated with
// rs.initiate() from mongosh (rs.status(), rs.conf()), then a replicaSet= URI that discovers the
// primary and writes with the driver's defaults (retryable writes), findOneAndUpdate included;
// the oplog records each write; watch() streams change events and resumes from a token.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, MONGOSH, mongodb } from './harness.mjs';

let server;
let home;

before(async () => {
  server = await startServer({ args: ['--replSet', 'rs0'] });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-mongosh-home-'));
});

after(async () => {
  await server?.stop();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

function mongosh(script) {
  const uri = `mongodb://127.0.0.1:${server.port}/test?directConnection=true`;
  return new Promise((resolve) => {
    execFile(MONGOSH, [uri, '--quiet', '--norc', '--eval', script], {
      timeout: 60_000,
      env: { ...process.env, HOME: home, DO_NOT_TRACK: '1', MONGOSH_NO_UPDATE_CHECK: '1' },
    }, (error, stdout, stderr) => {
      resolve({ code: error ? (error.code ?? error.signal) : 0, stdout, stderr });
    });
  });
}

test('mongosh initiates the set and reads rs.status() and rs.conf()', async () => {
  const host = `127.0.0.1:${server.port}`;
  const result = await mongosh(
    `const r = rs.initiate({_id: 'rs0', members: [{_id: 0, host: '${host}'}]});` +
      `print(JSON.stringify({ok: r.ok, state: rs.status().members[0].stateStr,` +
      ` host: rs.conf().members[0].host, primary: db.hello().isWritablePrimary}))`);
  assert.equal(result.code, 0, result.stderr + result.stdout);
  const out = JSON.parse(result.stdout.trim().split('\n').pop());
  assert.deepEqual(out, { ok: 1, state: 'PRIMARY', host, primary: true });
});

test('mongosh: session.startTransaction(), commit and abort', async () => {
  const result = await mongosh(
    `const s = db.getMongo().startSession(); const c = s.getDatabase('test').txn;` +
      `s.startTransaction(); c.insertOne({_id: 1}); c.insertOne({_id: 2});` +
      `const inside = c.countDocuments({}); const outside = db.txn.countDocuments({});` +
      `s.commitTransaction();` +
      `s.startTransaction(); c.insertOne({_id: 3}); s.abortTransaction();` +
      `print(JSON.stringify({inside, outside, after: db.txn.countDocuments({})}))`);
  assert.equal(result.code, 0, result.stderr + result.stdout);
  const out = JSON.parse(result.stdout.trim().split('\n').pop());
  assert.deepEqual(out, { inside: 2, outside: 0, after: 2 });
});

test('the driver discovers the primary and writes with retryable writes', async () => {
  const client = new mongodb.MongoClient(`mongodb://127.0.0.1:${server.port}/?replicaSet=rs0`,
    { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  try {
    const coll = client.db('app').collection('orders');
    await coll.insertOne({ _id: 1, qty: 1 });
    await coll.updateOne({ _id: 1 }, { $inc: { qty: 1 } });
    const after = await coll.findOneAndUpdate({ _id: 1 }, { $inc: { qty: 1 } },
      { returnDocument: 'after' });
    assert.deepEqual(after, { _id: 1, qty: 3 });
    await coll.deleteOne({ _id: 1 });
    const ops = await client.db('local').collection('oplog.rs')
      .find({ ns: 'app.orders' }).sort({ $natural: 1 }).toArray();
    assert.deepEqual(ops.filter((e) => e.op !== 'n').map((e) => e.op), ['i', 'u', 'u', 'd']);
    assert.ok(ops.every((e) => e.lsid && e.txnNumber !== undefined));
    const hello = await client.db('admin').command({ hello: 1 });
    assert.equal(hello.setName, 'rs0');
    assert.ok(hello.$clusterTime);
  } finally {
    await client.close();
  }
});

test('watch(): change events through the driver, resumed from a token',
  async () => {
    const client = new mongodb.MongoClient(`mongodb://127.0.0.1:${server.port}/?replicaSet=rs0`,
      { serverSelectionTimeoutMS: 10_000 });
    await client.connect();
    try {
      const coll = client.db('app').collection('feed');
      const stream = coll.watch([{ $match: { operationType: { $in: ['insert', 'update'] } } }],
        { fullDocument: 'updateLookup', maxAwaitTimeMS: 500 });
      // The driver opens the stream with its first getMore; a write after it is seen.
      const first = stream.next();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await coll.insertOne({ _id: 'a', n: 1 });
      await coll.updateOne({ _id: 'a' }, { $inc: { n: 1 } });
      await coll.deleteOne({ _id: 'a' });
      await coll.insertOne({ _id: 'b', n: 1 });
      const insert = await first;
      assert.equal(insert.operationType, 'insert');
      assert.deepEqual(insert.fullDocument, { _id: 'a', n: 1 });
      const update = await stream.next();
      assert.equal(update.operationType, 'update');
      assert.deepEqual(update.updateDescription.updatedFields, { n: 2 });
      const token = stream.resumeToken;
      assert.deepEqual(token, update._id);
      await stream.close();
      // Resumed after the update: the delete is filtered, the next insert arrives.
      const resumed = coll.watch([{ $match: { operationType: 'insert' } }], { resumeAfter: token });
      const next = await resumed.next();
      assert.deepEqual(next.documentKey, { _id: 'b' });
      await resumed.close();
    } finally {
      await client.close();
    }
  });
