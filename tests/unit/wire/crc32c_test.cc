// Specification of CRC-32C (wire/crc32c.cc): known vectors, incremental use, and agreement of
// the software (slicing-by-8) and SSE4.2 paths.
#include "wire/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "wire/message.h"

namespace cairn::wire {
namespace {

using internal::Crc32cHardware;
using internal::Crc32cSoftware;
using internal::HasHardwareCrc32c;

uint32_t Of(const std::string& s) {
  return Crc32c(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

struct Vector {
  std::string input;
  uint32_t crc;
};

// RFC 3720 (iSCSI) appendix B.4 and the standard check value.
std::vector<Vector> KnownVectors() {
  return {
      {"", 0x00000000u},
      {"a", 0xC1D04330u},
      {"123456789", 0xE3069283u},
      {std::string(32, '\0'), 0x8A9136AAu},
      {std::string(32, '\xff'), 0x62A8AB43u},
      {[] {
         std::string s;
         for (int i = 0; i < 32; ++i) s.push_back(static_cast<char>(i));
         return s;
       }(),
       0x46DD794Eu},
      {[] {
         std::string s;
         for (int i = 31; i >= 0; --i) s.push_back(static_cast<char>(i));
         return s;
       }(),
       0x113FDB5Cu},
  };
}

TEST(Crc32c, ShouldMatchKnownVectors) {
  for (const Vector& v : KnownVectors()) {
    const auto* p = reinterpret_cast<const uint8_t*>(v.input.data());
    EXPECT_EQ(Of(v.input), v.crc) << "input of " << v.input.size() << " bytes";
    EXPECT_EQ(Crc32cSoftware(p, v.input.size(), 0), v.crc) << "software";
    if (HasHardwareCrc32c()) {
      EXPECT_EQ(Crc32cHardware(p, v.input.size(), 0), v.crc) << "hardware";
    }
  }
}

TEST(Crc32c, ShouldExtendAcrossPieces) {
  const std::string s = "The quick brown fox jumps over the lazy dog, twice over.";
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  for (size_t cut = 0; cut <= s.size(); ++cut) {
    EXPECT_EQ(Crc32c(p + cut, s.size() - cut, Crc32c(p, cut)), Of(s)) << "cut at " << cut;
    EXPECT_EQ(Crc32cSoftware(p + cut, s.size() - cut, Crc32cSoftware(p, cut, 0)), Of(s));
  }
}

TEST(Crc32c, SoftwareAndHardwarePathsShouldAgreeOnRandomBuffers) {
  if (!HasHardwareCrc32c()) GTEST_SKIP() << "CPU has no SSE4.2";
  std::mt19937_64 rng(20240601);
  std::vector<uint8_t> buf(4096 + 16);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  // Every length up to 300, then larger ones; every start alignment 0-7; random seeds.
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 300; ++n) lengths.push_back(n);
  for (size_t n : {511, 512, 513, 1000, 1023, 1024, 2047, 4095, 4096}) lengths.push_back(n);
  for (size_t n : lengths) {
    for (size_t offset = 0; offset < 8; ++offset) {
      const uint32_t seed = static_cast<uint32_t>(rng());
      const uint8_t* p = buf.data() + offset;
      ASSERT_EQ(Crc32cSoftware(p, n, seed), Crc32cHardware(p, n, seed))
          << "length " << n << " offset " << offset;
      ASSERT_EQ(Crc32cSoftware(p, n, 0), Crc32cHardware(p, n, 0));
    }
  }
}

}  // namespace
}  // namespace cairn::wire
