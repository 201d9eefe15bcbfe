// Table-driven reflected CRC-64 (ECMA-182 polynomial).
#include "tools/cairn/crc64.h"

#include <array>

namespace cairn::tools {

namespace {

constexpr uint64_t kReflectedEcma = 0xC96C5795D7870F42ULL;

constexpr std::array<uint64_t, 256> MakeTable() {
  std::array<uint64_t, 256> table{};
  for (uint64_t i = 0; i < 256; ++i) {
    uint64_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ kReflectedEcma : crc >> 1;
    table[i] = crc;
  }
  return table;
}

constexpr std::array<uint64_t, 256> kTable = MakeTable();

}  // namespace

uint64_t Crc64Update(uint64_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = kTable[static_cast<uint8_t>(crc) ^ p[i]] ^ (crc >> 8);
  return ~crc;
}

}  // namespace cairn::tools
