/*
 * Appending to Java-written tables (issue 11 §5): copies of append fixture
 * tables (Parquet and ORC data; the fixtures are read-only) take a new commit
 * through the public write API (rows = copies of the table's own expected rows,
 * so they fit its latest schema), then:
 *   - Parquet data + Avro manifests: `paimon-table check --allow-old` passes (the
 *     Java parts are older shapes) and `paimon-table read` returns the fixture's
 *     expected rows plus the new ones; our reader returns the same;
 *   - ORC data or ORC manifests (paimon-table reads neither): our reader returns
 *     expected + new rows, and `check` reports nothing but the ORC-manifest
 *     notices it always gives for such tables;
 *   - continuity, read from the manifests with the independent avro-dump: the
 *     new snapshot id follows, it and the new files carry the latest schema id;
 *     row-tracking tables: the new file's firstRowId = the previous nextRowId and
 *     nextRowId advances by the rows added, sequence numbers stamped with the
 *     snapshot id (SEMANTICS 9.2); unaware-bucket files number from 0 (7.2).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"

static char tmp_root[256];

typedef struct java_case {
  const char *table;    /* under fixtures/warehouse */
  const char *known;    /* a known failure (runs only with PM_KNOWN_FAILURES=1), or NULL */
  const char *expected; /* fixtures/expected file (latest snapshot) */
  int oracle_read;      /* Parquet data and Avro manifests: paimon-table can read it */
  int avro_manifests;
} java_case;

static const java_case CASES[] = {
    {"parquet/append_table_with_alter_table.db/append_table_with_alter_table", NULL,
     "parquet__append_table_with_alter_table__snapshot-2.json", 1, 1},
    {"parquet/append_table_row_tracking_with_compact.db/append_table_row_tracking_with_compact",
     NULL,
     "parquet__append_table_row_tracking_with_compact__snapshot-4.json", 1, 1},
    {"parquet/append_complex_build_in_fieldid.db/append_complex_build_in_fieldid", NULL,
     "parquet__append_complex_build_in_fieldid__snapshot-1.json", 1, 1},
    {"parquet/append_table_alter_table_with_cast.db/append_table_alter_table_with_cast", NULL,
     "parquet__append_table_alter_table_with_cast__snapshot-2.json", 1, 1},
    {"parquet/append_with_bitmap.db/append_with_bitmap", NULL, "parquet__append_with_bitmap__snapshot-1.json", 1, 1},
    {"parquet/append_09.db/append_09", NULL, "parquet__append_09__snapshot-5.json", 0, 0},
    {"orc/append_table_with_alter_table.db/append_table_with_alter_table", NULL,
     "orc__append_table_with_alter_table__snapshot-2.json", 0, 0},
    {"orc/append_10.db/append_10", NULL, "orc__append_10__snapshot-1.json", 0, 0},
    /* ORC manifests with row tracking (a compacted file without firstRowId) and a partitioned
     * Parquet table with ORC manifests and a null partition */
    {"orc/append_table_row_tracking_with_compact.db/append_table_row_tracking_with_compact", NULL,
     "orc__append_table_row_tracking_with_compact__snapshot-4.json", 0, 0},
    {"parquet/append_with_empty_partition.db/append_with_empty_partition", NULL,
     "parquet__append_with_empty_partition__snapshot-1.json", 0, 0},
};

/* avro-dump --records of a file as JSON objects (NULL on failure). */
static json_t *avro_records(const char *path) {
  char cmd[2048], *out = NULL;
  snprintf(cmd, sizeof cmd, "%s/tools/avro-dump '%s' --records 2>&1", PAIMON_SHARED_DIR, path);
  int rc = ot_shell(cmd, &out);
  json_t *rows = rc == 0 ? ot_parse_lines(out, NULL) : NULL;
  if (!rows) fprintf(stderr, "avro-dump %s failed (%d): %.500s\n", path, rc, out ? out : "");
  free(out);
  return rows;
}

static json_t *load_snapshot(const char *dir, long long id) {
  char p[1400];
  snprintf(p, sizeof p, "%s/snapshot/snapshot-%lld", dir, id);
  return json_load_file(p, 0, NULL);
}

static long long latest_schema_id(const char *dir) {
  long long id = -1;
  for (long long i = 0; i < 1000; i++) {
    char p[1400];
    snprintf(p, sizeof p, "%s/schema/schema-%lld", dir, i);
    if (access(p, F_OK) != 0) break;
    id = i;
  }
  return id;
}

/* ADD entries of a snapshot's delta manifest list (via avro-dump). */
static json_t *delta_adds(const char *dir, const json_t *snap) {
  json_t *adds = json_array();
  char p[1400];
  snprintf(p, sizeof p, "%s/manifest/%s", dir, json_string_value(json_object_get(snap, "deltaManifestList")));
  json_t *list = avro_records(p);
  size_t i;
  json_t *m;
  json_array_foreach(list, i, m) {
    snprintf(p, sizeof p, "%s/manifest/%s", dir, json_string_value(json_object_get(m, "_FILE_NAME")));
    json_t *entries = avro_records(p);
    size_t j;
    json_t *e;
    json_array_foreach(entries, j, e) if (json_integer_value(json_object_get(e, "_KIND")) == 0)
        json_array_append(adds, e);
    json_decref(entries);
  }
  json_decref(list);
  return adds;
}

/* Every FAIL line of a check report is one of the ORC-manifest notices. */
static int only_orc_manifest_failures(const char *report) {
  const char *p = report;
  while (p && *p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char line[2048];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
    if (!strncmp(line, "FAIL ", 5) && !strstr(line, "is ORC; Java master reads Avro") &&
        !strstr(line, "live file set: orc manifests") && !strstr(line, " problems"))
      return 0;
    p = nl ? nl + 1 : NULL;
  }
  return 1;
}

/* The FAIL lines (problem lines, not the count) of `check --allow-old` on dir; *out malloc'd. */
static size_t fail_lines(const char *dir, char ***out) {
  char *rep = NULL;
  *out = NULL;
  size_t n = 0;
  if (ot_check(dir, OT_ALLOW_OLD, &rep) != 0 && rep) {
    for (const char *p = rep; p && *p;) {
      const char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) : strlen(p);
      if (len > 5 && !strncmp(p, "FAIL ", 5) && !(len > 9 && !strncmp(p + len - 9, " problems", 9))) {
        *out = realloc(*out, (n + 1) * sizeof **out);
        (*out)[n++] = strndup(p, len);
        fprintf(stderr, "  fixture's own: %s\n", (*out)[n - 1]);
      }
      p = nl ? nl + 1 : NULL;
    }
  }
  free(rep);
  return n;
}

static void run_case(const java_case *c, size_t idx) {
  char wh[512], dir[1200], ident[600], db[256], name[256];
  snprintf(wh, sizeof wh, "%s/wh%zu", tmp_root, idx);
  /* "<fmt>/<db>.db/<table>" */
  const char *slash = strchr(c->table, '/');
  const char *dbdir = slash + 1;
  const char *dot = strstr(dbdir, ".db/");
  snprintf(db, sizeof db, "%.*s", (int)(dot - dbdir), dbdir);
  snprintf(name, sizeof name, "%s", dot + 4);
  snprintf(ident, sizeof ident, "%s.%s", db, name);
  snprintf(dir, sizeof dir, "%s/%s.db/%s", wh, db, name);
  char cmd[3000];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp -r '%s/fixtures/warehouse/%.*s.db' '%s/' && chmod -R u+w '%s'", wh,
           PAIMON_SHARED_DIR, (int)(dot - c->table), c->table, wh, wh);
  CHECK(system(cmd) == 0);

  /* the fixture's rows (system columns dropped) */
  char ep[1024];
  snprintf(ep, sizeof ep, "%s/fixtures/expected/%s", PAIMON_SHARED_DIR, c->expected);
  json_t *e = json_load_file(ep, 0, NULL);
  CHECK(e != NULL);
  if (!e) return;
  json_t *cols = json_object_get(e, "columns"), *sys = json_object_get(e, "system_columns");
  const char *names[64];
  size_t nc = 0;
  for (size_t i = 0; i < json_array_size(cols) && nc < 64; i++) names[nc++] = json_string_value(json_array_get(cols, i));
  json_t *old_rows = ot_rows_from_arrays(json_object_get(e, "rows"), names, nc);
  size_t i;
  json_t *r;
  json_array_foreach(old_rows, i, r) {
    size_t j;
    json_t *sc;
    json_array_foreach(sys, j, sc) json_object_del(r, json_string_value(sc));
  }
  /* new rows: copies of the first three */
  char *lines = calloc(1, 1);
  size_t len = 0;
  json_t *new_rows = json_array();
  for (i = 0; i < json_array_size(old_rows) && i < 3; i++) {
    char *s = json_dumps(json_array_get(old_rows, i), JSON_COMPACT);
    lines = realloc(lines, len + strlen(s) + 2);
    len += (size_t)sprintf(lines + len, "%s\n", s);
    free(s);
    json_array_append(new_rows, json_array_get(old_rows, i));
  }
  /* what `check` already reports on the untouched copy (this fixture's paimon-cpp-written Parquet
   * files fail Java's profile by design): our commit must add no problem of its own */
  char **fixture_fails = NULL;
  size_t n_fixture_fails = 0;
  if (c->oracle_read) n_fixture_fails = fail_lines(dir, &fixture_fails);
  ot_snapshot *before = NULL;
  size_t gaps = 0, n_before = ot_snapshots(dir, &before, &gaps);
  long long old_id = n_before ? before[n_before - 1].id : 0;
  json_t *old_snap = load_snapshot(dir, old_id);
  long long schema_id = latest_schema_id(dir);

  paimon_option wo = {"warehouse", wh};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&wo, 1, &cat, &err), &err);
  if (cat) CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  int64_t snap = -1;
  if (t) CHECK_OK(ow_write_commit(t, NULL, 0, 0, lines, NULL, 0, 0, &snap, &err), &err);
  CHECK_EQ_INT(snap, old_id + 1);

  json_t *want = json_deep_copy(old_rows);
  ot_model_append(&(ot_model){want}, new_rows);
  char what[600];
  snprintf(what, sizeof what, "%s + %zu rows", c->table, json_array_size(new_rows));
  /* the oracle */
  if (c->oracle_read) {
    if (n_fixture_fails)
      CHECK(ot_check_ok_allowing(dir, OT_ALLOW_OLD, (const char *const *)fixture_fails, n_fixture_fails, what));
    else
      CHECK(ot_check_ok(dir, OT_ALLOW_OLD, what));
    CHECK(ot_read_equals(dir, NULL, want, what));
  } else {
    char *rep = NULL;
    ot_check(dir, OT_ALLOW_OLD, &rep);
    CHECK_MSG(only_orc_manifest_failures(rep), "%s: check: %s", what, rep ? rep : "");
    free(rep);
  }
  /* our reader */
  paimon_table *t2 = NULL;
  if (cat) CHECK_OK(paimon_catalog_get_table(cat, ident, &t2, &err), &err);
  json_t *ours = t2 ? ow_read_ours(t2, &err) : NULL;
  CHECK_MSG(ours != NULL, "%s: our read: %s", what, err.message);
  char msg[8192];
  if (ours) CHECK_MSG(ot_rows_match(want, ours, msg, sizeof msg), "%s (our reader): %s", what, msg);

  /* continuity */
  json_t *ns = load_snapshot(dir, old_id + 1);
  CHECK(ns != NULL);
  if (ns) {
    CHECK_EQ_INT(json_integer_value(json_object_get(ns, "schemaId")), schema_id);
    CHECK_EQ_STR(json_string_value(json_object_get(ns, "commitKind")), "APPEND");
    CHECK_EQ_INT(json_integer_value(json_object_get(ns, "totalRecordCount")),
                 json_integer_value(json_object_get(old_snap, "totalRecordCount")) + (long long)json_array_size(new_rows));
    const char *rt = t ? paimon_table_option(t, "row-tracking.enabled") : NULL;
    int row_tracking = rt && !strcmp(rt, "true");
    const char *bk = t ? paimon_table_option(t, "bucket") : NULL;
    int unaware = !bk || atoi(bk) == -1;
    long long old_next = json_integer_value(json_object_get(old_snap, "nextRowId"));
    if (row_tracking)
      CHECK_EQ_INT(json_integer_value(json_object_get(ns, "nextRowId")), old_next + (long long)json_array_size(new_rows));
    if (c->avro_manifests) {
      json_t *adds = delta_adds(dir, ns);
      CHECK(json_array_size(adds) >= 1);
      long long next = old_next, rows_added = 0;
      size_t k;
      json_t *a;
      json_array_foreach(adds, k, a) {
        json_t *f = json_object_get(a, "_FILE");
        CHECK_EQ_INT(json_integer_value(json_object_get(f, "_SCHEMA_ID")), schema_id);
        rows_added += json_integer_value(json_object_get(f, "_ROW_COUNT"));
        long long minseq = json_integer_value(json_object_get(f, "_MIN_SEQUENCE_NUMBER"));
        long long maxseq = json_integer_value(json_object_get(f, "_MAX_SEQUENCE_NUMBER"));
        if (row_tracking) {
          CHECK_EQ_INT(json_integer_value(json_object_get(f, "_FIRST_ROW_ID")), next);
          next += json_integer_value(json_object_get(f, "_ROW_COUNT"));
          CHECK_EQ_INT(minseq, old_id + 1);
          CHECK_EQ_INT(maxseq, old_id + 1);
        } else if (unaware) {
          CHECK_EQ_INT(minseq, 0);
          CHECK_EQ_INT(maxseq, json_integer_value(json_object_get(f, "_ROW_COUNT")) - 1);
        }
      }
      CHECK_EQ_INT(rows_added, (long long)json_array_size(new_rows));
      json_decref(adds);
    }
    json_decref(ns);
  }
  for (i = 0; i < n_fixture_fails; i++) free(fixture_fails[i]);
  free(fixture_fails);
  free(before);
  json_decref(old_snap);
  json_decref(ours);
  paimon_table_free(t2);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  json_decref(want);
  json_decref(new_rows);
  json_decref(old_rows);
  json_decref(e);
  free(lines);
}

static void test_append_to_java_tables(void) {
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
    if (CASES[i].known && !getenv("PM_KNOWN_FAILURES")) {
      fprintf(stderr, "  SKIP %s (known bug, PM_KNOWN_FAILURES=1 runs it): %s\n", CASES[i].table, CASES[i].known);
      continue;
    }
    int before = pm_test_failures;
    run_case(&CASES[i], i);
    fprintf(stderr, "  %s %s\n", pm_test_failures == before ? "ok  " : "FAIL", CASES[i].table);
  }
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END();
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_test_write_java_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  RUN_TEST(test_append_to_java_tables);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP") && !pm_test_failures && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
