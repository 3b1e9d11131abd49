/*
 * changelog-producer = lookup and merge-engine = first-row on primary-key
 * tables (SEMANTICS 2.4, 3.6; issue 12 §2): the writer's lookup compaction
 * (level-0 files forced up at every flush) produces the changelog of the
 * level-0 records against the values already in the table, committed in the
 * COMPACT snapshot's changelog manifest list.
 * Model (independent of the library): a key -> row map; the expected
 * changelog of a commit (one flush) is, per key the commit touched,
 * before = the model's row before the commit, after = after it: +I after
 * (no before, after present), -D before (before, no after), -U before +
 * +U after (both). After every commit: our reader = the model (and, every
 * few commits and at the end, paimon-table read = the model and paimon-table
 * check passes), the latest snapshot is COMPACT with
 * changelogRecordCount = the expected changelog, our incremental changelog
 * read of the commit = the expected changelog, and all changelog files read
 * by DuckDB = every commit's expected changelog. Variants: several levels
 * (small files, lookups into higher levels), deletion vectors, first-row
 * (only +I for new keys; later rows of a key are ignored), first-row without
 * changelog. Refusals: lookup with other engines / sequence.field /
 * row-deduplicate.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "arrow/arrow.h"
#include "arrow/json_read.h"
#include "arrow/type.h"
#include "harness.h"
#include "paimon/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_write.h"

static char wh[256];

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

#define TABLE_COLS "id INT NOT NULL, pt STRING NOT NULL, v STRING, n BIGINT"
static const char *const COLS[] = {"id:i:notnull", "pt:u:notnull", "v:u", "n:l", "_rk:c:notnull"};
static const char *const KIND_NAMES[] = {"+I", "-U", "+U", "-D"};

static paimon_table *make_table(paimon_catalog *cat, const char *name, const char *const *extra, size_t n_extra) {
  const char *opts[16] = {"primary-key=pt,id", "bucket=2"};
  size_t n = 2;
  for (size_t i = 0; i < n_extra && n < 16; i++) opts[n++] = extra[i];
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", name, TABLE_COLS, "pt", opts, n, 0, &err), &err);
  char id[128];
  snprintf(id, sizeof id, "d.%s", name);
  return pkw_get_table(cat, id);
}

static int write_commit(paimon_table *t, const char *jsonl, paimon_error *err) {
  pkw_part p = {jsonl, -1};
  pkw_how how = {COLS, 4, "_rk", -1, NULL};
  return pkw_write_commit(t, &how, &p, 1, err);
}

/* ------------------------------------------------------------ model */

static json_t *row_of(const json_t *r) {
  json_t *row = json_deep_copy(r);
  json_object_del(row, "_rk");
  const char *cols[] = {"v", "n"};
  for (int c = 0; c < 2; c++)
    if (!json_object_get(row, cols[c])) json_object_set_new(row, cols[c], json_null());
  return row;
}

static json_t *with_kind(const json_t *row, int k) {
  json_t *c = json_deep_copy(row);
  json_object_set_new(c, "_row_kind", json_string(KIND_NAMES[k]));
  return c;
}

/* Applies one commit's rows (one flush) to model; appends the expected
 * lookup changelog to changes. first_row: a key keeps its first row. */
static void model_commit(json_t *model, json_t *changes, const char *jsonl, int first_row) {
  json_t *before = json_deep_copy(model);
  json_t *touched = json_object();
  json_t *rows = ot_parse_lines(jsonl, NULL);
  CHECK(rows != NULL);
  size_t i;
  json_t *r;
  json_array_foreach(rows, i, r) {
    int k = (int)json_integer_value(json_object_get(r, "_rk"));
    json_t *row = row_of(r);
    char key[256];
    snprintf(key, sizeof key, "%s/%lld", json_string_value(json_object_get(row, "pt")),
             (long long)json_integer_value(json_object_get(row, "id")));
    json_object_set_new(touched, key, json_true());
    if (first_row) {
      if (!json_object_get(model, key)) json_object_set(model, key, row);
    } else if (k == 1 || k == 3) {
      json_object_del(model, key);
    } else {
      json_object_set(model, key, row);
    }
    json_decref(row);
  }
  const char *key;
  json_t *v;
  json_object_foreach(touched, key, v) {
    json_t *b = json_object_get(before, key), *a = json_object_get(model, key);
    if (first_row) {
      if (!b && a) json_array_append_new(changes, with_kind(a, 0));
    } else if (!b && a) {
      json_array_append_new(changes, with_kind(a, 0));
    } else if (b && !a) {
      json_array_append_new(changes, with_kind(b, 3));
    } else if (b && a) {
      json_array_append_new(changes, with_kind(b, 1));
      json_array_append_new(changes, with_kind(a, 2));
    }
  }
  json_decref(rows);
  json_decref(touched);
  json_decref(before);
}

static json_t *model_rows(const json_t *model) {
  json_t *out = json_array();
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)model, k, v) json_array_append(out, v);
  return out;
}

/* Rows of one commit: n rows over keys 0..n_keys-1 of partitions a / b,
 * kinds mostly upserts, some -D / -U (first_row: +I only). */
static char *gen_commit(uint64_t *seed, int n, int n_keys, int first_row, int c) {
  size_t cap = (size_t)n * 96 + 1;
  char *s = malloc(cap);
  size_t len = 0;
  s[0] = 0;
  for (int i = 0; i < n; i++) {
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t x = *seed >> 33;
    int id = (int)(x % (uint64_t)n_keys);
    const char *pt = (x >> 12) & 1 ? "a" : "b";
    int r = (int)((x >> 14) % 10);
    int kind = first_row ? 0 : r < 6 ? 0 : r < 8 ? 2 : r < 9 ? 3 : 1;
    if ((x >> 20) % 5 == 0)
      len += (size_t)snprintf(s + len, cap - len, "{\"id\":%d,\"pt\":\"%s\",\"v\":null,\"n\":%d,\"_rk\":%d}\n", id,
                              pt, c * 1000 + i, kind);
    else
      len += (size_t)snprintf(s + len, cap - len, "{\"id\":%d,\"pt\":\"%s\",\"v\":\"v%d.%d\",\"n\":%d,\"_rk\":%d}\n",
                              id, pt, c, i, c * 1000 + i, kind);
  }
  return s;
}

/* ------------------------------------------------------------ checks */

/* Our reader over `options` (with the _row_kind column when with_kind). */
static json_t *read_ours(paimon_table *t, const paimon_option *options, size_t n, int with_kind) {
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  struct ArrowArrayStream st = {0};
  json_t *rows = NULL;
  int rc = paimon_read_builder_new(t, options, n, &rb, &err);
  if (!rc) paimon_read_builder_with_row_kind(rb, with_kind);
  if (!rc) rc = paimon_read_builder_plan(rb, &plan, &err);
  if (!rc) rc = paimon_read_plan(rb, plan, &st, &err);
  CHECK_MSG(rc == 0, "read: %s", err.message);
  if (!rc) {
    struct ArrowSchema schema;
    CHECK(st.get_schema(&st, &schema) == 0);
    pm_type type;
    pm_error e;
    CHECK(pm_type_from_schema(&schema, &type, &e) == 0);
    rows = json_array();
    pm_buf b;
    pm_buf_init(&b);
    for (;;) {
      struct ArrowArray a;
      CHECK(st.get_next(&st, &a) == 0);
      if (!a.release) break;
      for (int64_t r = 0; r < a.length; r++) {
        json_t *row = json_object();
        for (int64_t c = 0; c < type.n_children; c++) {
          b.len = 0;
          CHECK(pm_json_append_value(&type.children[c], a.children[c], r, -1, &b, &e) == 0);
          json_t *v = json_loadb((const char *)b.data, b.len, JSON_DECODE_ANY, NULL);
          json_object_set_new(row, type.children[c].name, v ? v : json_null());
        }
        json_array_append_new(rows, row);
      }
      a.release(&a);
    }
    pm_buf_free(&b);
    pm_type_free(&type);
    schema.release(&schema);
    st.release(&st);
  }
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  return rows;
}

static int64_t latest_snapshot(const char *name, json_t **snap) {
  ot_snapshot *ss = NULL;
  size_t n = ot_snapshots(table_dir(name), &ss, NULL);
  int64_t id = n ? ss[n - 1].id : 0;
  free(ss);
  char path[1024];
  snprintf(path, sizeof path, "%s/snapshot/snapshot-%lld", table_dir(name), (long long)id);
  *snap = json_load_file(path, 0, NULL);
  return id;
}

/* After a commit: both readers = model, check OK; with changelog: the latest
 * snapshot is COMPACT with the changelog, our changelog read of (prev, latest] = changes. */
static void check_commit(paimon_table *t, const char *name, const json_t *model, const json_t *changes,
                         int64_t prev, int with_cl, int use_oracle, const char *what) {
  char msg[8192];
  json_t *want = model_rows(model);
  json_t *ours = read_ours(t, NULL, 0, 0);
  if (ours) CHECK_MSG(ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, msg);
  json_decref(ours);
  json_t *s = NULL;
  int64_t snap = latest_snapshot(name, &s);
  CHECK_MSG(s != NULL, "%s: latest snapshot", what);
  if (s && with_cl) {
    const char *kind = json_string_value(json_object_get(s, "commitKind"));
    if (json_array_size(changes)) {
      CHECK_MSG(kind && !strcmp(kind, "COMPACT"), "%s: commitKind %s", what, kind ? kind : "?");
      const char *list = json_string_value(json_object_get(s, "changelogManifestList"));
      CHECK_MSG(list && !strncmp(list, "manifest-list-", 14), "%s: changelogManifestList", what);
      CHECK_EQ_INT(json_integer_value(json_object_get(s, "changelogRecordCount")), json_array_size(changes));
    }
    char between[64];
    snprintf(between, sizeof between, "%lld,%lld", (long long)prev, (long long)snap);
    paimon_option o[] = {{"incremental-between", between}, {"incremental-between-scan-mode", "changelog"}};
    json_t *cl = read_ours(t, o, 2, 1);
    if (cl) CHECK_MSG(ot_rows_match(changes, cl, msg, sizeof msg), "%s: changelog read: %s", what, msg);
    json_decref(cl);
  }
  json_decref(s);
  if (use_oracle && ot_available()) {
    CHECK_MSG(ot_check_ok(table_dir(name), 0, what), "%s", what);
    CHECK_MSG(ot_read_equals(table_dir(name), NULL, want, what), "%s", what);
  }
  json_decref(want);
}

/* Every changelog file of the table read by DuckDB = all. */
static void check_changelog_files(const char *name, const json_t *all) {
  if (!ot_available()) return;
  char q[4096], *out = NULL;
  snprintf(q, sizeof q,
           "%s/tools/duckdb-sql \"SELECT id, pt, v, n, CASE _VALUE_KIND WHEN 0 THEN '+I' WHEN 1 THEN '-U' WHEN 2 "
           "THEN '+U' ELSE '-D' END AS _row_kind FROM read_parquet('%s/pt=*/bucket-*/changelog-*.parquet')\"",
           PAIMON_SHARED_DIR, table_dir(name));
  CHECK_EQ_INT(ot_shell(q, &out), 0);
  json_t *rows = out ? ot_parse_lines(out, NULL) : NULL;
  char msg[8192];
  CHECK_MSG(rows && ot_rows_match(all, rows, msg, sizeof msg), "%s: changelog files: %s", name, rows ? msg : out);
  json_decref(rows);
  free(out);
}

static int64_t snapshot_count(const char *name) {
  json_t *s = NULL;
  int64_t id = latest_snapshot(name, &s);
  json_decref(s);
  return id;
}

/* n_commits random commits into a new table with the options; first_row per the engine. */
static void run_case(const char *name, const char *const *opts, size_t n_opts, int first_row, int with_cl,
                     int n_commits, int rows_per_commit, int n_keys, int min_levels, uint64_t seed) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_table *t = make_table(cat, name, opts, n_opts);
  json_t *model = json_object(), *all = json_array();
  paimon_error err = {0};
  for (int c = 0; c < n_commits; c++) {
    char *rows = gen_commit(&seed, rows_per_commit, n_keys, first_row, c);
    int64_t prev = snapshot_count(name);
    CHECK_OK(write_commit(t, rows, &err), &err);
    json_t *changes = json_array();
    model_commit(model, changes, rows, first_row);
    char what[128];
    snprintf(what, sizeof what, "%s commit %d", name, c + 1);
    check_commit(t, name, model, changes, prev, with_cl, c == n_commits / 2 || c == n_commits - 1, what);
    json_array_extend(all, changes);
    json_decref(changes);
    free(rows);
  }
  /* the live files span several levels (the lookups reached levels above the outputs) */
  if (min_levels > 1) {
    char id[128];
    snprintf(id, sizeof id, "d.%s$files", name);
    paimon_table *ft = NULL;
    paimon_error ferr = {0};
    CHECK_OK(paimon_catalog_get_system_table(cat, id, &ft, &ferr), &ferr);
    json_t *files = ft ? read_ours(ft, NULL, 0, 0) : NULL;
    int seen[16] = {0}, n_seen = 0;
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f) {
      int lv = (int)json_integer_value(json_object_get(f, "level"));
      if (lv >= 0 && lv < 16 && !seen[lv]++) n_seen++;
    }
    CHECK_MSG(n_seen >= min_levels, "%s: live files on %d levels", name, n_seen);
    json_decref(files);
    paimon_table_free(ft);
  }
  if (with_cl) check_changelog_files(name, all);
  else {
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "ls %s/pt=*/bucket-*/ | grep -c '^changelog-' || true", table_dir(name));
    CHECK_EQ_INT(ot_shell(cmd, &out), 0);
    CHECK_MSG(out && atoi(out) == 0, "%s: no changelog files: %s", name, out ? out : "");
    free(out);
  }
  json_decref(all);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

/* ------------------------------------------------------------ tests */

static void test_lookup_changelog(void) {
  const char *opts[] = {"changelog-producer=lookup"};
  run_case("lk", opts, 1, 0, 1, 6, 40, 30, 1, 1);
}

/* small files and a low trigger: several levels, lookups into levels above the output */
static void test_lookup_changelog_levels(void) {
  const char *opts[] = {"changelog-producer=lookup", "target-file-size=2 kb", "num-sorted-run.compaction-trigger=3",
                        "file.format=parquet"};
  run_case("lkl", opts, 4, 0, 1, 7, 200, 300, 2, 7);
}

static void test_lookup_changelog_dv(void) {
  const char *opts[] = {"changelog-producer=lookup", "deletion-vectors.enabled=true", "target-file-size=2 kb",
                        "num-sorted-run.compaction-trigger=3"};
  run_case("lkdv", opts, 4, 0, 1, 6, 200, 300, 2, 11);
}

static void test_first_row(void) {
  const char *opts[] = {"merge-engine=first-row", "target-file-size=2 kb", "num-sorted-run.compaction-trigger=3"};
  run_case("fr", opts, 3, 1, 0, 5, 150, 300, 2, 5);
}

static void test_first_row_lookup_changelog(void) {
  const char *opts[] = {"merge-engine=first-row", "changelog-producer=lookup", "target-file-size=2 kb",
                        "num-sorted-run.compaction-trigger=3"};
  run_case("frl", opts, 4, 1, 1, 5, 150, 300, 2, 9);
}

static void refused(const char *name, const char *const *opts, size_t n, const char *needle) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_table *t = make_table(cat, name, opts, n);
  paimon_error err = {0};
  CHECK_EQ_INT(write_commit(t, "{\"id\":1,\"pt\":\"a\",\"v\":\"x\",\"n\":1,\"_rk\":0}\n", &err), PAIMON_ERR_UNSUPPORTED);
  CHECK_MSG(strstr(err.message, needle) != NULL, "%s", err.message);
  CHECK_EQ_INT(snapshot_count(name), 0);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_refusals(void) {
  const char *a[] = {"changelog-producer=lookup", "merge-engine=partial-update"};
  refused("rpu", a, 2, "changelog-producer = lookup");
  const char *b[] = {"changelog-producer=lookup", "sequence.field=n"};
  refused("rseq", b, 2, "sequence.field");
  const char *c[] = {"changelog-producer=lookup", "changelog-producer.row-deduplicate=true"};
  refused("rdd", c, 2, "row-deduplicate");
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_pk_lookup_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_lookup_changelog);
  RUN_TEST(test_lookup_changelog_levels);
  RUN_TEST(test_lookup_changelog_dv);
  RUN_TEST(test_first_row);
  RUN_TEST(test_first_row_lookup_changelog);
  RUN_TEST(test_refusals);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
