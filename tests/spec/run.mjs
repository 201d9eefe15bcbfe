// The Node spec runner (tests/spec/README.md): the same files as the in-process runner
// (spec_runner.cc), each command sent with the official driver's db.command() to a server.
//
//   node tests/spec/run.mjs [FILE.json | FOLDER]...     # default: every tests/spec/*/*.json
//
// Without CAIRN_SPEC_URI it starts its own cairnd (CAIRND; tests/integration/node/harness.mjs)
// on a fresh --dbpath and stops it at the end. With CAIRN_SPEC_URI=mongodb://... it runs against
// that server instead (a real mongod, to check the files themselves): the databases the files
// name are DROPPED there, and the files under diff/ (Cairn's known differences) are skipped.
//
// Values: the files are read by spec_json.cc's rules, so both runners send the same BSON: a plain
// JSON number is an int32 when it is an integer that fits, an int64 when it is a larger integer,
// and a double when written with a '.' or an exponent; a document that is exactly one Extended
// JSON value form ({"$numberLong": ...}, {"$date": ...}, ...) is that value, every other document
// stays a document. Replies are read without promoting numbers (Int32, Long and Double stay
// apart) for $$type.
import { test, before, after } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, mongodb } from '../integration/node/harness.mjs';

const { BSON, Int32, MongoClient, MongoServerError } = mongodb;
const { EJSON } = BSON;

const SPEC_DIR = path.dirname(fileURLToPath(import.meta.url));
const EXTERNAL_URI = process.env.CAIRN_SPEC_URI || '';
const READ_OPTIONS = { promoteValues: false, promoteLongs: false, bsonRegExp: true };

// ---------------------------------------------------------------------------------------------
// Reading the files.

/** Every number token outside strings, rewritten the way libbson's JSON reader types it. */
function typedNumbers(text) {
  let out = '';
  let i = 0;
  const number = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      number.lastIndex = i;
      const m = number.exec(text);
      if (m) {
        const token = m[0];
        if (m[1] !== undefined || m[2] !== undefined) {
          out += `{"$numberDouble": "${token}"}`;
        } else {
          const value = BigInt(token);
          out += value >= -(2n ** 31n) && value < 2n ** 31n ? token : `{"$numberLong": "${token}"}`;
        }
        i += token.length;
        continue;
      }
    }
    out += c;
    i += 1;
  }
  return out;
}

// Extended JSON's value forms, by their first field (spec_json.cc's WrapperFields): a document
// that is exactly one of them is that value; every other document stays a document.
const VALUE_FORMS = new Set(['$oid', '$symbol', '$numberInt', '$numberLong', '$numberDouble',
  '$numberDecimal', '$binary', '$code', '$timestamp', '$regularExpression', '$dbPointer', '$date',
  '$minKey', '$maxKey', '$undefined']);

function fromJson(v) {
  if (Array.isArray(v)) return v.map(fromJson);
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    const form = (VALUE_FORMS.has(keys[0]) && keys.length === 1) ||
      (keys[0] === '$code' && keys.length === 2 && keys[1] === '$scope');
    if (form) return EJSON.deserialize(v, { relaxed: false });
    return Object.fromEntries(keys.map((k) => [k, fromJson(v[k])]));
  }
  // typedNumbers wrote every double and every int64 as a value form: what is left is an int32.
  if (typeof v === 'number') return new Int32(v);
  return v;
}

function loadFile(file) {
  const text = fs.readFileSync(file, 'utf8');
  JSON.parse(text); // plain JSON first: its error messages name the position
  return fromJson(JSON.parse(typedNumbers(text)));
}

function unknownFields(doc, allowed, where) {
  const unknown = Object.keys(doc).filter((k) => !allowed.includes(k));
  if (unknown.length) throw new Error(`${where}: unknown field(s) ${unknown.join(', ')}`);
}

const isString = (v) => typeof v === 'string';

/** The structure checks of spec_runner.cc's CheckFile; returns the databases the file names. */
function checkFile(spec) {
  unknownFields(spec, ['description', 'comment', 'database', 'initialData', 'tests'], 'file');
  if (!isString(spec.description)) throw new Error('"description" (a string) is required');
  if (!isString(spec.database)) throw new Error('"database" (a string) is required');
  const databases = [];
  const add = (db) => {
    if (isString(db) && !['admin', 'config', 'local'].includes(db) && !databases.includes(db)) {
      databases.push(db);
    }
  };
  const addField = (doc) => {
    if ('database' in doc && !isString(doc.database)) throw new Error('"database" is a string');
    add(doc.database);
  };
  add(spec.database);
  for (const entry of spec.initialData ?? []) {
    unknownFields(entry, ['collection', 'database', 'documents', 'createOptions', 'createIndexes'],
      'initialData entry');
    if (!isString(entry.collection)) throw new Error('an initialData entry needs "collection" (a string)');
    if (('documents' in entry && !Array.isArray(entry.documents)) ||
        ('createIndexes' in entry && !Array.isArray(entry.createIndexes)) ||
        ('createOptions' in entry && !isDocument(entry.createOptions))) {
      throw new Error('initialData: documents and createIndexes are arrays, createOptions a document');
    }
    addField(entry);
  }
  if (!Array.isArray(spec.tests)) throw new Error('"tests" (an array) is required');
  const names = new Set();
  for (const t of spec.tests) {
    if (!isString(t.name)) throw new Error('a test without a "name"');
    if (names.has(t.name)) throw new Error(`two tests named "${t.name}"`);
    names.add(t.name);
    const where = `test "${t.name}"`;
    unknownFields(t, ['name', 'comment', 'skipReason', 'database', 'setup', 'command', 'expectResult',
      'expectError', 'outcome'], where);
    addField(t);
    if ('skipReason' in t && !isString(t.skipReason)) throw new Error(`${where}: skipReason is a string`);
    if (!isDocument(t.command) || !Object.keys(t.command).length) throw new Error(`${where} needs a "command" document`);
    if (('expectResult' in t) === ('expectError' in t)) {
      throw new Error(`${where} needs exactly one of expectResult and expectError`);
    }
    if ('expectResult' in t && !isDocument(t.expectResult)) throw new Error(`${where}: expectResult is a document`);
    if ('setup' in t && !(Array.isArray(t.setup) && t.setup.every(isDocument))) {
      throw new Error(`${where}: setup is an array of commands`);
    }
    if ('expectError' in t) {
      if (!isDocument(t.expectError) || !Object.keys(t.expectError).length) {
        throw new Error(`${where}: expectError is a non-empty document`);
      }
      unknownFields(t.expectError, ['code', 'codeName', 'errmsg', 'errmsgContains', 'errorResponse'],
        `${where} expectError`);
    }
    for (const entry of t.outcome ?? []) {
      unknownFields(entry, ['collection', 'database', 'documents'], `${where} outcome entry`);
      if (!isString(entry.collection) || !Array.isArray(entry.documents)) {
        throw new Error(`${where}: an outcome entry needs collection (a string) and documents (an array)`);
      }
      addField(entry);
    }
    for (const command of [...(t.setup ?? []), t.command]) add(command.$db);
  }
  return databases;
}

// ---------------------------------------------------------------------------------------------
// Matching (spec_match.cc's rules).

const bsonType = (v) => (v !== null && typeof v === 'object' && typeof v._bsontype === 'string' ? v._bsontype : null);

function isDocument(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && bsonType(v) === null &&
    !(v instanceof Date) && !(v instanceof Uint8Array) && !(v instanceof RegExp);
}

function typeName(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'missing';
  switch (typeof v) {
    case 'string': return 'string';
    case 'boolean': return 'bool';
    case 'number': return Number.isInteger(v) ? 'int' : 'double';
    case 'bigint': return 'long';
    default: break;
  }
  if (Array.isArray(v)) return 'array';
  if (v instanceof Date) return 'date';
  if (v instanceof RegExp) return 'regex';
  switch (bsonType(v)) {
    case 'Int32': return 'int';
    case 'Long': return 'long';
    case 'Double': return 'double';
    case 'Decimal128': return 'decimal';
    case 'ObjectId': return 'objectId';
    case 'Binary': return 'binData';
    case 'BSONRegExp': return 'regex';
    case 'Timestamp': return 'timestamp';
    case 'MinKey': return 'minKey';
    case 'MaxKey': return 'maxKey';
    case 'Code': return v.scope ? 'javascriptWithScope' : 'javascript';
    case 'BSONSymbol': return 'symbol';
    case 'DBRef': return 'object';
    case null: return 'object';
    default: return bsonType(v);
  }
}

const PLAIN_NUMBERS = ['int', 'long', 'double'];

/** {integer: BigInt} or {double: number} for an int32/int64/double. */
function numberOf(v) {
  switch (bsonType(v)) {
    case 'Int32': return { integer: BigInt(v.value) };
    case 'Long': return { integer: BigInt(v.toString()) };
    case 'Double': return { double: v.value };
    default: break;
  }
  if (typeof v === 'bigint') return { integer: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { integer: BigInt(v) } : { double: v };
  return null;
}

function numbersEqual(a, b) {
  const x = numberOf(a);
  const y = numberOf(b);
  if ('integer' in x && 'integer' in y) return x.integer === y.integer;
  if ('double' in x && 'double' in y) return (Number.isNaN(x.double) && Number.isNaN(y.double)) || x.double === y.double;
  const d = 'double' in x ? x.double : y.double;
  const i = 'integer' in x ? x.integer : y.integer;
  if (!Number.isFinite(d) || d !== Math.trunc(d)) return false;
  if (d < -9223372036854775808 || d >= 9223372036854775808) return false;
  return BigInt(d) === i;
}

function show(v) {
  if (v === undefined) return '<absent>';
  try {
    return EJSON.stringify(v, { relaxed: true });
  } catch {
    return String(v);
  }
}

const sortedFlags = (flags) => String(flags ?? '').split('').sort().join('');

function scalarsEqual(e, a) {
  const type = typeName(e);
  if (type !== typeName(a)) return false;
  switch (type) {
    case 'string':
    case 'bool':
      return e === a;
    case 'null':
    case 'minKey':
    case 'maxKey':
      return true;
    case 'objectId':
      return e.toHexString() === a.toHexString();
    case 'date':
      return e.getTime() === a.getTime();
    case 'timestamp':
    case 'decimal':
      return e.toString() === a.toString();
    case 'regex':
      return (e.pattern ?? e.source) === (a.pattern ?? a.source) &&
        sortedFlags(e.options ?? e.flags) === sortedFlags(a.options ?? a.flags);
    case 'binData':
      return e.sub_type === a.sub_type && Buffer.from(e.buffer).equals(Buffer.from(a.buffer));
    default:
      return show(e) === show(a);
  }
}

const join = (p, key) => (p ? `${p}.${key}` : String(key));
const where = (p) => p || '<root>';

/** The one special operator of `v` ({$$type: ...}) as [name, argument], or null. */
function specialOperator(v) {
  if (!isDocument(v)) return null;
  const keys = Object.keys(v);
  if (keys.length !== 1 || !keys[0].startsWith('$$')) return null;
  return [keys[0], v[keys[0]]];
}

function matchOperator([op, arg], actual, root, p) {
  switch (op) {
    case '$$type': {
      const wanted = Array.isArray(arg) ? arg : [arg];
      if (actual === undefined) return `${where(p)}: expected a value of type ${wanted[0]}, absent`;
      const name = typeName(actual);
      const number = PLAIN_NUMBERS.includes(name) || name === 'decimal';
      if (wanted.some((w) => w === name || (number && w === 'number'))) return '';
      return `${where(p)}: expected type ${wanted.join('|')}, got ${name} ${show(actual)}`;
    }
    case '$$unsetOrMatches':
      return actual === undefined ? '' : matchValue(arg, actual, root, p);
    case '$$matchAsRoot':
      return matchValue(arg, actual, true, p);
    case '$$exists':
      return `${where(p)}: $$exists can only be the value of a field`;
    default:
      return `${where(p)}: unknown special operator ${op}`;
  }
}

function matchDocument(expected, actual, root, p) {
  const has = (key) => Object.prototype.hasOwnProperty.call(actual, key) && actual[key] !== undefined;
  for (const key of Object.keys(expected)) {
    const kp = join(p, key);
    const ev = expected[key];
    const op = specialOperator(ev);
    let result = '';
    if (op && op[0] === '$$exists') {
      const want = Boolean(op[1]?.valueOf?.() ?? op[1]);
      if (want && !has(key)) return `${kp}: expected the field to exist, absent`;
      if (!want && has(key)) return `${kp}: expected the field to be absent, got ${show(actual[key])}`;
    } else if (op) {
      result = matchOperator(op, has(key) ? actual[key] : undefined, false, kp);
    } else if (!has(key)) {
      return `${kp}: missing field (expected ${show(ev)})`;
    } else {
      result = matchValue(ev, actual[key], false, kp);
    }
    if (result) return result;
  }
  if (!root) {
    for (const key of Object.keys(actual)) {
      if (actual[key] !== undefined && !Object.prototype.hasOwnProperty.call(expected, key)) {
        return `${join(p, key)}: unexpected extra field with value ${show(actual[key])}`;
      }
    }
  }
  return '';
}

function matchValue(expected, actual, root, p) {
  const op = specialOperator(expected);
  if (op) return matchOperator(op, actual, root, p);
  if (actual === undefined) return `${where(p)}: missing (expected ${show(expected)})`;
  const mismatch = () => `${where(p)}: expected ${show(expected)}, got ${show(actual)}`;
  if (isDocument(expected)) {
    if (!isDocument(actual)) return mismatch();
    return matchDocument(expected, actual, root, p);
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return mismatch();
    if (expected.length !== actual.length) {
      return `${where(p)}: expected ${expected.length} elements, got ${actual.length}: ${show(actual)}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const r = matchValue(expected[i], actual[i], false, join(p, i));
      if (r) return r;
    }
    return '';
  }
  if (PLAIN_NUMBERS.includes(typeName(expected))) {
    if (!PLAIN_NUMBERS.includes(typeName(actual)) || !numbersEqual(expected, actual)) return mismatch();
    return '';
  }
  return scalarsEqual(expected, actual) ? '' : mismatch();
}

function okOf(reply) {
  const n = numberOf(reply?.ok);
  if (n === null) return NaN;
  return 'integer' in n ? Number(n.integer) : n.double;
}

function matchError(expected, reply) {
  if (okOf(reply) !== 0) return 'expected an error (ok: 0), the command succeeded';
  for (const field of ['code', 'codeName', 'errmsg']) {
    if (field in expected) {
      const r = matchValue(expected[field], reply[field], false, field);
      if (r) return r;
    }
  }
  if ('errmsgContains' in expected &&
      !(isString(reply.errmsg) && reply.errmsg.includes(expected.errmsgContains))) {
    return `errmsg: expected it to contain "${expected.errmsgContains}"`;
  }
  if ('errorResponse' in expected) return matchValue(expected.errorResponse, reply, true, '');
  return '';
}

// ---------------------------------------------------------------------------------------------
// Running.

let server = null;
let client = null;

/** Sends a command as is (`$db` picks another database) and resolves to the reply, ok: 0 too. */
async function command(cmd, db) {
  const { $db: target = db, ...body } = cmd;
  try {
    return await client.db(target).command(body, READ_OPTIONS);
  } catch (error) {
    if (error instanceof MongoServerError && error.errorResponse) return error.errorResponse;
    throw error;
  }
}

const succeeded = (reply) => okOf(reply) === 1 && !('writeErrors' in reply) && !('writeConcernError' in reply);

async function mustSucceed(cmd, db, what) {
  const reply = await command(cmd, db);
  if (!succeeded(reply)) {
    throw new Error(`${what} failed\n  command: ${show(cmd)}\n  reply:   ${show(reply)}`);
  }
}

async function reset(spec, databases, name) {
  for (const db of databases) await mustSucceed({ dropDatabase: 1 }, db, `test "${name}": dropDatabase ${db}`);
  for (const entry of spec.initialData ?? []) {
    const db = entry.database ?? spec.database;
    const what = `test "${name}": initialData for ${db}.${entry.collection}`;
    const hasDocuments = (entry.documents ?? []).length > 0;
    if ('createOptions' in entry || (!hasDocuments && !('createIndexes' in entry))) {
      await mustSucceed({ create: entry.collection, ...(entry.createOptions ?? {}) }, db, `${what} (create)`);
    }
    if (hasDocuments) {
      await mustSucceed({ insert: entry.collection, documents: entry.documents }, db, `${what} (insert)`);
    }
    if ('createIndexes' in entry) {
      await mustSucceed({ createIndexes: entry.collection, indexes: entry.createIndexes }, db,
        `${what} (createIndexes)`);
    }
  }
}

async function matchOutcome(outcome, db) {
  for (const entry of outcome ?? []) {
    const target = entry.database ?? db;
    const reply = await command({ find: entry.collection, sort: { _id: 1 }, batchSize: 10000 }, target);
    if (okOf(reply) !== 1) return `outcome: the find of ${target}.${entry.collection} failed: ${show(reply)}`;
    if (numberOf(reply.cursor.id).integer !== 0n) return 'outcome: more than 10000 documents';
    const r = matchValue(entry.documents, reply.cursor.firstBatch, false, `outcome ${target}.${entry.collection}`);
    if (r) return `${r}\n  found:   ${show(reply.cursor.firstBatch)}`;
  }
  return '';
}

async function runTest(spec, databases, t) {
  const db = t.database ?? spec.database;
  await reset(spec, databases, t.name);
  for (const [i, cmd] of (t.setup ?? []).entries()) {
    await mustSucceed(cmd, db, `test "${t.name}": setup command ${i}`);
  }
  const reply = await command(t.command, db);
  let problem;
  if ('expectResult' in t) {
    problem = okOf(reply) !== 1 ? 'the command failed' : matchValue(t.expectResult, reply, true, '');
  } else {
    problem = matchError(t.expectError, reply);
  }
  if (!problem) problem = await matchOutcome(t.outcome, db);
  if (problem) {
    throw new Error(`\n  test:    ${t.name}\n  command: ${show(t.command)}\n  reply:   ${show(reply)}\n  ${problem}`);
  }
}

/** The spec files named on the command line (files, or folders of them), or every one. */
function specFiles(args) {
  const jsonIn = (dir) => fs.readdirSync(dir).sort().filter((n) => n.endsWith('.json'))
    .map((n) => path.join(dir, n));
  if (!args.length) {
    return fs.readdirSync(SPEC_DIR, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== 'node_modules')
      .map((d) => d.name).sort()
      .flatMap((d) => jsonIn(path.join(SPEC_DIR, d)));
  }
  return args.map((a) => path.resolve(a))
    .flatMap((a) => (fs.statSync(a).isDirectory() ? jsonIn(a) : [a]));
}

before(async () => {
  let uri = EXTERNAL_URI;
  if (!uri) {
    server = await startServer();
    uri = server.uri;
  }
  client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000, connectTimeoutMS: 5000 });
  await client.connect();
});

after(async () => {
  await client?.close();
  await server?.stop();
});

for (const file of specFiles(process.argv.slice(2))) {
  const label = path.relative(SPEC_DIR, file);
  const folder = label.split(path.sep)[0];
  const skip = EXTERNAL_URI && folder === 'diff' ? 'a known difference of Cairn (README)' : false;
  test(label, { skip }, async (t) => {
    const spec = loadFile(file);
    const databases = checkFile(spec);
    for (const tc of spec.tests) {
      await t.test(tc.name, { skip: tc.skipReason ?? false }, () => runTest(spec, databases, tc));
    }
  });
}
