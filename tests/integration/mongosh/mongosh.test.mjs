// The real mongosh against cairnd: a script of everyday shell commands (crud.js) whose results
// come back as Extended JSON, the everyday admin commands typed into its REPL (admin.js), the
// admin helpers (fsyncLock, compact, dbHash), and a failing command's exit status and message.
// Each mongosh start costs 1-2 s, so there are only four.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, MONGOSH, mongodb } from '../node/harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { EJSON } = mongodb.BSON;

let server;
let home;

before(async () => {
  server = await startServer();
  // mongosh keeps logs/history under $HOME: give it a throwaway one.
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-mongosh-home-'));
});

after(async () => {
  await server?.stop();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

function mongosh(args, { db = 'testdb', input } = {}) {
  const uri = `mongodb://127.0.0.1:${server.port}/${db}`;
  return new Promise((resolve) => {
    const child = execFile(MONGOSH, [uri, '--quiet', '--norc', ...args], {
      timeout: 60_000,
      env: { ...process.env, HOME: home, DO_NOT_TRACK: '1', MONGOSH_NO_UPDATE_CHECK: '1' },
      maxBuffer: 16 * 1024 * 1024,
    }, (error, stdout, stderr) => {
      resolve({ code: error ? (error.code ?? error.signal) : 0, stdout, stderr });
    });
    if (input !== undefined) child.stdin.end(input);
  });
}

test('a mongosh script: CRUD, show dbs/collections, server helpers', async () => {
  const run = await mongosh(['--file', path.join(here, 'crud.js')]);
  const line = run.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  assert.ok(line, `no RESULT line; exit ${run.code}\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`);
  assert.equal(run.code, 0, run.stderr);
  const out = EJSON.parse(line.slice('RESULT '.length), { relaxed: true });

  const expected = {
    version: '7.0.0',
    dbName: 'testdb',
    ping: 1,
    hello: { isWritablePrimary: true, maxWireVersion: 21, ok: 1 },
    insertOne: { acknowledged: true, insertedId: 1 },
    insertMany: { acknowledged: true, insertedIds: { 0: 2, 1: 3 } },
    updateOne: { matchedCount: 1, modifiedCount: 1 },
    upsert: { upsertedId: 4, upsertedCount: 1 },
    deleteOne: { deletedCount: 1 },
    find: [{ _id: 4, title: 'fourth' }, { _id: 2, title: 'second!' }, { _id: 1, title: 'first' }],
    findOne: { _id: 2, title: 'second!', n: 2, tags: ['b'] },
    count: 3,
    itcount: 2,
    fam: { _id: 1, title: 'first', tags: ['a'], views: 1 },
    distinct: ['first', 'fourth', 'second!'],
    showCollections: ['notes'],
    collectionNames: ['notes'],
    serverStatus: { ok: 1, hasConnections: true },
    getLog: { ok: 1, logIsArray: true },
    buildInfo: { ok: 1, version: '7.0.0', hasCairn: true },
  };
  // Check every step and report all differences at once.
  const problems = [];
  for (const [key, want] of Object.entries(expected)) {
    try {
      assert.deepStrictEqual(out[key], want);
    } catch {
      problems.push(`${key}: expected ${JSON.stringify(want)}, got ${JSON.stringify(out[key])}`);
    }
  }
  if (!(Array.isArray(out.showDbs) && out.showDbs.includes('testdb'))) {
    problems.push(`showDbs: expected a list including "testdb", got ${JSON.stringify(out.showDbs)}`);
  }
  if (problems.length) assert.fail(`mongosh results differ from MongoDB 7.0's:\n${problems.join('\n')}`);
});

test('a failing command makes mongosh exit non-zero with the server\'s message', async () => {
  const run = await mongosh(['--eval', 'db.dups.insertOne({_id: 1}); db.dups.insertOne({_id: 1}); print("NOT REACHED")']);
  assert.notEqual(run.code, 0);
  const output = run.stdout + run.stderr;
  assert.ok(output.includes('E11000 duplicate key error collection: testdb.dups index: _id_ dup key: { _id: 1 }'), output);
  assert.ok(output.includes('MongoServerError'), output);
  assert.ok(!run.stdout.includes('NOT REACHED'));
});

test('an operator\'s admin session: show dbs/collections/profile, stats, explain, validate, ...', async () => {
  const run = await mongosh([], { db: 'shop', input: fs.readFileSync(path.join(here, 'admin.js'), 'utf8') });
  assert.equal(run.code, 0, run.stderr);
  const checks = {};
  for (const line of run.stdout.split('\n')) {
    const at = line.indexOf('CHECK ');
    if (at < 0) continue;
    const [name, ...json] = line.slice(at + 'CHECK '.length).split(' ');
    checks[name] = EJSON.parse(json.join(' '), { relaxed: true });
  }
  assert.deepEqual(checks, {
    stats: { db: 'shop', collections: 1, objects: 2 },
    collStats: { ns: 'shop.orders', count: 2, nindexes: 2 },
    indexes: ['_id_', 'item_1'],
    explain: 'IXSCAN',
    serverStatus: { ok: 1, hasConnections: true, hasOpcounters: true },
    currentOp: true,
    validate: { valid: true, nrecords: 2, nIndexes: 2, keysPerIndex: { _id_: 2, item_1: 2 } },
    setProfilingLevel: { was: 0, slowms: 100 },
    profilingStatus: 50,
    profileOn: 0,
    profileOff: 2,
    profiled: 1,
    killOp: 1,
    fsyncLock: [1, 0],
    logLevel: 1,
  }, run.stdout);
  // The shell's own commands: show dbs lists shop, show collections orders, show profile finds
  // nothing profiled at first, then the insert profiled at level 2; and no command failed.
  assert.match(run.stdout, /shop\s+\d/);
  assert.match(run.stdout, /\borders\b/);
  assert.match(run.stdout, /db\.system\.profile is empty/);
  assert.match(run.stdout, /insert\tshop\.bulk \d+ms [\s\S]*?ninserted:30000 /);
  assert.doesNotMatch(run.stdout, /MongoServerError|Uncaught/);
});

test('mongosh admin helpers: db.fsyncLock/fsyncUnlock, compact, dbHash', async () => {
  const script = [
    'db.admin_notes.insertOne({_id: 1});',
    'const locked = db.fsyncLock();',
    'const unlocked = db.fsyncUnlock();',
    'const compact = db.runCommand({compact: "admin_notes"});',
    'const hash = db.runCommand({dbHash: 1, collections: ["admin_notes"]});',
    'print("RESULT " + EJSON.stringify({locked: locked.lockCount, unlocked: unlocked.lockCount,',
    '  compactOk: compact.ok, freedIsNumber: typeof compact.bytesFreed === "number",',
    '  hashed: Object.keys(hash.collections), md5Length: hash.md5.length}));',
  ].join('\n');
  const run = await mongosh(['--eval', script]);
  const line = run.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  assert.ok(line, `no RESULT line; exit ${run.code}\n${run.stdout}\n${run.stderr}`);
  assert.deepStrictEqual(EJSON.parse(line.slice('RESULT '.length), { relaxed: true }), {
    locked: 1, unlocked: 0, compactOk: 1, freedIsNumber: true, hashed: ['admin_notes'], md5Length: 32,
  });
});
