#pragma once
// CSV reading and writing (RFC 4180 plus what real files contain: UTF-8 BOM, CRLF or CR line ends,
// quoted fields with separators, quotes and newlines, a missing final newline).
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sqlgrade {

struct CsvOptions {
  char separator = ',';
  bool header = true;
  // Rows with fewer fields than the header are padded with empty fields (pandas does the same);
  // rows with more fields are an InputError unless allow_ragged is set (then they are truncated).
  bool allow_ragged = false;
  // Rows with more fields than the header are accepted when every extra field is empty and unquoted
  // (a trailing comma); the extra fields are dropped and the row's line is listed in
  // CsvData::trailing_empty_lines. Extra fields with content stay an InputError.
  bool allow_trailing_empty = false;
  bool skip_blank_lines = true;  // a line with no characters at all is not a row (pandas default)
};

struct CsvData {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::vector<bool>> quoted;  // whether each field was quoted in the file
  std::vector<long> line;                 // 1-based line where each row starts
  std::vector<long> trailing_empty_lines;  // rows whose empty extra fields were dropped (allow_trailing_empty)
};

// One record as it is read: its fields (quotes undone) and whether each was quoted, valid during the
// call only. Data rows are already fitted to the header (see CsvOptions).
struct CsvRecord {
  const std::vector<std::string>& fields;
  const std::vector<bool>& quoted;
  long line;                // 1-based line where the record starts
  bool header;              // the header record (opt.header)
  bool trailing_empty;      // empty extra fields were dropped (allow_trailing_empty)
};

// Streaming: on_record for the header and then every row, in order, keeping none of them — memory is
// one record, so a reader can build its own compact table. InputError naming `name` and the line on
// malformed content. parse_csv is this, collecting.
void for_each_csv_record(std::string_view text, const std::string& name, const CsvOptions& opt,
                         const std::function<void(const CsvRecord&)>& on_record);

// Parse CSV text. `name` is used in error messages (usually the file path).
CsvData parse_csv(std::string_view text, const std::string& name, const CsvOptions& opt = {});
// A CSV file's text: read_file (bounded by `max_bytes`, 0 = the input bound) refusing a NUL byte.
std::string read_csv_text(const std::string& path, size_t max_bytes = 0);
// Read a CSV file (InputError naming the file and line on malformed content).
CsvData read_csv_file(const std::string& path, const CsvOptions& opt = {});

// Quote a field when it contains the separator, a quote, CR or LF (Python csv QUOTE_MINIMAL).
std::string csv_field(std::string_view field, char separator = ',');
// One CSV line (with "\n"); std::nullopt cells are written as empty fields.
std::string csv_line(const std::vector<std::optional<std::string>>& fields, char separator = ',');
std::string csv_line(const std::vector<std::string>& fields, char separator = ',');

}  // namespace sqlgrade
