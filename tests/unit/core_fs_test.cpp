// core/fs.hpp: write_file_atomic replaces a regular file by rename, but writes a device or a pipe in
// place — renaming over `--json /dev/null` as root deleted the machine's /dev/null (a full test run
// then failed every test that starts a database server).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <string>

#include "sqlgrade/core/fs.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::test;

namespace {
mode_t kind(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st.st_mode & S_IFMT;
}
}  // namespace

TEST(CoreFs, AtomicWriteReplacesARegularFile) {
  TempDir t;
  spit(t / "out.json", "old");
  write_file_atomic(t / "out.json", "{\"new\": 1}\n");
  EXPECT_EQ(slurp(t / "out.json"), "{\"new\": 1}\n");
  EXPECT_EQ(kind(t / "out.json"), S_IFREG);
}

TEST(CoreFs, AFifoIsWrittenInPlaceNotReplaced) {
  TempDir t;
  const fs::path fifo = t / "record.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The read end is open first (non-blocking), so the write neither waits nor hangs if it regresses.
  const int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rd, 0);
  write_file_atomic(fifo, "through the pipe\n");
  std::string got;
  char buf[256];
  for (ssize_t n; (n = ::read(rd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
  ::close(rd);
  EXPECT_EQ(got, "through the pipe\n");
  EXPECT_EQ(kind(fifo), S_IFIFO) << "the FIFO was replaced by a file";
  EXPECT_EQ(std::distance(fs::directory_iterator(t.path), fs::directory_iterator()), 1) << "a temporary file stayed";
}

TEST(CoreFs, TheNullDeviceStaysADevice) {
  // A copy of /dev/null's device node in a temporary folder when the test may create one (root, as in
  // CI's container); otherwise /dev/null itself, written in place (its kind is checked either way).
  TempDir t;
  fs::path dev = t / "null";
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) dev = "/dev/null";
  write_file_atomic(dev, "{\"record\": true}\n");
  EXPECT_EQ(kind(dev), S_IFCHR) << dev << " was replaced by a regular file";
  EXPECT_EQ(kind("/dev/null"), S_IFCHR);
}
