// CRC-32C's two implementations, exposed for tests and benchmarks: the table-driven software
// path (slicing-by-8) and the SSE4.2 `crc32` instruction path. Callers use Crc32c() in
// message.h, which picks the hardware path once at run time when the CPU has it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cairn::wire::internal {

// Both extend `crc` (the CRC of the bytes before `data`, 0 for none) over `data`, so
// Crc32c(b, nb, Crc32c(a, na)) == Crc32c(a||b).
uint32_t Crc32cSoftware(const uint8_t* data, size_t size, uint32_t crc);

// True when the CPU supports SSE4.2 (checked once). Crc32cHardware must not be called otherwise.
bool HasHardwareCrc32c();
uint32_t Crc32cHardware(const uint8_t* data, size_t size, uint32_t crc);

}  // namespace cairn::wire::internal
