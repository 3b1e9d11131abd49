/*
 * Writing into copies of Java-written primary-key fixture tables (issue 12
 * §4; the fixtures are read-only): every Parquet and ORC pk_* fixture
 * (deduplicate with bucket-key and deletion vectors (index files in or out of
 * the data directory, cardinality, bitmap file index), merge-on-read with and
 * without sequence.field, partial-update with ignore-delete) takes
 *   1. a commit of updates of about half the fixture's keys, new keys and
 *      deletes (-D; partial-update: ignore-delete drops them), then a
 *      dedicated minor compaction (paimon_table_compact);
 *   2. a commit of more updates, deletes and new keys with a full compaction
 *      in the writer, then a dedicated full compaction;
 * and after each step our reader returns the model: the fixture's expected
 * rows (fixtures/expected, independent of both readers) with the new rows
 * applied (deduplicate: replace / delete; partial-update: non-null overlay).
 * At the end `paimon-table check --allow-old` passes (ORC tables: nothing but
 * its ORC notices) and, for Parquet tables, `paimon-table read` returns the
 * model. Tables with data-file.external-paths are refused (UNSUPPORTED,
 * table unchanged).
 * make test: the oracle on 3 Parquet tables; PAIMON_LONG_TESTS=1: on all.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "paimon/compact.h"
#include "paimon/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/fixture_copy.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"

static char tmp_root[256];

typedef struct java_case {
  const char *fmt, *table, *expected;
  int oracle_normal; /* the oracle also in make test */
} java_case;

static const java_case CASES[] = {
    {"parquet", "pk_09", "parquet__pk_09__snapshot-8.json", 1},
    {"parquet", "pk_dv_index_in_data_no_external", "parquet__pk_dv_index_in_data_no_external__snapshot-4.json", 0},
    {"parquet", "pk_dv_index_not_in_data_no_external", "parquet__pk_dv_index_not_in_data_no_external__snapshot-4.json",
     0},
    {"parquet", "pk_table_with_dv_cardinality", "parquet__pk_table_with_dv_cardinality__snapshot-4.json", 0},
    {"parquet", "pk_with_bitmap_dv", "parquet__pk_with_bitmap_dv__snapshot-4.json", 1},
    {"parquet", "pk_table_partial_update", "parquet__pk_table_partial_update__snapshot-2.json", 1},
    {"parquet", "pk_table_scan_and_read_mor", "parquet__pk_table_scan_and_read_mor__snapshot-5.json", 0},
    {"parquet", "pk_table_with_mor", "parquet__pk_table_with_mor__snapshot-3.json", 0},
    {"orc", "pk_09", "orc__pk_09__snapshot-8.json", 0},
    {"orc", "pk_dv_index_in_data_no_external", "orc__pk_dv_index_in_data_no_external__snapshot-4.json", 0},
    {"orc", "pk_dv_index_with_commit_message_version10", "orc__pk_dv_index_with_commit_message_version10__snapshot-4.json",
     0},
    {"orc", "pk_table_with_dv_cardinality", "orc__pk_table_with_dv_cardinality__snapshot-4.json", 0},
    {"orc", "pk_with_bitmap_dv", "orc__pk_with_bitmap_dv__snapshot-4.json", 0},
    {"orc", "pk_table_partial_update", "orc__pk_table_partial_update__snapshot-2.json", 0},
    {"orc", "pk_table_scan_and_read_mor", "orc__pk_table_scan_and_read_mor__snapshot-5.json", 0},
    {"orc", "pk_table_with_mor", "orc__pk_table_with_mor__snapshot-3.json", 0},
};

/* Refused: data-file.external-paths (the writer does not place files on external paths yet). */
static const char *const REFUSED[] = {"pk_dv_index_in_data_with_external", "pk_dv_index_not_in_data_with_external"};

/* ------------------------------------------------------------ the table's shape */

typedef struct shape {
  char *keys[8];
  size_t nk;
  char *seq_fields[4]; /* sequence.field columns: kept as found (a newer write wins on equal values) */
  size_t n_seq;
  char *num_cols[16]; /* non-key INT / BIGINT / DOUBLE columns (updated) */
  size_t n_num;
  char *num_types[16];
  char *key_int, *key_str; /* a non-partition INT / STRING key column (new keys) */
  int partial, ignore_delete;
} shape;

static int in_list(char *const *l, size_t n, const char *s) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(l[i], s)) return 1;
  return 0;
}

static int read_shape(const char *dir, shape *sh) {
  memset(sh, 0, sizeof *sh);
  json_t *schema = NULL;
  for (int id = 100; id >= 0 && !schema; id--) {
    char p[1400];
    snprintf(p, sizeof p, "%s/schema/schema-%d", dir, id);
    schema = json_load_file(p, 0, NULL);
  }
  CHECK_MSG(schema != NULL, "%s: no schema", dir);
  if (!schema) return -1;
  json_t *pk = json_object_get(schema, "primaryKeys"), *parts = json_object_get(schema, "partitionKeys");
  json_t *opts = json_object_get(schema, "options"), *v;
  size_t i;
  json_array_foreach(pk, i, v) if (sh->nk < 8) sh->keys[sh->nk++] = strdup(json_string_value(v));
  const char *sf = json_string_value(json_object_get(opts, "sequence.field"));
  if (sf) {
    char *d = strdup(sf), *save = NULL;
    for (char *tok = strtok_r(d, ",", &save); tok && sh->n_seq < 4; tok = strtok_r(NULL, ",", &save))
      sh->seq_fields[sh->n_seq++] = strdup(tok);
    free(d);
  }
  const char *me = json_string_value(json_object_get(opts, "merge-engine"));
  sh->partial = me && !strcmp(me, "partial-update");
  const char *id = json_string_value(json_object_get(opts, "ignore-delete"));
  sh->ignore_delete = id && !strcmp(id, "true");
  json_array_foreach(json_object_get(schema, "fields"), i, v) {
    const char *name = json_string_value(json_object_get(v, "name"));
    const char *type = json_string_value(json_object_get(v, "type"));
    int is_part = 0;
    size_t j;
    json_t *pv;
    json_array_foreach(parts, j, pv) is_part |= !strcmp(json_string_value(pv), name);
    int is_key = in_list(sh->keys, sh->nk, name);
    int is_int = !strncmp(type, "INT", 3) || !strncmp(type, "BIGINT", 6), is_dbl = !strncmp(type, "DOUBLE", 6);
    if (is_key && !is_part && is_int && !sh->key_int) sh->key_int = strdup(name);
    if (is_key && !is_part && !strncmp(type, "STRING", 6) && !sh->key_str) sh->key_str = strdup(name);
    if (!is_key && !in_list(sh->seq_fields, sh->n_seq, name) && (is_int || is_dbl) && sh->n_num < 16) {
      sh->num_types[sh->n_num] = strdup(is_dbl ? "d" : "i");
      sh->num_cols[sh->n_num++] = strdup(name);
    }
  }
  json_decref(schema);
  return sh->n_num && (sh->key_int || sh->key_str) ? 0 : -1;
}

static void shape_free(shape *sh) {
  for (size_t i = 0; i < sh->nk; i++) free(sh->keys[i]);
  for (size_t i = 0; i < sh->n_seq; i++) free(sh->seq_fields[i]);
  for (size_t i = 0; i < sh->n_num; i++) {
    free(sh->num_cols[i]);
    free(sh->num_types[i]);
  }
  free(sh->key_int);
  free(sh->key_str);
}

/* ------------------------------------------------------------ model */

static char *key_of(const shape *sh, const json_t *row) {
  json_t *k = json_array();
  for (size_t i = 0; i < sh->nk; i++) json_array_append(k, json_object_get(row, sh->keys[i]));
  char *s = json_dumps(k, JSON_COMPACT | JSON_ENCODE_ANY);
  json_decref(k);
  return s;
}

/* A row of kind 0 (+I) or 3 (-D) as the table applies it. */
static void model_apply(const shape *sh, json_t *model, int kind, const json_t *row) {
  char *k = key_of(sh, row);
  json_t *cur = json_object_get(model, k);
  if (kind == 3) {
    if (!(sh->partial && sh->ignore_delete)) json_object_del(model, k);
  } else if (!sh->partial || !cur) {
    json_object_set_new(model, k, json_deep_copy(row));
  } else {
    const char *c;
    json_t *v;
    json_object_foreach((json_t *)row, c, v) if (!json_is_null(v)) json_object_set(cur, c, v);
  }
  free(k);
}

static json_t *model_rows(const json_t *model) {
  json_t *out = json_array();
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)model, k, v) json_array_append(out, v);
  return out;
}

static json_t *expected_rows(const char *file) {
  char p[1024];
  snprintf(p, sizeof p, "%s/fixtures/expected/%s", PAIMON_SHARED_DIR, file);
  json_error_t je;
  json_t *e = json_load_file(p, 0, &je);
  CHECK_MSG(e != NULL, "%s: %s", p, je.text);
  if (!e) return json_array();
  json_t *cols = json_object_get(e, "columns");
  const char *names[64];
  size_t n = json_array_size(cols);
  for (size_t i = 0; i < n && i < 64; i++) names[i] = json_string_value(json_array_get(cols, i));
  json_t *rows = ot_rows_from_arrays(json_object_get(e, "rows"), names, n);
  json_decref(e);
  return rows;
}

/* ------------------------------------------------------------ writing */

static char *to_lines(const json_t *rows) {
  size_t cap = 64, len = 0, i;
  char *s = malloc(cap);
  s[0] = 0;
  json_t *r;
  json_array_foreach(rows, i, r) {
    char *l = json_dumps(r, JSON_COMPACT);
    size_t n = strlen(l);
    if (len + n + 2 > cap) s = realloc(s, cap = (len + n + 2) * 2);
    memcpy(s + len, l, n);
    s[len + n] = '\n';
    s[len += n + 1] = 0;
    free(l);
  }
  return s;
}

/* Writes upserts then deletes in one batch writer (compact >= 0: paimon_table_write_compact
 * with full = compact before prepare) and commits. */
static int write_commit(paimon_table *t, const json_t *ups, const json_t *dels, int compact, paimon_error *err) {
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  const json_t *parts[2] = {ups, dels};
  for (int i = 0; i < 2 && !rc; i++) {
    if (!json_array_size(parts[i])) continue;
    char *lines = to_lines(parts[i]);
    struct ArrowSchema s;
    struct ArrowArray a;
    rc = ow_batch(t, lines, &s, &a, err);
    if (!rc) rc = paimon_table_write_arrow_kind(w, &s, &a, i ? 3 : 0, err);
    if (a.release) a.release(&a);
    if (s.release) s.release(&s);
    free(lines);
  }
  if (!rc && compact >= 0) rc = paimon_table_write_compact(w, NULL, 0, -1, compact, err);
  if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, err);
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!rc) rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, err);
  paimon_commit_messages_free(m);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  return rc;
}

/* Round r's rows from the current model rows: updates of every other row (from offset r, new
 * numbers; partial-update: one column set, the others null), deletes of every 5th row,
 * and 3 + r new keys copied from the first row. */
static void make_round(const shape *sh, const json_t *cur, int r, json_t *ups, json_t *dels) {
  size_t i, n = json_array_size(cur);
  json_t *row;
  json_array_foreach(cur, i, row) {
    if ((i + (size_t)r) % 2 == 0) {
      json_t *u = json_deep_copy(row);
      for (size_t c = 0; c < sh->n_num; c++) {
        const char *col = sh->num_cols[c];
        if (sh->partial && (c + i) % 2) {
          json_object_set_new(u, col, json_null());
        } else if (sh->num_types[c][0] == 'd') {
          json_object_set_new(u, col, json_real(100.0 * r + (double)i + 0.25));
        } else {
          json_object_set_new(u, col, json_integer(1000 * (r + 1) + (json_int_t)i));
        }
      }
      json_array_append_new(ups, u);
    } else if ((i + (size_t)r) % 5 == 1) {
      json_array_append(dels, row);
    }
  }
  for (int k = 0; k < 3 + r && n; k++) {
    json_t *u = json_deep_copy(json_array_get(cur, (size_t)k % n));
    if (sh->key_int) json_object_set_new(u, sh->key_int, json_integer(90000 + 100 * r + k));
    else {
      char s[32];
      snprintf(s, sizeof s, "new-%d-%d", r, k);
      json_object_set_new(u, sh->key_str, json_string(s));
    }
    json_object_set_new(u, sh->num_cols[0], sh->num_types[0][0] == 'd' ? json_real(k + 0.5) : json_integer(k));
    json_array_append_new(ups, u);
  }
}

/* "null of manifest-<uuid>-" for the manifest file name prefixes of the fixture rel (at most cap). */
static size_t old_manifest_prefixes(const char *rel, char **out, size_t cap) {
  char d[1024];
  snprintf(d, sizeof d, "%s/fixtures/warehouse/%s/manifest", PAIMON_SHARED_DIR, rel);
  DIR *dir = opendir(d);
  size_t n = 0;
  struct dirent *de;
  while (dir && (de = readdir(dir)) != NULL) {
    const char *name = de->d_name, *dash = strrchr(name, '-');
    if (strncmp(name, "manifest-", 9) || !strncmp(name, "manifest-list-", 14) || !dash) continue;
    char p[300];
    snprintf(p, sizeof p, "null of %.*s", (int)(dash - name + 1), name);
    int dup = 0;
    for (size_t i = 0; i < n && !dup; i++) dup = !strcmp(out[i], p);
    if (!dup && n < cap) out[n++] = strdup(p);
  }
  if (dir) closedir(dir);
  return n;
}

static int only_orc_notices(const char *report) {
  const char *p = report;
  while (p && *p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char line[2048];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
    if (!strncmp(line, "FAIL ", 5) && !strstr(line, "is ORC; Java master reads Avro") &&
        !strstr(line, "live file set: orc manifests") && !strstr(line, " problems") && !strstr(line, "ORC"))
      return 0;
    p = nl ? nl + 1 : NULL;
  }
  return 1;
}

static void check_ours(paimon_table *t, const json_t *model, const char *what) {
  json_t *want = model_rows(model);
  paimon_error err = {0};
  json_t *ours = ow_read_ours(t, &err);
  char msg[8192];
  CHECK_MSG(ours && ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader != model: %s", what,
            ours ? msg : err.message);
  json_decref(ours);
  json_decref(want);
}

static void run_case(const java_case *jc, size_t idx, int oracle) {
  char root[512], rel[512], dir[1200], ident[600];
  snprintf(root, sizeof root, "%s/wh%zu", tmp_root, idx);
  snprintf(rel, sizeof rel, "%s/%s.db/%s", jc->fmt, jc->table, jc->table);
  snprintf(dir, sizeof dir, "%s/%s.db/%s", root, jc->table, jc->table);
  snprintf(ident, sizeof ident, "%s.%s", jc->table, jc->table);
  CHECK_EQ_INT(fc_copy_fixture(rel, dir), 0);
  shape sh;
  CHECK_MSG(read_shape(dir, &sh) == 0, "%s: no numeric value column and int/string key", rel);
  paimon_option wo = {"warehouse", root};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&wo, 1, &cat, &err), &err);
  if (cat) CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  json_t *model = json_object(), *old = expected_rows(jc->expected), *r;
  size_t i;
  json_array_foreach(old, i, r) model_apply(&sh, model, 0, r);
  check_ours(t, model, rel);
  for (int round = 0; t && round < 2; round++) {
    json_t *cur = model_rows(model), *ups = json_array(), *dels = json_array();
    make_round(&sh, cur, round, ups, dels);
    char what[700];
    snprintf(what, sizeof what, "%s round %d (%zu upserts, %zu deletes)", rel, round, json_array_size(ups),
             json_array_size(dels));
    CHECK_OK(write_commit(t, ups, dels, round == 1 ? 1 : -1, &err), &err);
    json_array_foreach(ups, i, r) model_apply(&sh, model, 0, r);
    json_array_foreach(dels, i, r) model_apply(&sh, model, 3, r);
    check_ours(t, model, what);
    paimon_compact_options co;
    paimon_compact_options_init(&co);
    co.full = round;
    paimon_compact_result res;
    CHECK_OK(paimon_table_compact(t, &co, &res, &err), &err);
    strcat(what, " + compaction");
    check_ours(t, model, what);
    json_decref(cur);
    json_decref(ups);
    json_decref(dels);
  }
  if (oracle && ot_available()) {
    json_t *want = model_rows(model);
    if (!strcmp(jc->fmt, "parquet")) {
      /* the fixtures' own paimon-cpp-written files fail the Java Parquet profile (tools/README.md);
       * manifests of an older Java (pk_09: lists without _MIN_BUCKET / _MAX_BUCKET / _MIN_LEVEL /
       * _MAX_LEVEL) stay in the new lists with those fields null, as Java's ManifestFileMerger keeps
       * small manifests unmerged (fewer than manifest.merge-min-count) and copies their metas */
      char *allowed[17] = {strdup("Parquet root name \"schema\" (Java: paimon_schema)")};
      size_t n_allowed = 1 + old_manifest_prefixes(rel, allowed + 1, 16);
      CHECK_MSG(ot_check_ok_allowing(dir, OT_ALLOW_OLD, (const char *const *)allowed, n_allowed, rel), "%s", rel);
      for (size_t a = 0; a < n_allowed; a++) free(allowed[a]);
      CHECK_MSG(ot_read_equals(dir, NULL, want, rel), "%s: paimon-table read != model", rel);
    } else {
      char *rep = NULL;
      ot_check(dir, OT_ALLOW_OLD, &rep);
      CHECK_MSG(only_orc_notices(rep), "%s: check: %s", rel, rep ? rep : "");
      free(rep);
    }
    json_decref(want);
  }
  json_decref(old);
  json_decref(model);
  shape_free(&sh);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_java_pk_tables(void) {
  int long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
    int before = pm_test_failures;
    run_case(&CASES[i], i, long_mode || CASES[i].oracle_normal);
    if (pm_test_failures != before) fprintf(stderr, "  in case %s/%s\n", CASES[i].fmt, CASES[i].table);
  }
}

/* Tables with external data paths: the write is refused and the copy stays as it was. */
static void test_refused(void) {
  for (size_t i = 0; i < sizeof REFUSED / sizeof REFUSED[0]; i++) {
    char root[512], rel[512], dir[1200], ident[600];
    snprintf(root, sizeof root, "%s/ref%zu", tmp_root, i);
    snprintf(rel, sizeof rel, "parquet/%s.db/%s", REFUSED[i], REFUSED[i]);
    snprintf(dir, sizeof dir, "%s/%s.db/%s", root, REFUSED[i], REFUSED[i]);
    snprintf(ident, sizeof ident, "%s.%s", REFUSED[i], REFUSED[i]);
    CHECK_EQ_INT(fc_copy_fixture(rel, dir), 0);
    uint64_t h = ot_state_hash(dir);
    paimon_option wo = {"warehouse", root};
    paimon_catalog *cat = NULL;
    paimon_table *t = NULL;
    paimon_error err = {0};
    CHECK_OK(paimon_catalog_open(&wo, 1, &cat, &err), &err);
    if (cat) CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
    json_t *ups = json_array();
    json_array_append_new(ups, json_pack("{s:s,s:i,s:i,s:f}", "f0", "x", "f1", 10, "f2", 1, "f3", 1.5));
    if (t) {
      CHECK_EQ_INT(write_commit(t, ups, NULL, -1, &err), PAIMON_ERR_UNSUPPORTED);
      CHECK_MSG(strstr(err.message, "data-file.external-paths") != NULL, "%s", err.message);
    }
    CHECK_MSG(ot_state_hash(dir) == h, "%s: the refused write changed the table", rel);
    json_decref(ups);
    paimon_table_free(t);
    paimon_catalog_free(cat);
  }
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_write_pk_java_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  RUN_TEST(test_java_pk_tables);
  RUN_TEST(test_refused);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
