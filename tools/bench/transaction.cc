// transaction: two-document multi-document transactions, as an application's transfer does,
// through libmongoc's session API (startTransaction, two inserts, commitTransaction) on one
// session. A pass is one transaction (its latency: first insert sent → commit
// acknowledged); the commit's own latency is kept apart (commit_latencies). Its ceiling is the
// same two inserts without a transaction. Needs a replica set.
#include <chrono>

#include "tools/bench/workloads.h"

namespace cairn::bench {

namespace {

constexpr const char* kTransactionCollection = "transactions";

// {insert: transactions, documents: [{_id: <id>, pair: <n>}]} plus the session fields given.
void BuildInsert(bson_t* cmd, int64_t id, int64_t pair) {
  bson_t documents, doc;
  BSON_APPEND_UTF8(cmd, "insert", kTransactionCollection);
  BSON_APPEND_ARRAY_BEGIN(cmd, "documents", &documents);
  BSON_APPEND_DOCUMENT_BEGIN(&documents, "0", &doc);
  BSON_APPEND_INT64(&doc, "_id", id);
  BSON_APPEND_INT64(&doc, "pair", pair);
  bson_append_document_end(&documents, &doc);
  bson_append_array_end(cmd, &documents);
}

class TwoDocumentTransactionOp final : public TransactionOp {
 public:
  TwoDocumentTransactionOp(mongoc_client_t* client, const Options& options, int64_t first_id)
      : client_(client), options_(options), next_id_(first_id) {
    bson_error_t failure;
    session_ = mongoc_client_start_session(client_, nullptr, &failure);
    if (session_ == nullptr) open_error_ = failure.message;
  }
  ~TwoDocumentTransactionOp() override {
    if (session_ != nullptr) mongoc_client_session_destroy(session_);
  }

  int64_t Run(std::string* error) override {
    if (session_ == nullptr) {
      *error = "startSession: " + open_error_;
      return -1;
    }
    bson_error_t failure;
    if (!mongoc_client_session_start_transaction(session_, nullptr, &failure)) {
      *error = std::string("startTransaction: ") + failure.message;
      return -1;
    }
    const int64_t pair = ++pairs_;
    if (!Insert(next_id_++, pair, error) || !Insert(next_id_++, pair, error)) return -1;
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = mongoc_client_session_commit_transaction(session_, nullptr, &failure);
    commit_ns_.push_back(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
            .count());
    if (!ok) {
      *error = std::string("commitTransaction: ") + failure.message;
      return -1;
    }
    return 1;
  }

  const std::vector<int64_t>& commit_latencies_ns() const override { return commit_ns_; }

 private:
  bool Insert(int64_t id, int64_t pair, std::string* error) {
    bson_t cmd = BSON_INITIALIZER, opts = BSON_INITIALIZER, reply;
    BuildInsert(&cmd, id, pair);
    bson_error_t failure;
    bool ok = mongoc_client_session_append(session_, &opts, &failure);
    if (ok) {
      ok = mongoc_client_write_command_with_opts(client_, options_.db.c_str(), &cmd, &opts, &reply,
                                                 &failure);
      bson_destroy(&reply);
    }
    if (!ok) *error = std::string("insert: ") + failure.message;
    bson_destroy(&cmd);
    bson_destroy(&opts);
    return ok;
  }

  mongoc_client_t* client_;
  const Options& options_;
  int64_t next_id_;
  int64_t pairs_ = 0;
  mongoc_client_session_t* session_ = nullptr;
  std::string open_error_;
  std::vector<int64_t> commit_ns_;
};

// The ceiling: the same two inserts, each committed alone.
class TwoInsertsOp final : public Op {
 public:
  TwoInsertsOp(mongoc_client_t* client, const Options& options, int64_t first_id)
      : client_(client), options_(options), next_id_(first_id) {}
  int64_t Run(std::string* error) override {
    for (int i = 0; i < 2; ++i) {
      bson_t cmd = BSON_INITIALIZER;
      BuildInsert(&cmd, next_id_++, 0);
      const bool ok = RunCommand(client_, options_.db, &cmd, nullptr, error);
      bson_destroy(&cmd);
      if (!ok) return -1;
    }
    return 1;
  }

 private:
  mongoc_client_t* client_;
  const Options& options_;
  int64_t next_id_;
};

}  // namespace

std::unique_ptr<TransactionOp> TwoDocumentTransaction(mongoc_client_t* client,
                                                      const Options& options) {
  return std::make_unique<TwoDocumentTransactionOp>(client, options, int64_t{1} << 40);
}

std::unique_ptr<Op> TwoInserts(mongoc_client_t* client, const Options& options) {
  return std::make_unique<TwoInsertsOp>(client, options, int64_t{2} << 40);
}

}  // namespace cairn::bench
