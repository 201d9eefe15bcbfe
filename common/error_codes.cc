// CodeName(): codeName strings derived from error_codes.def.
#include "common/error_codes.h"

namespace cairn {

std::string_view CodeName(ErrorCode code) {
  switch (code) {
#define X(name, number)    \
  case ErrorCode::k##name: \
    return #name;
#include "common/error_codes.def"
#undef X
  }
  return "UnknownError";
}

}  // namespace cairn
