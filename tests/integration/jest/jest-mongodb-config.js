// @shelf/jest-mongodb's configuration file (read from the working directory): a standalone
// mongodb-memory-server whose binary is MONGOMS_SYSTEM_BINARY (cairnd), mongod 7.0's version.
export default {
  mongodbMemoryServerOptions: {
    binary: { version: '7.0.0', checkMD5: false },
    instance: {},
    autoStart: false,
  },
};
