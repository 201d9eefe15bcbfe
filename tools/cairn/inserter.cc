// The batched inserter.
#include "tools/cairn/inserter.h"

#include <cstdio>

#include "tools/cairn/bson_util.h"

namespace cairn::tools {

namespace {

constexpr size_t kBatchDocs = 1000;
constexpr size_t kBatchBytes = 16 * 1024 * 1024;
constexpr int kDuplicateKey = 11000;

}  // namespace

Inserter::Inserter(mongoc_client_t* client, const std::string& db, const std::string& collection,
                   bool stop_on_error, std::string position_name, Progress* progress,
                   int64_t report_limit)
    : collection_(mongoc_client_get_collection(client, db.c_str(), collection.c_str())),
      stop_on_error_(stop_on_error),
      position_name_(std::move(position_name)),
      progress_(progress),
      report_limit_(report_limit) {}

Inserter::~Inserter() {
  if (failed_ > report_limit_) {
    std::fprintf(stderr, "(%lld more failure(s) not shown)\n",
                 static_cast<long long>(failed_ - report_limit_));
  }
  mongoc_collection_destroy(collection_);
}

Status Inserter::Add(const uint8_t* data, size_t length, int64_t position) {
  offsets_.push_back(buffer_.size());
  buffer_.insert(buffer_.end(), data, data + length);
  positions_.push_back(position);
  if (offsets_.size() >= kBatchDocs || buffer_.size() >= kBatchBytes) return Flush();
  return Status::OK();
}

Status Inserter::Flush() {
  if (offsets_.empty()) return Status::OK();
  BsonPtr opts = NewBson();
  BSON_APPEND_BOOL(opts.get(), "ordered", stop_on_error_);
  mongoc_bulk_operation_t* bulk =
      mongoc_collection_create_bulk_operation_with_opts(collection_, opts.get());
  bson_error_t error;
  for (size_t i = 0; i < offsets_.size(); ++i) {
    size_t end = i + 1 < offsets_.size() ? offsets_[i + 1] : buffer_.size();
    bson_t doc;
    if (!bson_init_static(&doc, buffer_.data() + offsets_[i], end - offsets_[i]) ||
        !mongoc_bulk_operation_insert_with_opts(bulk, &doc, nullptr, &error)) {
      mongoc_bulk_operation_destroy(bulk);
      return Status(ErrorCode::kInvalidBSON, position_name_ + " " + std::to_string(positions_[i]) +
                                                 ": cannot insert: " + error.message);
    }
  }
  bson_t reply;
  bool ok = mongoc_bulk_operation_execute(bulk, &reply, &error) != 0;
  mongoc_bulk_operation_destroy(bulk);
  bson_iter_t it;
  int64_t n_inserted = 0;
  if (bson_iter_init_find(&it, &reply, "nInserted") && BSON_ITER_HOLDS_NUMBER(&it)) {
    n_inserted = bson_iter_as_int64(&it);
  }
  int64_t batch_failed = 0;
  Status first_failure;
  bson_iter_t errors, entry;
  if (bson_iter_init_find(&it, &reply, "writeErrors") && BSON_ITER_HOLDS_ARRAY(&it) &&
      bson_iter_recurse(&it, &errors)) {
    while (bson_iter_next(&errors)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&errors) || !bson_iter_recurse(&errors, &entry)) continue;
      int64_t index = -1;
      int code = 0;
      std::string message;
      while (bson_iter_next(&entry)) {
        std::string key = bson_iter_key(&entry);
        if (key == "index") index = bson_iter_as_int64(&entry);
        if (key == "code") code = static_cast<int>(bson_iter_as_int64(&entry));
        if (key == "errmsg" && BSON_ITER_HOLDS_UTF8(&entry))
          message = bson_iter_utf8(&entry, nullptr);
      }
      ++batch_failed;
      if (code != kDuplicateKey) ++hard_failed_;
      std::string where = index >= 0 && index < static_cast<int64_t>(positions_.size())
                              ? position_name_ + " " + std::to_string(positions_[index])
                              : "a document";
      if (failed_ + batch_failed <= report_limit_) {
        std::fprintf(stderr, "%s: %s\n", where.c_str(), message.c_str());
      }
      if (first_failure.ok()) first_failure = Status(ErrorCode::kBadValue, where + ": " + message);
    }
  }
  bson_destroy(&reply);
  int64_t bytes = static_cast<int64_t>(buffer_.size());
  offsets_.clear();
  positions_.clear();
  buffer_.clear();
  inserted_ += n_inserted;
  if (!ok && batch_failed == 0) {
    // Not a per-document failure: the server is gone or refused the whole batch.
    return Status(ErrorCode::kUnknownError, std::string("insert failed: ") + error.message);
  }
  failed_ += batch_failed;
  if (progress_) progress_->Add(n_inserted, bytes);
  if (stop_on_error_ && batch_failed > 0) return first_failure;
  return Status::OK();
}

}  // namespace cairn::tools
