// IndexScanStream: the IXSCAN (+ FETCH) of a plan — visits the key ranges of an index's bounds in
// order (forward or backward, one RocksDB iterator and snapshot, a seek per range), checks the
// fields the ranges leave open, drops RecordIds already returned when the index is multikey,
// fetches each document and keeps those the matcher accepts (bounds only narrow the candidates;
// the whole filter always decides). A unique index whose bounds pin every field is read by point
// lookups instead of an iterator. Four variants share that key walk: an OR plan (several
// branches, each its own index and ranges, RecordIds deduplicated across them), a covered scan
// (documents built from the index keys, no fetch) and a count-only scan (COUNT_SCAN: keys are
// counted, nothing is fetched) and a distinct scan (DISTINCT_SCAN: one key per value of the first
// key field, skipping the rest). The last three are only planned when the bounds answer the whole
// filter exactly, so they skip the matcher.
#pragma once

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/interrupt.h"
#include "index/index_bounds.h"
#include "index/index_descriptor.h"
#include "query/matcher/matcher.h"
#include "server/exec/document_stream.h"
#include "server/exec/id_cache.h"
#include "storage/reader.h"

namespace cairn::server {

// One index's key ranges: the single scan of a plan, or one branch of an OR plan.
struct IndexScanBranch {
  storage::Prefix index = 0;
  bool unique = false;   // entry layout (collection_indexes.h)
  bool reverse = false;  // visit keys in descending byte order
  index::IndexScanRanges ranges;
  // The index (its key pattern names the fields of an entry: returnKey).
  std::shared_ptr<const index::IndexDescriptor> descriptor;
  // Its stage as explain shows it: IXSCAN, COUNT_SCAN or DISTINCT_SCAN, and its fields.
  StageType stage = StageType::kIxScan;
  FusedStage::Describe describe;
};

// What the scan returns per RecordId.
enum class IndexScanOutput {
  kFetch,      // the document, if the matcher accepts it
  kCovered,    // a document built from the key's fields (covered_fields); no matcher
  kCountOnly,  // nothing (document() is empty): the caller counts; no matcher
  // DISTINCT_SCAN: per value of the first key field, one document {distinct_field: value}, then
  // a seek past that value; no matcher. A value whose type the key lost is read from its
  // document instead (every document for null, which also stands for a missing field).
  kDistinct,
};

// The stream's stages: kFetch is (SUBPLAN →) FETCH → IXSCAN, or → OR → IXSCAN per branch;
// kCovered and kCountOnly are the branch's own stage; kDistinct is PROJECTION_COVERED →
// DISTINCT_SCAN. Each counts what it does.
struct IndexScanSpec {
  storage::Prefix collection = 0;
  // One branch, or several: an OR plan, whose RecordIds are always deduplicated across them.
  std::vector<IndexScanBranch> branches;
  bool dedup = false;  // the (single) index is multikey
  std::shared_ptr<const query::Matcher> matcher;

  IndexScanOutput output = IndexScanOutput::kFetch;
  bool subplan = false;               // kFetch of an OR plan rooted at the filter: SUBPLAN on top
  FusedStage::Describe fetch_fields;  // kFetch: FETCH's fields (its residual filter)
  FusedStage::Describe top_fields;    // kDistinct: PROJECTION_COVERED's fields
  // Where fetched documents are read through (the point-read cache); null: storage only.
  IdCache* record_cache = nullptr;
  // kCovered: per key field, the top-level field it is returned as (empty: not returned), and
  // the key's descending flags (to decode it). A key whose returned values lose their BSON type
  // in the encoding (numbers, null: key_string.h) makes that one document be fetched instead,
  // counted as examined.
  std::vector<std::string> covered_fields;
  std::vector<bool> descending;  // kCovered, kDistinct
  std::string distinct_field;    // kDistinct: the (dotted) path of the first key field
  // Checked once per index entry (common/interrupt.h); null: nothing interrupts the scan.
  std::shared_ptr<const InterruptSlot> interrupt;
};

// Positions the iterator (and pins its snapshot) at construction. Its index_key() is the entry
// the current document was read through.
std::unique_ptr<DocumentStream> MakeIndexScanStream(const storage::Reader& reader,
                                                    IndexScanSpec spec);

}  // namespace cairn::server
