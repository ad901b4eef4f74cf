#pragma once
// pandas.read_csv with its defaults, as pandas 1.5.3 (the version the Spider 2.0-Lite official
// evaluate.py ran with: shared/data/expected/MANIFEST.json) types a CSV file: NA strings -> NaN,
// per-column int64 / float64 / bool / object inference (low_memory chunks included), blank lines
// skipped, header de-duplication — and the cells as Python objects after DataFrame.values.tolist().
// Needed by Spider 2.0-Lite (spider2/: evaluate.py compares DataFrames read this way, gold and
// prediction alike; the sql-mode to_csv round trip is spider2/frame.hpp). Spec:
// shared/spec/official-evaluators.md §4.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/core/deadline.hpp"
#include "sqlgrade/py/pandas_frame.hpp"

namespace sqlgrade::py {

// pandas.read_csv(text) emulation (pandas 1.5.3 defaults). Throws InputError(name, msg, line) on
// what pandas rejects (empty input "No columns to parse from file", too many fields in a row).
// Memory: the frame plus a tokenised copy of the text (a byte per byte and 4 bytes per field) while
// it is typed. Checks `deadline` while it works (DeadlineExceeded).
Frame frame_from_csv_text(std::string_view csv, const std::string& name, const Deadline& deadline = {});
// Same, reading the file (InputError naming the file if missing).
Frame frame_from_csv_file(const std::string& path, const Deadline& deadline = {});

}  // namespace sqlgrade::py
