#include "sqlgrade/engine/engine.hpp"

namespace sqlgrade {

const char* to_string(ExecStatus s) {
  switch (s) {
    case ExecStatus::Ok: return "ok";
    case ExecStatus::Error: return "error";
    case ExecStatus::Timeout: return "timeout";
    case ExecStatus::TooLarge: return "too_large";
  }
  return "?";
}

}  // namespace sqlgrade
