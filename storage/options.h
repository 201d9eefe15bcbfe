// StorageOptions: how the RocksDB database under Cairn is opened. DB-wide settings only.
#pragma once

#include <cstddef>
#include <string>

namespace cairn::storage {

struct StorageOptions {
  std::string path;                       // Default: none (cairnd passes --dbpath, /data/db)
  size_t block_cache_bytes = 256u << 20;  // Default: 256 MiB LRU block cache (shared by all CFs)
  int bloom_bits_per_key = 10;            // Default: 10 (whole-key bloom filter on every CF)
  size_t write_buffer_bytes = 64u << 20;  // Default: 64 MiB memtable per column family
  bool sync_writes = false;               // Default: false. The WAL is always on; without
                                          // fsync an acknowledged write survives kill -9 of the
                                          // process (the OS holds it), not a power loss.
  bool create_if_missing = true;          // Default: true
  // Default: false. True keeps every file RocksDB writes in memory (its in-memory Env): nothing
  // is written under `path` and nothing persists past the process.
  bool in_memory = false;
};

}  // namespace cairn::storage
