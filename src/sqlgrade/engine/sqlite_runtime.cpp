// sqlgrade's SQLite set-up: the budget-charging allocator and the "sqlgrade" VFS (sqlite_runtime.hpp).
#include "sqlgrade/engine/sqlite_runtime.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sqlgrade/engine/sqlite_clock.hpp"
#include "sqlgrade/engine/sqlite_spill.hpp"

namespace sqlgrade::sqlite_guard {

namespace {

// ---------------------------------------------------------------- the allocator

// The budget of the query the thread is running (nullptr outside queries: opening a connection,
// closing one, building test fixtures). The default TLS model: in the executable the linker makes it
// one load; the Python module must not use initial-exec (dlopen then fails with "cannot allocate
// memory in static TLS block" once other modules took the static TLS reserve).
thread_local QueryBudget* t_budget = nullptr;

// Allocations from this size on look at the deadline: a clock read costs ~20 ns, far below the work
// that follows such an allocation, and small ones (parsing, VM registers, page-cache pages) never pay it.
constexpr long long kDeadlineCheckFrom = 64 << 10;

bool charge(long long n) {
  QueryBudget* b = t_budget;
  if (!b) return true;
  if (b->cap > 0 && b->used + n > b->cap) {
    b->over_cap = true;
    return false;
  }
  if (n >= kDeadlineCheckFrom && b->deadline && b->deadline->expired()) {
    b->late = true;
    return false;
  }
  b->used += n;
  if (b->used > b->peak) b->peak = b->used;
  return true;
}

void credit(long long n) {
  if (QueryBudget* b = t_budget) b->used -= n;
}

// Each block carries its size in an 8-byte header (as SQLite's own system allocator does without
// malloc_usable_size): SQLite needs xSize, and the budget needs the size at free and realloc.
constexpr size_t kHeader = 8;

void* mem_malloc(int n) {
  if (!charge(n)) return nullptr;
  auto* h = static_cast<int64_t*>(std::malloc(static_cast<size_t>(n) + kHeader));
  if (!h) {
    credit(n);
    return nullptr;
  }
  h[0] = n;
  return h + 1;
}

void mem_free(void* p) {
  if (!p) return;
  int64_t* h = static_cast<int64_t*>(p) - 1;
  credit(h[0]);
  std::free(h);
}

void* mem_realloc(void* p, int n) {
  int64_t* h = static_cast<int64_t*>(p) - 1;
  const long long old = h[0];
  if (n > old && !charge(n - old)) return nullptr;
  auto* q = static_cast<int64_t*>(std::realloc(h, static_cast<size_t>(n) + kHeader));
  if (!q) {
    if (n > old) credit(n - old);
    return nullptr;
  }
  if (n < old) credit(old - n);
  q[0] = n;
  return q + 1;
}

int mem_size(void* p) { return p ? static_cast<int>(static_cast<int64_t*>(p)[-1]) : 0; }
int mem_roundup(int n) { return (n + 7) & ~7; }
int mem_init(void*) { return SQLITE_OK; }
void mem_shutdown(void*) {}

// ---------------------------------------------------------------- in-memory temporary files

// A temporary file in 64 KiB chunks allocated with sqlite3_malloc64, i.e. charged to the budget of
// the query that writes it (and each chunk looks at its deadline). A write the budget refuses fails
// with SQLITE_FULL and the query stops — unless the statement may spill (QueryBudget::spill): then,
// when the next chunks would pass the cap, the file moves to disk in the statement's private folder
// (sqlite_spill.hpp) and grows there within the spill quota. The struct lives in memory SQLite
// allocated (szOsFile bytes): plain data only.
constexpr sqlite3_int64 kChunk = 64 << 10;

struct MemFile {
  sqlite3_file base;
  char** chunks;
  sqlite3_int64 nchunks;  // chunks allocated
  sqlite3_int64 cap;      // slots in `chunks`
  sqlite3_int64 size;     // file size in bytes (on disk: the bytes counted against the spill quota)
  int fd;                 // >= 0 once the file spilled to disk
  SpillArea* area;        // the spill area holding `fd`
};

MemFile* mf(sqlite3_file* f) { return reinterpret_cast<MemFile*>(f); }

void free_chunks_from(MemFile* m, sqlite3_int64 keep) {
  for (sqlite3_int64 i = keep; i < m->nchunks; ++i) sqlite3_free(m->chunks[i]);
  m->nchunks = std::min(m->nchunks, keep);
}

int mem_close(sqlite3_file* f) {
  MemFile* m = mf(f);
  if (m->fd >= 0) {
    m->area->close_file(m->fd, m->size);
    m->fd = -1;
    m->area = nullptr;
    return SQLITE_OK;
  }
  free_chunks_from(m, 0);
  sqlite3_free(m->chunks);
  m->chunks = nullptr;
  m->cap = 0;
  return SQLITE_OK;
}

bool pwrite_all(int fd, const char* p, sqlite3_int64 n, sqlite3_int64 off) {
  while (n > 0) {
    ssize_t w = ::pwrite(fd, p, static_cast<size_t>(n), static_cast<off_t>(off));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= w, off += w;
  }
  return true;
}

int disk_read(MemFile* m, char* dst, int amt, sqlite3_int64 off) {
  sqlite3_int64 got = 0;
  while (got < amt) {
    ssize_t r = ::pread(m->fd, dst + got, static_cast<size_t>(amt - got), static_cast<off_t>(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return SQLITE_IOERR_READ;
    if (r == 0) break;
    got += r;
  }
  if (got < amt) {
    std::memset(dst + got, 0, static_cast<size_t>(amt - got));
    return SQLITE_IOERR_SHORT_READ;
  }
  return SQLITE_OK;
}

int mem_read(sqlite3_file* f, void* out, int amt, sqlite3_int64 off) {
  MemFile* m = mf(f);
  char* dst = static_cast<char*>(out);
  if (m->fd >= 0) return disk_read(m, dst, amt, off);
  sqlite3_int64 avail = std::max<sqlite3_int64>(0, std::min<sqlite3_int64>(amt, m->size - off));
  for (sqlite3_int64 done = 0; done < avail;) {
    sqlite3_int64 pos = off + done, in_chunk = pos % kChunk;
    sqlite3_int64 n = std::min(avail - done, kChunk - in_chunk);
    std::memcpy(dst + done, m->chunks[pos / kChunk] + in_chunk, static_cast<size_t>(n));
    done += n;
  }
  if (avail < amt) {
    std::memset(dst + avail, 0, static_cast<size_t>(amt - avail));
    return SQLITE_IOERR_SHORT_READ;
  }
  return SQLITE_OK;
}

// Whether growing the in-memory file to `end` bytes would take the statement past half its memory cap,
// for a statement that may spill: then it moves to disk instead. Half, so that the page cache, the
// sorter's in-memory run and the values keep room below the cap: a temporary file that waited for the
// cap itself could lose the race to any other allocation, and the statement stopped anyway.
bool should_spill(const MemFile* m, sqlite3_int64 end) {
  const QueryBudget* b = t_budget;
  if (!b || !b->spill || b->cap <= 0) return false;
  const sqlite3_int64 need = (end + kChunk - 1) / kChunk;
  if (need <= m->nchunks) return false;
  long long more = (need - m->nchunks) * (kChunk + kHeader);
  if (need > m->cap) more += std::max<sqlite3_int64>(need, 2 * m->cap) * static_cast<sqlite3_int64>(sizeof(char*));
  return b->used + more > b->cap / 2;
}

// Moves an in-memory temporary file to a file in the statement's spill folder (its chunks freed).
bool spill_out(MemFile* m) {
  QueryBudget* b = t_budget;
  SpillArea* a = b->spill;
  if (!a->grow(m->size)) return false;
  const int fd = a->open_file();
  if (fd < 0) {
    a->shrink(m->size);
    b->over_cap = true;  // nowhere to spill: the memory cap stands
    return false;
  }
  for (sqlite3_int64 done = 0; done < m->size; done += kChunk) {
    if (!pwrite_all(fd, m->chunks[done / kChunk], std::min(kChunk, m->size - done), done)) {
      a->close_file(fd, m->size);
      return false;
    }
  }
  free_chunks_from(m, 0);
  sqlite3_free(m->chunks);
  m->chunks = nullptr;
  m->cap = 0;
  m->fd = fd;
  m->area = a;
  return true;
}

int disk_write(MemFile* m, const void* in, int amt, sqlite3_int64 off) {
  const sqlite3_int64 end = off + amt;
  if (end > m->size) {
    if (!m->area->grow(end - m->size)) return SQLITE_FULL;
    m->size = end;
  }
  return pwrite_all(m->fd, static_cast<const char*>(in), amt, off) ? SQLITE_OK : SQLITE_IOERR_WRITE;
}

// Makes chunks exist up to byte `end` (new chunks zeroed: a hole reads as zeros).
bool reserve(MemFile* m, sqlite3_int64 end) {
  const sqlite3_int64 need = (end + kChunk - 1) / kChunk;
  if (need > m->cap) {
    sqlite3_int64 cap = std::max<sqlite3_int64>(need, 2 * m->cap);
    auto** c = static_cast<char**>(sqlite3_realloc64(m->chunks, static_cast<sqlite3_uint64>(cap) * sizeof(char*)));
    if (!c) return false;
    m->chunks = c;
    m->cap = cap;
  }
  while (m->nchunks < need) {
    auto* c = static_cast<char*>(sqlite3_malloc64(kChunk));
    if (!c) return false;
    std::memset(c, 0, kChunk);
    m->chunks[m->nchunks++] = c;
  }
  return true;
}

int mem_write(sqlite3_file* f, const void* in, int amt, sqlite3_int64 off) {
  MemFile* m = mf(f);
  if (m->fd < 0 && should_spill(m, off + amt) && !spill_out(m)) return SQLITE_FULL;
  if (m->fd >= 0) return disk_write(m, in, amt, off);
  if (!reserve(m, off + amt)) return SQLITE_FULL;
  const char* src = static_cast<const char*>(in);
  for (sqlite3_int64 done = 0; done < amt;) {
    sqlite3_int64 pos = off + done, in_chunk = pos % kChunk;
    sqlite3_int64 n = std::min<sqlite3_int64>(amt - done, kChunk - in_chunk);
    std::memcpy(m->chunks[pos / kChunk] + in_chunk, src + done, static_cast<size_t>(n));
    done += n;
  }
  m->size = std::max(m->size, off + amt);
  return SQLITE_OK;
}

int mem_truncate(sqlite3_file* f, sqlite3_int64 size) {
  MemFile* m = mf(f);
  if (size >= m->size) return SQLITE_OK;
  if (m->fd >= 0) {
    if (::ftruncate(m->fd, static_cast<off_t>(size)) != 0) return SQLITE_IOERR_TRUNCATE;
    m->area->shrink(m->size - size);
    m->size = size;
    return SQLITE_OK;
  }
  free_chunks_from(m, (size + kChunk - 1) / kChunk);
  // Bytes past the end inside the last chunk read as zeros if the file grows again.
  if (size % kChunk && m->nchunks > 0) std::memset(m->chunks[m->nchunks - 1] + size % kChunk, 0, kChunk - size % kChunk);
  m->size = size;
  return SQLITE_OK;
}

int mem_sync(sqlite3_file*, int) { return SQLITE_OK; }
int mem_file_size(sqlite3_file* f, sqlite3_int64* out) {
  *out = mf(f)->size;
  return SQLITE_OK;
}
int mem_lock(sqlite3_file*, int) { return SQLITE_OK; }
int mem_check_reserved(sqlite3_file*, int* out) {
  *out = 0;
  return SQLITE_OK;
}
int mem_file_control(sqlite3_file*, int, void*) { return SQLITE_NOTFOUND; }
int mem_sector_size(sqlite3_file*) { return 4096; }
int mem_device(sqlite3_file*) { return 0; }

const sqlite3_io_methods kMemMethods = {
    1,          mem_close,     mem_read,    mem_write,          mem_truncate,     mem_sync,
    mem_file_size, mem_lock,   mem_lock,    mem_check_reserved, mem_file_control, mem_sector_size,
    mem_device, nullptr,       nullptr,     nullptr,            nullptr,          nullptr,
    nullptr};

// ---------------------------------------------------------------- the VFS

sqlite3_vfs g_vfs;
sqlite3_vfs* base_vfs() { return static_cast<sqlite3_vfs*>(g_vfs.pAppData); }

int vfs_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
  // SQLite opens every temporary file without a name, or to be deleted on close.
  if (name == nullptr || (flags & SQLITE_OPEN_DELETEONCLOSE)) {
    MemFile* m = mf(f);
    std::memset(m, 0, sizeof *m);
    m->fd = -1;
    m->base.pMethods = &kMemMethods;
    if (out_flags) *out_flags = flags;
    return SQLITE_OK;
  }
  // Anything else only read-only: a database is never written, no journal, WAL or -shm is created.
  if (flags & (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) {
    f->pMethods = nullptr;
    return SQLITE_CANTOPEN;
  }
  return base_vfs()->xOpen(base_vfs(), name, f, flags, out_flags);
}

int vfs_delete(sqlite3_vfs*, const char*, int) { return SQLITE_IOERR_DELETE; }
int vfs_access(sqlite3_vfs*, const char* name, int flags, int* out) {
  return base_vfs()->xAccess(base_vfs(), name, flags, out);
}
int vfs_full_pathname(sqlite3_vfs*, const char* name, int n, char* out) {
  return base_vfs()->xFullPathname(base_vfs(), name, n, out);
}
void* vfs_dl_open(sqlite3_vfs*, const char*) { return nullptr; }  // extensions are never loaded
void vfs_dl_error(sqlite3_vfs*, int n, char* out) {
  if (n > 0) std::snprintf(out, static_cast<size_t>(n), "extension loading is disabled");
}
void (*vfs_dl_sym(sqlite3_vfs*, void*, const char*))(void) { return nullptr; }
void vfs_dl_close(sqlite3_vfs*, void*) {}
int vfs_randomness(sqlite3_vfs*, int n, char* out) { return base_vfs()->xRandomness(base_vfs(), n, out); }
int vfs_sleep(sqlite3_vfs*, int us) { return base_vfs()->xSleep(base_vfs(), us); }
// 'now': the thread's pinned SQL clock or the real one (sqlite_clock.cpp).
int vfs_current_time(sqlite3_vfs*, double* out) { return clock_time(base_vfs(), out); }
int vfs_last_error(sqlite3_vfs*, int n, char* out) { return base_vfs()->xGetLastError(base_vfs(), n, out); }
int vfs_current_time64(sqlite3_vfs*, sqlite3_int64* out) { return clock_time64(base_vfs(), out); }

bool register_vfs() {
  sqlite3_vfs* base = sqlite3_vfs_find(nullptr);
  if (!base) return false;
  g_vfs = sqlite3_vfs{};
  g_vfs.iVersion = 2;
  g_vfs.szOsFile = std::max(base->szOsFile, static_cast<int>(sizeof(MemFile)));
  g_vfs.mxPathname = base->mxPathname;
  g_vfs.zName = "sqlgrade";
  g_vfs.pAppData = base;
  g_vfs.xOpen = vfs_open;
  g_vfs.xDelete = vfs_delete;
  g_vfs.xAccess = vfs_access;
  g_vfs.xFullPathname = vfs_full_pathname;
  g_vfs.xDlOpen = vfs_dl_open;
  g_vfs.xDlError = vfs_dl_error;
  g_vfs.xDlSym = vfs_dl_sym;
  g_vfs.xDlClose = vfs_dl_close;
  g_vfs.xRandomness = vfs_randomness;
  g_vfs.xSleep = vfs_sleep;
  g_vfs.xCurrentTime = vfs_current_time;
  g_vfs.xGetLastError = vfs_last_error;
  g_vfs.xCurrentTimeInt64 = vfs_current_time64;
  // The default: a connection opened without naming a VFS (a new kind of connection, a test fixture, a
  // library) cannot write a file or spill a temporary one either.
  return sqlite3_vfs_register(&g_vfs, 1) == SQLITE_OK;
}

struct Setup {
  bool allocator = false;
  bool vfs = false;
};

const Setup& setup() {
  static const Setup s = [] {
    Setup r;
    static const sqlite3_mem_methods m = {mem_malloc, mem_free,    mem_realloc,  mem_size,
                                          mem_roundup, mem_init,   mem_shutdown, nullptr};
    r.allocator = sqlite3_config(SQLITE_CONFIG_MALLOC, &m) == SQLITE_OK;
    // Memory statistics put one process-wide mutex around every allocation: two threads' queries then
    // take longer than the same queries one after the other (0.97 s serially, 1.47 s on two threads for
    // two recursive-CTE counts to 3 M; 0.47 s with the statistics off). Nothing reads them.
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    r.vfs = sqlite3_initialize() == SQLITE_OK && register_vfs();
    return r;
  }();
  return s;
}

// Configured before main(), so that even code that opens SQLite directly before the first SqliteDb
// (test fixtures, the Python module's import) cannot initialise it first.
[[maybe_unused]] const bool kConfiguredAtLoad = configure_once();

}  // namespace

BudgetScope::BudgetScope(QueryBudget& b) : prev_(t_budget) { t_budget = &b; }
BudgetScope::~BudgetScope() { t_budget = prev_; }

namespace {
QueryBudget armed(StatementDeadline& dl, const Limits& limits, SpillArea* spill) {
  dl.fired = false;
  dl.limit = Deadline::in(limits.timeout_s);  // none when timeout_s <= 0
  QueryBudget b;
  b.cap = static_cast<long long>(std::min<size_t>(limits.max_memory, size_t(1) << 62));
  b.deadline = &dl;
  b.spill = spill;
  return b;
}
SpillArea* spill_for(const Limits& limits, bool may_spill) {
  if (!may_spill || limits.max_spill == 0 || limits.max_memory == 0 || spill_limit() <= 0) return nullptr;
  return SpillArea::begin(static_cast<long long>(std::min<size_t>(limits.max_spill, size_t(1) << 62)));
}
}  // namespace

StatementScope::StatementScope(StatementDeadline& dl, const Limits& limits, bool may_spill)
    : dl_(dl), budget_(armed(dl, limits, nullptr)), spill_(spill_for(limits, may_spill)), scope_(budget_) {
  budget_.spill = spill_;
}

StatementScope::~StatementScope() {
  dl_.limit = Deadline();
  if (spill_) spill_->end();
}

bool StatementScope::spill_over_quota() const { return spill_ && spill_->over_quota(); }
bool StatementScope::spill_crowded() const { return spill_ && spill_->crowded(); }
long long StatementScope::spill_peak() const { return spill_ ? spill_->peak() : 0; }

bool configure_once() { return setup().allocator; }
bool allocator_installed() { return setup().allocator; }
const char* vfs_name() { return setup().vfs ? g_vfs.zName : nullptr; }
const char* file_vfs_name() {
  setup();
  return base_vfs() ? base_vfs()->zName : nullptr;
}

}  // namespace sqlgrade::sqlite_guard
