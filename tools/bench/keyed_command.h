// KeyedCommand: an operation that runs one pre-built command against a random _id: the command
// is built once, and each run overwrites the int32 _id in place (no per-operation BSON
// building, so the client costs little) and checks the reply. point-read and update use it.
#pragma once

#include <functional>
#include <string>

#include "tools/bench/client.h"
#include "tools/bench/stats.h"

namespace cairn::bench {

class KeyedCommand : public Op {
 public:
  // Checks a reply for key k; false with *error set when it is not what the workload expects.
  using Check = bool (*)(const bson_t* reply, int32_t k, std::string* error);

  // Takes `command` over (bson_steal: it is left empty); it holds a placeholder int32 at
  // `key_path`.
  KeyedCommand(mongoc_client_t* client, const Options& options, uint64_t seed, bson_t* command,
               const char* key_path, std::string what, Check check)
      : client_(client),
        db_(options.db),
        count_(static_cast<uint64_t>(options.docs)),
        rng_(seed),
        what_(std::move(what)),
        check_(check) {
    bson_steal(&cmd_, command);
    valid_ = FindInt32(&cmd_, key_path, &key_);
  }
  ~KeyedCommand() override { bson_destroy(&cmd_); }

  int64_t Run(std::string* error) override {
    if (!valid_ || count_ == 0) {
      *error = what_ + ": no documents";
      return -1;
    }
    int32_t k = static_cast<int32_t>(rng_.Below(count_));
    bson_iter_overwrite_int32(&key_, k);
    bson_t reply;
    bool ok = RunCommand(client_, db_, &cmd_, &reply, error) && check_(&reply, k, error);
    bson_destroy(&reply);
    return ok ? 1 : -1;
  }

 private:
  mongoc_client_t* client_;
  std::string db_;
  uint64_t count_;
  SplitMix64 rng_;
  bson_t cmd_;
  bson_iter_t key_;
  std::string what_;
  Check check_;
  bool valid_ = false;
};

}  // namespace cairn::bench
