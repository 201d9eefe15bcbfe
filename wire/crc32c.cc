// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) for OP_MSG checksums: slicing-by-8
// tables built at compile time, the SSE4.2 crc32 instruction when the CPU has it, and the
// run-time dispatch behind Crc32c().
#include "wire/crc32c.h"

#include <array>
#include <bit>
#include <cstring>

#include "wire/message.h"

#if defined(__x86_64__)
#include <nmmintrin.h>
#define CAIRN_CRC32C_X86 1
#endif

namespace cairn::wire {
namespace internal {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;

using Tables = std::array<std::array<uint32_t, 256>, 8>;

// tables[0] is the byte-at-a-time table; tables[k][b] is the CRC of byte b followed by k zero
// bytes, so eight bytes can be folded with eight independent lookups.
constexpr Tables MakeTables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    t[0][i] = c;
  }
  for (size_t k = 1; k < 8; ++k) {
    for (uint32_t i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
  }
  return t;
}

constexpr Tables kTables = MakeTables();
static_assert(kTables[0][1] == 0xF26B8303u, "CRC-32C table");

inline uint64_t LoadU64LE(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

}  // namespace

uint32_t Crc32cSoftware(const uint8_t* data, size_t size, uint32_t crc) {
  uint32_t l = ~crc;
  while (size >= 8) {
    const uint64_t w = LoadU64LE(data) ^ l;
    l = kTables[7][w & 0xFF] ^ kTables[6][(w >> 8) & 0xFF] ^ kTables[5][(w >> 16) & 0xFF] ^
        kTables[4][(w >> 24) & 0xFF] ^ kTables[3][(w >> 32) & 0xFF] ^ kTables[2][(w >> 40) & 0xFF] ^
        kTables[1][(w >> 48) & 0xFF] ^ kTables[0][w >> 56];
    data += 8;
    size -= 8;
  }
  while (size-- > 0) l = kTables[0][(l ^ *data++) & 0xFF] ^ (l >> 8);
  return ~l;
}

#if defined(CAIRN_CRC32C_X86)

bool HasHardwareCrc32c() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") != 0;
  }();
  return has;
}

__attribute__((target("sse4.2"))) uint32_t Crc32cHardware(const uint8_t* data, size_t size,
                                                          uint32_t crc) {
  uint64_t l = ~crc;
  while (size > 0 && (reinterpret_cast<uintptr_t>(data) & 7) != 0) {
    l = _mm_crc32_u8(static_cast<uint32_t>(l), *data++);
    --size;
  }
  while (size >= 8) {
    uint64_t w;
    std::memcpy(&w, data, 8);
    l = _mm_crc32_u64(l, w);
    data += 8;
    size -= 8;
  }
  while (size-- > 0) l = _mm_crc32_u8(static_cast<uint32_t>(l), *data++);
  return ~static_cast<uint32_t>(l);
}

#else  // no SSE4.2 on this architecture: the "hardware" path is the software one.

bool HasHardwareCrc32c() { return false; }
uint32_t Crc32cHardware(const uint8_t* data, size_t size, uint32_t crc) {
  return Crc32cSoftware(data, size, crc);
}

#endif

}  // namespace internal

uint32_t Crc32c(const uint8_t* data, size_t size, uint32_t crc) {
  static const bool hardware = internal::HasHardwareCrc32c();
  return hardware ? internal::Crc32cHardware(data, size, crc)
                  : internal::Crc32cSoftware(data, size, crc);
}

}  // namespace cairn::wire
