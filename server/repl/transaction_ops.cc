// TransactionOps (see transaction_ops.h).
#include "server/repl/transaction_ops.h"

#include <string>

#include "common/limits.h"
#include "server/repl/oplog_entry.h"

namespace cairn::server {

bson_t* TransactionOps::Next(bson_t* op) {
  char key_buffer[16];
  const char* key;
  size_t length = bson_uint32_to_string(count_, &key, key_buffer, sizeof key_buffer);
  bson_append_document_begin(ops_.get(), key, static_cast<int>(length), op);
  return op;
}

Status TransactionOps::Done(bson_t* op) {
  bson_append_document_end(ops_.get(), op);
  ++count_;
  // The entry adds its session fields and times to the array: keep a margin for them.
  if (ops_.view().size() > static_cast<size_t>(kMaxBsonObjectSize) - 1024) {
    return Status(ErrorCode::kTransactionTooLarge,
                  "Total size of all transaction operations must be less than " +
                      std::to_string(kMaxBsonObjectSize) + " bytes. Actual size is " +
                      std::to_string(ops_.view().size()));
  }
  return Status::OK();
}

Status TransactionOps::LogInsert(storage::WriteUnit&, OplogUnit&,
                                 const storage::CollectionEntry& collection, BsonView doc,
                                 const StatementContext*) {
  bson_t op;
  AppendInsertOp(Next(&op), collection, doc);
  return Done(&op);
}

Status TransactionOps::LogUpdate(storage::WriteUnit&, OplogUnit&,
                                 const storage::CollectionEntry& collection, BsonView old_doc,
                                 BsonView new_doc, bool replacement, const StatementContext*) {
  bson_t op;
  AppendUpdateOp(Next(&op), collection, old_doc, new_doc, replacement);
  return Done(&op);
}

Status TransactionOps::LogDelete(storage::WriteUnit&, OplogUnit&,
                                 const storage::CollectionEntry& collection, BsonView old_doc,
                                 const StatementContext*) {
  bson_t op;
  AppendDeleteOp(Next(&op), collection, old_doc);
  return Done(&op);
}

Status TransactionOps::LogNoop(storage::WriteUnit&, OplogUnit&,
                               const storage::CollectionEntry& collection, BsonView o, BsonView o2,
                               const StatementContext*) {
  bson_t op;
  AppendNoopOp(Next(&op), collection, o, o2);
  return Done(&op);
}

Status TransactionOps::LogCommand(storage::WriteUnit&, OplogUnit&, std::string_view db,
                                  const uint8_t* uuid, BsonView o, BsonView o2) {
  bson_t op;
  AppendCommandOp(Next(&op), db, uuid, o, o2);
  return Done(&op);
}

}  // namespace cairn::server
