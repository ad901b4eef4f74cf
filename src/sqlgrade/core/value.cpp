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
    case Kind::Text:
    case Kind::Blob:
    case Kind::Decimal:
    case Kind::Other:
    case Kind::Unhashable: return s == o.s;
    default: return i == o.i && s == o.s;  // Bool, dates and times: the number and the text
  }
}

size_t hash_value(const Value& v) {
  size_t h = static_cast<size_t>(v.kind) * 0x9e3779b97f4a7c15ULL;
  switch (v.kind) {
    case Kind::Null: return h;
    case Kind::Int: return h ^ std::hash<int64_t>{}(v.i);
    case Kind::Real: return h ^ std::hash<double>{}(v.r);
    case Kind::Bool:
    case Kind::Date:
    case Kind::DateTime:
    case Kind::DateTimeTz:
    case Kind::Time:
    case Kind::TimeTz:
    case Kind::Duration: return h ^ std::hash<int64_t>{}(v.i);
    default: return h ^ std::hash<std::string>{}(v.s);
  }
}

}  // namespace sqlgrade
