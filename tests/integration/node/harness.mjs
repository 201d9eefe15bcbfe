// Test harness for the Node suites: starts a real cairnd on a free port with its own temporary
// --dbpath, waits for its "Waiting for connections" log line, and stops it (SIGTERM, then
// SIGKILL after a timeout). Also loads the mongodb driver from tests/node_modules.
//
//   const server = await startServer();          // fresh dbpath, removed by server.stop()
//   const client = await connect(server);        // MongoClient connected to it
//   ...
//   await server.stop();                          // throws if cairnd did not exit cleanly
//
// Environment: CAIRND (the binary; default <repo>/build/server/cairnd), CAIRN_NODE_MODULES
// (default <repo>/tests/node_modules), CAIRN_KEEP_TMP=1 keeps the dbpath and log for debugging.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(here, '../../..');
export const NODE_MODULES =
  process.env.CAIRN_NODE_MODULES || path.join(REPO, 'tests', 'node_modules');
export const CAIRND =
  process.env.CAIRND || path.join(REPO, process.env.BUILD_DIR || 'build', 'server', 'cairnd');
export const MONGOSH = path.join(NODE_MODULES, '.bin', 'mongosh');

const require = createRequire(path.join(NODE_MODULES, '..', 'noop.js'));
export const mongodb = require('mongodb');
/** A package of tests/node_modules (e.g. 'mongoose'), loaded when a suite asks for it. */
export function requirePackage(name) {
  return require(name);
}

const STARTUP_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 15_000;
const LOG_LINES_KEPT = 5_000;

/** A port nobody listens on right now (bind port 0, read it, release it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function isListeningLine(line) {
  if (!line.startsWith('{')) return false;
  try {
    const entry = JSON.parse(line);
    return entry.id === 23016 || entry.msg === 'Waiting for connections';
  } catch {
    return false;
  }
}

export class CairnServer {
  constructor({ dbpath, ownsDbpath, port, args }) {
    this.dbpath = dbpath;
    this.ownsDbpath = ownsDbpath;
    this.port = port;
    this.args = args;
    this.uri = `mongodb://127.0.0.1:${port}/?directConnection=true`;
    this.lines = [];
    this.proc = null;
    this.exited = null; // { code, signal } once the process is gone
  }

  /** The last `n` log lines, as one string (for error messages). */
  logTail(n = 60) {
    return this.lines.slice(-n).join('\n');
  }

  get alive() {
    return this.proc !== null && this.exited === null;
  }

  async _launch() {
    const proc = spawn(
      CAIRND,
      ['--port', String(this.port), '--bind_ip', '127.0.0.1', '--dbpath', this.dbpath, ...this.args],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.proc = proc;
    this.exitPromise = new Promise((resolve) => {
      proc.on('exit', (code, signal) => {
        this.exited = { code, signal };
        resolve(this.exited);
      });
      proc.on('error', (err) => {
        this.lines.push(`[harness] could not run ${CAIRND}: ${err.message}`);
        this.exited = { code: null, signal: null, error: err };
        resolve(this.exited);
      });
    });
    let listening;
    const ready = new Promise((resolve) => { listening = resolve; });
    for (const stream of [proc.stdout, proc.stderr]) {
      let pending = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => {
        pending += chunk;
        let nl;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          this.lines.push(line);
          if (this.lines.length > LOG_LINES_KEPT) this.lines.splice(0, this.lines.length - LOG_LINES_KEPT);
          if (isListeningLine(line)) listening(true);
        }
      });
    }
    let timer;
    const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), STARTUP_TIMEOUT_MS); });
    const outcome = await Promise.race([ready, this.exitPromise.then(() => 'exited'), timeout]);
    clearTimeout(timer);
    return outcome;
  }

  /** SIGTERM, wait, SIGKILL if needed. Returns { code, signal }; throws if not a clean exit. */
  async stop({ keepDbpath = false, allowUnclean = false } = {}) {
    let forced = false;
    if (this.alive) {
      this.proc.kill('SIGTERM');
      let timer;
      const timedOut = await Promise.race([
        this.exitPromise.then(() => false),
        new Promise((resolve) => { timer = setTimeout(() => resolve(true), STOP_TIMEOUT_MS); }),
      ]);
      clearTimeout(timer);
      if (timedOut) {
        forced = true;
        this.proc.kill('SIGKILL');
        await this.exitPromise;
      }
    }
    const result = this.exited ?? { code: null, signal: null };
    if (!keepDbpath) this.cleanup();
    if (!allowUnclean && (forced || result.code !== 0)) {
      throw new Error(
        `cairnd (port ${this.port}) did not stop cleanly on SIGTERM: ` +
        `${forced ? `still running after ${STOP_TIMEOUT_MS} ms, killed` : `exit code ${result.code}, signal ${result.signal}`}` +
        `\n--- cairnd log (tail) ---\n${this.logTail()}`);
    }
    return result;
  }

  /** SIGKILL (a crash, as far as the server can tell); the dbpath is kept. */
  async kill() {
    if (this.alive) {
      this.proc.kill('SIGKILL');
      await this.exitPromise;
    }
    return this.exited;
  }

  cleanup() {
    if (this.ownsDbpath && !process.env.CAIRN_KEEP_TMP) {
      fs.rmSync(this.dbpath, { recursive: true, force: true });
    }
  }
}

/**
 * Starts cairnd and resolves once it logs that it listens. `dbpath` reuses a data directory
 * (for restart tests; the caller then owns it); without it a fresh temporary one is made.
 */
export async function startServer({ dbpath, args = [] } = {}) {
  if (!fs.existsSync(CAIRND)) {
    throw new Error(`cairnd binary not found at ${CAIRND} (set CAIRND or build it: tools/build.sh)`);
  }
  const ownsDbpath = !dbpath;
  if (ownsDbpath) dbpath = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-node-'));
  let last;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const server = new CairnServer({ dbpath, ownsDbpath, port: await freePort(), args });
    const outcome = await server._launch();
    if (outcome === true) return server;
    if (outcome === 'timeout') await server.kill();
    last = new Error(
      `cairnd did not log "Waiting for connections" (${outcome === 'timeout'
        ? `timeout after ${STARTUP_TIMEOUT_MS} ms` : `exited: ${JSON.stringify(server.exited)}`}), ` +
      `command: ${CAIRND} --port ${server.port} --bind_ip 127.0.0.1 --dbpath ${dbpath} ${args.join(' ')}` +
      `\n--- cairnd log ---\n${server.logTail(200)}`);
    // Another process may have taken the port between freePort() and the bind: retry then.
    if (!/address already in use|EADDRINUSE/i.test(server.logTail(200))) break;
  }
  if (ownsDbpath && !process.env.CAIRN_KEEP_TMP) fs.rmSync(dbpath, { recursive: true, force: true });
  throw last;
}

/** A connected MongoClient for `server` (fails fast if the server does not answer). */
export async function connect(server, options = {}) {
  const client = new mongodb.MongoClient(server.uri, {
    serverSelectionTimeoutMS: 5000,
    connectTimeoutMS: 5000,
    ...options,
  });
  await client.connect();
  return client;
}

/**
 * How many documents match, counted from a find (tests that are not about countDocuments use
 * this, so that they do not also depend on the aggregate command countDocuments sends).
 */
export async function countOf(collection, filter = {}) {
  return (await collection.find(filter, { projection: { _id: 1 } }).toArray()).length;
}

/**
 * Resolves to the error if `promise` rejects with one whose fields match `expected` (values are
 * compared with ===, or tested when a RegExp or a predicate function; `message` is the text).
 */
export async function expectServerError(promise, expected) {
  let error;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  if (!error) throw new Error(`expected a server error ${JSON.stringify(expected)}, but it succeeded`);
  for (const [key, value] of Object.entries(expected)) {
    const actual = key === 'message' ? error.message : error[key];
    const ok = value instanceof RegExp ? value.test(String(actual))
      : typeof value === 'function' ? value(actual)
        : actual === value;
    if (!ok) {
      const err = new Error(
        `error field ${key}: expected ${value}, got ${JSON.stringify(actual)} ` +
        `(error: ${error.name}: ${error.message}, code ${error.code}, codeName ${error.codeName})`);
      err.cause = error;
      throw err;
    }
  }
  return error;
}
