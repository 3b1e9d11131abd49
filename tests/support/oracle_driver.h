/*
 * Running the crash driver (tests/api/crash_driver.c, built as
 * api_crash_driver) from a test: spawn it with stdout to a file, optionally
 * SIGKILL it after a delay, and parse what it printed ("begin k",
 * "committed k SNAP", "recovered k already", "failed k ...", "ops ...").
 */
#ifndef PM_TESTS_SUPPORT_ORACLE_DRIVER_H
#define PM_TESTS_SUPPORT_ORACLE_DRIVER_H

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/fs_fault.h"

#define OD_DRIVER PAIMON_BINARY_DIR "/api_crash_driver"
#define OD_MAX_IDS 256

typedef struct od_out {
  int status;                       /* exit code, or 128 + signal */
  long long committed[OD_MAX_IDS];  /* "committed k" lines */
  size_t n_committed;
  long long recovered[OD_MAX_IDS];  /* "recovered k already" lines */
  size_t n_recovered;
  long long begun[OD_MAX_IDS];      /* "begin k" lines */
  size_t n_begun;
  int failed;                       /* a "failed" or "error" line */
  char fail_line[1024];
  int have_counts;
  unsigned long long counts[PM_FAULT_OP_COUNT];
  double seconds;                   /* wall time of the run */
} od_out;

static inline double od_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Starts the driver with argv (argv[0] ignored, NULL-terminated), stdout to out_path, stderr
 * appended to out_path too. Returns the pid or -1. */
static inline pid_t od_spawn(char *const *argv, const char *out_path) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) _exit(126);
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    execv(OD_DRIVER, argv);
    _exit(127);
  }
  return pid;
}

static inline int od_wait(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0) {
  }
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return -1;
}

static inline void od_parse(const char *out_path, od_out *o) {
  FILE *f = fopen(out_path, "r");
  char line[4096];
  while (f && fgets(line, sizeof line, f)) {
    long long k;
    if (sscanf(line, "committed %lld", &k) == 1 && o->n_committed < OD_MAX_IDS) o->committed[o->n_committed++] = k;
    else if (sscanf(line, "recovered %lld", &k) == 1 && o->n_recovered < OD_MAX_IDS)
      o->recovered[o->n_recovered++] = k;
    else if (sscanf(line, "begin %lld", &k) == 1 && o->n_begun < OD_MAX_IDS) o->begun[o->n_begun++] = k;
    else if (!strncmp(line, "failed", 6) || !strncmp(line, "error", 5) || !strncmp(line, "usage", 5)) {
      if (!o->failed) snprintf(o->fail_line, sizeof o->fail_line, "%.1000s", line);
      o->failed = 1;
    } else if (!strncmp(line, "ops ", 4)) {
      o->have_counts = 1;
      for (int op = 0; op < PM_FAULT_OP_COUNT; op++) {
        char key[64];
        snprintf(key, sizeof key, " %s=", pm_fault_op_name((pm_fault_op)op));
        const char *p = strstr(line, key);
        o->counts[op] = p ? strtoull(p + strlen(key), NULL, 10) : 0;
      }
    }
  }
  if (f) fclose(f);
}

/* Runs the driver to completion, or SIGKILLs it after kill_after seconds (< 0: never). */
static inline void od_run(char *const *argv, const char *out_path, double kill_after, od_out *o) {
  memset(o, 0, sizeof *o);
  double t0 = od_now();
  pid_t pid = od_spawn(argv, out_path);
  if (pid < 0) {
    o->status = -1;
    return;
  }
  if (kill_after >= 0) {
    struct timespec ts = {(time_t)kill_after, (long)((kill_after - (double)(time_t)kill_after) * 1e9)};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
  }
  o->status = od_wait(pid);
  o->seconds = od_now() - t0;
  od_parse(out_path, o);
}

static inline int od_has(const long long *ids, size_t n, long long k) {
  for (size_t i = 0; i < n; i++)
    if (ids[i] == k) return 1;
  return 0;
}

/* The identifiers begun by any run of one table (a set). */
typedef struct od_begun {
  long long ids[4096];
  size_t n;
} od_begun;

/* One driver run over batches from..to of table db.t in warehouse wh:
 *   api_crash_driver FLAGS... WH db t FROM TO
 * flags: the test's own options (NULL-terminated, at most 32; e.g. "--state", S, "--rule", R).
 * The run's "begin" ids are added to *begun (may be NULL); when it reports a failure, its
 * output (out_path) is copied to stderr. */
static inline void od_run_range(const char *const *flags, const char *wh, long long from, long long to,
                                const char *out_path, double kill_after, od_begun *begun, od_out *o) {
  char f[32], t[32];
  snprintf(f, sizeof f, "%lld", from);
  snprintf(t, sizeof t, "%lld", to);
  char *argv[40];
  int n = 0;
  argv[n++] = (char *)"api_crash_driver";
  for (size_t i = 0; flags && flags[i] && n < 33; i++) argv[n++] = (char *)flags[i];
  argv[n++] = (char *)wh;
  argv[n++] = (char *)"db";
  argv[n++] = (char *)"t";
  argv[n++] = f;
  argv[n++] = t;
  argv[n] = NULL;
  od_run(argv, out_path, kill_after, o);
  for (size_t i = 0; begun && i < o->n_begun; i++)
    if (!od_has(begun->ids, begun->n, o->begun[i]) && begun->n < 4096) begun->ids[begun->n++] = o->begun[i];
  if (o->failed) {
    FILE *in = fopen(out_path, "r");
    char line[1024];
    while (in && fgets(line, sizeof line, in)) fputs(line, stderr);
    if (in) fclose(in);
    else fprintf(stderr, "cannot show %s\n", out_path);
  }
}

/* The start of a driver test's main(): 1 = run (tmp_root is a new directory made from
 * "/tmp/pm_test_<name>_XXXXXX", *long_mode from PAIMON_LONG_TESTS), 0 = skip (no oracle),
 * -1 = api_crash_driver is missing (a failure). */
static inline int od_test_begin(const char *name, int oracle_available, char *tmp_root, size_t cap, int *long_mode) {
  if (!oracle_available) return 0;
  if (access(OD_DRIVER, X_OK) != 0) {
    fprintf(stderr, "%s is missing (built by the api_crash_driver target)\n", OD_DRIVER);
    return -1;
  }
  *long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  snprintf(tmp_root, cap, "/tmp/pm_test_%s_XXXXXX", name);
  return mkdtemp(tmp_root) ? 1 : -1;
}

/* The end: tmp_root removed unless the test failed or PM_KEEP is set. */
static inline void od_test_end(const char *tmp_root, int failures) {
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP") && !failures && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
}

#endif
