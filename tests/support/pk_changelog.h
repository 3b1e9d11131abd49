/*
 * Shared by the changelog-producer tests (test_write_pk_lookup.c,
 * test_write_pk_full_changelog.c; test_write_pk_changelog.c uses the table,
 * reader and model helpers): a table `id INT, pt STRING, v STRING,
 * n BIGINT` (primary key pt, id; partitioned by pt; 2 buckets) in warehouse
 * `wh` (the including test defines and fills it), random commits of upserts
 * / deletes (row-kind column "_rk"), and a model independent of the library:
 * a key -> row map; the expected changelog between two states over the keys
 * touched in between: +I after (no before), -D before (no after), -U before
 * + +U after (both; first-row: only +I of new keys), as Java's
 * LookupChangelogMergeFunctionWrapper / FullChangelogMergeFunctionWrapper
 * without row-deduplicate.
 * Checks after each commit: our reader = the model (paimon-table read = the
 * model and paimon-table check at the last commit, with PAIMON_LONG_TESTS=1
 * also at the middle one); with
 * changelog: the latest snapshot COMPACT with changelogManifestList and
 * changelogRecordCount = the expected changelog (when not empty), our
 * incremental changelog read of the commit's snapshots = it; at the end all
 * changelog files read by DuckDB = every expected changelog.
 * Header-only (static functions); needs harness.h, support/oracle_table.h,
 * support/oracle_write.h, support/pk_write.h included before it.
 */
#ifndef PM_TESTS_SUPPORT_PK_CHANGELOG_H
#define PM_TESTS_SUPPORT_PK_CHANGELOG_H

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "support/pk_transitions.h"

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

#define TABLE_COLS "id INT NOT NULL, pt STRING NOT NULL, v STRING, n BIGINT"
static const char *const COLS[] = {"id:i:notnull", "pt:u:notnull", "v:u", "n:l", "_rk:c:notnull"};

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

/* Applies one commit's rows (one flush) to model, noting the keys in touched.
 * first_row: a key keeps its first row. */
static void model_apply(json_t *model, json_t *touched, const char *jsonl, int first_row) {
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
  json_decref(rows);
}

static json_t *model_rows(const json_t *model) {
  json_t *out = json_array();
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)model, k, v) json_array_append(out, v);
  return out;
}

/* Rows of one commit: n rows over keys 0..n_keys-1 of partitions a / b,
 * kinds mostly upserts, some -D / -U (first_row: +I only); repeat: values
 * from two per key (so upserts often repeat the row). */
static char *gen_commit(uint64_t *seed, int n, int n_keys, int first_row, int c, int repeat) {
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
    if (repeat) /* few distinct values per key: upserts often leave the row unchanged */
      len += (size_t)snprintf(s + len, cap - len, "{\"id\":%d,\"pt\":\"%s\",\"v\":\"s%d\",\"n\":%d,\"_rk\":%d}\n", id,
                              pt, (int)((x >> 24) % 2), id, kind);
    else if ((x >> 20) % 5 == 0)
      len += (size_t)snprintf(s + len, cap - len, "{\"id\":%d,\"pt\":\"%s\",\"v\":null,\"n\":%d,\"_rk\":%d}\n", id,
                              pt, c * 1000 + i, kind);
    else
      len += (size_t)snprintf(s + len, cap - len, "{\"id\":%d,\"pt\":\"%s\",\"v\":\"v%d.%d\",\"n\":%d,\"_rk\":%d}\n",
                              id, pt, c, i, c * 1000 + i, kind);
  }
  return s;
}

/* ------------------------------------------------------------ checks */

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

/* Writes and commits one batch; identifier < 0: a batch commit, else a streaming commit with it. */
static int write_commit_id(paimon_table *t, const char *jsonl, int64_t identifier, paimon_error *err) {
  if (identifier < 0) return write_commit(t, jsonl, err);
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int rc = paimon_write_builder_new(t, 1, NULL, 0, &wb, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  struct ArrowSchema s;
  struct ArrowArray a;
  pkw_batch(COLS, 5, jsonl, &s, &a);
  if (!rc) rc = paimon_table_write_with_row_kind_column(w, "_rk", err);
  if (!rc) rc = paimon_table_write_arrow(w, &s, &a, err);
  if (a.release) a.release(&a);
  if (s.release) s.release(&s);
  if (!rc) rc = paimon_table_write_prepare_commit(w, identifier, &m, err);
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!rc) rc = paimon_table_commit_commit(c, m, identifier, NULL, err);
  paimon_commit_messages_free(m);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  return rc;
}

typedef struct cl_case {
  const char *name;
  const char *const *opts;
  size_t n_opts;
  int first_row, with_cl;
  int n_commits, rows_per_commit, n_keys;
  int min_levels; /* the live files at the end span at least this many levels */
  uint64_t seed;
  int delta; /* 0: batch commits, each producing its changelog; > 0: streaming commits 1..n, changelog
              * (a full compaction) at identifiers % delta == 0 */
  int row_dedup; /* changelog-producer.row-deduplicate is set (the case's opts): rows repeat, no -U/+U of equal rows */
} cl_case;

/* The case's random commits into a new table, checked after each;
 * dedup_ignore: the one column changelog-producer.row-deduplicate-ignore-fields
 * (in the case's opts) names, or NULL. */
static void run_case_ignoring(const cl_case *k, const char *dedup_ignore) {
  int long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  const char *name = k->name;
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_table *t = make_table(cat, name, k->opts, k->n_opts);
  json_t *model = json_object(), *all = json_array();
  json_t *before = json_object(), *touched = json_object();
  uint64_t seed = k->seed;
  paimon_error err = {0};
  for (int c = 0; c < k->n_commits; c++) {
    char *rows = gen_commit(&seed, k->rows_per_commit, k->n_keys, k->first_row, c, k->row_dedup);
    int64_t prev = snapshot_count(name);
    CHECK_OK(write_commit_id(t, rows, k->delta ? c + 1 : -1, &err), &err);
    model_apply(model, touched, rows, k->first_row);
    json_t *changes = json_array();
    if (!k->delta || (c + 1) % k->delta == 0) {
      model_changes_ignoring(before, model, touched, changes, k->first_row, k->row_dedup, dedup_ignore);
      json_decref(before);
      before = json_deep_copy(model);
      json_object_clear(touched);
    }
    char what[128];
    snprintf(what, sizeof what, "%s commit %d", name, c + 1);
    /* the oracle (a node process per call, ~1 s each) at the last commit; also at the middle one in long mode */
    int oracle = c == k->n_commits - 1 || (long_mode && c == k->n_commits / 2);
    check_commit(t, name, model, changes, prev, k->with_cl, oracle, what);
    json_array_extend(all, changes);
    json_decref(changes);
    free(rows);
  }
  /* the live files span several levels (the lookups reached levels above the outputs) */
  if (k->min_levels > 1) {
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
    CHECK_MSG(n_seen >= k->min_levels, "%s: live files on %d levels", name, n_seen);
    json_decref(files);
    paimon_table_free(ft);
  }
  if (k->with_cl) {
    check_changelog_files(name, all);
  } else {
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "ls %s/pt=*/bucket-*/ | grep -c '^changelog-' || true", table_dir(name));
    CHECK_EQ_INT(ot_shell(cmd, &out), 0);
    CHECK_MSG(out && atoi(out) == 0, "%s: no changelog files: %s", name, out ? out : "");
    free(out);
  }
  json_decref(before);
  json_decref(touched);
  json_decref(all);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void run_case(const cl_case *k) { run_case_ignoring(k, NULL); }

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

#endif
