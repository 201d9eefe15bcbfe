// A small test file of the kind @shelf/jest-mongodb's users write: connect to the URI the
// preset exposes, insert, query, aggregate, and clean up.
const { MongoClient } = require('mongodb');

describe('orders', () => {
  let client;
  let db;

  beforeAll(async () => {
    client = await MongoClient.connect(globalThis.__MONGO_URI__);
    db = client.db(globalThis.__MONGO_DB_NAME__);
  });

  afterAll(async () => {
    await client.close();
  });

  it('runs against cairnd', async () => {
    const opts = await client.db('admin').command({ getCmdLineOpts: 1 });
    expect(opts.argv[0]).toMatch(/cairnd$/);
  });

  it('inserts an order and finds it', async () => {
    const orders = db.collection('orders');
    await orders.insertOne({ _id: 'o1', customer: 'ada', total: 42 });
    expect(await orders.findOne({ _id: 'o1' })).toEqual({ _id: 'o1', customer: 'ada', total: 42 });
  });

  it('totals orders per customer', async () => {
    const orders = db.collection('orders');
    await orders.insertMany([{ customer: 'ada', total: 8 }, { customer: 'bob', total: 5 }]);
    const totals = await orders
      .aggregate([{ $group: { _id: '$customer', total: { $sum: '$total' } } }, { $sort: { _id: 1 } }])
      .toArray();
    expect(totals).toEqual([{ _id: 'ada', total: 50 }, { _id: 'bob', total: 5 }]);
  });

  it('refuses a duplicate _id with E11000', async () => {
    await expect(db.collection('orders').insertOne({ _id: 'o1' })).rejects.toMatchObject({ code: 11000 });
  });
});
