// The in-process ceilings: the same documents written to and read from Cairn's own storage
// library (storage::Engine opened with default StorageOptions, exactly what cairnd uses) in a
// temporary directory, with the same calls per document as cairnd's write path.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tools/bench/bench.h"
#include "tools/bench/stats.h"

namespace cairn::bench {

class CeilingStore {
 public:
  // Opens a fresh engine in a new directory under `parent` (TMPDIR or /tmp when empty).
  static std::unique_ptr<CeilingStore> Open(const std::string& parent, std::string* error);
  ~CeilingStore();  // closes the engine and removes the directory

  // Writes every document: one WriteUnit per `batch` documents, each document PutRecord +
  // PutIndexEntry (_id key) + AdjustCounts, Commit per unit. Returns docs/s, or -1 with *error.
  double Load(const DocumentSet& docs, size_t batch, std::string* error);
  bool loaded() const { return loaded_; }

  // An Op doing one full forward pass over the loaded collection (Engine::ScanRecords),
  // touching every value; returns the number of documents.
  std::unique_ptr<Op> ScanOp();

  const std::string& dir() const { return dir_; }

 private:
  struct State;
  CeilingStore() = default;
  std::unique_ptr<State> state_;
  std::string dir_;
  bool loaded_ = false;
};

}  // namespace cairn::bench
