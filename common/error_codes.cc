// CodeName(): codeName strings derived from error_codes.def.
#include "common/error_codes.h"

#include <map>
#include <memory>
#include <string>

#include "common/mutex.h"

namespace cairn {

std::string_view CodeName(ErrorCode code) {
  switch (code) {
#define X(name, number)    \
  case ErrorCode::k##name: \
    return #name;
#include "common/error_codes.def"
#undef X
  }
  // A number the table does not name (failCommand's errorCode may be any): "Location<N>", as
  // mongod prints one. Each such name is made once and kept, so the view stays valid.
  static Mutex mu;
  static std::map<int, std::unique_ptr<const std::string>> unnamed;
  MutexLock lock(&mu);
  std::unique_ptr<const std::string>& name = unnamed[CodeNumber(code)];
  if (name == nullptr) {
    name = std::make_unique<const std::string>("Location" + std::to_string(CodeNumber(code)));
  }
  return *name;
}

}  // namespace cairn
