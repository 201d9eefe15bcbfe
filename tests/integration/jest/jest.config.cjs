// @shelf/jest-mongodb's preset as a project uses it, with cairnd as mongodb-memory-server's
// binary (MONGOMS_SYSTEM_BINARY, set by CTest): the preset starts one server for the run,
// exposes its URI as globalThis.__MONGO_URI__, and stops it at the end.
module.exports = {
  preset: '@shelf/jest-mongodb',
  rootDir: __dirname,
  testMatch: ['**/*.test.cjs'],
  watchman: false,
};
