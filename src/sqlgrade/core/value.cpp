#include "sqlgrade/core/value.hpp"

#include <cmath>
#include <functional>

namespace sqlgrade {

bool Value::operator==(const Value& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::Null: return true;
    case Kind::Int: return i == o.i;
    case Kind::Real: return r == o.r || (std::isnan(r) && std::isnan(o.r));
    default: return s == o.s;
  }
}

size_t hash_value(const Value& v) {
  size_t h = static_cast<size_t>(v.kind) * 0x9e3779b97f4a7c15ULL;
  switch (v.kind) {
    case Kind::Null: return h;
    case Kind::Int: return h ^ std::hash<int64_t>{}(v.i);
    case Kind::Real: return h ^ std::hash<double>{}(v.r);
    default: return h ^ std::hash<std::string>{}(v.s);
  }
}

}  // namespace sqlgrade
