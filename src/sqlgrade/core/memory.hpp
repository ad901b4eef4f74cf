#pragma once
// Peak resident memory of this process and of its finished children (getrusage ru_maxrss), for the
// safety tests' memory assertions and for reporting.
#include <cstddef>

namespace sqlgrade {

// Largest resident set size this process has had so far, in bytes.
size_t peak_rss_bytes();
// Largest resident set size of any child process that has been waited for, in bytes.
size_t children_peak_rss_bytes();
// Current resident set size (Linux /proc/self/statm; 0 when unavailable), in bytes.
size_t current_rss_bytes();

}  // namespace sqlgrade
