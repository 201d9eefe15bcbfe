#!/usr/bin/env node
// mongodb-memory-server's MongoMemoryServer.create() + stop() with cairnd as its binary
// (MONGOMS_SYSTEM_BINARY's equivalent, binary.systemBinary), in the on-disk and the in-memory
// mode: the median, min and max of N runs (default 20) each, as a test suite pays them per file.
//
//   node tools/bench/memory_server.mjs [path/to/cairnd] [runs]
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', '..', 'tests', 'package.json'));
const { MongoMemoryServer } = require('mongodb-memory-server-core');

const cairnd = path.resolve(process.argv[2] ?? path.join(here, '..', '..', 'build', 'server', 'cairnd'));
const runs = Number(process.argv[3] ?? 20);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const [name, instance] of [['on disk', {}], ['in memory', { storageEngine: 'inMemory' }]]) {
  const times = [];
  for (let i = 0; i < runs; ++i) {
    const begin = process.hrtime.bigint();
    const server = await MongoMemoryServer.create({ binary: { systemBinary: cairnd, version: '7.0.0' }, instance });
    await server.stop();
    times.push(Number(process.hrtime.bigint() - begin) / 1e6);
  }
  console.log(`${name.padEnd(10)} create()+stop() median ${median(times).toFixed(1)} ms ` +
              `(min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)}, ${runs} runs)`);
}
