#pragma once
// CPython's `random` module, as far as the official recipes use it (the BIRD works_cycles subset
// shuffles with random.Random(seed).shuffle).
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace sqlgrade::py {

// CPython's random.Random(seed) for a non-negative integer seed: MT19937 initialised with
// init_by_array over the seed's 32-bit words, getrandbits(k) = next32 >> (32 - k) for k <= 32, and
// _randbelow(n) by rejection sampling on getrandbits(n.bit_length()).
class Random {
 public:
  explicit Random(uint64_t seed);
  uint32_t next32();
  uint64_t getrandbits(int k);  // 1 <= k <= 64
  uint64_t randbelow(uint64_t n);  // n >= 1
  // random.shuffle(x): for i from n-1 down to 1, swap x[i] with x[randbelow(i + 1)].
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i-- > 1;) {
      size_t j = static_cast<size_t>(randbelow(i + 1));
      std::swap(v[i], v[j]);
    }
  }

 private:
  uint32_t mt_[624];
  int idx_ = 624;
};

}  // namespace sqlgrade::py
