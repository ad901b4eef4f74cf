#pragma once
// Shared helpers for sqlgrade's libFuzzer targets. A target may throw the exceptions its contract
// documents (InputError for bad files, spider::ParseError for unparseable SQL); anything else
// escaping — another exception type, a crash, a sanitizer report, a hang — is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace sqlgrade::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A per-process scratch file holding the input, for readers that take a path.
inline const std::string& scratch_path() {
  static const std::string p = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/sqlgrade-fuzz-" + std::to_string(::getpid());
  }();
  return p;
}

inline const std::string& write_scratch(std::string_view text, const std::string& suffix) {
  static std::string path;
  path = scratch_path() + suffix;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (!text.empty()) std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  return path;
}

[[noreturn]] inline void finding(const char* what, const std::exception& e) {
  std::fprintf(stderr, "fuzz finding: %s threw an undocumented exception: %s\n", what, e.what());
  std::abort();
}

}  // namespace sqlgrade::fuzz
