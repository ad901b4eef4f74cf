// py/random: CPython's random.Random. Expected values were printed by CPython 3.11
// (random.Random(seed).getrandbits / shuffle / random / sample).
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "sqlgrade/py/random.hpp"

using namespace sqlgrade;
using PyRandom = py::Random;

namespace {
std::vector<int> range(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}
}  // namespace

TEST(PyRandom, MatchesCPython) {
  PyRandom r(1);
  EXPECT_EQ(r.getrandbits(32), 577090037u);
  EXPECT_EQ(r.getrandbits(32), 2444712010u);
  EXPECT_EQ(r.getrandbits(32), 3639700191u);
  EXPECT_EQ(r.getrandbits(40), 840964324912ull);

  std::vector<int> v(20);
  for (int i = 0; i < 20; ++i) v[i] = i;
  PyRandom(1).shuffle(v);
  EXPECT_EQ(v, (std::vector<int>{11, 5, 17, 19, 9, 0, 16, 1, 15, 6, 10, 13, 14, 12, 7, 3, 8, 2, 18, 4}));

  std::vector<int> w(10);
  for (int i = 0; i < 10; ++i) w[i] = i;
  PyRandom(12345678901ull).shuffle(w);  // a seed wider than 32 bits
  EXPECT_EQ(w, (std::vector<int>{8, 7, 3, 1, 0, 4, 2, 6, 5, 9}));

  std::vector<int> z(10);
  for (int i = 0; i < 10; ++i) z[i] = i;
  PyRandom(0).shuffle(z);
  EXPECT_EQ(z, (std::vector<int>{7, 8, 1, 5, 3, 4, 2, 0, 9, 6}));

  std::vector<int> big(1000);
  for (int i = 0; i < 1000; ++i) big[i] = i;
  PyRandom(1).shuffle(big);
  EXPECT_EQ(std::vector<int>(big.begin(), big.begin() + 5), (std::vector<int>{852, 836, 280, 575, 208}));
  EXPECT_EQ(big[999], 137);
}

TEST(PyRandom, RandomIsCPythonsFloat) {
  PyRandom r(1);
  EXPECT_EQ(r.random(), 0.13436424411240122);
  EXPECT_EQ(r.random(), 0.8474337369372327);
  EXPECT_EQ(r.random(), 0.763774618976614);
  EXPECT_EQ(PyRandom(12345678901ull).random(), 0.9460118159397316);
  PyRandom s(1);
  std::vector<int> five = range(5);
  s.shuffle(five);  // the generator state carries over between calls
  EXPECT_EQ(s.random(), 0.49543508709194095);
}

TEST(PyRandom, SampleUsesCPythonsTwoAlgorithms) {
  // Pool algorithm (n <= setsize).
  EXPECT_EQ(PyRandom(1).sample(range(10), 4), (std::vector<int>{2, 1, 4, 0}));
  EXPECT_EQ(PyRandom(3).sample(range(5), 5), (std::vector<int>{1, 4, 3, 2, 0}));
  EXPECT_EQ(PyRandom(7).sample(range(100), 30),
            (std::vector<int>{41, 19, 50, 83, 6, 9, 68, 12, 46, 74, 7, 64, 27, 4, 11,
                              55, 53, 8, 30, 85, 70, 54, 89, 72, 15, 28, 77, 97, 95, 90}));
  // Set algorithm (n > setsize = 21 + 4 ** ceil(log(24, 4)) = 85).
  EXPECT_EQ(PyRandom(1).sample(range(1000), 8), (std::vector<int>{137, 582, 867, 821, 782, 64, 261, 120}));
  EXPECT_THROW(PyRandom(1).sample(range(3), 4), std::invalid_argument);
  EXPECT_TRUE(PyRandom(1).sample(range(3), 0).empty());
}
