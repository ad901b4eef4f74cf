#pragma once
// The rows of a result grouped by key, compactly: every key in one buffer and the rows in key order
// (a permutation), as Spider 2.0's frames sort permutations instead of building maps. It answers what
// a std::map<std::string, std::vector<size_t>> of the rows by key answers — the groups in key order
// (std::string's byte order), a group's rows in the order they were added — at the key's bytes plus
// 16 bytes a row; the map and its vectors cost ~130 bytes a row, and a 10 MB result.csv of short rows
// with distinct keys cost 579 MiB in the matcher's maps (issue 31).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sqlgrade::uda {

class KeyIndex {
 public:
  void reserve(size_t rows) {
    end_.reserve(rows);
    row_.reserve(rows);
  }
  // `row`'s key; rows are added in the order that a group keeps.
  void add(size_t row, std::string_view key) {
    bytes_.append(key);
    end_.push_back(bytes_.size());
    row_.push_back(static_cast<uint32_t>(row));
  }
  // Orders the rows by key, rows of one key in the order they were added. Call once, after the adds.
  void sort() {
    order_.resize(row_.size());
    std::iota(order_.begin(), order_.end(), 0u);
    std::sort(order_.begin(), order_.end(), [this](uint32_t a, uint32_t b) {
      const std::string_view x = key(a), y = key(b);
      return x < y || (x == y && a < b);
    });
  }
  size_t size() const { return order_.size(); }
  // The i-th row in key order, and its key.
  size_t row_at(size_t i) const { return row_[order_[i]]; }
  std::string_view key_at(size_t i) const { return key(order_[i]); }
  // The positions [first, last) in key order of the rows whose key is `k` (first == last: none).
  std::pair<size_t, size_t> find(std::string_view k) const {
    auto lo = std::lower_bound(order_.begin(), order_.end(), k,
                               [this](uint32_t a, std::string_view v) { return key(a) < v; });
    auto hi = std::upper_bound(lo, order_.end(), k, [this](std::string_view v, uint32_t a) { return v < key(a); });
    return {static_cast<size_t>(lo - order_.begin()), static_cast<size_t>(hi - order_.begin())};
  }
  // f(key, first, last) for every group, in key order.
  template <class F>
  void for_each_group(F&& f) const {
    for (size_t i = 0; i < order_.size();) {
      size_t j = i + 1;
      while (j < order_.size() && key_at(j) == key_at(i)) ++j;
      f(key_at(i), i, j);
      i = j;
    }
  }

 private:
  std::string_view key(uint32_t a) const {
    const size_t b = a ? end_[a - 1] : 0;
    return std::string_view(bytes_.data() + b, end_[a] - b);
  }
  std::string bytes_;
  std::vector<size_t> end_;     // end of each added key in bytes_
  std::vector<uint32_t> row_;   // the row of each added key
  std::vector<uint32_t> order_; // added keys in key order
};

// The first row not yet paired among the rows of a key in a sorted KeyIndex, in the order they were
// added; a cursor per key, so that asking again costs no rescan (rows are paired in that order).
class FirstFree {
 public:
  FirstFree(const KeyIndex& idx, const std::vector<char>& used) : idx_(idx), used_(used) {}
  std::optional<size_t> operator()(std::string_view key) {
    const auto [first, last] = idx_.find(key);
    if (first == last) return std::nullopt;
    size_t& i = cursor_.try_emplace(first, first).first->second;
    while (i < last && used_[idx_.row_at(i)]) ++i;
    if (i == last) return std::nullopt;
    return idx_.row_at(i++);
  }

 private:
  const KeyIndex& idx_;
  const std::vector<char>& used_;
  std::unordered_map<size_t, size_t> cursor_;  // first position of a key → next to look at
};

}  // namespace sqlgrade::uda
