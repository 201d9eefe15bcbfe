// Dispatcher: one request frame in, at most one reply frame out. Routes by opcode (OP_MSG, the
// legacy OP_QUERY handshake, everything else closes the connection), looks the command up in
// the command table, runs its handler, and turns a non-OK Status into MongoDB's error reply.
// Replies are built in place in the connection's wire::ReplyBuffer. Stateless apart from the shared
// ServerState; called on the connection's thread.
#pragma once

#include "server/command.h"
#include "server/server_state.h"
#include "wire/message.h"
#include "wire/reply_buffer.h"

namespace cairn::server {

enum class DispatchAction {
  kReply,    // `out` holds the reply frame
  kNoReply,  // moreToCome: the client expects nothing
  kClose,    // a malformed or unsupported message: close this connection
};

// What Dispatch did, and what the connection loop does next (a read-ahead, or an awaitData
// wait followed by Resume).
struct Dispatched {
  DispatchAction action = DispatchAction::kReply;
  // kNone unless action is kReply, or kBlock (with kClose, which stands if the connection closes
  // during the wait: Resume's answer replaces both).
  Continuation next;
  int32_t reply_id = 0;  // the reply's requestId (a streamed reply's successor answers it)
};

Dispatched Dispatch(ServerState& state, ConnectionInfo& connection,
                    const wire::MessageHeader& header, const uint8_t* frame, size_t size,
                    wire::ReplyBuffer* out);

// After the loop's wait for a kAwaitInsert or kAwaitTopology continuation of the request in
// `frame` (the OP_MSG Dispatch ran): runs the continuation's resume and builds, in `out`, the
// reply frame that replaces the one built before (answering `response_to`: the request, or in a
// stream the reply before), with moreToCome when the stream goes on. The request is not run
// again; only the step the handler handed back. After a kBlock wait (failCommand held the
// request before it ran) it dispatches the request in `frame` as Dispatch does.
Dispatched Resume(ServerState& state, ConnectionInfo& connection, const uint8_t* frame,
                  int32_t response_to, const Continuation& next, wire::ReplyBuffer* out);

// Runs one command (already parsed) and writes its complete reply document (ok: 1 with the
// handler's fields, or MongoDB's error reply) into `out`'s body, which the caller has begun.
// Returns what the handler asked the loop to do next.
Continuation RunCommand(ServerState& state, ConnectionInfo& connection,
                        const CommandRequest& request, wire::ReplyBuffer* out);

}  // namespace cairn::server
