/* The fault-injecting file system (io/fs_fault.h). */
#include "io/fs_fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/fs_impl.h"

typedef struct fault_state {
  pm_fs *inner;
  /* the rule, read by every operation; arming is done by the test between runs */
  pm_fault_rule rule;
  int armed;
  atomic_uint_fast64_t counts[PM_FAULT_OP_COUNT];
  atomic_uint_fast64_t injected;
} fault_state;

static const char *const OP_NAMES[PM_FAULT_OP_COUNT] = {
    "open", "read", "create", "write", "fsync", "publish", "create-if-absent", "rename", "delete", "list",
    "stat", "mkdirs",
};

const char *pm_fault_op_name(pm_fault_op op) { return op < PM_FAULT_OP_COUNT ? OP_NAMES[op] : "?"; }

/* Counts one operation; returns the action to take, or -1 for none. *n = its number. */
static int fault_hit(fault_state *s, pm_fault_op op, uint64_t *n) {
  *n = atomic_fetch_add(&s->counts[op], 1) + 1;
  if (!s->armed || s->rule.op != op || *n < s->rule.nth) return -1;
  if (s->rule.times && *n >= s->rule.nth + s->rule.times) return -1;
  atomic_fetch_add(&s->injected, 1);
  if (s->rule.action == PM_FAULT_EXIT) _exit(s->rule.exit_code);
  return (int)s->rule.action;
}

static int injected_error(pm_error *err, const char *path, pm_fault_op op, uint64_t n) {
  return pm_errorf(err, PAIMON_ERR_IO, "%s: injected I/O error (%s #%llu)", path, OP_NAMES[op],
                   (unsigned long long)n);
}

/* ---- input files ---- */

typedef struct fault_file {
  fault_state *s;
  pm_file *inner;
} fault_file;

static int ff_read(pm_file *f, uint64_t off, void *dst, size_t len, size_t *got, pm_error *err) {
  fault_file *ff = f->impl;
  uint64_t n;
  int a = fault_hit(ff->s, PM_FAULT_OP_READ, &n);
  if (a == PM_FAULT_ERROR || a == PM_FAULT_LOSE) return injected_error(err, f->path, PM_FAULT_OP_READ, n);
  if (a == PM_FAULT_SHORT_READ && len > 1) len /= 2;
  return ff->inner->ops->read(ff->inner, off, dst, len, got, err);
}

static int ff_read_ranges(pm_file *f, const pm_read_range *r, size_t n, pm_error *err) {
  for (size_t i = 0; i < n; i++) PM_TRY(pm_file_read_at(f, r[i].off, r[i].dst, r[i].len, err));
  return 0;
}

static void ff_close(pm_file *f) {
  fault_file *ff = f->impl;
  if (!ff) return;
  pm_file_close(ff->inner);
  free(ff);
}

static const pm_file_ops FAULT_FILE_OPS = {ff_read, ff_read_ranges, ff_close};

static int fault_open(pm_fs *fs, const char *path, pm_file **out, pm_error *err) {
  fault_state *s = fs->state;
  uint64_t n;
  if (fault_hit(s, PM_FAULT_OP_OPEN, &n) >= 0) return injected_error(err, path, PM_FAULT_OP_OPEN, n);
  pm_file *in;
  PM_TRY(pm_fs_open(s->inner, path, &in, err));
  if (!in->ops) { /* a memory file needs no wrapping */
    *out = in;
    return 0;
  }
  fault_file *ff = calloc(1, sizeof *ff);
  if (!ff) {
    pm_file_close(in);
    return PM_NOMEM(err);
  }
  ff->s = s;
  ff->inner = in;
  return pm_file_wrap(&FAULT_FILE_OPS, ff, path, pm_file_size(in), out, err);
}

/* ---- output files ---- */

typedef struct fault_out {
  fault_state *s;
  pm_out_file *inner;
} fault_out;

static int fo_write(pm_out_file *f, const void *data, size_t len, pm_error *err) {
  fault_out *fo = f->impl;
  uint64_t n;
  int a = fault_hit(fo->s, PM_FAULT_OP_WRITE, &n);
  if (a == PM_FAULT_LOSE) return 0;
  if (a >= 0) return injected_error(err, f->path, PM_FAULT_OP_WRITE, n);
  return pm_out_write(fo->inner, data, len, err);
}

static int fo_sync(pm_out_file *f, pm_error *err) {
  fault_out *fo = f->impl;
  uint64_t n;
  int a = fault_hit(fo->s, PM_FAULT_OP_FSYNC, &n);
  if (a == PM_FAULT_LOSE) return 0;
  if (a >= 0) return injected_error(err, f->path, PM_FAULT_OP_FSYNC, n);
  return 0; /* the inner sink syncs as part of its commit */
}

static int fo_publish(pm_out_file *f, pm_out_mode mode, pm_error *err) {
  fault_out *fo = f->impl;
  pm_fault_op op = mode == PM_OUT_CREATE_IF_ABSENT ? PM_FAULT_OP_CREATE_IF_ABSENT : PM_FAULT_OP_PUBLISH;
  uint64_t n;
  int a = fault_hit(fo->s, op, &n);
  if (a == PM_FAULT_LOSE) return 0; /* reported done, never visible (discard drops it) */
  if (a >= 0) return injected_error(err, f->path, op, n);
  pm_out_file *in = fo->inner;
  fo->inner = NULL;
  return pm_out_commit(in, mode, err);
}

static void fo_discard(pm_out_file *f) {
  fault_out *fo = f->impl;
  pm_out_abort(fo->inner);
  fo->inner = NULL;
}

static void fo_release(pm_out_file *f) {
  fault_out *fo = f->impl;
  if (!fo) return;
  pm_out_abort(fo->inner);
  free(fo);
}

static const pm_out_ops FAULT_OUT_OPS = {fo_write, fo_sync, fo_publish, fo_discard, fo_release};

static int fault_create(pm_fs *fs, const char *path, pm_out_file **out, pm_error *err) {
  fault_state *s = fs->state;
  uint64_t n;
  if (fault_hit(s, PM_FAULT_OP_CREATE, &n) >= 0) return injected_error(err, path, PM_FAULT_OP_CREATE, n);
  fault_out *fo = calloc(1, sizeof *fo);
  if (!fo) return PM_NOMEM(err);
  fo->s = s;
  int rc = pm_fs_create(s->inner, path, &fo->inner, err);
  if (rc) {
    free(fo);
    return rc;
  }
  return pm_out_wrap(&FAULT_OUT_OPS, fo, path, out, err);
}

/* ---- names ---- */

static int fault_list(pm_fs *fs, const char *dir, const char *prefix, char ***names, size_t *count, pm_error *err) {
  fault_state *s = fs->state;
  uint64_t n;
  if (fault_hit(s, PM_FAULT_OP_LIST, &n) >= 0) return injected_error(err, dir, PM_FAULT_OP_LIST, n);
  return pm_fs_list(s->inner, dir, prefix, names, count, err);
}

static int fault_stat(pm_fs *fs, const char *path, pm_file_stat *st, pm_error *err) {
  fault_state *s = fs->state;
  uint64_t n;
  if (fault_hit(s, PM_FAULT_OP_STAT, &n) >= 0) return injected_error(err, path, PM_FAULT_OP_STAT, n);
  return pm_fs_stat(s->inner, path, st, err);
}

static int fault_remove(pm_fs *fs, const char *path, pm_error *err) {
  fault_state *s = fs->state;
  uint64_t n;
  int a = fault_hit(s, PM_FAULT_OP_DELETE, &n);
  if (a == PM_FAULT_LOSE) return 0;
  if (a >= 0) return injected_error(err, path, PM_FAULT_OP_DELETE, n);
  return pm_fs_delete(s->inner, path, err);
}

static int fault_mkdirs(pm_fs *fs, const char *path, pm_error *err) {
  fault_state *s = fs->state;
  uint64_t n;
  int a = fault_hit(s, PM_FAULT_OP_MKDIRS, &n);
  if (a == PM_FAULT_LOSE) return 0;
  if (a >= 0) return injected_error(err, path, PM_FAULT_OP_MKDIRS, n);
  return pm_fs_mkdirs(s->inner, path, err);
}

static int fault_rename(pm_fs *fs, const char *from, const char *to, pm_error *err) {
  fault_state *s = fs->state;
  uint64_t n;
  int a = fault_hit(s, PM_FAULT_OP_RENAME, &n);
  if (a == PM_FAULT_LOSE) return 0;
  if (a >= 0) return injected_error(err, from, PM_FAULT_OP_RENAME, n);
  return pm_fs_rename(s->inner, from, to, err);
}

static void fault_destroy(pm_fs *fs) {
  fault_state *s = fs->state;
  pm_fs_unref(s->inner);
  free(s);
}

static const pm_fs_ops FAULT_FS_OPS = {
    "fault", fault_open, fault_create, fault_list, fault_stat, fault_remove, fault_mkdirs, fault_rename,
    fault_destroy,
};

int pm_fault_fs_new(pm_fs *inner, pm_fs **out, pm_error *err) {
  *out = NULL;
  fault_state *s = calloc(1, sizeof *s);
  if (!s) return PM_NOMEM(err);
  for (int i = 0; i < PM_FAULT_OP_COUNT; i++) atomic_init(&s->counts[i], 0);
  atomic_init(&s->injected, 0);
  int rc = pm_fs_new(&FAULT_FS_OPS, s, out, err);
  if (rc) {
    free(s);
    return rc;
  }
  s->inner = pm_fs_ref(inner);
  return 0;
}

static void reset_counts(fault_state *s) {
  for (int i = 0; i < PM_FAULT_OP_COUNT; i++) atomic_store(&s->counts[i], 0);
  atomic_store(&s->injected, 0);
}

void pm_fault_fs_arm(pm_fs *fs, const pm_fault_rule *rule) {
  fault_state *s = fs->state;
  s->rule = *rule;
  s->armed = 1;
  reset_counts(s);
}

void pm_fault_fs_disarm(pm_fs *fs) {
  fault_state *s = fs->state;
  s->armed = 0;
  reset_counts(s);
}

uint64_t pm_fault_fs_count(pm_fs *fs, pm_fault_op op) {
  fault_state *s = fs->state;
  return op < PM_FAULT_OP_COUNT ? atomic_load(&s->counts[op]) : 0;
}

uint64_t pm_fault_fs_injected(pm_fs *fs) { return atomic_load(&((fault_state *)fs->state)->injected); }

int pm_fault_rule_parse(const char *text, pm_fault_rule *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  out->times = 1;
  out->action = PM_FAULT_ERROR;
  char buf[128];
  if (!text || strlen(text) >= sizeof buf)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "fault rule '%s': expected OP:N[:ACTION[:TIMES]]",
                     text ? text : "");
  strcpy(buf, text);
  char *parts[4] = {0};
  int np = 0;
  for (char *p = buf; p && np < 4; np++) {
    parts[np] = p;
    p = strchr(p, ':');
    if (p) *p++ = 0;
  }
  int op = -1;
  for (int i = 0; i < PM_FAULT_OP_COUNT; i++)
    if (!strcmp(parts[0], OP_NAMES[i])) op = i;
  char *end;
  if (op < 0 || np < 2 || !*parts[1] || (out->nth = strtoull(parts[1], &end, 10)) == 0 || *end)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "fault rule '%s': expected OP:N[:ACTION[:TIMES]] with N >= 1",
                     text);
  out->op = (pm_fault_op)op;
  if (np >= 3) {
    const char *a = parts[2];
    if (!strcmp(a, "error")) out->action = PM_FAULT_ERROR;
    else if (!strcmp(a, "short")) out->action = PM_FAULT_SHORT_READ;
    else if (!strcmp(a, "lose")) out->action = PM_FAULT_LOSE;
    else if (!strncmp(a, "exit", 4) && (a[4] == 0 || a[4] == '=')) {
      out->action = PM_FAULT_EXIT;
      out->exit_code = a[4] ? atoi(a + 5) : 99;
    } else
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "fault rule '%s': unknown action '%s'", text, a);
  }
  if (np >= 4) {
    out->times = strtoull(parts[3], &end, 10);
    if (!*parts[3] || *end)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "fault rule '%s': TIMES must be a number", text);
  }
  return 0;
}
