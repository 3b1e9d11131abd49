/* LD_PRELOAD shim for test_commit_outcome.py: the first link() onto a path ending in
 * $PC_FAIL_LINK_TO (e.g. "/snapshot/snapshot-2") reports EIO. PC_FAIL_LINK=after performs the link first (the
 * snapshot is published but the caller is told it failed), =before does not perform it.
 * Every other call goes to libc's link. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failed;

int link(const char *from, const char *to) {
  static int (*real)(const char *, const char *);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "link");
  const char *mode = getenv("PC_FAIL_LINK");
  const char *target = getenv("PC_FAIL_LINK_TO");
  size_t n = target ? strlen(target) : 0, m = strlen(to);
  if (!failed && mode && n && m >= n && !strcmp(to + m - n, target)) {
    failed = 1;
    if (!strcmp(mode, "after") && real(from, to) != 0) return -1;
    errno = EIO;
    return -1;
  }
  return real(from, to);
}
