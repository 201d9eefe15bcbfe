// Mongoose against a one-member replica set (`cairnd --replSet rs0 --initiate`): models with
// schema defaults and validation, queries, and Model.watch() change streams with
// fullDocument: 'updateLookup', resumed from a token, as an application uses them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, requirePackage } from './harness.mjs';

const mongoose = requirePackage('mongoose');

let server;
let connection;

before(async () => {
  server = await startServer({ args: ['--replSet', 'rs0', '--initiate'] });
  connection = await mongoose
    .createConnection(`mongodb://127.0.0.1:${server.port}/shop?replicaSet=rs0`,
      { serverSelectionTimeoutMS: 10_000 })
    .asPromise();
});

after(async () => {
  await connection?.close();
  await server?.stop();
});

const orderSchema = new mongoose.Schema({
  customer: { type: String, required: true },
  qty: { type: Number, min: 1, default: 1 },
  status: { type: String, enum: ['new', 'paid'], default: 'new' },
});

test('models: create with defaults, validation errors, queries and updates', async () => {
  const Order = connection.model('Order', orderSchema);
  const created = await Order.create({ customer: 'ada' });
  assert.equal(created.qty, 1);
  assert.equal(created.status, 'new');
  await assert.rejects(Order.create({ qty: 0 }), { name: 'ValidationError' });
  await Order.updateOne({ _id: created._id }, { $set: { status: 'paid' } });
  const found = await Order.findById(created._id).lean();
  assert.equal(found.status, 'paid');
  assert.equal(await Order.countDocuments({ status: 'paid' }), 1);
});

test('Model.watch(): change events, updateLookup and resuming from a token', async () => {
  const Item = connection.model('Item', new mongoose.Schema({ name: String, stock: Number }));
  await Item.init();
  const stream = Item.watch([], { fullDocument: 'updateLookup' });
  const events = [];
  const arrived = new Promise((resolve) => {
    stream.on('change', (change) => {
      events.push(change);
      if (events.length === 3) resolve();
    });
  });
  // The driver opens the stream on its first getMore; give it a moment to be parked there.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const item = await Item.create({ name: 'lamp', stock: 3 });
  await Item.updateOne({ _id: item._id }, { $inc: { stock: -1 } });
  await Item.deleteOne({ _id: item._id });
  await arrived;
  await stream.close();
  assert.deepEqual(events.map((e) => e.operationType), ['insert', 'update', 'delete']);
  assert.equal(events[0].fullDocument.name, 'lamp');
  assert.deepEqual(events[1].updateDescription.updatedFields, { stock: 2 });
  const resumed = Item.watch([], { resumeAfter: events[0]._id });
  const next = await resumed.next();
  assert.equal(next.operationType, 'update');
  await resumed.close();
});

test('connection.transaction(): committed together, or rolled back with the error', async () => {
  const Account = connection.model('Account', new mongoose.Schema({ _id: String, balance: Number }));
  await Account.init();
  await Account.create([{ _id: 'a', balance: 10 }, { _id: 'b', balance: 0 }]);
  await connection.transaction(async (session) => {
    await Account.updateOne({ _id: 'a' }, { $inc: { balance: -4 } }, { session });
    await Account.updateOne({ _id: 'b' }, { $inc: { balance: 4 } }, { session });
    // Inside, the transaction sees its own writes; outside, nothing yet.
    assert.equal((await Account.findById('b').session(session).lean()).balance, 4);
    assert.equal((await Account.findById('b').lean()).balance, 0);
  });
  assert.deepEqual((await Account.find().sort({ _id: 1 }).lean()).map((d) => d.balance), [6, 4]);
  await assert.rejects(connection.transaction(async (session) => {
    await Account.updateOne({ _id: 'a' }, { $inc: { balance: -100 } }, { session });
    throw new Error('insufficient funds');
  }), /insufficient funds/);
  assert.equal((await Account.findById('a').lean()).balance, 6);
});
