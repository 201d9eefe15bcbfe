// ErrorCode: MongoDB's error codes as an enum, derived from error_codes.def (the only place a
// number is written), and CodeName() for the codeName field of error replies.
#pragma once

#include <string_view>

namespace cairn {

enum class ErrorCode : int {
#define X(name, number) k##name = number,
#include "common/error_codes.def"
#undef X
};

// MongoDB's codeName for `code`, e.g. "DuplicateKey"; "Location<N>" for numbers not in the table.
std::string_view CodeName(ErrorCode code);

inline int CodeNumber(ErrorCode code) { return static_cast<int>(code); }

}  // namespace cairn
