#include "sqlgrade/core/csv.hpp"

#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/fs.hpp"

namespace sqlgrade {

namespace {

// Python's csv reader (and pandas' C tokenizer) on one record that starts at text[i] (not an empty
// line): fields split on `sep`, a field opened by '"' runs to the closing quote ('""' is one quote,
// newlines inside are kept), the record ends at \n, \r\n or \r outside quotes or at the end. Advances
// i and line_no past it.
void read_record(std::string_view text, char sep, size_t& i, long& line_no, long row_line, const std::string& name,
                 std::vector<std::string>& fields, std::vector<bool>& quoted) {
  const size_t n = text.size();
  std::string field;
  bool in_quotes = false, was_quoted = false;
  while (true) {
    if (i >= n) {
      if (in_quotes) throw InputError(name, "unterminated quoted field", row_line);
      fields.push_back(std::move(field));
      quoted.push_back(was_quoted);
      return;
    }
    char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < n && text[i + 1] == '"') {
          field += '"';
          i += 2;
        } else {
          in_quotes = false;
          ++i;
        }
      } else {
        if (c == '\n') ++line_no;
        else if (c == '\r' && !(i + 1 < n && text[i + 1] == '\n')) ++line_no;
        field += c;
        ++i;
      }
      continue;
    }
    if (c == '"' && field.empty() && !was_quoted) {
      in_quotes = was_quoted = true;
      ++i;
    } else if (c == sep) {
      fields.push_back(std::move(field));
      quoted.push_back(was_quoted);
      field.clear();
      was_quoted = false;
      ++i;
    } else if (c == '\n' || c == '\r') {
      i += (c == '\r' && i + 1 < n && text[i + 1] == '\n') ? 2 : 1;
      ++line_no;
      fields.push_back(std::move(field));
      quoted.push_back(was_quoted);
      return;
    } else {
      field += c;  // text after a closing quote is kept literally (lenient, like pandas)
      ++i;
    }
  }
}

// A data record fitted to the header's width w: missing fields are empty; extra fields are an
// InputError unless they are all empty and unquoted (allow_trailing_empty: dropped, returns true) or
// allow_ragged (cut).
bool fit_to_width(std::vector<std::string>& fields, std::vector<bool>& quoted, size_t w, const CsvOptions& opt,
                  const std::string& name, long row_line) {
  bool trailing_dropped = false;
  if (fields.size() > w) {
    bool trailing_empty = opt.allow_trailing_empty && w > 0;
    for (size_t k = w; k < fields.size() && trailing_empty; ++k) trailing_empty = fields[k].empty() && !quoted[k];
    if (trailing_empty) trailing_dropped = true;
    else if (!opt.allow_ragged)
      throw InputError(name, "expected " + std::to_string(w) + " fields, saw " + std::to_string(fields.size()), row_line);
    fields.resize(w);
    quoted.resize(w);
  } else if (fields.size() < w) {
    fields.resize(w);
    quoted.resize(w, false);
  }
  return trailing_dropped;
}

}  // namespace

void for_each_csv_record(std::string_view text, const std::string& name, const CsvOptions& opt,
                         const std::function<void(const CsvRecord&)>& on_record) {
  if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF &&
      static_cast<unsigned char>(text[1]) == 0xBB && static_cast<unsigned char>(text[2]) == 0xBF)
    text.remove_prefix(3);
  size_t i = 0, n = text.size();
  long line_no = 1;
  bool first = opt.header;
  size_t width = 0;  // the header's
  std::vector<std::string> fields;
  std::vector<bool> quoted;
  while (i < n) {
    long row_line = line_no;
    if (text[i] == '\n' || text[i] == '\r') {  // a completely empty line
      size_t adv = (text[i] == '\r' && i + 1 < n && text[i + 1] == '\n') ? 2 : 1;
      i += adv;
      ++line_no;
      if (opt.skip_blank_lines) continue;
      fields.assign(1, "");
      quoted.assign(1, false);
    } else {
      fields.clear();
      quoted.clear();
      read_record(text, opt.separator, i, line_no, row_line, name, fields, quoted);
    }
    if (first) {
      width = fields.size();
      first = false;
      on_record(CsvRecord{fields, quoted, row_line, true, false});
      continue;
    }
    const bool trailing_dropped = (width > 0 || opt.header) && fit_to_width(fields, quoted, width, opt, name, row_line);
    on_record(CsvRecord{fields, quoted, row_line, false, trailing_dropped});
  }
}

CsvData parse_csv(std::string_view text, const std::string& name, const CsvOptions& opt) {
  CsvData out;
  for_each_csv_record(text, name, opt, [&](const CsvRecord& r) {
    if (r.header) {
      out.header = r.fields;
      return;
    }
    if (r.trailing_empty) out.trailing_empty_lines.push_back(r.line);
    out.rows.push_back(r.fields);
    out.quoted.push_back(r.quoted);
    out.line.push_back(r.line);
  });
  return out;
}

std::string read_csv_text(const std::string& path, size_t max_bytes) {
  std::string text = read_file(path, max_bytes);
  if (text.find('\0') != std::string::npos) {
    // Count the line of the first NUL for the message.
    size_t p = text.find('\0');
    long line = 1;
    for (size_t k = 0; k < p; ++k)
      if (text[k] == '\n') ++line;
    throw InputError(path, "contains a NUL byte (not a text CSV file)", line);
  }
  return text;
}

CsvData read_csv_file(const std::string& path, const CsvOptions& opt) { return parse_csv(read_csv_text(path), path, opt); }

std::string csv_field(std::string_view f, char sep) {
  bool need = false;
  for (char c : f)
    if (c == sep || c == '"' || c == '\n' || c == '\r') {
      need = true;
      break;
    }
  if (!need) return std::string(f);
  std::string o = "\"";
  for (char c : f) {
    if (c == '"') o += '"';
    o += c;
  }
  o += '"';
  return o;
}

std::string csv_line(const std::vector<std::optional<std::string>>& fields, char sep) {
  std::string o;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) o += sep;
    if (fields[i]) o += csv_field(*fields[i], sep);
  }
  o += '\n';
  return o;
}

std::string csv_line(const std::vector<std::string>& fields, char sep) {
  std::string o;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) o += sep;
    o += csv_field(fields[i], sep);
  }
  o += '\n';
  return o;
}

}  // namespace sqlgrade
