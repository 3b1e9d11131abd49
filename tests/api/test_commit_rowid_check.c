/*
 * The writer-set row-id conflict check of data-evolution tables
 * (paimon_table_commit_with_row_id_check; Java's rowIdCheckConflict and
 * rowIdCheckConflictForMaterializeDvCompaction) and the global-index row-id
 * existence check (Java's checkGlobalIndexRowIdExistence):
 *   1. the column checker's and the range checker's overlap rules against
 *      hand-worked cases (groups of overlapping delta ranges, their field-id
 *      unions across schemas with a renamed column, touching ranges, system
 *      columns, unknown columns);
 *   2. racing commits on a table with row-tracking.enabled and
 *      data-evolution.enabled: a MERGE INTO planned on snapshot S whose rows
 *      (and columns) a later snapshot changed fails with PAIMON_ERR_CONFLICT
 *      naming that file and snapshot, nothing published (snapshot count
 *      unchanged, `paimon-table check` OK, both readers unchanged); the same
 *      commit without the check is accepted (so the check is what catches it);
 *      disjoint rows, disjoint columns, and changes only by COMPACT snapshots
 *      commit; a deletion-vector materializing compaction against a concurrent
 *      column update; through the public API with messages in Java's wire form;
 *   3. a new global-index file (a copy of a Java fixture's) committed through
 *      Java's wire form: rows the live files hold commit; after a concurrent
 *      truncate, or beyond nextRowId, CONFLICT with nothing published.
 */
#include "paimon/paimon.h"
#include "paimon/write.h"
#include "support/commit_fixture.h"
#include "table/commit_internal.h"

static char root[512];

/* ------------------------------------------------------------ checker units */

/* A hand-made file meta: rows from..to (from < 0: no first row id), schema sid, write cols (NULL = null list). */
static pm_data_file_meta meta(int64_t from, int64_t to, int64_t sid, const char **cols, int n_cols) {
  pm_data_file_meta f;
  memset(&f, 0, sizeof f);
  f.file_name = "data-x.parquet";
  f.has_first_row_id = from >= 0;
  f.first_row_id = from < 0 ? 0 : from;
  f.row_count = to - from + 1;
  f.schema_id = sid;
  f.write_cols.is_null = cols == NULL;
  f.write_cols.items = cols;
  f.write_cols.n = n_cols;
  return f;
}

static int conflicts(pm_rowid_checker *k, pm_data_file_meta f) {
  pm_error err;
  memset(&err, 0, sizeof err);
  int hit = -1;
  int rc = pm_rowid_checker_conflicts(k, &f, &hit, &err);
  if (rc) fprintf(stderr, "conflicts: %s\n", err.message);
  return rc ? -1 : hit;
}

static void test_checkers(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/units", root);
  cf_make_table(dir, 0, "\"row-tracking.enabled\" : \"true\", \"data-evolution.enabled\" : \"true\"");
  /* schema 1: name renamed to label (still field 1), extra (field 2) added */
  char p[700];
  snprintf(p, sizeof p, "%s/schema/schema-1", dir);
  FILE *f = fopen(p, "w");
  CHECK(f != NULL);
  if (!f) return;
  fprintf(f, "{\n  \"version\" : 3,\n  \"id\" : 1,\n  \"fields\" : [ {\n    \"id\" : 0,\n    \"name\" : \"id\",\n"
             "    \"type\" : \"INT NOT NULL\"\n  }, {\n    \"id\" : 1,\n    \"name\" : \"label\",\n    \"type\" : "
             "\"STRING\"\n  }, {\n    \"id\" : 2,\n    \"name\" : \"extra\",\n    \"type\" : \"INT\"\n  } ],\n"
             "  \"highestFieldId\" : 2,\n  \"partitionKeys\" : [ ],\n  \"primaryKeys\" : [ ],\n  \"options\" : {\n"
             "    \"bucket\" : \"-1\",\n    \"row-tracking.enabled\" : \"true\",\n    \"data-evolution.enabled\" : "
             "\"true\"\n  },\n  \"timeMillis\" : 1733000000001\n}");
  fclose(f);
  pm_table *t = cf_open(dir, NULL);
  pm_error err;
  memset(&err, 0, sizeof err);
  static const char *c_name[] = {"name"}, *c_id[] = {"id"}, *c_extra[] = {"extra"}, *c_label_sys[] = {"_ROW_ID", "label"},
                    *c_sys[] = {"_KEY_id", "_SEQUENCE_NUMBER", "_VALUE_KIND", "_LEVEL", "rowkind"},
                    *c_bad[] = {"nope"};
  /* the commit's files: D1 0..9 {name=1}, D2 5..14 {id=0} overlapping D1 -> group 0..14 {0,1};
   * D3 20..29 {extra=2}; D4 30..39 {label=1} touches D3 but does not overlap -> own group;
   * D5 has no row ids (ignored) */
  pm_data_file_meta d[5] = {meta(0, 9, 0, c_name, 1), meta(5, 14, 0, c_id, 1), meta(20, 29, 1, c_extra, 1),
                            meta(30, 39, 1, c_label_sys, 2), meta(-1, 3, 0, NULL, 0)};
  const pm_data_file_meta *dp[5] = {&d[3], &d[0], &d[4], &d[2], &d[1]}; /* any order */
  pm_rowid_checker *k = NULL;
  CHECK_OK(pm_rowid_checker_new(t, 1, dp, 5, &k, &err), &err);
  if (!k) return;
  CHECK(!pm_rowid_checker_empty(k));
  CHECK_EQ_INT(conflicts(k, meta(15, 19, 0, NULL, 0)), 0);    /* the gap between groups */
  CHECK_EQ_INT(conflicts(k, meta(14, 14, 1, c_extra, 1)), 0); /* rows of 0..14, column not written there */
  CHECK_EQ_INT(conflicts(k, meta(14, 20, 1, c_extra, 1)), 1); /* reaches 20..29, which writes extra */
  CHECK_EQ_INT(conflicts(k, meta(25, 25, 1, c_label_sys, 2)), 0); /* 20..29 writes only extra */
  CHECK_EQ_INT(conflicts(k, meta(29, 30, 0, c_name, 1)), 1); /* name (schema 0) = label (schema 1) of 30..39 */
  CHECK_EQ_INT(conflicts(k, meta(3, 3, 0, c_id, 1)), 1);     /* id of group 0..14 (from D2, not D1's rows) */
  CHECK_EQ_INT(conflicts(k, meta(3, 3, 0, c_sys, 5)), 0);    /* system columns only: writes nothing */
  CHECK_EQ_INT(conflicts(k, meta(20, 20, 0, c_sys, 0)), 0);  /* an empty (non-null) list */
  CHECK_EQ_INT(conflicts(k, meta(0, 100, 0, NULL, 0)), 1);   /* null write cols: all columns */
  CHECK_EQ_INT(conflicts(k, meta(40, 50, 0, NULL, 0)), 0);   /* past the last group */
  CHECK_EQ_INT(conflicts(k, meta(-1, 5, 0, NULL, 0)), 0);    /* no row ids: never */
  CHECK_EQ_INT(conflicts(k, meta(0, 0, 0, c_bad, 1)), -1);   /* unknown column of schema 0 */
  pm_rowid_checker_free(k);
  /* full-schema delta file of schema 1: every field of schema 1 */
  pm_data_file_meta full = meta(100, 109, 1, NULL, 0);
  const pm_data_file_meta *fp = &full;
  CHECK_OK(pm_rowid_checker_new(t, 1, &fp, 1, &k, &err), &err);
  CHECK_EQ_INT(conflicts(k, meta(109, 120, 1, c_extra, 1)), 1);
  CHECK_EQ_INT(conflicts(k, meta(100, 100, 0, c_sys, 5)), 0);
  pm_rowid_checker_free(k);
  /* an unknown column in the commit's own files fails at build time, naming it */
  pm_data_file_meta bad = meta(0, 1, 0, c_bad, 1);
  const pm_data_file_meta *bp = &bad;
  k = NULL;
  CHECK_EQ_INT(pm_rowid_checker_new(t, 1, &bp, 1, &k, &err), PAIMON_ERR_CORRUPT);
  CHECK_MSG(strstr(err.message, "'nope'") != NULL, "%s", err.message);
  CHECK(k == NULL);

  /* the range checker: D1..D4 merged with touching ranges joined -> 0..14, 20..39 */
  CHECK_OK(pm_rowid_checker_new(t, 0, dp, 5, &k, &err), &err);
  CHECK_EQ_INT(conflicts(k, meta(15, 19, 0, NULL, 0)), 0);
  CHECK_EQ_INT(conflicts(k, meta(14, 15, 0, c_bad, 1)), 1); /* columns play no part */
  CHECK_EQ_INT(conflicts(k, meta(39, 45, 0, NULL, 0)), 1);
  CHECK_EQ_INT(conflicts(k, meta(40, 45, 0, NULL, 0)), 0);
  CHECK_EQ_INT(conflicts(k, meta(-1, 45, 0, NULL, 0)), 0);
  pm_rowid_checker_free(k);
  /* only files without row ids: empty (the check is skipped) */
  CHECK_OK(pm_rowid_checker_new(t, 1, &dp[2], 1, &k, &err), &err);
  CHECK(pm_rowid_checker_empty(k));
  pm_rowid_checker_free(k);
  CHECK_OK(pm_rowid_checker_new(t, 0, &dp[2], 1, &k, &err), &err);
  CHECK(pm_rowid_checker_empty(k));
  pm_rowid_checker_free(k);
  pm_table_free(t);
}

/* ------------------------------------------------------------ racing commits */

static void commit_ok(pm_commit *c, pm_manifest_committable *m, int64_t expect, const char *dir) {
  pm_error err;
  memset(&err, 0, sizeof err);
  int64_t sid = 0;
  CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
  CHECK_EQ_INT(sid, expect);
  CHECK_EQ_INT(cf_latest_id(dir), expect);
}

/* CONFLICT naming file and "snapshot <by>", nothing published, table as it was (check OK), messages aborted. */
static void commit_conflict(pm_commit *c, pm_table *t, pm_manifest_committable *m, int64_t latest, const char *dir,
                            const char *file, int64_t by) {
  pm_error err;
  memset(&err, 0, sizeof err);
  int64_t sid = 0;
  char snap[64];
  snprintf(snap, sizeof snap, "by snapshot %lld ", (long long)by);
  CHECK_EQ_INT(pm_commit_append(c, m, 0, &sid, &err), PAIMON_ERR_CONFLICT);
  CHECK_MSG(strstr(err.message, file) != NULL && strstr(err.message, snap) != NULL &&
                strstr(err.message, "row id conflict") != NULL,
            "%s", err.message);
  CHECK_EQ_INT(cf_latest_id(dir), latest);
  CHECK_OK(pm_commit_abort(t, m, &err), &err);
  CHECK(cf_check(dir));
}

static pm_commit *committer(pm_table *t, const char *user, int mode, int64_t from) {
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, user, 0, &c, &err), &err);
  if (c && mode) CHECK_OK(pm_commit_set_rowid_check(c, mode, from, &err), &err);
  return c;
}

static void test_dml_races(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/de", root);
  cf_make_table(dir, 0, "\"row-tracking.enabled\" : \"true\", \"data-evolution.enabled\" : \"true\"");
  pm_table *t = cf_open(dir, NULL);
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  static const int32_t i12[] = {1, 2}, i34[] = {3, 4}, i1020[] = {10, 20};
  static const char *const n12[] = {"a", "b"}, *const n34[] = {"c", "d"}, *const nCD[] = {"C", "D"},
                           *const nXY[] = {"X", "Y"}, *const nAB[] = {"A", "B"}, *const nPQ[] = {"P", "Q"},
                           *const nN[] = {"n1", "n2"}, *const nZ[] = {"z1", "z2"}, *const nK[] = {"k1", "k2"};
  pm_commit *a = committer(t, "writer-a", 0, 0);
  pm_manifest_committable *m1 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 2);
  cf_add_file(m1, t, &pf, NULL, i12, n12, 2);
  cf_add_file(m1, t, &pf, NULL, i34, n34, 2);
  commit_ok(a, m1, 1, dir); /* rows 0..1, 2..3; nextRowId 4 */

  /* 1. a MERGE INTO of rows 2..3 planned on snapshot 1 after a's update of the same rows (snapshot 2) */
  pm_manifest_committable *ma = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  const char *a_file = cf_rowid_update(ma, t, &pf, i34, nCD, 2, 3, 2)->file_name;
  commit_ok(a, ma, 2, dir);
  pm_commit *b = committer(t, "writer-b", PM_ROWID_CHECK_DML, 1);
  pm_manifest_committable *mb = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_rowid_update(mb, t, &pf, i34, nXY, 2, 3, 2);
  commit_conflict(b, t, mb, 2, dir, a_file, 2);
  CHECK(cf_rows_are(dir, "1|a|\n2|b|\n3|C|\n4|D|\n"));
  /* without the check the same commit is accepted (the row ranges match live files exactly) */
  pm_commit *plain = committer(t, "writer-plain", 0, 0);
  pm_manifest_committable *mp = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_rowid_update(mp, t, &pf, i34, nXY, 2, 3, 2);
  commit_ok(plain, mp, 3, dir);
  CHECK(cf_rows_are(dir, "1|a|\n2|b|\n3|X|\n4|Y|\n"));

  /* 2. disjoint rows: b2 (planned on 3) updates rows 0..1 while a updates 2..3 (snapshot 4) */
  pm_commit *b2 = committer(t, "writer-b2", PM_ROWID_CHECK_DML, 3);
  pm_manifest_committable *ma2 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_rowid_update(ma2, t, &pf, i34, nPQ, 2, 3, 2);
  commit_ok(a, ma2, 4, dir);
  pm_manifest_committable *mb2 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_rowid_update(mb2, t, &pf, i12, nAB, 2, 3, 0);
  commit_ok(b2, mb2, 5, dir);
  CHECK(cf_rows_are(dir, "1|A|\n2|B|\n3|P|\n4|Q|\n"));

  /* 3. columns: a sets name of rows 0..1 (snapshot 6); planned on 5, b3 sets id of those rows (disjoint
   * columns: commits, snapshot 7), c3 sets name (the same column: CONFLICT with a's file of snapshot 6) */
  pm_manifest_committable *ma3 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  const char *a3_file = cf_rowid_update(ma3, t, &pf, i12, nN, 2, 2, 0)->file_name;
  commit_ok(a, ma3, 6, dir);
  pm_commit *b3 = committer(t, "writer-b3", PM_ROWID_CHECK_DML, 5);
  pm_manifest_committable *mb3 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_rowid_update(mb3, t, &pf, i1020, nZ, 2, 1, 0);
  commit_ok(b3, mb3, 7, dir);
  pm_commit *c3 = committer(t, "writer-c3", PM_ROWID_CHECK_DML, 5);
  pm_manifest_committable *mc3 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_rowid_update(mc3, t, &pf, i12, nZ, 2, 2, 0);
  commit_conflict(c3, t, mc3, 7, dir, a3_file, 6);
  CHECK(cf_rows_are(dir, "10|n1|\n20|n2|\n3|P|\n4|Q|\n"));

  /* 4. only a COMPACT snapshot since the plan: skipped. a compacts rows 2..3 (snapshot 8, its live
   * files: the first file of rows 2..3 and the three updates); d4, planned on 7, updates them */
  pm_manifest_committable *mk = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  pm_data_file_meta before[4] = {m1->messages[1].new_files.items[0], ma->messages[0].new_files.items[0],
                                 mp->messages[0].new_files.items[0], ma2->messages[0].new_files.items[0]};
  for (int i = 0; i < 4; i++) before[i].first_row_id = 2, before[i].has_first_row_id = 1;
  before[0].min_sequence_number = before[0].max_sequence_number = 1;
  before[1].min_sequence_number = before[1].max_sequence_number = 2;
  before[2].min_sequence_number = before[2].max_sequence_number = 3;
  before[3].min_sequence_number = before[3].max_sequence_number = 4;
  cf_rowid_compaction(mk, t, &pf, before, 4, i34, nPQ, 2, 2);
  commit_ok(a, mk, 8, dir);
  pm_snapshot *s8 = cf_snapshot(dir, 8);
  CHECK(s8 && !strcmp(s8->commit_kind, "COMPACT"));
  pm_snapshot_free(s8);
  pm_commit *d4 = committer(t, "writer-d4", PM_ROWID_CHECK_DML, 7);
  pm_manifest_committable *md4 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_rowid_update(md4, t, &pf, i34, nK, 2, 2, 2);
  commit_ok(d4, md4, 9, dir);
  CHECK(cf_rows_are(dir, "10|n1|\n20|n2|\n3|k1|\n4|k2|\n"));

  /* 5. materializing deletion vectors: a COMPACT rewriting rows 2..3 (planned on 9) after a's column update
   * of rows 2..3 (snapshot 10): CONFLICT (its deleted files' rows against the files snapshot 10 added);
   * with MATERIALIZE_DV an APPEND is not checked (the same committer's append below commits) */
  pm_manifest_committable *ma5 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  const char *a5_file = cf_rowid_update(ma5, t, &pf, i34, nCD, 2, 2, 2)->file_name;
  commit_ok(a, ma5, 10, dir);
  pm_commit *m5 = committer(t, "writer-mat", PM_ROWID_CHECK_MATERIALIZE_DV, 9);
  pm_manifest_committable *mm5 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  pm_data_file_meta compacted = mk->messages[0].compact_after.items[0];
  compacted.min_sequence_number = compacted.max_sequence_number = 8;
  pm_data_file_meta before5[2] = {compacted, md4->messages[0].new_files.items[0]};
  before5[1].min_sequence_number = before5[1].max_sequence_number = 9;
  cf_rowid_compaction(mm5, t, &pf, before5, 2, i34, nK, 2, 2);
  pm_error err;
  memset(&err, 0, sizeof err);
  int64_t sid = 0;
  CHECK_EQ_INT(pm_commit_append(m5, mm5, 0, &sid, &err), PAIMON_ERR_CONFLICT);
  CHECK_MSG(strstr(err.message, a5_file) != NULL && strstr(err.message, "by snapshot 10 ") != NULL,
            "%s", err.message);
  CHECK_EQ_INT(cf_latest_id(dir), 10);
  CHECK_OK(pm_commit_abort(t, mm5, &err), &err);
  pm_manifest_committable *mm6 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_add_file(mm6, t, &pf, NULL, i12, n12, 2);
  commit_ok(m5, mm6, 11, dir);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "10|n1|\n1|a|\n20|n2|\n2|b|\n3|C|\n4|D|\n"));

  pm_manifest_committable *all[] = {m1, ma, mb, mp, ma2, mb2, ma3, mb3, mc3, mk, md4, ma5, mm5, mm6};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) pm_committable_free(all[i]);
  pm_commit *cs[] = {a, b, plain, b2, b3, c3, d4, m5};
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) pm_commit_free(cs[i]);
  pm_table_free(t);
}

/* ------------------------------------------------------------ public API + wire */

/* The committable as Java's ManifestCommittable bytes, decoded by the public API. */
static paimon_commit_messages *over_wire(const pm_manifest_committable *m) {
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_buf b;
  pm_buf_init(&b);
  CHECK_OK(pm_committable_encode(m, &b, &err), &err);
  paimon_commit_messages *out = NULL;
  paimon_error perr = {0};
  CHECK_OK(paimon_commit_messages_deserialize(b.data, b.len, PM_MANIFEST_COMMITTABLE_VERSION, &out, NULL, &perr),
           &perr);
  pm_buf_free(&b);
  return out;
}

static paimon_table_commit *api_committer(paimon_catalog *cat, paimon_table **tab, paimon_write_builder **wb) {
  paimon_error err = {0};
  paimon_table_commit *c = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, "db.t", tab, &err), &err);
  if (*tab) CHECK_OK(paimon_write_builder_new(*tab, 0, NULL, 0, wb, &err), &err);
  if (*wb) CHECK_OK(paimon_write_builder_new_commit(*wb, &c, &err), &err);
  return c;
}

static void api_free(paimon_table_commit *c, paimon_table *tab, paimon_write_builder *wb) {
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  paimon_table_free(tab);
}

static void test_api_wire(void) {
  char wh[600], dir[700];
  snprintf(wh, sizeof wh, "%s/wh", root);
  snprintf(dir, sizeof dir, "%s/db.db/t", wh);
  cf_make_table(dir, 0, "\"row-tracking.enabled\" : \"true\", \"data-evolution.enabled\" : \"true\"");
  pm_table *t = cf_open(dir, NULL);
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  static const int32_t i12[] = {1, 2};
  static const char *const n12[] = {"a", "b"}, *const nCD[] = {"C", "D"}, *const nXY[] = {"X", "Y"};
  pm_commit *a = committer(t, "writer-a", 0, 0);
  pm_manifest_committable *m1 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_add_file(m1, t, &pf, NULL, i12, n12, 2);
  commit_ok(a, m1, 1, dir);
  pm_manifest_committable *ma = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  const char *a_file = cf_rowid_update(ma, t, &pf, i12, nCD, 2, 2, 0)->file_name;
  commit_ok(a, ma, 2, dir);

  paimon_option wo = {"warehouse", wh};
  paimon_catalog *cat = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&wo, 1, &cat, &err), &err);
  paimon_table *tab = NULL;
  paimon_write_builder *wb = NULL;
  paimon_table_commit *c = api_committer(cat, &tab, &wb);
  CHECK(c != NULL);
  if (!c) return;
  /* argument checks leave the committer as it was */
  CHECK_EQ_INT(paimon_table_commit_with_row_id_check(c, 7, 1, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(paimon_table_commit_with_row_id_check(c, PAIMON_ROW_ID_CHECK_DML, 0, &err),
               PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "snapshot 0") != NULL);
  CHECK_EQ_INT(paimon_table_commit_with_row_id_check(NULL, PAIMON_ROW_ID_CHECK_DML, 1, &err),
               PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_OK(paimon_table_commit_with_row_id_check(c, PAIMON_ROW_ID_CHECK_DML, 1, &err), &err);
  pm_manifest_committable *mb = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_rowid_update(mb, t, &pf, i12, nXY, 2, 2, 0);
  paimon_commit_messages *msgs = over_wire(mb);
  int64_t sid = 0;
  CHECK_EQ_INT(paimon_table_commit_commit(c, msgs, PAIMON_BATCH_COMMIT_IDENTIFIER, &sid, &err), PAIMON_ERR_CONFLICT);
  CHECK_MSG(strstr(err.message, a_file) != NULL && strstr(err.message, "by snapshot 2 ") != NULL, "%s", err.message);
  CHECK_EQ_INT(sid, -1);
  CHECK_EQ_INT(cf_latest_id(dir), 2);
  CHECK_OK(paimon_table_commit_abort(c, msgs, &err), &err);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "1|C|\n2|D|\n"));
  paimon_commit_messages_free(msgs);
  api_free(c, tab, wb);
  /* planned on 2 (after a's update): commits */
  tab = NULL, wb = NULL;
  c = api_committer(cat, &tab, &wb);
  if (c) CHECK_OK(paimon_table_commit_with_row_id_check(c, PAIMON_ROW_ID_CHECK_DML, 2, &err), &err);
  pm_manifest_committable *mb2 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_rowid_update(mb2, t, &pf, i12, nXY, 2, 2, 0);
  msgs = over_wire(mb2);
  if (c) CHECK_OK(paimon_table_commit_commit(c, msgs, PAIMON_BATCH_COMMIT_IDENTIFIER, &sid, &err), &err);
  CHECK_EQ_INT(sid, 3);
  CHECK(cf_rows_are(dir, "1|X|\n2|Y|\n"));
  paimon_commit_messages_free(msgs);
  api_free(c, tab, wb);
  /* a check from a snapshot that does not exist: an error naming it, nothing published */
  tab = NULL, wb = NULL;
  c = api_committer(cat, &tab, &wb);
  if (c) CHECK_OK(paimon_table_commit_with_row_id_check(c, PAIMON_ROW_ID_CHECK_DML, 99, &err), &err);
  pm_manifest_committable *mb3 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  cf_rowid_update(mb3, t, &pf, i12, nCD, 2, 2, 0);
  msgs = over_wire(mb3);
  paimon_status st = c ? paimon_table_commit_commit(c, msgs, PAIMON_BATCH_COMMIT_IDENTIFIER, &sid, &err) : 0;
  CHECK(st != PAIMON_OK && st != PAIMON_ERR_UNKNOWN_OUTCOME);
  CHECK_MSG(strstr(err.message, "snapshot 99") != NULL, "%s", err.message);
  CHECK_EQ_INT(cf_latest_id(dir), 3);
  if (c) CHECK_OK(paimon_table_commit_abort(c, msgs, &err), &err);
  paimon_commit_messages_free(msgs);
  api_free(c, tab, wb);
  CHECK(cf_check(dir));

  paimon_catalog_free(cat);
  pm_committable_free(m1);
  pm_committable_free(ma);
  pm_committable_free(mb);
  pm_committable_free(mb2);
  pm_committable_free(mb3);
  pm_commit_free(a);
  pm_table_free(t);
}

/* ------------------------------------------------------------ global index */

/* A message adding a global-index file (field id, rows from..to) in t's index directory. */
static void add_global_index(pm_manifest_committable *m, pm_table *t, int64_t from, int64_t to) {
  static int seq;
  char name[128], path[1200];
  snprintf(name, sizeof name, "bitmap-global-index-%08x-1c45-417c-878e-%012d.index", (unsigned)getpid(), ++seq);
  snprintf(path, sizeof path, "%s/index", t->root);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/index/%s", t->root, name);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fprintf(f, "global index bytes of rows %lld..%lld\n", (long long)from, (long long)to); /* never read by a scan */
  long size = ftell(f);
  fclose(f);
  pm_commit_message *msg = cf_rowid_message(m, t);
  pm_index_file_meta *x = pm_arena_alloc(&m->arena, sizeof *x);
  memset(x, 0, sizeof *x);
  x->index_type = "bitmap";
  x->file_name = pm_arena_strdup(&m->arena, name);
  x->file_size = size;
  x->row_count = to - from + 1;
  x->dv_ranges_is_null = 1;
  x->has_global_index = 1;
  x->global_index.row_range_start = from;
  x->global_index.row_range_end = to;
  x->global_index.index_field_id = 0;
  x->global_index.extra_field_ids_is_null = 1;
  msg->new_index_files.items = x;
  msg->new_index_files.n = 1;
}

/* Commits m through the public API (Java's wire form); returns the status, *sid the snapshot. */
static int api_commit(paimon_catalog *cat, const pm_manifest_committable *m, int64_t *sid, paimon_error *err) {
  paimon_table *tab = NULL;
  paimon_write_builder *wb = NULL;
  paimon_table_commit *c = api_committer(cat, &tab, &wb);
  paimon_commit_messages *msgs = over_wire(m);
  *sid = 0;
  int rc = c && msgs ? (int)paimon_table_commit_commit(c, msgs, PAIMON_BATCH_COMMIT_IDENTIFIER, sid, err) : -1;
  paimon_commit_messages_free(msgs);
  api_free(c, tab, wb);
  return rc;
}

static void test_global_index(void) {
  char wh[600], dir[700];
  snprintf(wh, sizeof wh, "%s/wh-gi", root);
  snprintf(dir, sizeof dir, "%s/db.db/t", wh);
  cf_make_table(dir, 0, "\"row-tracking.enabled\" : \"true\", \"data-evolution.enabled\" : \"true\"");
  pm_table *t = cf_open(dir, NULL);
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  static const int32_t i12[] = {1, 2}, i34[] = {3, 4};
  static const char *const n12[] = {"a", "b"}, *const n34[] = {"c", "d"};
  pm_commit *a = committer(t, "writer-a", 0, 0);
  pm_manifest_committable *m1 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 2);
  cf_add_file(m1, t, &pf, NULL, i12, n12, 2);
  cf_add_file(m1, t, &pf, NULL, i34, n34, 2);
  commit_ok(a, m1, 1, dir); /* rows 0..1, 2..3 */
  paimon_option wo = {"warehouse", wh};
  paimon_catalog *cat = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&wo, 1, &cat, &err), &err);
  int64_t sid = 0;
  /* rows the live files hold (the two files' ranges joined): commits */
  pm_manifest_committable *g1 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  add_global_index(g1, t, 0, 3);
  CHECK_OK(api_commit(cat, g1, &sid, &err), &err);
  CHECK_EQ_INT(sid, 2);
  /* rows 0..5: 4..5 do not exist */
  pm_manifest_committable *g2 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  add_global_index(g2, t, 0, 5);
  CHECK_EQ_INT(api_commit(cat, g2, &sid, &err), PAIMON_ERR_CONFLICT);
  CHECK_MSG(strstr(err.message, g2->messages[0].new_index_files.items[0].file_name) != NULL &&
                strstr(err.message, "rows 0..5") != NULL,
            "%s", err.message);
  CHECK_EQ_INT(cf_latest_id(dir), 2);
  /* an index of rows 0..1 built on snapshot 2, committed after a concurrent truncate removed them */
  pm_manifest_committable *g3 = cf_committable(PM_BATCH_COMMIT_IDENTIFIER, 1);
  add_global_index(g3, t, 0, 1);
  pm_error e;
  memset(&e, 0, sizeof e);
  CHECK_OK(pm_commit_drop_partitions(a, NULL, 0, PM_BATCH_COMMIT_IDENTIFIER, &sid, &e), &e);
  CHECK_EQ_INT(sid, 3);
  CHECK_EQ_INT(api_commit(cat, g3, &sid, &err), PAIMON_ERR_CONFLICT);
  CHECK_MSG(strstr(err.message, g3->messages[0].new_index_files.items[0].file_name) != NULL &&
                strstr(err.message, "global index row id existence conflict") != NULL,
            "%s", err.message);
  CHECK_EQ_INT(cf_latest_id(dir), 3);
  pm_commit_abort(t, g2, &e);
  pm_commit_abort(t, g3, &e);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, ""));
  paimon_catalog_free(cat);
  pm_committable_free(m1);
  pm_committable_free(g1);
  pm_committable_free(g2);
  pm_committable_free(g3);
  pm_commit_free(a);
  pm_table_free(t);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/pm_test_commit_rowid_check_%d", (int)getpid());
  RUN_TEST(test_checkers);
  RUN_TEST(test_dml_races);
  RUN_TEST(test_api_wire);
  RUN_TEST(test_global_index);
  if (!pm_test_failures) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  }
  tw_cleanup();
  TEST_MAIN_END();
}
