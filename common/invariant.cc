// InvariantFailure (invariant.h): report and abort.
#include "common/invariant.h"

#include <cstdio>
#include <cstdlib>

namespace cairn {

void InvariantFailure(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "Invariant failure: %s at %s:%d\n", condition, file, line);
  std::fflush(stderr);
  std::abort();
}

}  // namespace cairn
