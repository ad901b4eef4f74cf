#pragma once
// Internals of the BIRD works_cycles prompt-optimisation subset (the subset, its schema prompt and
// their options are public: sqlgrade/bird.hpp): CPython's random, the recipe's table layout, and the
// {"answer": "..."} output format read back from model output.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/bird.hpp"

namespace sqlgrade::bird {

// CPython's random.Random(seed) for a non-negative integer seed: MT19937 initialised with
// init_by_array over the seed's 32-bit words, getrandbits(k) = next32 >> (32 - k) for k <= 32, and
// _randbelow(n) by rejection sampling on getrandbits(n.bit_length()).
class PyRandom {
 public:
  explicit PyRandom(uint64_t seed);
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

// nice_look_table(): each cell right-aligned to its column's widest str() (code points), followed by
// one space; header line, then one line per row.
std::string nice_look_table(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& rows);

// {"answer": "<SQL>"} as the subset's target string (JSON, ensure_ascii like Python's json.dumps).
std::string answer_json(const std::string& sql);

// Read the SQL back from a model output holding {"answer": "..."}: the whole text, a ```json fenced
// block, or the last JSON object in the text whose "answer" is a string. nullopt when none is found.
std::optional<std::string> extract_answer(const std::string& model_output);

}  // namespace sqlgrade::bird
