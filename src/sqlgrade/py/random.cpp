// CPython's random.Random for integer seeds — see random.hpp.
#include "sqlgrade/py/random.hpp"

#include <algorithm>
#include <vector>

namespace sqlgrade::py {

namespace {
constexpr int kN = 624, kM = 397;
}

Random::Random(uint64_t seed) {
  // init_genrand(19650218), then init_by_array(key) with key = the seed's 32-bit words, least
  // significant first (one word 0 for seed 0).
  std::vector<uint32_t> key;
  if (seed == 0) key.push_back(0);
  while (seed) {
    key.push_back(static_cast<uint32_t>(seed & 0xffffffffu));
    seed >>= 32;
  }
  mt_[0] = 19650218u;
  for (int i = 1; i < kN; ++i) mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  int i = 1;
  size_t j = 0;
  for (int k = std::max<int>(kN, static_cast<int>(key.size())); k; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525u)) + key[j] + static_cast<uint32_t>(j);
    ++i;
    ++j;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
    if (j >= key.size()) j = 0;
  }
  for (int k = kN - 1; k; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941u)) - static_cast<uint32_t>(i);
    ++i;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
  }
  mt_[0] = 0x80000000u;
  idx_ = kN;
}

uint32_t Random::next32() {
  if (idx_ >= kN) {
    for (int k = 0; k < kN; ++k) {
      uint32_t y = (mt_[k] & 0x80000000u) | (mt_[(k + 1) % kN] & 0x7fffffffu);
      mt_[k] = mt_[(k + kM) % kN] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    idx_ = 0;
  }
  uint32_t y = mt_[idx_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

uint64_t Random::getrandbits(int k) {
  if (k <= 32) return next32() >> (32 - k);
  uint64_t lo = next32();                       // first word is the least significant
  uint64_t hi = next32() >> (64 - k);
  return lo | (hi << 32);
}

uint64_t Random::randbelow(uint64_t n) {
  int k = 0;
  for (uint64_t x = n; x; x >>= 1) ++k;  // n.bit_length()
  uint64_t r = getrandbits(k);
  while (r >= n) r = getrandbits(k);
  return r;
}

}  // namespace sqlgrade::py
