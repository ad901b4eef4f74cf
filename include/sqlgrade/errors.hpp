#pragma once
// Errors about the user's input files. The CLI turns an InputError into one line on stderr
// ("sqlgrade: <file>:<line>: <message>") and exit code 2.
#include <stdexcept>
#include <string>

namespace sqlgrade {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string message, long line = 0)
      : std::runtime_error(format(file, message, line)),
        file_(std::move(file)), message_(std::move(message)), line_(line) {}
  const std::string& file() const { return file_; }
  const std::string& message() const { return message_; }
  long line() const { return line_; }

 private:
  static std::string format(const std::string& file, const std::string& message, long line) {
    std::string out = file;
    if (line > 0) out += ":" + std::to_string(line);
    if (!out.empty()) out += ": ";
    return out + message;
  }
  std::string file_, message_;
  long line_;
};

}  // namespace sqlgrade
