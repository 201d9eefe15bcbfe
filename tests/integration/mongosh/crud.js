// Run by mongosh.test.mjs inside the real shell (mongosh <uri>/testdb --file crud.js):
// everyday shell usage. Each step's result (or its error) goes into one object printed as
// "RESULT <Extended JSON>" for the test to check, so one failing step does not hide the others.
const out = {};
function step(name, fn) {
  try {
    out[name] = fn();
  } catch (e) {
    out[name] = { error: `${e.name}: ${e.message}`, code: e.code };
  }
}

step('version', () => db.version());
step('dbName', () => db.getName());
step('ping', () => db.adminCommand({ ping: 1 }).ok);
step('hello', () => {
  const h = db.hello();
  return { isWritablePrimary: h.isWritablePrimary, maxWireVersion: h.maxWireVersion, ok: h.ok };
});

step('insertOne', () => {
  const r = db.notes.insertOne({ _id: 1, title: 'first', tags: ['a'] });
  return { acknowledged: r.acknowledged, insertedId: r.insertedId };
});
step('insertMany', () => {
  const r = db.notes.insertMany([{ _id: 2, title: 'second', n: 1 }, { _id: 3, title: 'third', n: 5 }]);
  return { acknowledged: r.acknowledged, insertedIds: r.insertedIds };
});
step('updateOne', () => {
  const r = db.notes.updateOne({ _id: 2 }, { $set: { title: 'second!' }, $inc: { n: 1 }, $push: { tags: 'b' } });
  return { matchedCount: r.matchedCount, modifiedCount: r.modifiedCount };
});
step('upsert', () => {
  const r = db.notes.updateOne({ _id: 4 }, { $set: { title: 'fourth' } }, { upsert: true });
  return { upsertedId: r.insertedId, upsertedCount: r.upsertedCount }; // mongosh names it insertedId
});
step('deleteOne', () => ({ deletedCount: db.notes.deleteOne({ _id: 3 }).deletedCount }));
step('find', () => db.notes.find({}, { title: 1 }).sort({ _id: -1 }).toArray());
step('findOne', () => db.notes.findOne({ _id: 2 }));
step('count', () => db.notes.countDocuments({}));
step('itcount', () => db.notes.find({ _id: { $gt: 1 } }).itcount());
step('fam', () => db.notes.findOneAndUpdate({ _id: 1 }, { $inc: { views: 1 } }, { returnDocument: 'after' }));
step('distinct', () => db.notes.distinct('title').sort());

// `show dbs` / `show collections` as a user types them (the shell's show() helper).
step('showDbs', () => show('dbs').value.map((d) => d.name));
step('showCollections', () => show('collections').value.map((c) => c.name));
step('collectionNames', () => db.getCollectionNames());

step('serverStatus', () => {
  const s = db.serverStatus();
  return { ok: s.ok, hasConnections: typeof s.connections === 'object' && s.connections !== null };
});
step('getLog', () => {
  const log = db.adminCommand({ getLog: 'startupWarnings' });
  return { ok: log.ok, logIsArray: Array.isArray(log.log) };
});
step('buildInfo', () => {
  const b = db.runCommand({ buildInfo: 1 });
  return { ok: b.ok, version: b.version, hasCairn: b.cairn !== undefined };
});

print('RESULT ' + EJSON.stringify(out, { relaxed: true }));
