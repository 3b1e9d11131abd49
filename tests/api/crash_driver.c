/*
 * The crash tests' writer process (built as api_crash_driver, run by
 * api_test_write_crash, api_test_write_crash_phases and
 * api_test_write_concurrency; not a test itself).
 *
 *   api_crash_driver [options] WAREHOUSE DB TABLE FROM TO
 *
 * Everything goes through the public API on a catalog over the
 * fault-injecting fs (src/io/fs_fault.h) with the rule of --rule (e.g.
 * "rename:3:exit=42"): creates database DB and table DB.TABLE if absent
 * (paimon_catalog_create_table, columns and layout of support/oracle_crash.h),
 * then recovers a pending commit of an earlier, interrupted run (state dir, see
 * below) and then, for k = FROM..TO: writes batch base+k with the table writer
 * (write builder, paimon_table_write_arrow, prepare_commit: data files,
 * rolling at target-file-size), saves the serialized committable as
 * STATE/pending-<k>.bin (write, fsync, rename: the checkpoint a stream job
 * keeps), prints "begin k", commits with the fixed commit user and identifier
 * k, removes the pending file and prints "committed k SNAPSHOT".
 *
 * The run is cut in phases: "ddl" (create database + table, open it),
 * "recover k" (one pending commit), "alter k" (--mix: add column extra
 * before batch OC_ALTER_AT), "write k" (the writer up to prepare_commit),
 * "commit k". After each phase it prints "phase NAME k KIND ops..." (the fault
 * fs's operation counts of that phase; KIND append | overwrite, or "already" for
 * a recovery that found its commit published). With --at
 * NAME the rule is armed at the start of the first phase NAME (its counters
 * start there), else from the start.
 *
 * Recovery of pending-<k>.bin: --recover filter (default) asks
 * filter_committed(k) and commits the saved messages only when k is not
 * committed ("recovered k already" / "committed k ..."); --recover commit
 * commits the saved messages again directly (the API promises a retry with
 * the same user and identifier publishes at most once).
 *
 * Every line is written with write(2) and fsync'd before the next step, so a
 * line survives any stop that follows. A commit that fails prints
 * "failed k STATUS message" and exits 3 (the pending file stays); an overwrite
 * that loses to a concurrent one prints "conflict k ..." and goes on. At the end
 * "ops open=N read=N ..." gives the fault fs's operation counts since arming
 * (for a test that enumerates stop points). Options:
 *   --rule R          fault rule (pm_fault_rule_parse)
 *   --at PHASE        arm the rule at the first phase PHASE (ddl, recover, alter, write, commit)
 *   --state DIR       pending files (default WAREHOUSE/../state)
 *   --recover MODE    filter | commit
 *   --user U          commit user (default "crash-user")
 *   --base B          batch number = B + k (default 0)
 *   --part P          every row in partition p = P (default: batch % 2)
 *   --rows N          rows per batch (default 1 + batch % 3)
 *   --layout L        dynamic (default) | fixed | unaware (support/oracle_crash.h)
 *   --mix             the mix schedule: overwrites, the alter (support/oracle_crash.h)
 *   --target-file-size S  write option (e.g. "1 b": a file per row)
 *   --overwrite       batch commits (identifier PAIMON_BATCH_COMMIT_IDENTIFIER) overwriting
 *                     partition p = P (needs --part); no pending files
 *   --option '"k" : "v"'  table option at creation (repeatable)
 *   --sleep-us N      pause between commits
 *   --upsert N        primary-key batches over N keys (layout pk; oc_upsert_json): the batch's
 *                     upserts, then its deletes (paimon_table_write_arrow_kind -D)
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api_write_internal.h"
#include "io/fs_fault.h"
#include "paimon/ddl.h"
#include "paimon/write.h"
#include "support/oracle_crash.h"
#include "support/oracle_write.h"

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof line) n = sizeof line - 1;
  size_t off = 0;
  while (off < (size_t)n) {
    ssize_t w = write(1, line + off, (size_t)n - off);
    if (w <= 0) {
      if (w < 0 && errno == EINTR) continue;
      return;
    }
    off += (size_t)w;
  }
  fsync(1);
}

static int die(const char *what, const paimon_error *err) {
  say("error %s: %s %s\n", what, paimon_status_name(err->code), err->message);
  return 2;
}

/* Writes a file durably under its name (tmp, fsync, rename). */
static int save_file(const char *path, const uint8_t *data, size_t len) {
  char tmp[4300];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -1;
  size_t off = 0;
  while (off < len) {
    ssize_t w = write(fd, data + off, len - off);
    if (w <= 0) {
      close(fd);
      return -1;
    }
    off += (size_t)w;
  }
  if (fsync(fd) || close(fd)) return -1;
  return rename(tmp, path);
}

static uint8_t *load_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
  *len = b && n > 0 ? fread(b, 1, (size_t)n, f) : 0;
  fclose(f);
  return b;
}

/* ------------------------------------------------------------ phases */

static pm_fs *g_fs;
static pm_fault_rule g_rule;
static int g_have_rule, g_armed;
static const char *g_at;
static unsigned long long g_phase_start[PM_FAULT_OP_COUNT];

static void phase_begin(const char *name) {
  if (g_have_rule && !g_armed && (!g_at || !strcmp(g_at, name))) {
    pm_fault_fs_arm(g_fs, &g_rule);
    g_armed = 1;
  }
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) g_phase_start[op] = pm_fault_fs_count(g_fs, (pm_fault_op)op);
}

static void phase_end(const char *name, long long k, const char *kind) {
  char counts[1024];
  size_t len = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT && len + 1 < sizeof counts; op++)
    len += (size_t)snprintf(counts + len, sizeof counts - len, " %s=%llu", pm_fault_op_name((pm_fault_op)op),
                            (unsigned long long)pm_fault_fs_count(g_fs, (pm_fault_op)op) - g_phase_start[op]);
  say("phase %s %lld %s%s\n", name, k, kind, counts);
}

/* ------------------------------------------------------------ driver */

typedef struct driver {
  const char *user;
  const char *state;
  const char *target_file_size;
  const char *ident; /* "db.table" */
  int recover_commit;
  long long base;
  int part, rows, overwrite, mix, upsert;
  paimon_catalog *cat;
  paimon_table *table;
} driver;

/* The commit of batch base+k: a mix overwrite, or the batch overwrite of --overwrite. */
static int is_overwrite(const driver *d, long long k) { return d->overwrite || (d->mix && oc_mix_overwrite(d->base + k)); }

/* A write builder for batch base+k: stream (identifier k) unless --overwrite (a batch commit);
 * overwrite: the static spec dt=part<P> (--overwrite) or the partitions written (--mix). */
static paimon_status builder(driver *d, long long k, paimon_write_builder **wb, paimon_error *err) {
  paimon_option dyn = {"target-file-size", d->target_file_size};
  paimon_status st = paimon_write_builder_new(d->table, !d->overwrite, &dyn, d->target_file_size ? 1 : 0, wb, err);
  if (!st) st = paimon_write_builder_with_commit_user(*wb, d->user, err);
  if (!st && d->overwrite) {
    char v[32];
    paimon_option spec = {OC_PARTITION_KEY, oc_dt(0, d->part, v, sizeof v)};
    st = paimon_write_builder_with_overwrite(*wb, &spec, 1, err);
  } else if (!st && is_overwrite(d, k)) {
    st = paimon_write_builder_with_overwrite(*wb, NULL, 0, err);
  }
  return st;
}

static paimon_status commit_messages(driver *d, paimon_write_builder *wb, const paimon_commit_messages *m,
                                     int64_t ident, int64_t *snap, paimon_error *err) {
  paimon_table_commit *c = NULL;
  paimon_status st = paimon_write_builder_new_commit(wb, &c, err);
  if (!st) st = paimon_table_commit_commit(c, m, ident, snap, err);
  paimon_table_commit_free(c);
  (void)d;
  return st;
}

static int has_column(const paimon_table *t, const char *name) {
  for (size_t i = 0; i < paimon_table_num_columns(t); i++)
    if (!strcmp(paimon_table_column_name(t, i), name)) return 1;
  return 0;
}

/* (Re)opens the table handle (after an alter: the writer writes the newest schema). */
static int reopen(driver *d) {
  paimon_error err = {0};
  paimon_table_free(d->table);
  d->table = NULL;
  if (paimon_catalog_get_table(d->cat, d->ident, &d->table, &err)) return die("get table", &err);
  return 0;
}

/* Recovers STATE/pending-<k>.bin files (at most one is expected). Returns 0, or an exit code. */
static int recover(driver *d) {
  long long pending[16];
  size_t n_pending = 0;
  DIR *dir = opendir(d->state);
  struct dirent *de;
  while (dir && (de = readdir(dir)) != NULL && n_pending < 16) {
    long long k;
    char tail[8];
    if (sscanf(de->d_name, "pending-%lld.%4s", &k, tail) == 2 && !strcmp(tail, "bin")) pending[n_pending++] = k;
  }
  if (dir) closedir(dir);
  char path[4200];
  for (size_t pi = 0; pi < n_pending; pi++) {
    long long k = pending[pi];
    snprintf(path, sizeof path, "%s/pending-%lld.bin", d->state, k);
    size_t len = 0;
    uint8_t *bytes = load_file(path, &len);
    paimon_error err = {0};
    paimon_commit_messages *m = NULL;
    int64_t ident = -1;
    paimon_status st = bytes ? paimon_commit_messages_deserialize(bytes, len, 5, &m, &ident, &err) : PAIMON_ERR_IO;
    free(bytes);
    if (st) return die("deserialize pending", &err);
    phase_begin("recover");
    int committed = 0;
    paimon_write_builder *wb = NULL;
    st = builder(d, k, &wb, &err);
    if (!st && !d->recover_commit) {
      paimon_table_commit *c = NULL;
      st = paimon_write_builder_new_commit(wb, &c, &err);
      if (!st) st = paimon_table_commit_filter_committed(c, &ident, 1, &committed, &err);
      paimon_table_commit_free(c);
    }
    if (st) {
      paimon_write_builder_free(wb);
      paimon_commit_messages_free(m);
      say("failed %lld %s %s\n", k, paimon_status_name(st), err.message);
      return 3;
    }
    if (committed) {
      say("recovered %lld already\n", k);
    } else {
      say("begin %lld\n", k);
      int64_t snap = -1;
      st = commit_messages(d, wb, m, ident, &snap, &err);
      if (st) {
        paimon_write_builder_free(wb);
        paimon_commit_messages_free(m);
        say("failed %lld %s %s\n", k, paimon_status_name(st), err.message);
        return 3;
      }
      say("committed %lld %lld\n", k, (long long)snap);
    }
    paimon_write_builder_free(wb);
    paimon_commit_messages_free(m);
    phase_end("recover", k, committed ? "already" : is_overwrite(d, k) ? "overwrite" : "append");
    unlink(path);
  }
  return 0;
}

/* --mix: adds column extra before batch OC_ALTER_AT unless the table has it. */
static int maybe_alter(driver *d, long long k) {
  if (!d->mix || d->base + k != OC_ALTER_AT || has_column(d->table, OC_EXTRA_COLUMN)) return 0;
  phase_begin("alter");
  paimon_error err = {0};
  paimon_schema_change *ch = NULL;
  paimon_status st = paimon_schema_change_add_column(OC_EXTRA_COLUMN, "INT", NULL, PAIMON_COLUMN_LAST, NULL, &ch, &err);
  if (!st) st = paimon_catalog_alter_table(d->cat, d->ident, (const paimon_schema_change *const *)&ch, 1, 0, &err);
  paimon_schema_change_free(ch);
  if (st) {
    say("failed %lld alter %s %s\n", k, paimon_status_name(st), err.message);
    return 3;
  }
  int rc = reopen(d);
  if (!rc) phase_end("alter", k, "append");
  return rc;
}

/* The table writer on batch base+k: *m owned by the caller. */
static paimon_status write_batch(driver *d, paimon_write_builder *wb, long long k, int64_t ident,
                                 paimon_commit_messages **m, paimon_error *err) {
  char json[8192];
  long long b = d->base + k;
  oc_batch_json_extra(b, d->rows, d->part, has_column(d->table, OC_EXTRA_COLUMN), json, sizeof json);
  paimon_table_write *w = NULL;
  struct ArrowSchema s = {0};
  struct ArrowArray a = {0};
  paimon_status st = paimon_write_builder_new_write(wb, &w, err);
  for (int del = 0; d->upsert && !st && del < 2; del++) { /* --upsert: upserts, then deletes */
    if (!oc_upsert_json(b, d->rows, d->upsert, del, json, sizeof json)) continue;
    st = ow_batch(d->table, json, &s, &a, err);
    if (!st) st = paimon_table_write_arrow_kind(w, &s, &a, del ? PAIMON_ROW_KIND_DELETE : PAIMON_ROW_KIND_INSERT, err);
    if (a.release) a.release(&a);
    if (s.release) s.release(&s);
  }
  if (!st && !d->upsert) st = ow_batch(d->table, json, &s, &a, err);
  if (!st && !d->upsert) st = paimon_table_write_arrow(w, &s, &a, err);
  if (!st) st = paimon_table_write_prepare_commit(w, ident, m, err);
  if (a.release) a.release(&a);
  if (s.release) s.release(&s);
  paimon_table_write_free(w);
  return st;
}

static int step(driver *d, long long k) {
  int rc = maybe_alter(d, k);
  if (rc) return rc;
  paimon_error err = {0};
  paimon_commit_messages *m = NULL;
  paimon_write_builder *wb = NULL;
  int ow = is_overwrite(d, k);
  int64_t ident = d->overwrite ? PAIMON_BATCH_COMMIT_IDENTIFIER : (int64_t)k;
  phase_begin("write");
  paimon_status st = builder(d, k, &wb, &err);
  if (!st) st = write_batch(d, wb, k, ident, &m, &err);
  if (st) {
    paimon_commit_messages_free(m);
    paimon_write_builder_free(wb);
    say("failed %lld %s %s\n", k, paimon_status_name(st), err.message);
    return 3;
  }
  phase_end("write", k, ow ? "overwrite" : "append");
  char path[4200];
  snprintf(path, sizeof path, "%s/pending-%lld.bin", d->state, k);
  if (!d->overwrite) {
    uint8_t *bytes = NULL;
    size_t len = 0;
    st = paimon_commit_messages_serialize(m, ident, &bytes, &len, &err);
    if (st || save_file(path, bytes, len)) {
      paimon_free_bytes(bytes);
      paimon_commit_messages_free(m);
      paimon_write_builder_free(wb);
      say("failed %lld %s cannot save %s\n", k, st ? err.message : "", path);
      return 3;
    }
    paimon_free_bytes(bytes);
  }
  say("begin %lld\n", k);
  phase_begin("commit");
  int64_t snap = -1;
  st = commit_messages(d, wb, m, ident, &snap, &err);
  paimon_commit_messages_free(m);
  paimon_write_builder_free(wb);
  if (st == PAIMON_ERR_CONFLICT && d->overwrite) {
    say("conflict %lld %s\n", k, err.message); /* nothing published: the next overwrite goes on */
    return 0;
  }
  if (st) {
    say("failed %lld %s %s\n", k, paimon_status_name(st), err.message);
    return 3;
  }
  if (!d->overwrite) unlink(path);
  say("committed %lld %lld\n", k, (long long)snap);
  phase_end("commit", k, ow ? "overwrite" : "append");
  return 0;
}

/* Database and table (ignore if they exist), then the table handle. */
static int create_table(driver *d, const oc_layout *layout, const char *db, const char *name,
                        const char *const *json_options, size_t n_json) {
  const char *opts[40];
  char kv[32][512];
  size_t n = 0;
  for (size_t i = 0; i < 3 && layout->options[i]; i++) opts[n++] = layout->options[i];
  for (size_t i = 0; i < n_json && i < 32; i++) {
    /* '"k" : "v"' (a JSON object member) to "k=v" */
    char k[256], v[256];
    if (sscanf(json_options[i], " \"%255[^\"]\" : \"%255[^\"]\"", k, v) != 2) {
      say("error option %s: not '\"k\" : \"v\"'\n", json_options[i]);
      return 2;
    }
    snprintf(kv[i], sizeof kv[i], "%s=%s", k, v);
    opts[n++] = kv[i];
  }
  phase_begin("ddl");
  paimon_error err = {0};
  paimon_status st =
      ow_create_table(d->cat, db, name, OC_COLUMNS, layout->partition_keys, opts, n, 1, &err);
  /* a concurrent driver created it first */
  if (st == PAIMON_ERR_CONFLICT && !reopen(d)) st = PAIMON_OK;
  if (st) return die("create table", &err);
  int rc = d->table ? 0 : reopen(d);
  if (!rc) phase_end("ddl", 0, "append");
  return rc;
}

int main(int argc, char **argv) {
  const char *rule_text = NULL, *options[32], *layout_name = "dynamic";
  size_t n_options = 0;
  long sleep_us = 0;
  driver d = {.user = "crash-user", .state = NULL, .part = -1};
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
    const char *o = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "--overwrite")) {
      d.overwrite = 1;
      continue;
    }
    if (!strcmp(o, "--mix")) {
      d.mix = 1;
      continue;
    }
    if (!v) break;
    i++;
    if (!strcmp(o, "--rule")) rule_text = v;
    else if (!strcmp(o, "--at")) g_at = v;
    else if (!strcmp(o, "--state")) d.state = v;
    else if (!strcmp(o, "--recover")) d.recover_commit = !strcmp(v, "commit");
    else if (!strcmp(o, "--user")) d.user = v;
    else if (!strcmp(o, "--base")) d.base = atoll(v);
    else if (!strcmp(o, "--part")) d.part = atoi(v);
    else if (!strcmp(o, "--rows")) d.rows = atoi(v);
    else if (!strcmp(o, "--layout")) layout_name = v;
    else if (!strcmp(o, "--target-file-size")) d.target_file_size = v;
    else if (!strcmp(o, "--sleep-us")) sleep_us = atol(v);
    else if (!strcmp(o, "--upsert")) d.upsert = atoi(v);
    else if (!strcmp(o, "--option") && n_options < 32) options[n_options++] = v;
    else {
      fprintf(stderr, "unknown option %s\n", o);
      return 2;
    }
  }
  const oc_layout *layout = oc_layout_find(layout_name);
  if (argc - i != 5 || !layout) {
    fprintf(stderr, "usage: api_crash_driver [options] WAREHOUSE DB TABLE FROM TO\n");
    return 2;
  }
  const char *warehouse = argv[i], *db = argv[i + 1], *name = argv[i + 2];
  long long from = atoll(argv[i + 3]), to = atoll(argv[i + 4]);
  char state_default[4200];
  if (!d.state) {
    snprintf(state_default, sizeof state_default, "%s/../state", warehouse);
    d.state = state_default;
  }
  if (oc_mkdirs(warehouse) || oc_mkdirs(d.state)) {
    fprintf(stderr, "cannot create %s / %s\n", warehouse, d.state);
    return 2;
  }

  pm_error e;
  pm_error_clear(&e);
  if (pm_fault_fs_new(pm_fs_local(), &g_fs, &e)) {
    fprintf(stderr, "fault fs: %s\n", e.message);
    return 2;
  }
  if (rule_text) {
    if (pm_fault_rule_parse(rule_text, &g_rule, &e)) {
      fprintf(stderr, "rule: %s\n", e.message);
      pm_fs_unref(g_fs);
      return 2;
    }
    g_have_rule = 1;
    if (!g_at) {
      pm_fault_fs_arm(g_fs, &g_rule);
      g_armed = 1;
    }
  }
  pm_options copts;
  pm_options_init(&copts);
  d.cat = calloc(1, sizeof *d.cat);
  int rc = d.cat ? pm_options_set(&copts, "warehouse", warehouse, &e) : PAIMON_ERR_NOMEM;
  if (!rc) rc = pm_catalog_open_with_fs(g_fs, &copts, &d.cat->c, &e);
  pm_options_clear(&copts);
  if (rc) {
    fprintf(stderr, "catalog: %s\n", e.message);
    free(d.cat);
    pm_fs_unref(g_fs);
    return 2;
  }
  char ident[512];
  snprintf(ident, sizeof ident, "%s.%s", db, name);
  d.ident = ident;
  int exit_code = create_table(&d, layout, db, name, options, n_options);
  if (!exit_code && !d.overwrite) exit_code = recover(&d);
  for (long long k = from; !exit_code && k <= to; k++) {
    exit_code = step(&d, k);
    if (sleep_us > 0) usleep((useconds_t)sleep_us);
  }
  char counts[1024];
  size_t len = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT && len + 1 < sizeof counts; op++)
    len += (size_t)snprintf(counts + len, sizeof counts - len, " %s=%llu", pm_fault_op_name((pm_fault_op)op),
                            (unsigned long long)pm_fault_fs_count(g_fs, (pm_fault_op)op));
  say("ops%s\n", counts);
  paimon_table_free(d.table);
  paimon_catalog_free(d.cat);
  pm_fs_unref(g_fs);
  return exit_code;
}
