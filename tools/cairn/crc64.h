// CRC-64 as mongodump's archive EOF headers carry it: Go's hash/crc64 with the ECMA table
// (reflected polynomial 0xC96C5795D7870F42, initial and final XOR with all ones; the check
// value of "123456789" is 0x995DC9BBDF1939FA, CRC-64/XZ). See tools/cairn/archive.h.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cairn::tools {

// Continues `crc` (0 to start) over `n` bytes.
uint64_t Crc64Update(uint64_t crc, const void* data, size_t n);

}  // namespace cairn::tools
