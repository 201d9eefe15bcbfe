// Fuzz target `dispatch`: the server's request path on arbitrary commands — Dispatch (OP_MSG
// parsing, $db, the command table, generic arguments) and every command handler, against a real
// ServerState over a RocksDB directory of this process (under /dev/shm when there is one).
// Input (fuzz_support.h): up to 8 command documents, run in order on one connection, so a
// sequence can create, insert, index, then query. Each becomes an OP_MSG body:
//   - "$db": "fuzz" is added when the command has no $db;
//   - a top-level field "$seq:<name>" holding an array becomes the kind-1 document sequence
//     <name> (how drivers send insert's "documents", update's "updates", ...);
//   - a command whose first field is getMore gets the id of the last cursor a reply returned;
//   - "$opQuery": true sends the command as a legacy OP_QUERY to admin.$cmd instead.
// As the server does after a reply: an awaitData getMore that found nothing is run once more,
// and a cursor's next batch is read ahead. Checks: every reply is a well-formed frame with a
// valid BSON body. After each input every database is dropped, cursors are closed and the
// server parameters are set back to their defaults, so inputs do not depend on each other.
// tools/fuzz.sh runs this target without LeakSanitizer after each input (-detect_leaks=0): the
// engine's memtables and caches grow across inputs, which would make libFuzzer scan for leaks
// after nearly every one (12 times slower); leaks are still found at exit, by the other targets,
// and by the ASan integration run.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/logging.h"
#include "server/cursor/cursor_batch.h"
#include "server/net/dispatcher.h"
#include "server/server_parameters.h"
#include "server/server_state.h"
#include "storage/engine.h"
#include "tests/fuzz/fuzz_support.h"
#include "wire/message.h"

using namespace cairn;
using namespace cairn::server;

namespace {

constexpr size_t kMaxCommands = 8;

ServerState* state = nullptr;
BsonDoc* default_parameters = nullptr;  // {name: default value} of every settable parameter

std::string ScratchDirectory() {
  std::string base = std::filesystem::exists("/dev/shm")
                         ? "/dev/shm"
                         : std::filesystem::temp_directory_path().string();
  std::string templ = base + "/cairn-fuzz-dispatch-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) std::abort();
  return templ;
}

// The OP_MSG (or OP_QUERY) frame for one fuzzed command.
std::string BuildFrame(BsonView command, int32_t request_id, int64_t last_cursor) {
  BsonDoc body;
  wire::OpMsg msg;
  std::vector<BsonDoc> sequence_docs;
  bool has_db = false;
  bool first = true;
  bson_iter_t it;
  command.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key.substr(0, 5) == "$seq:" && BSON_ITER_HOLDS_ARRAY(&it)) {
      wire::DocumentSequence sequence;
      sequence.identifier = key.substr(5);
      bson_iter_t element;
      bson_iter_recurse(&it, &element);
      while (bson_iter_next(&element)) {
        if (BSON_ITER_HOLDS_DOCUMENT(&element))
          sequence.documents.push_back(IterDocument(&element));
      }
      msg.sequences.push_back(std::move(sequence));
      continue;
    }
    if (key == "$opQuery") continue;
    if (key == "$db") has_db = true;
    if (first && key == "getMore") {
      BSON_APPEND_INT64(body.get(), "getMore", last_cursor);
    } else {
      AppendIter(body.get(), key, &it);
    }
    first = false;
  }
  std::string frame;
  if (fuzz::Flag(command, "$opQuery")) {
    wire::OpQuery query;
    query.full_collection_name = "admin.$cmd";
    query.number_to_return = -1;
    query.query = body.view();
    wire::AppendOpQuery(frame, request_id, 0, query);
    return frame;
  }
  if (!has_db) AppendUtf8(body.get(), "$db", "fuzz");
  msg.body = body.view();
  wire::AppendOpMsgWithSequences(frame, request_id, 0, msg);
  return frame;
}

// The cursor id of a reply's {cursor: {id: ...}}, or 0.
int64_t CursorIdOf(BsonView reply) {
  bson_iter_t it, id;
  if (reply.Find("cursor", &it) && BSON_ITER_HOLDS_DOCUMENT(&it) &&
      IterDocument(&it).Find("id", &id) && BSON_ITER_HOLDS_INT64(&id)) {
    return bson_iter_int64(&id);
  }
  return 0;
}

// Checks the reply frame; returns the cursor id it reports.
int64_t CheckReply(const wire::ReplyBuffer& out, BsonView command) {
  const uint8_t* frame = out.data();
  size_t size = out.size();
  auto header = wire::ParseHeader(frame, size);
  if (!header.ok() || static_cast<size_t>(header->message_length) != size) {
    fuzz::Fail("a reply's header does not give its size", {command});
  }
  if (header->op_code == static_cast<int32_t>(wire::OpCode::kMsg)) {
    auto reply = wire::ParseOpMsg(frame, size);
    if (!reply.ok())
      fuzz::Fail("a reply is not a valid OP_MSG: " + reply.status().ToString(), {command});
    return CursorIdOf(reply->body);
  }
  // OP_REPLY: header, flags, cursorID, startingFrom, numberReturned, then the documents.
  size_t offset = wire::kOpReplyDocumentsOffset;
  if (size < offset + 5) fuzz::Fail("an OP_REPLY is too short", {command});
  BsonView doc(frame + offset, size - offset);
  if (!fuzz::IsValidResult(doc)) fuzz::Fail("an OP_REPLY document is not valid BSON", {command});
  return 0;
}

// Runs one command outside the fuzzed input (the clean-up between inputs).
void RunInternal(const char* db, BsonDoc body) {
  ConnectionInfo connection;
  CommandRequest request;
  bson_iter_t it;
  body.view().Init(&it);
  bson_iter_next(&it);
  request.name = IterKey(&it);
  request.db = db;
  request.body = body.view();
  wire::ReplyBuffer out;
  out.Begin(wire::kOpMsgBodyOffset);
  Continuation ignored = RunCommand(*state, connection, request, &out);  // setup: no waits
  (void)ignored;
  out.End();
}

void ResetServer() {
  state->cursors().ReapIdle(std::chrono::steady_clock::duration::zero());
  for (const std::string& db : state->engine().catalog().ListDatabases()) {
    BsonDoc drop;
    BSON_APPEND_INT32(drop.get(), "dropDatabase", 1);
    RunInternal(db.c_str(), std::move(drop));
  }
  bson_iter_t it;
  default_parameters->view().Init(&it);
  while (bson_iter_next(&it)) {
    (void)SetParameterValue(&state->parameters(), IterKey(&it), &it);
  }
}

// A fresh ServerState over a new RocksDB directory. Every kRenewAfter inputs the state is
// replaced, so the range tombstones the clean-up's drops leave in RocksDB do not pile up and slow
// every read of a long run.
constexpr int kRenewAfter = 2000;
std::string* scratch = nullptr;

void OpenState() {
  *scratch = ScratchDirectory();
  storage::StorageOptions options;
  options.path = *scratch + "/db";
  options.block_cache_bytes = 8u << 20;
  options.write_buffer_bytes = 4u << 20;
  auto engine = storage::Engine::Open(options);
  if (!engine.ok()) {
    std::fprintf(stderr, "dispatch fuzz: cannot open %s: %s\n", options.path.c_str(),
                 engine.status().ToString().c_str());
    std::abort();
  }
  ServerOptions server_options;
  server_options.dbpath = options.path;
  state = new ServerState(server_options, std::move(engine).value());
}

void CloseState() {
  state->cursors().ReapIdle(std::chrono::steady_clock::duration::zero());
  state->CloseEngine();
  delete state;
  state = nullptr;
  std::filesystem::remove_all(*scratch);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  std::string log_error;
  logging::Init({"/dev/null", /*quiet=*/true}, &log_error);
  scratch = new std::string();
  OpenState();
  default_parameters = new BsonDoc();
  ServerParameters defaults;
  for (std::string_view name : SettableParameterNames()) {
    AppendParameterValue(defaults, name, name, default_parameters->get());
  }
  std::atexit(CloseState);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<BsonDoc> commands = fuzz::ReadDocuments(data, size, kMaxCommands);
  ConnectionInfo connection;
  connection.id = 1;
  connection.remote = "127.0.0.1:50000";
  connection.local = "127.0.0.1:27017";
  wire::ReplyBuffer out;
  int64_t last_cursor = 0;
  int32_t request_id = 1;
  for (const BsonDoc& command : commands) {
    std::string frame = BuildFrame(command.view(), request_id++, last_cursor);
    const auto* bytes = reinterpret_cast<const uint8_t*>(frame.data());
    auto header = wire::ParseHeader(bytes, frame.size());
    if (!header.ok()) continue;  // too large a frame
    Dispatched dispatched = Dispatch(*state, connection, header.value(), bytes, frame.size(), &out);
    if (dispatched.next.kind == Continuation::Kind::kAwaitInsert) {
      // The server waits for an insert or the deadline; here, no waiting: resumed at once.
      dispatched = Resume(*state, connection, bytes, header->request_id, dispatched.next, &out);
    }
    const DispatchAction action = dispatched.action;
    if (action == DispatchAction::kReply) {
      int64_t cursor = CheckReply(out, command.view());
      if (cursor != 0) last_cursor = cursor;
    }
    if (dispatched.next.kind == Continuation::Kind::kReadAhead) {
      if (auto cursor = state->cursors().TryCheckOut(dispatched.next.cursor_id)) {
        ReadAhead(*cursor);
        state->cursors().CheckIn(std::move(cursor));
      }
    }
    out.Reset(wire::kKeepReplyBytes);
    if (action == DispatchAction::kClose) break;
  }
  ResetServer();
  static int inputs = 0;
  if (++inputs % kRenewAfter == 0) {
    CloseState();
    OpenState();
  }
  return 0;
}
