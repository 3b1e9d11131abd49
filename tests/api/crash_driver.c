/*
 * The crash tests' writer process (built as api_crash_driver, run by
 * api_test_write_crash and api_test_write_concurrency; not a test itself).
 *
 *   api_crash_driver [options] WAREHOUSE DB TABLE FROM TO
 *
 * Opens the catalog on the fault-injecting fs (src/io/fs_fault.h) with the
 * rule of --rule (e.g. "rename:3:exit=42", armed from the start), creates
 * DB.TABLE if absent (schema-0 of support/oracle_crash.h, published by
 * link(2) so concurrent drivers agree), then first recovers
 * a pending commit of an earlier, interrupted run (state dir, see below) and
 * then, for k = FROM..TO: writes batch base+k (a Parquet data file per batch
 * made as the committer tests make them, support/commit_fixture.h; the
 * manifests, lists and snapshot go through the fault fs), saves the serialized
 * committable as STATE/pending-<k>.bin (write, fsync, rename: the checkpoint a
 * stream job keeps), prints "begin k", commits with the fixed commit user and
 * identifier k, removes the pending file and prints "committed k SNAPSHOT".
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
 * "ops open=N read=N ..." gives the fault fs's operation counts (for a test
 * that enumerates stop points). Options:
 *   --rule R          fault rule (pm_fault_rule_parse)
 *   --state DIR       pending files (default WAREHOUSE/../state)
 *   --recover MODE    filter | commit
 *   --user U          commit user (default "crash-user")
 *   --base B          batch number = B + k (default 0)
 *   --part P          every row in partition p = P (default: batch % 2)
 *   --rows N          rows per batch (default 1 + batch % 3)
 *   --overwrite       batch commits (identifier PAIMON_BATCH_COMMIT_IDENTIFIER) overwriting
 *                     partition p = P (needs --part); no pending files
 *   --option '"k" : "v"'  table option JSON member at creation (repeatable)
 *   --sleep-us N      pause between commits
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
#include "paimon/write.h"
#include "support/oracle_messages.h"

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

typedef struct driver {
  const char *user;
  const char *state;
  int recover_commit;
  long long base;
  int part, rows, overwrite;
  paimon_table *table;
} driver;

static paimon_status commit_messages(driver *d, const paimon_commit_messages *m, int64_t ident, int64_t *snap,
                                     paimon_error *err) {
  paimon_write_builder *wb = NULL;
  paimon_table_commit *c = NULL;
  paimon_status st = paimon_write_builder_new(d->table, !d->overwrite, NULL, 0, &wb, err);
  if (!st) st = paimon_write_builder_with_commit_user(wb, d->user, err);
  if (!st && d->overwrite) {
    char v[32];
    paimon_option spec = {OC_PARTITION_KEY, oc_dt(0, d->part, v, sizeof v)};
    st = paimon_write_builder_with_overwrite(wb, &spec, 1, err);
  }
  if (!st) st = paimon_write_builder_new_commit(wb, &c, err);
  if (!st) st = paimon_table_commit_commit(c, m, ident, snap, err);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  return st;
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
    int committed = 0;
    if (!d->recover_commit) {
      paimon_write_builder *wb = NULL;
      paimon_table_commit *c = NULL;
      st = paimon_write_builder_new(d->table, 1, NULL, 0, &wb, &err);
      if (!st) st = paimon_write_builder_with_commit_user(wb, d->user, &err);
      if (!st) st = paimon_write_builder_new_commit(wb, &c, &err);
      if (!st) st = paimon_table_commit_filter_committed(c, &ident, 1, &committed, &err);
      paimon_table_commit_free(c);
      paimon_write_builder_free(wb);
      if (st) {
        paimon_commit_messages_free(m);
        say("failed %lld %s %s\n", k, paimon_status_name(st), err.message);
        return 3;
      }
    }
    if (committed) {
      say("recovered %lld already\n", k);
    } else {
      say("begin %lld\n", k);
      int64_t snap = -1;
      st = commit_messages(d, m, ident, &snap, &err);
      if (st) {
        paimon_commit_messages_free(m);
        say("failed %lld %s %s\n", k, paimon_status_name(st), err.message);
        return 3;
      }
      say("committed %lld %lld\n", k, (long long)snap);
    }
    paimon_commit_messages_free(m);
    unlink(path);
  }
  return 0;
}

static int step(driver *d, long long k) {
  paimon_error err = {0};
  paimon_commit_messages *m = NULL;
  int64_t ident = d->overwrite ? PAIMON_BATCH_COMMIT_IDENTIFIER : (int64_t)k;
  paimon_status st = oc_batch_messages(d->table->t, d->base + k, d->rows, d->part, ident, &m, &err);
  if (st) {
    paimon_commit_messages_free(m);
    say("failed %lld %s %s\n", k, paimon_status_name(st), err.message);
    return 3;
  }
  char path[4200];
  snprintf(path, sizeof path, "%s/pending-%lld.bin", d->state, k);
  if (!d->overwrite) {
    uint8_t *bytes = NULL;
    size_t len = 0;
    st = paimon_commit_messages_serialize(m, ident, &bytes, &len, &err);
    if (st || save_file(path, bytes, len)) {
      paimon_free_bytes(bytes);
      paimon_commit_messages_free(m);
      say("failed %lld %s cannot save %s\n", k, st ? err.message : "", path);
      return 3;
    }
    paimon_free_bytes(bytes);
  }
  say("begin %lld\n", k);
  int64_t snap = -1;
  st = commit_messages(d, m, ident, &snap, &err);
  paimon_commit_messages_free(m);
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
  return 0;
}

int main(int argc, char **argv) {
  const char *rule_text = NULL, *options[32];
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
    if (!v) break;
    i++;
    if (!strcmp(o, "--rule")) rule_text = v;
    else if (!strcmp(o, "--state")) d.state = v;
    else if (!strcmp(o, "--recover")) d.recover_commit = !strcmp(v, "commit");
    else if (!strcmp(o, "--user")) d.user = v;
    else if (!strcmp(o, "--base")) d.base = atoll(v);
    else if (!strcmp(o, "--part")) d.part = atoi(v);
    else if (!strcmp(o, "--rows")) d.rows = atoi(v);
    else if (!strcmp(o, "--sleep-us")) sleep_us = atol(v);
    else if (!strcmp(o, "--option") && n_options < 32) options[n_options++] = v;
    else {
      fprintf(stderr, "unknown option %s\n", o);
      return 2;
    }
  }
  if (argc - i != 5) {
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
  pm_fs *fs = NULL;
  if (pm_fault_fs_new(pm_fs_local(), &fs, &e)) {
    fprintf(stderr, "fault fs: %s\n", e.message);
    return 2;
  }
  if (rule_text) {
    pm_fault_rule rule;
    if (pm_fault_rule_parse(rule_text, &rule, &e)) {
      fprintf(stderr, "rule: %s\n", e.message);
      pm_fs_unref(fs);
      return 2;
    }
    pm_fault_fs_arm(fs, &rule);
  }
  pm_options copts;
  pm_options_init(&copts);
  paimon_catalog *cat = calloc(1, sizeof *cat);
  int rc = cat ? pm_options_set(&copts, "warehouse", warehouse, &e) : PAIMON_ERR_NOMEM;
  if (!rc) rc = pm_catalog_open_with_fs(fs, &copts, &cat->c, &e);
  pm_options_clear(&copts);
  if (rc) {
    fprintf(stderr, "catalog: %s\n", e.message);
    free(cat);
    pm_fs_unref(fs);
    return 2;
  }
  paimon_error err = {0};
  int exit_code = 0;
  if (oc_create_table(warehouse, db, name, options, n_options)) {
    say("error create table: %s\n", strerror(errno));
    exit_code = 2;
  }
  char ident[512];
  snprintf(ident, sizeof ident, "%s.%s", db, name);
  if (!exit_code && paimon_catalog_get_table(cat, ident, &d.table, &err)) exit_code = die("get table", &err);
  if (!exit_code && !d.overwrite) exit_code = recover(&d);
  for (long long k = from; !exit_code && k <= to; k++) {
    exit_code = step(&d, k);
    if (sleep_us > 0) usleep((useconds_t)sleep_us);
  }
  char counts[1024];
  size_t len = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT && len + 1 < sizeof counts; op++)
    len += (size_t)snprintf(counts + len, sizeof counts - len, " %s=%llu", pm_fault_op_name((pm_fault_op)op),
                            (unsigned long long)pm_fault_fs_count(fs, (pm_fault_op)op));
  say("ops%s\n", counts);
  (void)pm_test_failures; /* support/commit_fixture.h brings the harness */
  (void)pm_test_checks;
  paimon_table_free(d.table);
  paimon_catalog_free(cat);
  pm_fs_unref(fs);
  return exit_code;
}
