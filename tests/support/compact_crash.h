/*
 * Crash and fault runs of one operation (a compaction) through the public API on a
 * catalog over the fault-injecting fs (src/io/fs_fault.h), shared by the
 * compaction crash tests (test_append_compact_crash.c, test_write_pk_postpone_crash.c):
 *   - cc_count_ops: the operation counts of one unarmed run;
 *   - cc_stops_of: every (operation kind, n) of those counts, spread down to at most max;
 *   - cc_crash_run: a child process runs the operation with the fs armed to _exit(42)
 *     at the stop; returns the child's exit code (42: stopped, 0: completed);
 *   - cc_fault_run: in process, an injected I/O error at the stop; returns the status.
 * The operation is a callback on a catalog (cc_run_fn). Header-only; needs harness.h.
 */
#ifndef PM_TESTS_SUPPORT_COMPACT_CRASH_H
#define PM_TESTS_SUPPORT_COMPACT_CRASH_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "io/fs_fault.h"
#include "paimon/paimon.h"
#include "table/catalog.h"

static inline paimon_catalog *cc_open_plain(const char *wh) {
  paimon_option o[] = {{"warehouse", wh}};
  paimon_catalog *c = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(o, 1, &c, &err), &err);
  return c;
}

/* A catalog of warehouse wh over fault fs fs. */
static inline paimon_catalog *cc_open_fault(const char *wh, pm_fs *fs) {
  pm_options o;
  pm_options_init(&o);
  pm_error e;
  pm_error_clear(&e);
  pm_options_set(&o, "warehouse", wh, &e);
  paimon_catalog *cat = calloc(1, sizeof *cat);
  CHECK_OK(pm_catalog_open_with_fs(fs, &o, &cat->c, &e), &e);
  pm_options_clear(&o);
  return cat;
}

/* The operation: returns a status (err set). */
typedef int (*cc_run_fn)(paimon_catalog *cat, void *ctx, paimon_error *err);

typedef struct cc_stop {
  pm_fault_op op;
  uint64_t nth;
} cc_stop;

/* Operation counts of one unarmed run of fn on warehouse wh; the run's status. */
static inline int cc_count_ops(const char *wh, cc_run_fn fn, void *ctx, uint64_t counts[PM_FAULT_OP_COUNT],
                               paimon_error *err) {
  pm_fs *fs = NULL;
  pm_error e;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &e), &e);
  paimon_catalog *cat = cc_open_fault(wh, fs);
  pm_fault_fs_disarm(fs);
  int rc = fn(cat, ctx, err);
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) counts[op] = pm_fault_fs_count(fs, (pm_fault_op)op);
  paimon_catalog_free(cat);
  pm_fs_unref(fs);
  return rc;
}

/* Every (op, n) of counts, spread down to at most max. *out malloc'd. */
static inline size_t cc_stops_of(const uint64_t counts[PM_FAULT_OP_COUNT], size_t max, cc_stop **out) {
  size_t total = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) total += counts[op];
  cc_stop *all = calloc(total + 1, sizeof *all);
  size_t k = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++)
    for (uint64_t n = 1; n <= counts[op]; n++) all[k++] = (cc_stop){(pm_fault_op)op, n};
  if (total <= max) {
    *out = all;
    return total;
  }
  cc_stop *some = calloc(max + 1, sizeof *some);
  for (size_t i = 0; i < max; i++) some[i] = all[i * total / max];
  free(all);
  *out = some;
  return max;
}

/* A child process runs fn on warehouse wh with the fs armed to _exit(42) at stop st; the child's
 * exit code (42 stopped, 0 completed, 3 failed, 5 no fs; -1 killed). */
static inline int cc_crash_run(const char *wh, cc_stop st, cc_run_fn fn, void *ctx) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    pm_fs *fs = NULL;
    pm_error e;
    if (pm_fault_fs_new(pm_fs_local(), &fs, &e)) _exit(5);
    paimon_catalog *cat = cc_open_fault(wh, fs);
    pm_fault_rule rule = {st.op, st.nth, 1, PM_FAULT_EXIT, 42};
    pm_fault_fs_arm(fs, &rule);
    paimon_error err = {0};
    int rc = fn(cat, ctx, &err);
    _exit(rc ? 3 : 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* fn on warehouse wh with an injected I/O error at stop st (in process); its status. */
static inline int cc_fault_run(const char *wh, cc_stop st, cc_run_fn fn, void *ctx, paimon_error *err) {
  pm_fs *fs = NULL;
  pm_error e;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &e), &e);
  paimon_catalog *cat = cc_open_fault(wh, fs);
  pm_fault_rule rule = {st.op, st.nth, 1, PM_FAULT_ERROR, 0};
  pm_fault_fs_arm(fs, &rule);
  int rc = fn(cat, ctx, err);
  pm_fault_fs_disarm(fs);
  paimon_catalog_free(cat);
  pm_fs_unref(fs);
  return rc;
}

#endif
