// rocksdb::Status → cairn::Status: the only place storage/ reads a RocksDB error. The module's
// vocabulary is NoSuchKey, NamespaceExists, NamespaceNotFound and InternalError.
#include "storage/engine_impl.h"

namespace cairn::storage {

Status FromRocks(const rocksdb::Status& s, std::string_view context) {
  if (s.ok()) return Status::OK();
  std::string reason("storage ");
  reason.append(context);
  reason.append(": ");
  reason.append(s.ToString());
  if (s.IsNotFound()) return Status(ErrorCode::kNoSuchKey, std::move(reason));
  return Status(ErrorCode::kInternalError, std::move(reason));
}

}  // namespace cairn::storage
