#pragma once
// CPython's `random` module (Lib/random.py and Modules/_randommodule.c, CPython 3.11; the algorithms
// have not changed since 3.2): random.Random(seed) for a non-negative integer seed, and the calls
// built on it. Needed by the BIRD works_cycles subset recipe (bird/subset.cpp: "shuffle using seed
// 1"), so that `sqlgrade bird subset` picks the very items the recipe's Python code picks.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace sqlgrade::py {

// MT19937 initialised with init_by_array over the seed's 32-bit words (least significant first; one
// word 0 for seed 0), as random_seed() does for an int seed.
class Random {
 public:
  explicit Random(uint64_t seed);
  uint32_t next32();               // genrand_uint32
  uint64_t getrandbits(int k);     // 1 <= k <= 64: next32() >> (32 - k) for k <= 32; words least significant first
  uint64_t randbelow(uint64_t n);  // _randbelow_with_getrandbits: n >= 1, getrandbits(n.bit_length()) until < n
  double random();                 // random.random(): (a >> 5, b >> 6) -> (a * 2**26 + b) / 2**53

  // random.shuffle(x): for i from n-1 down to 1, swap x[i] with x[randbelow(i + 1)].
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i-- > 1;) {
      size_t j = static_cast<size_t>(randbelow(i + 1));
      std::swap(v[i], v[j]);
    }
  }

  // random.sample(population, k): the indices into a population of size n that CPython picks, in
  // order (sample(range(n), k)). Pool algorithm when n <= setsize (21, plus 4 ** ceil(log(3k, 4))
  // when k > 5), else rejection on a set of selected indices. Throws std::invalid_argument when k > n
  // ("Sample larger than population or is negative").
  std::vector<size_t> sample_indices(size_t n, size_t k);
  template <class T>
  std::vector<T> sample(const std::vector<T>& population, size_t k) {
    std::vector<T> out;
    for (size_t i : sample_indices(population.size(), k)) out.push_back(population[i]);
    return out;
  }

 private:
  uint32_t mt_[624];
  int idx_ = 624;
};

}  // namespace sqlgrade::py
