/*
 * Injected read failures over the fixture suite (issue 9 §1): every table of
 * shared/fixtures/expected is read through a fault-injecting fs
 * (io/fs_fault.h). A clean run counts the file opens and positional reads
 * of each case; then the Nth read (and the Nth open) fails in turn, and
 * every such run must either fail with an error naming the failing file
 * ("<path>: injected I/O error") or, when the failure hit something the
 * reader may legitimately do without (a LATEST hint), still give exactly
 * the expected rows -- never a crash, never a wrong answer. Finally every
 * read returns short (about half the bytes): reads are retried, so the
 * answer is exact.
 *
 * Sampled by default (up to SAMPLES failure points per case and kind, spread
 * over 1..N, always including 1 and N); PAIMON_LONG_TESTS=1 sweeps every N.
 * Usage: table_test_fault_reads [substring]
 */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/fixture_compare.h"
#include "harness.h"
#include "io/fs_fault.h"
#include "table/catalog.h"
#include "table/read.h"
#include "table/scan.h"
#include "table/table.h"

#define SAMPLES 6

typedef struct fx_case {
  const char *name;
  json_t *exp;
  char root[4096];
  pm_options dyn, cat;
  const char *branch;
  const char *tz;
  const char **names;
  int *digits, *kinds;
  size_t nc;
} fx_case;

static int case_load(fx_case *c, const char *dir, const char *name) {
  memset(c, 0, sizeof *c);
  c->name = name;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  json_error_t je;
  c->exp = json_load_file(path, 0, &je);
  if (!c->exp) return 1;
  pm_error err;
  pm_options_init(&c->dyn);
  pm_options_init(&c->cat);
  const char *table = json_string_value(json_object_get(c->exp, "table"));
  c->branch = json_string_value(json_object_get(c->exp, "branch"));
  snprintf(c->root, sizeof c->root, "%s/%s", PM_SHARED("fixtures/warehouse"), table);
  json_t *snap = json_object_get(c->exp, "snapshot");
  if (json_is_integer(snap)) {
    char buf[64];
    snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(snap));
    pm_options_set(&c->dyn, "scan.snapshot-id", buf, &err);
  }
  json_t *ropts = json_object_get(c->exp, "read_options");
  if (ropts) {
    c->tz = json_string_value(json_object_get(ropts, "session_time_zone"));
    json_t *rw = json_object_get(ropts, "external_path_rewrite");
    if (rw) {
      char to[4096 + 16];
      snprintf(to, sizeof to, "%s", c->root);
      char *slash = strrchr(to, '/');
      if (slash) *slash = 0;
      strncat(to, "/external", sizeof to - strlen(to) - 1);
      char rule[8192 + 64];
      snprintf(rule, sizeof rule, "%s=%s", json_string_value(json_object_get(rw, "from")), to);
      pm_options_set(&c->cat, "path-rewrite", rule, &err);
    }
  }
  json_t *cols = json_object_get(c->exp, "columns");
  json_t *types = json_object_get(c->exp, "column_types");
  c->nc = json_array_size(cols);
  c->names = calloc(c->nc + 1, sizeof *c->names);
  c->digits = calloc(c->nc + 1, sizeof *c->digits);
  c->kinds = calloc(c->nc + 1, sizeof *c->kinds);
  for (size_t i = 0; i < c->nc; i++) {
    c->names[i] = json_string_value(json_array_get(cols, i));
    const char *ty = json_string_value(json_array_get(types, i));
    c->digits[i] = ty ? fxc_fraction_digits(ty) : -1;
    c->kinds[i] = ty ? fxc_column_kind(ty) : 0;
  }
  return 0;
}

static void case_free(fx_case *c) {
  pm_options_clear(&c->dyn);
  pm_options_clear(&c->cat);
  free(c->names);
  free(c->digits);
  free(c->kinds);
  json_decref(c->exp);
}

/* Runs one read of the case through fs. Returns 0 and sets *match when the read succeeded
 * (match = rows equal the expected ones), else the status with msg = the error message. */
static int case_run(fx_case *c, pm_fs *fs, int *match, char *msg, size_t cap) {
  pm_error err;
  pm_error_clear(&err);
  pm_table *t = NULL;
  pm_plan *plan = NULL;
  struct ArrowArrayStream st = {0};
  struct ArrowSchema schema = {0};
  pm_type type = {0};
  json_t *actual = json_array();
  *match = 0;
  msg[0] = 0;
  int rc = pm_table_open_fs(fs, c->root, NULL, NULL, c->branch, &c->dyn, &c->cat, &t, &err);
  if (!rc) rc = pm_scan_plan(t, NULL, -1, &plan, &err);
  if (!rc) {
    pm_read_options ro;
    pm_read_options_init(&ro);
    ro.columns = c->names;
    ro.n_columns = c->nc;
    ro.session_time_zone = c->tz;
    ro.batch_rows = 1000;
    rc = pm_read_splits(t, plan->splits, plan->n_splits, &ro, &st, &err);
  }
  if (!rc) {
    rc = st.get_schema(&st, &schema);
    if (rc) snprintf(err.message, sizeof err.message, "get_schema: %s", st.get_last_error(&st));
  }
  if (!rc) rc = pm_type_from_schema(&schema, &type, &err);
  while (!rc) {
    struct ArrowArray a;
    rc = st.get_next(&st, &a);
    if (rc) {
      const char *le = st.get_last_error(&st);
      snprintf(err.message, sizeof err.message, "%s", le ? le : "(no message)");
      break;
    }
    if (!a.release) break;
    rc = fxc_batch_to_json(&type, &a, c->digits, actual, &err);
    a.release(&a);
  }
  if (rc) snprintf(msg, cap, "%s", err.message);
  else *match = fxc_rows_match(json_object_get(c->exp, "rows"), actual, c->kinds, msg, cap);
  pm_type_free(&type);
  pm_schema_release(&schema);
  if (st.release) st.release(&st);
  pm_plan_free(plan);
  pm_table_free(t);
  json_decref(actual);
  return rc;
}

/* The failure points to try among 1..n. */
static size_t pick_points(uint64_t n, int full, uint64_t *pts, size_t cap) {
  size_t k = 0;
  if (full || n <= cap) {
    for (uint64_t i = 1; i <= n && k < cap; i++) pts[k++] = i;
    return k;
  }
  for (size_t i = 0; i < cap; i++) {
    uint64_t p = 1 + (uint64_t)((double)(n - 1) * (double)i / (double)(cap - 1));
    if (k == 0 || pts[k - 1] != p) pts[k++] = p;
  }
  return k;
}

static int runs, errors_named, ok_exact, bad;

/* One injected failure: the outcome must be an error naming a file of the warehouse, or exact rows. */
static void check_outcome(fx_case *c, pm_fs *fs, const char *kind, uint64_t nth) {
  char msg[4096];
  int match = 0;
  int rc = case_run(c, fs, &match, msg, sizeof msg);
  runs++;
  if (rc) {
    int named = strstr(msg, "injected I/O error") && strstr(msg, PM_SHARED("fixtures/warehouse/"));
    if (named) errors_named++;
    else bad++;
    CHECK_MSG(named, "%s: %s #%llu failed without naming the file: %s", c->name, kind, (unsigned long long)nth, msg);
  } else {
    if (match) ok_exact++;
    else bad++;
    CHECK_MSG(match, "%s: %s #%llu failure gave a wrong answer: %s", c->name, kind, (unsigned long long)nth, msg);
  }
}

/* The catalog hands its fs to its tables: listing and table reads through a catalog opened on the
 * fault fs see the injected failures, naming the directory or file. */
static void catalog_uses_its_fs(pm_fs *fs) {
  pm_error err;
  pm_options o;
  pm_options_init(&o);
  pm_options_set(&o, "warehouse", PM_SHARED("fixtures/warehouse/parquet"), &err);
  pm_catalog *cat = NULL;
  pm_fault_fs_disarm(fs);
  CHECK_OK(pm_catalog_open_with_fs(fs, &o, &cat, &err), &err);
  pm_options_clear(&o);
  if (!cat) return;
  CHECK(cat->fs == fs);
  pm_fault_rule rl = {PM_FAULT_OP_LIST, 1, 1, PM_FAULT_ERROR, 0};
  pm_fault_fs_arm(fs, &rl);
  char **names;
  size_t n;
  CHECK_EQ_INT(pm_catalog_list_databases(cat, &names, &n, &err), PAIMON_ERR_IO);
  CHECK(strstr(err.message, PM_SHARED("fixtures/warehouse/parquet")) && strstr(err.message, "injected"));
  pm_fault_fs_disarm(fs);
  pm_table *t = NULL;
  CHECK_OK(pm_catalog_get_table(cat, "pk_09.pk_09", NULL, &t, &err), &err);
  CHECK(t && t->fs == fs);
  uint64_t reads = pm_fault_fs_count(fs, PM_FAULT_OP_READ);
  CHECK(reads > 0); /* the schema file was read through the catalog's fs */
  pm_table_free(t);
  pm_fault_rule rr = {PM_FAULT_OP_READ, 1, 1, PM_FAULT_ERROR, 0};
  pm_fault_fs_arm(fs, &rr);
  t = NULL;
  CHECK_EQ_INT(pm_catalog_get_table(cat, "pk_09.pk_09", NULL, &t, &err), PAIMON_ERR_IO);
  CHECK(t == NULL);
  CHECK(strstr(err.message, "pk_09/schema/schema-") && strstr(err.message, "injected"));
  pm_catalog_free(cat);
  pm_fault_fs_disarm(fs);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  const char *lt = getenv("PAIMON_LONG_TESTS");
  int full = lt && !strcmp(lt, "1");
  const char *dir = PM_SHARED("fixtures/expected");
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "cannot open %s\n", dir);
    return 1;
  }
  char **files = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".json")) continue;
    if (only && !strstr(e->d_name, only)) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 128;
      files = realloc(files, cap * sizeof *files);
    }
    files[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(files, n, sizeof *files, cmp_str);
  pm_error err;
  pm_fs *fs = NULL;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &err), &err);
  if (!fs) return 1;
  if (!only) catalog_uses_its_fs(fs);
  size_t cases = 0;
  uint64_t total_reads = 0;
  static uint64_t pts[1 << 16];
  for (size_t i = 0; i < n; i++) {
    fx_case c;
    if (case_load(&c, dir, files[i])) {
      CHECK_MSG(0, "cannot parse %s", files[i]);
      continue;
    }
    /* the clean run counts the operations (and must itself be exact) */
    pm_fault_fs_disarm(fs);
    char msg[4096];
    int match = 0;
    int rc = case_run(&c, fs, &match, msg, sizeof msg);
    if (rc || !match) { /* cases the reader does not support yet are not this test's subject */
      fprintf(stderr, "skip %s: clean read: %s\n", files[i], msg);
      case_free(&c);
      continue;
    }
    cases++;
    uint64_t reads = pm_fault_fs_count(fs, PM_FAULT_OP_READ);
    uint64_t opens = pm_fault_fs_count(fs, PM_FAULT_OP_OPEN);
    total_reads += reads;
    size_t np = pick_points(reads, full, pts, full ? sizeof pts / sizeof pts[0] : SAMPLES);
    for (size_t k = 0; k < np; k++) {
      pm_fault_rule r = {PM_FAULT_OP_READ, pts[k], 1, PM_FAULT_ERROR, 0};
      pm_fault_fs_arm(fs, &r);
      check_outcome(&c, fs, "read", pts[k]);
    }
    np = pick_points(opens, full, pts, full ? sizeof pts / sizeof pts[0] : 2);
    for (size_t k = 0; k < np; k++) {
      pm_fault_rule r = {PM_FAULT_OP_OPEN, pts[k], 1, PM_FAULT_ERROR, 0};
      pm_fault_fs_arm(fs, &r);
      check_outcome(&c, fs, "open", pts[k]);
    }
    /* every read short: retried, so the answer is exact */
    pm_fault_rule sr = {PM_FAULT_OP_READ, 1, 0, PM_FAULT_SHORT_READ, 0};
    pm_fault_fs_arm(fs, &sr);
    rc = case_run(&c, fs, &match, msg, sizeof msg);
    CHECK_MSG(rc == 0 && match, "%s: short reads: %s", files[i], msg);
    CHECK(pm_fault_fs_injected(fs) >= reads);
    if (only) fprintf(stderr, "  %s: %llu reads, %llu opens\n", files[i], (unsigned long long)reads,
                      (unsigned long long)opens);
    case_free(&c);
  }
  pm_fault_fs_disarm(fs);
  pm_fs_unref(fs);
  for (size_t i = 0; i < n; i++) free(files[i]);
  free(files);
  fprintf(stderr,
          "fault reads: %zu cases (%llu reads in clean runs), %d injected runs: %d errors naming the file, "
          "%d exact answers, %d bad\n",
          cases, (unsigned long long)total_reads, runs, errors_named, ok_exact, bad);
  CHECK(cases >= 50);
  CHECK_EQ_INT(bad, 0);
  TEST_MAIN_END();
}
