// The main() of every fast-tier test binary (tests/CMakeLists.txt: sqlgrade_test(... FAST)).
//
// A fast test is a unit test: no subprocess, no server, no network, no real data. The last is
// enforced by the build (a fast binary is compiled without SQLGRADE_CLI and SQLGRADE_DEFAULT_DATA,
// so test_support.hpp gives it neither run_cli nor the data macros); the others here, before any test
// runs: a seccomp filter makes starting a program (execve, execveat), making a process (fork, vfork,
// clone without CLONE_THREAD) and opening a socket (AF_INET, AF_INET6, AF_UNIX) fail with EPERM for
// the whole process. A test that needs one of them fails, naming the call, instead of slowing the
// tier: move it to its module's slow binary. Threads stay allowed (clone3 answers ENOSYS, and glibc
// then creates the thread with clone(CLONE_THREAD)).
//
// Not under the sanitizers (SQLGRADE_SANITIZE): LeakSanitizer stops the world with a clone without
// CLONE_THREAD and the symbolizer is a subprocess. SQLGRADE_FAST_GUARD=0 turns the filter off by hand.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__)) && !defined(SQLGRADE_SANITIZE)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstddef>
#include <vector>

namespace {

#if defined(__x86_64__)
constexpr unsigned kArch = AUDIT_ARCH_X86_64;
#else
constexpr unsigned kArch = AUDIT_ARCH_AARCH64;
#endif

using Prog = std::vector<sock_filter>;

sock_filter stmt(unsigned short code, unsigned k) { return BPF_STMT(code, k); }
sock_filter jump(unsigned short code, unsigned k, unsigned char jt, unsigned char jf) { return BPF_JUMP(code, k, jt, jf); }
sock_filter ret_errno(int e) { return stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (static_cast<unsigned>(e) & SECCOMP_RET_DATA)); }
sock_filter allow() { return stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW); }
sock_filter load_nr() { return stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)); }
// The low 32 bits of argument 0 (flags of clone, domain of socket).
sock_filter load_arg0() { return stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])); }

// if nr == `nr`: return errno `e`; else fall through (the accumulator keeps nr).
void deny(Prog& p, long nr, int e) {
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<unsigned>(nr), 0, 1));
  p.push_back(ret_errno(e));
}

Prog filter() {
  Prog p;
  p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0));
  p.push_back(allow());  // another ABI: not ours to judge
  p.push_back(load_nr());
  deny(p, SYS_execve, EPERM);
  deny(p, SYS_execveat, EPERM);
#ifdef SYS_fork
  deny(p, SYS_fork, EPERM);
#endif
#ifdef SYS_vfork
  deny(p, SYS_vfork, EPERM);
#endif
#ifdef SYS_clone3
  deny(p, SYS_clone3, ENOSYS);  // its flags sit in memory a filter cannot read: glibc falls back to clone
#endif
  // clone: a thread (CLONE_THREAD) passes, a process does not.
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4));
  p.push_back(load_arg0());
  p.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
  p.push_back(allow());
  p.push_back(ret_errno(EPERM));
  // socket: the Internet and local domains fail.
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 5));
  p.push_back(load_arg0());
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 2, 0));
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 1, 0));
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1));
  p.push_back(ret_errno(EPERM));
  p.push_back(allow());
  return p;
}

bool install_guard() {
  Prog p = filter();
  sock_fprog prog{static_cast<unsigned short>(p.size()), p.data()};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

}  // namespace
#define SQLGRADE_HAVE_FAST_GUARD 1
#endif

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
#ifdef SQLGRADE_HAVE_FAST_GUARD
  const char* off = std::getenv("SQLGRADE_FAST_GUARD");
  // Where the kernel or a container refuses filters, the tests still run, unguarded, with a warning.
  if (!(off && std::strcmp(off, "0") == 0) && !install_guard())
    std::fprintf(stderr, "fast tier: seccomp guard not installed (%s); running unguarded\n", std::strerror(errno));
#endif
  return RUN_ALL_TESTS();
}
