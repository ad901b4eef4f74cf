// py::Random against CPython: random.Random(seed).getrandbits / shuffle (used by the BIRD works_cycles
// subset, docs/bird.md).
#include <gtest/gtest.h>

#include <vector>

#include "sqlgrade/py/random.hpp"

using sqlgrade::py::Random;

// Expected values printed by CPython 3.11: random.Random(seed).shuffle / getrandbits.
TEST(PyRandom, MatchesCPython) {
  Random r(1);
  EXPECT_EQ(r.getrandbits(32), 577090037u);
  EXPECT_EQ(r.getrandbits(32), 2444712010u);
  EXPECT_EQ(r.getrandbits(32), 3639700191u);
  EXPECT_EQ(r.getrandbits(40), 840964324912ull);

  std::vector<int> v(20);
  for (int i = 0; i < 20; ++i) v[i] = i;
  Random(1).shuffle(v);
  EXPECT_EQ(v, (std::vector<int>{11, 5, 17, 19, 9, 0, 16, 1, 15, 6, 10, 13, 14, 12, 7, 3, 8, 2, 18, 4}));

  std::vector<int> w(10);
  for (int i = 0; i < 10; ++i) w[i] = i;
  Random(12345678901ull).shuffle(w);  // a seed wider than 32 bits
  EXPECT_EQ(w, (std::vector<int>{8, 7, 3, 1, 0, 4, 2, 6, 5, 9}));

  std::vector<int> z(10);
  for (int i = 0; i < 10; ++i) z[i] = i;
  Random(0).shuffle(z);
  EXPECT_EQ(z, (std::vector<int>{7, 8, 1, 5, 3, 4, 2, 0, 9, 6}));

  std::vector<int> big(1000);
  for (int i = 0; i < 1000; ++i) big[i] = i;
  Random(1).shuffle(big);
  EXPECT_EQ(std::vector<int>(big.begin(), big.begin() + 5), (std::vector<int>{852, 836, 280, 575, 208}));
  EXPECT_EQ(big[999], 137);
}
