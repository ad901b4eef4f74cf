#pragma once
// Where a statement's temporary files go when they no longer fit in its memory cap (issue 31, item 4).
//
// SQLite keeps sorter runs, temporary b-trees and statement journals in "temporary files", which the
// "sqlgrade" VFS keeps in memory charged to the statement's budget (sqlite_runtime.hpp). A real
// prediction can need more than that budget for its sort alone: RESDSQL-base's answer to Spider dev
// question 463 (a 29 M-row join grouped and ordered, wta_1) sorts about 1 GB, which the official
// scripts' SQLite writes to /var/tmp and completes. Rather than grading such a query 0 ("memory cap"),
// its temporary files move to disk, bounded:
//  - only for a statement whose memory reaches half its cap (Limits::max_memory) while a temporary file
//    grows: that file moves to disk (the other half stays for the page cache, the sorter's in-memory
//    run and the values); a statement that stays under half its cap runs exactly as before;
//  - into a private folder per statement (mkdtemp, mode 0700) under $SQLITE_TMPDIR, $TMPDIR, /var/tmp or
//    /tmp, created on first use; each file is unlinked as soon as it is created (nothing is left behind,
//    even if the process is killed), and the folder is removed when the statement ends;
//  - within the statement's quota (Limits::max_spill) and the process's limit over all statements at
//    once (set_spill_limit); a write past either fails and the statement stops as TooLarge, its reason
//    naming both bounds. A cut query is still reported as cut.
// A SpillArea is shared by the statement and the files it spilled (a statement journal can outlive its
// statement): reference counted, freed with its last user. One thread at a time uses it.
#include <string>

namespace sqlgrade::sqlite_guard {

class SpillArea {
 public:
  // The area of a statement that may spill at most `quota` bytes (the statement holds one reference).
  static SpillArea* begin(long long quota);
  // The statement ended: removes its folder (its files are already unlinked) and drops its reference.
  void end();

  // A new temporary file in the folder (created on first use), already unlinked; -1 on failure. The
  // file holds a reference until close_file().
  int open_file();
  void close_file(int fd, long long bytes_held);
  // `n` more bytes on disk: false (and over_quota()) when the statement's quota or the process's limit
  // would be passed.
  bool grow(long long n);
  void shrink(long long n);

  bool over_quota() const { return over_quota_; }
  // The refusal came from the process's limit (other statements held the space): load, not the query.
  bool crowded() const { return crowded_; }
  bool failed() const { return failed_; }  // no folder or file could be created
  long long peak() const { return peak_; }
  long long quota() const { return quota_; }
  const std::string& folder() const { return folder_; }

 private:
  explicit SpillArea(long long quota) : quota_(quota) {}
  void unref();
  long long quota_;
  long long used_ = 0, peak_ = 0;
  int refs_ = 1;
  unsigned files_ = 0;
  bool over_quota_ = false, crowded_ = false, failed_ = false;
  std::string folder_;
};

// The most bytes all statements of the process may hold in spilled temporary files at once (default
// 4 GiB); 0 turns spilling off. Bytes held now.
void set_spill_limit(long long bytes);
long long spill_limit();
long long spilled_bytes();

}  // namespace sqlgrade::sqlite_guard
