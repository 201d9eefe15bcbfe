// CAIRN_INVARIANT(condition): a condition that must never fail, checked in every build
// (MongoDB's invariant(); unlike assert, NDEBUG does not remove it). A failure is a bug in Cairn,
// never a client's doing: it logs the condition and where it failed to stderr and aborts, so a
// core dump or a sanitizer's report shows the state. Client input is answered with a Status.
#pragma once

namespace cairn {

[[noreturn]] void InvariantFailure(const char* condition, const char* file, int line);

}  // namespace cairn

#define CAIRN_INVARIANT(condition)                               \
  do {                                                           \
    if (__builtin_expect(!(condition), 0)) {                     \
      ::cairn::InvariantFailure(#condition, __FILE__, __LINE__); \
    }                                                            \
  } while (0)
