/* arc4random() for the portable binaries (the CLI target sqlgrade_portable and the native module of
 * python/wheel/), which link libstdc++ statically: GCC 12's libstdc++.a implements std::random_device
 * with glibc's arc4random, new in glibc 2.36, and its copy-on-write string instantiations pull that in
 * whether or not sqlgrade uses std::random_device. Defined here, the reference binds to this function
 * instead of arc4random@GLIBC_2.36, and the wheels keep their manylinux_2_34 tag (docs/python.md,
 * "Portable wheels"). Same contract as glibc's: 32 uniformly random bits from the kernel's generator. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

__attribute__((visibility("hidden"))) uint32_t arc4random(void) {
  uint32_t v;
  for (;;) {
    ssize_t n = getrandom(&v, sizeof v, 0);
    if (n == (ssize_t)sizeof v) return v;
    if (n < 0 && errno == EINTR) continue;
    break; /* no getrandom (kernel < 3.17): the device */
  }
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t n = read(fd, &v, sizeof v);
    close(fd);
    if (n == (ssize_t)sizeof v) return v;
  }
  abort(); /* as glibc's: arc4random cannot fail */
}
