// TransactionOps: the OplogSink of a multi-document transaction's writers. Each change becomes
// an operation of the transaction's applyOps array ({op, ns, ui, o, o2}, without ts or session
// fields: oplog_entry.h) instead of an oplog entry of its own; the commit logs them all in one
// entry (Oplog::LogTransaction) in the batch that writes the transaction's data. Pre-images are
// not recorded for changes made in transactions (fullDocumentBeforeChange finds none).
#pragma once

#include <cstdint>

#include "common/bson_doc.h"
#include "server/write/oplog_sink.h"

namespace cairn::server {

class TransactionOps final : public OplogSink {
 public:
  explicit TransactionOps(OplogSink& oplog) : oplog_(oplog) {}

  // The operations so far, as the contents of an array ({"0": op, "1": op, ...}).
  BsonView ops() const { return ops_.view(); }
  uint32_t count() const { return count_; }

  // OplogSink: what is logged, and where, is the oplog's.
  storage::Prefix LogPrefix() const override { return oplog_.LogPrefix(); }
  storage::RecordId VisibleRecordBound() const override { return oplog_.VisibleRecordBound(); }
  bool Logs(std::string_view ns) const override { return oplog_.Logs(ns); }
  Status LogInsert(storage::WriteUnit& unit, OplogUnit& pending,
                   const storage::CollectionEntry& collection, BsonView doc,
                   const StatementContext* statement) override;
  Status LogUpdate(storage::WriteUnit& unit, OplogUnit& pending,
                   const storage::CollectionEntry& collection, BsonView old_doc, BsonView new_doc,
                   bool replacement, const StatementContext* statement) override;
  Status LogDelete(storage::WriteUnit& unit, OplogUnit& pending,
                   const storage::CollectionEntry& collection, BsonView old_doc,
                   const StatementContext* statement) override;
  Status LogNoop(storage::WriteUnit& unit, OplogUnit& pending,
                 const storage::CollectionEntry& collection, BsonView o, BsonView o2,
                 const StatementContext* statement) override;
  Status LogCommand(storage::WriteUnit& unit, OplogUnit& pending, std::string_view db,
                    const uint8_t* uuid, BsonView o, BsonView o2) override;
  // The operations stay here until the commit: nothing to add to a statement's unit.
  void Flush(storage::WriteUnit& unit, OplogUnit& pending) override {}
  void UnitDone(OplogUnit& pending, bool committed) override {}

 private:
  // Begins the next operation of the array.
  bson_t* Next(bson_t* op);
  // Ends it; TransactionTooLarge 257 once the operations outgrow one oplog entry.
  Status Done(bson_t* op);

  OplogSink& oplog_;
  BsonDoc ops_;
  uint32_t count_ = 0;
};

}  // namespace cairn::server
