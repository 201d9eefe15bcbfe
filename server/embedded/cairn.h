/* libcairn: Cairn as a library inside an application's process. The C API: open a data
 * directory or ":memory:", run commands as BSON in and BSON out (getMore cursors included), and
 * optionally serve the MongoDB wire protocol from inside the process so an ordinary driver can
 * connect to the embedded database. Commands go through the same dispatcher, command table and
 * limits as cairnd's connections. Every function is thread-safe; a cairn_db may be used from
 * several threads at once, except that cairn_close must be the last call on it.
 *
 * Plain C (no C++ types): the ABI is what the Python package's ctypes binding and other
 * languages load. server/embedded/cairn.hpp is a thin C++ wrapper. */
#ifndef CAIRN_EMBEDDED_CAIRN_H_
#define CAIRN_EMBEDDED_CAIRN_H_

#include <stddef.h>
#include <stdint.h>

#if defined(CAIRN_BUILDING_LIBRARY)
#define CAIRN_EXPORT __attribute__((visibility("default")))
#else
#define CAIRN_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Return values of the API functions. A command's own failure is not one of these: it is
 * MongoDB's error reply document ({ok: 0, errmsg, code, codeName}), returned as CAIRN_OK. */
enum {
  CAIRN_OK = 0,
  CAIRN_MISUSE = 1,   /* a null argument, or a handle already closed */
  CAIRN_ERROR = 2,    /* the operation failed: *errmsg says why */
  CAIRN_NO_MEMORY = 3 /* an allocation for the reply failed */
};

typedef struct cairn_db cairn_db;

/* Cairn's version ("0.1.0"); the MongoDB version it behaves as is in buildInfo. */
CAIRN_EXPORT const char* cairn_version(void);

/* Opens `path`, a data directory (created when missing; RocksDB, as cairnd's --dbpath), or
 * ":memory:" (cairnd's --storageEngine inMemory: nothing persists). `options_json` (may be NULL)
 * is a JSON object of cairnd's command-line options without their dashes, e.g.
 * {"setParameter": {"enableTestCommands": 1}, "logpath": "/tmp/cairn.log", "verbose": true}:
 * a string or number is the flag's value, true gives the flag alone, an object one
 * "--name key=value" per member, an array the flag once per element. Options the library sets
 * itself (dbpath, storageEngine, port, bind_ip, fork, config, ...) are refused. Logs are
 * discarded unless "logpath" is given.
 * On success *out is the handle; on failure CAIRN_ERROR with *errmsg (free with cairn_free;
 * errmsg may be NULL). */
CAIRN_EXPORT int cairn_open(const char* path, const char* options_json, cairn_db** out,
                            char** errmsg);

/* Runs one command: `bson` is the command document (`len` bytes), `dbname` its database (NULL
 * when the document carries "$db" itself). *reply receives the reply document (free with
 * cairn_free), *reply_len its size: {ok: 1, ...} or MongoDB's error reply, exactly as a driver
 * would receive it over the wire. Cursors (find, aggregate, listCollections, ...) live in the
 * handle: getMore and killCursors in later calls, from any thread, work as on a connection.
 * A getMore that would wait (awaitData, an awaitable hello) answers at once with what it has.
 * Returns CAIRN_MISUSE for null arguments or a closed handle, else CAIRN_OK. */
CAIRN_EXPORT int cairn_command(cairn_db* db, const char* dbname, const uint8_t* bson, size_t len,
                               uint8_t** reply, size_t* reply_len);

/* Serves the wire protocol from inside the process, on the handle's own threads, until
 * cairn_close: on `host` (an IP address such as "127.0.0.1") and `port` (0: an ephemeral port),
 * or on a unix socket when `host` is a path (contains '/'; `port` is ignored). May be called more
 * than once (several addresses). *uri_out (may be NULL; free with cairn_free) receives a
 * connection string for a driver: "mongodb://127.0.0.1:PORT/?directConnection=true" or
 * "mongodb://%2Ftmp%2Fapp.sock/?directConnection=true". The wire clients and the direct calls
 * share the data and the cursors. */
CAIRN_EXPORT int cairn_serve(cairn_db* db, const char* host, int port, char** uri_out,
                             char** errmsg);

/* Stops serving (open connections are closed, running commands interrupted), waits for the
 * calls in flight, and closes the storage engine cleanly. NULL is a no-op. After the shutdown
 * command (over the wire or direct) the handle answers every command with ShutdownInProgress
 * (91) until it is closed. */
CAIRN_EXPORT void cairn_close(cairn_db* db);

/* Frees what the API returned (replies, URIs, error messages). NULL is a no-op. */
CAIRN_EXPORT void cairn_free(void* p);

#ifdef __cplusplus
}
#endif

#endif /* CAIRN_EMBEDDED_CAIRN_H_ */
