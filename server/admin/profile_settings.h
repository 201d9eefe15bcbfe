// ProfileSettings: the database profiler's level and filter, per database as in mongod (the
// profile command sets them; --profile and operationProfiling.filter give every database's
// until then). slowms and sampleRate are server-wide and live in OpRegistry. Reading them is one
// atomic load while no database profiles and no filter is set, which is the common case: the
// check runs at the end of every command. Thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/mutex.h"
#include "query/matcher/matcher.h"

namespace cairn::server {

class ProfileSettings {
 public:
  struct Settings {
    int level = 0;  // 0 off, 1 slow operations (or those the filter matches), 2 all
    // Which operations are profiled and logged as slow, matched against their profile entry,
    // in place of slowms and sampleRate. Null: none.
    std::shared_ptr<const query::Matcher> filter;
  };

  // The settings of database `db`.
  Settings For(std::string_view db) const {
    if (!any_.load(std::memory_order_acquire)) return Settings();
    MutexLock lock(&mu_);
    auto it = by_db_.find(std::string(db));
    return it != by_db_.end() ? it->second : default_;
  }
  void Set(std::string_view db, Settings settings) {
    MutexLock lock(&mu_);
    by_db_[std::string(db)] = std::move(settings);
    Recount();
  }
  // --profile / operationProfiling: what every database has until the profile command sets its.
  void SetDefault(Settings settings) {
    MutexLock lock(&mu_);
    default_ = std::move(settings);
    Recount();
  }

 private:
  void Recount() REQUIRES(mu_) {
    bool any = default_.level != 0 || default_.filter != nullptr;
    for (const auto& [db, settings] : by_db_) {
      any = any || settings.level != 0 || settings.filter != nullptr;
    }
    any_.store(any, std::memory_order_release);
  }

  mutable Mutex mu_;
  std::unordered_map<std::string, Settings> by_db_ GUARDED_BY(mu_);
  Settings default_ GUARDED_BY(mu_);
  std::atomic<bool> any_{false};  // some database profiles or has a filter
};

}  // namespace cairn::server
