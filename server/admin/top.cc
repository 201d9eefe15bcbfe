// Top's counters and the top command's document (top.h).
#include "server/admin/top.h"

#include <array>
#include <utility>

#include "common/bson_doc.h"
#include "server/capped/capped_options.h"

namespace cairn::server {

namespace {

struct Kind {
  std::string_view name;
  Top::Op op;
  Top::Lock lock;
};

// The commands mongod records in Top (those that take a collection through its stats-tracking
// lock helpers), and what each counts as.
constexpr std::array kKinds = {
    Kind{"find", Top::Op::kQuery, Top::Lock::kRead},
    Kind{"getMore", Top::Op::kGetMore, Top::Lock::kRead},
    Kind{"insert", Top::Op::kInsert, Top::Lock::kWrite},
    Kind{"update", Top::Op::kUpdate, Top::Lock::kWrite},
    Kind{"delete", Top::Op::kRemove, Top::Lock::kWrite},
    Kind{"findAndModify", Top::Op::kCommand, Top::Lock::kWrite},
    Kind{"findandmodify", Top::Op::kCommand, Top::Lock::kWrite},
    Kind{"count", Top::Op::kCommand, Top::Lock::kRead},
    Kind{"distinct", Top::Op::kCommand, Top::Lock::kRead},
    Kind{"aggregate", Top::Op::kCommand, Top::Lock::kRead},
    Kind{"listIndexes", Top::Op::kCommand, Top::Lock::kRead},
};

}  // namespace

Top::Op Top::Classify(std::string_view name, Lock* lock) {
  for (const Kind& kind : kKinds) {
    if (kind.name == name) {
      *lock = kind.lock;
      return kind.op;
    }
  }
  return Op::kNone;
}

void Top::Record(std::string_view ns, Op op, Lock lock, int64_t micros) {
  if (op == Op::kNone) return;
  MutexLock guard(&mu_);
  auto it = usage_.find(ns);
  if (it == usage_.end()) it = usage_.emplace(std::string(ns), Collection{}).first;
  Collection& c = it->second;
  c.total.Add(micros);
  (lock == Lock::kWrite ? c.write_lock : c.read_lock).Add(micros);
  // What each op counts as, in Op's order (kNone: only the totals).
  static constexpr Usage Collection::*kByOp[] = {nullptr,
                                                 &Collection::queries,
                                                 &Collection::getmore,
                                                 &Collection::insert,
                                                 &Collection::update,
                                                 &Collection::remove,
                                                 &Collection::commands};
  if (Usage Collection::*usage = kByOp[static_cast<size_t>(op)]) (c.*usage).Add(micros);
}

void Top::CollectionDropped(std::string_view ns) {
  MutexLock guard(&mu_);
  auto it = usage_.find(ns);
  if (it != usage_.end()) usage_.erase(it);
}

void Top::DatabaseDropped(std::string_view db) {
  const std::string prefix = std::string(db) + ".";
  MutexLock guard(&mu_);
  auto it = usage_.lower_bound(prefix);
  while (it != usage_.end() && it->first.compare(0, prefix.size(), prefix) == 0) {
    it = usage_.erase(it);
  }
}

void Top::Append(bson_t* totals) const {
  auto entry = [](bson_t* parent, const char* name, const Usage& usage) {
    bson_t doc;
    BSON_APPEND_DOCUMENT_BEGIN(parent, name, &doc);
    AppendNumberAsMongoDB(&doc, "time", usage.time);
    AppendNumberAsMongoDB(&doc, "count", usage.count);
    bson_append_document_end(parent, &doc);
  };
  MutexLock guard(&mu_);
  for (const auto& [ns, c] : usage_) {
    bson_t doc;
    bson_append_document_begin(totals, ns.data(), static_cast<int>(ns.size()), &doc);
    entry(&doc, "total", c.total);
    entry(&doc, "readLock", c.read_lock);
    entry(&doc, "writeLock", c.write_lock);
    entry(&doc, "queries", c.queries);
    entry(&doc, "getmore", c.getmore);
    entry(&doc, "insert", c.insert);
    entry(&doc, "update", c.update);
    entry(&doc, "remove", c.remove);
    entry(&doc, "commands", c.commands);
    bson_append_document_end(totals, &doc);
  }
}

}  // namespace cairn::server
