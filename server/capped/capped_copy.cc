// Capped copies: cloneCollectionAsCapped and convertToCapped.
#include "server/capped/capped_copy.h"

#include <memory>
#include <string>

#include "common/mutex.h"
#include "server/write/collection_writer.h"
#include "server/write/write_context.h"

namespace cairn::server {

namespace {

// A write unit is committed every this many bytes, so a large copy does not build one huge
// WriteBatch.
constexpr size_t kCommitEveryBytes = size_t{16} << 20;

// The copy itself; the caller holds the source's collection lock (no write to it meanwhile).
Status CopyLocked(WriteContext& state, const storage::CollectionHandle& source,
                  std::string_view target_ns, const CappedLimits& limits) {
  storage::Catalog& catalog = state.engine().catalog();
  const std::string& source_ns = source->ns;
  if (catalog.Find(target_ns)) {
    return Status(ErrorCode::kNamespaceExists,
                  "cloneCollectionAsCapped failed - destination collection " +
                      std::string(target_ns) + " already exists. source: " +
                      std::string(source_ns) + " destination: " + std::string(target_ns));
  }
  BsonDoc options;
  AppendCappedOptions(options.get(), limits);
  Result<storage::CollectionHandle> created = catalog.CreateCollection(target_ns, options.view());
  if (!created.ok()) return created.status();
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<CollectionWriter> writer,
                         CollectionWriter::Open(state, target_ns, /*create_if_missing=*/false));
  std::unique_ptr<storage::RecordCursor> scan = state.engine().ScanRecords(source->prefix);
  while (scan->Next()) {
    Status inserted = writer->Insert(scan->value());
    // A document larger than the cap is skipped, as MongoDB's copy does (it cannot be kept).
    if (!inserted.ok() && inserted.code() != ErrorCode::kBadValue) return inserted;
    if (writer->pending_bytes() >= kCommitEveryBytes) CAIRN_RETURN_IF_ERROR(writer->Commit());
  }
  CAIRN_RETURN_IF_ERROR(scan->status());
  return writer->Commit();
}

Status NotFound(std::string_view ns) {
  return Status(ErrorCode::kNamespaceNotFound,
                "source collection " + std::string(ns) + " does not exist");
}

}  // namespace

Status CopyIntoNewCapped(WriteContext& state, std::string_view source_ns,
                         std::string_view target_ns, const CappedLimits& limits) {
  storage::CollectionHandle source = state.engine().catalog().Find(source_ns);
  if (!source) return NotFound(source_ns);
  MutexLock lock(&state.CollectionLock(source->prefix));
  return CopyLocked(state, source, target_ns, limits);
}

Status ConvertToCapped(WriteContext& state, std::string_view ns, const CappedLimits& limits) {
  storage::Catalog& catalog = state.engine().catalog();
  storage::CollectionHandle source = catalog.Find(ns);
  if (!source) return NotFound(ns);
  // Held through the rename: no write to the source is lost between copy and replacement.
  MutexLock lock(&state.CollectionLock(source->prefix));
  const size_t dot = ns.find('.');
  std::string temp =
      std::string(ns.substr(0, dot)) + ".tmp.convertToCapped." + std::string(ns.substr(dot + 1));
  if (catalog.Find(temp)) CAIRN_RETURN_IF_ERROR(catalog.DropCollection(temp));
  Status copied = CopyLocked(state, source, temp, limits);
  if (!copied.ok()) {
    catalog.DropCollection(temp).IgnoreError();
    return copied;
  }
  return catalog.RenameCollection(temp, ns, /*drop_target=*/true);
}

}  // namespace cairn::server
