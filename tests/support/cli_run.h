/* Test helper shared by the CLI tests: run a shell command and capture its stdout. */
#ifndef PM_TEST_SUPPORT_CLI_RUN_H
#define PM_TEST_SUPPORT_CLI_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

/* Runs cmd with popen, capturing stdout into *out (malloc'd, NUL-terminated; the caller frees it);
 * returns the exit status, or -1 if the command could not run or did not exit. */
static int run(const char *cmd, char **out) {
  *out = NULL;
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  size_t cap = 1 << 16, n = 0, k;
  char *buf = malloc(cap);
  while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
    n += k;
    if (cap - n < 2) buf = realloc(buf, cap *= 2);
  }
  buf[n] = 0;
  int st = pclose(p);
  *out = buf;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
