// change-stream: how long a change event takes to reach a client watching the collection. One
// thread holds a change stream open (its getMore parked on the server, maxAwaitTimeMS 1 s);
// each operation inserts one document on another connection and waits until the watcher has
// received its event, so an operation's latency is insert sent → event received: the commit,
// the wake of the parked getMore and the event's way to the client. Its ceiling is the same
// insert alone.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "tools/bench/workloads.h"

namespace cairn::bench {

namespace {

class ChangeEventOp final : public Op {
 public:
  ChangeEventOp(Client watcher, mongoc_client_t* writer, const Options& options)
      : watcher_(std::move(watcher)), writer_(writer), options_(options) {}

  ~ChangeEventOp() override {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (stream_ != nullptr) mongoc_change_stream_destroy(stream_);
    if (collection_ != nullptr) mongoc_collection_destroy(collection_);
  }

  bool Open(std::string* error) {
    collection_ =
        mongoc_client_get_collection(watcher_.get(), options_.db.c_str(), kChangeStreamCollection);
    bson_t pipeline = BSON_INITIALIZER, opts = BSON_INITIALIZER;
    BSON_APPEND_INT64(&opts, "maxAwaitTimeMS", 1000);
    stream_ = mongoc_collection_watch(collection_, &pipeline, &opts);
    bson_destroy(&pipeline);
    bson_destroy(&opts);
    bson_error_t failure;
    const bson_t* reply = nullptr;
    if (mongoc_change_stream_error_document(stream_, &failure, &reply)) {
      *error = std::string("watch: ") + failure.message;
      return false;
    }
    thread_ = std::thread([this] { Watch(); });
    return true;
  }

  int64_t Run(std::string* error) override {
    const int64_t seq = ++sent_;
    bson_t cmd = BSON_INITIALIZER, documents, doc;
    BSON_APPEND_UTF8(&cmd, "insert", kChangeStreamCollection);
    BSON_APPEND_ARRAY_BEGIN(&cmd, "documents", &documents);
    BSON_APPEND_DOCUMENT_BEGIN(&documents, "0", &doc);
    BSON_APPEND_INT64(&doc, "_id", seq);
    bson_append_document_end(&documents, &doc);
    bson_append_array_end(&cmd, &documents);
    bool ok = RunCommand(writer_, options_.db, &cmd, nullptr, error);
    bson_destroy(&cmd);
    if (!ok) return 0;
    std::unique_lock<std::mutex> lock(mu_);
    if (!arrived_cv_.wait_for(lock, std::chrono::seconds(5),
                              [&] { return received_ >= seq || !watch_error_.empty(); })) {
      *error = "change-stream: no event within 5 s for _id " + std::to_string(seq);
      return 0;
    }
    if (!watch_error_.empty()) {
      *error = watch_error_;
      return 0;
    }
    return 1;
  }

 private:
  // The watcher thread: every event's documentKey._id is the newest received.
  void Watch() {
    const bson_t* event = nullptr;
    while (!stop_) {
      if (mongoc_change_stream_next(stream_, &event)) {
        bson_iter_t id;
        if (bson_iter_init(&id, event) && bson_iter_find_descendant(&id, "documentKey._id", &id)) {
          std::lock_guard<std::mutex> lock(mu_);
          received_ = bson_iter_as_int64(&id);
        }
        arrived_cv_.notify_all();
        continue;
      }
      bson_error_t failure;
      const bson_t* reply = nullptr;
      if (mongoc_change_stream_error_document(stream_, &failure, &reply)) {
        std::lock_guard<std::mutex> lock(mu_);
        watch_error_ = std::string("change-stream: ") + failure.message;
        arrived_cv_.notify_all();
        return;
      }
    }
  }

  Client watcher_;
  mongoc_client_t* writer_;
  const Options& options_;
  mongoc_collection_t* collection_ = nullptr;
  mongoc_change_stream_t* stream_ = nullptr;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  int64_t sent_ = 0;
  std::mutex mu_;
  std::condition_variable arrived_cv_;
  int64_t received_ = 0;
  std::string watch_error_;
};

// The same insert without a watcher: the ceiling.
class InsertOneOp final : public Op {
 public:
  InsertOneOp(mongoc_client_t* writer, const Options& options)
      : writer_(writer), options_(options) {}
  int64_t Run(std::string* error) override {
    bson_t cmd = BSON_INITIALIZER, documents, doc;
    BSON_APPEND_UTF8(&cmd, "insert", kChangeStreamCollection);
    BSON_APPEND_ARRAY_BEGIN(&cmd, "documents", &documents);
    BSON_APPEND_DOCUMENT_BEGIN(&documents, "0", &doc);
    BSON_APPEND_INT64(&doc, "_id", -(++sent_));
    bson_append_document_end(&documents, &doc);
    bson_append_array_end(&cmd, &documents);
    bool ok = RunCommand(writer_, options_.db, &cmd, nullptr, error);
    bson_destroy(&cmd);
    return ok ? 1 : 0;
  }

 private:
  mongoc_client_t* writer_;
  const Options& options_;
  int64_t sent_ = 0;
};

}  // namespace

std::unique_ptr<Op> ChangeEventLatencyOp(mongoc_client_t* writer, const Options& options,
                                         std::string* error) {
  Client watcher = Connect(options, error);
  if (!watcher) return nullptr;
  auto op = std::make_unique<ChangeEventOp>(std::move(watcher), writer, options);
  if (!op->Open(error)) return nullptr;
  return op;
}

std::unique_ptr<Op> InsertOneOp(mongoc_client_t* writer, const Options& options) {
  return std::make_unique<class InsertOneOp>(writer, options);
}

}  // namespace cairn::bench
