/*
 * Lookup compaction with merge engines whose merge needs the looked-up
 * record (test_write_pk_lookup_engines.c: changelog-producer = lookup;
 * test_write_pk_dv_engines.c: deletion vectors), on the table of
 * support/pk_changelog.h (id INT, pt STRING, v STRING, n BIGINT; key pt, id;
 * 2 buckets): random commits, small files and a low compaction trigger so
 * that level-0 keys are found in levels above the compaction's output
 * (their records must join the merge, Java's LookupChangelogMergeFunctionWrapper
 * + LookupMergeFunction.insertInto). The model (independent of the
 * library), a key -> row map fed the rows in order:
 *  - EC_PARTIAL (merge-engine = partial-update): non-null v / n overlay the row;
 *  - EC_AGG (aggregation, n sum, v max with ignore-retract): +I adds, -U
 *    (only for live keys) subtracts n and leaves v;
 *  - EC_SEQ (deduplicate, sequence.field = n): a row replaces the key's row
 *    when its n >= the row's n; -D (n above all) deletes the key, which is
 *    not written again.
 * Per commit the expected changelog (with changelog) = the model's
 * transitions over the keys touched (pk_changelog.h model_changes). Checks
 * after each commit as pk_changelog.h check_commit (our reader = model,
 * the changelog read); at the end paimon-table check, paimon-table read
 * (not for aggregation, which it does not read), the changelog files by
 * DuckDB, and the live files span >= 2 levels. Header-only; include after
 * support/pk_changelog.h.
 */
#ifndef PM_TESTS_SUPPORT_PK_ENGINE_CASE_H
#define PM_TESTS_SUPPORT_PK_ENGINE_CASE_H

typedef enum { EC_PARTIAL, EC_AGG, EC_SEQ } ec_engine;

static const char *ec_key(const json_t *row, char *buf, size_t n) {
  snprintf(buf, n, "%s/%lld", json_string_value(json_object_get(row, "pt")),
           (long long)json_integer_value(json_object_get(row, "id")));
  return buf;
}

/* Rows of one commit (JSON lines with _rk) for engine e given the model and
 * the retired (deleted, EC_SEQ) keys, which the deletes join. */
static char *ec_gen(uint64_t *seed, ec_engine e, const json_t *model, json_t *retired, int n, int n_keys,
                    int c, int64_t *del_seq) {
  size_t cap = (size_t)n * 96 + 1, len = 0;
  char *s = malloc(cap);
  s[0] = 0;
  for (int i = 0; i < n; i++) {
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t x = *seed >> 33;
    int id = (int)(x % (uint64_t)n_keys);
    const char *pt = (x >> 12) & 1 ? "a" : "b";
    int r = (int)((x >> 14) % 10);
    char key[64];
    snprintf(key, sizeof key, "%s/%d", pt, id);
    int live = json_object_get(model, key) != NULL;
    if (json_object_get(retired, key)) continue;
    char v[32], nv[32];
    if ((x >> 20) % 4 == 0) snprintf(v, sizeof v, "null");
    else snprintf(v, sizeof v, "\"v%d.%d\"", c, (int)((x >> 22) % 50));
    int kind = 0;
    long long nn = (long long)((x >> 28) % 100);
    switch (e) {
      case EC_PARTIAL:
        if ((x >> 26) % 4 == 0) snprintf(nv, sizeof nv, "null");
        else snprintf(nv, sizeof nv, "%lld", nn);
        break;
      case EC_AGG:
        kind = live && r < 2 ? 1 : 0;
        snprintf(nv, sizeof nv, "%lld", nn);
        break;
      case EC_SEQ:
        if (live && r < 1) { /* the key is not written again, in this commit neither */
          kind = 3;
          nn = 1000000 + (*del_seq)++;
          json_object_set_new(retired, key, json_true());
        }
        snprintf(nv, sizeof nv, "%lld", nn);
        break;
    }
    len += (size_t)snprintf(s + len, cap - len, "{\"id\":%d,\"pt\":\"%s\",\"v\":%s,\"n\":%s,\"_rk\":%d}\n", id, pt, v,
                            nv, kind);
  }
  return s;
}

static void ec_apply(json_t *model, json_t *touched, json_t *retired, const char *jsonl, ec_engine e) {
  json_t *rows = ot_parse_lines(jsonl, NULL);
  CHECK(rows != NULL);
  size_t i;
  json_t *r;
  json_array_foreach(rows, i, r) {
    int k = (int)json_integer_value(json_object_get(r, "_rk"));
    json_t *row = row_of(r);
    char key[64];
    ec_key(row, key, sizeof key);
    json_object_set_new(touched, key, json_true());
    json_t *cur = json_object_get(model, key);
    json_t *v = json_object_get(row, "v"), *n = json_object_get(row, "n");
    if (!cur) {
      if (k == 0 || k == 2) json_object_set(model, key, row);
    } else if (e == EC_PARTIAL) {
      if (!json_is_null(v)) json_object_set(cur, "v", v);
      if (!json_is_null(n)) json_object_set(cur, "n", n);
    } else if (e == EC_AGG) {
      json_int_t sum = json_integer_value(json_object_get(cur, "n"));
      json_object_set_new(cur, "n", json_integer(k == 1 ? sum - json_integer_value(n) : sum + json_integer_value(n)));
      json_t *cv = json_object_get(cur, "v");
      if (k != 1 && !json_is_null(v) && (json_is_null(cv) || strcmp(json_string_value(v), json_string_value(cv)) > 0))
        json_object_set(cur, "v", v);
    } else if (k == 3) {
      json_object_del(model, key);
      json_object_set_new(retired, key, json_true());
    } else if (json_integer_value(n) >= json_integer_value(json_object_get(cur, "n"))) {
      json_object_set(model, key, row);
    }
    json_decref(row);
  }
  json_decref(rows);
}

/* The number of levels the table's live files span ($files). */
static int ec_live_levels(paimon_catalog *cat, const char *name) {
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
  json_decref(files);
  paimon_table_free(ft);
  return n_seen;
}

static void ec_run(const char *name, ec_engine e, const char *const *opts, size_t n_opts, int with_cl, int n_commits,
                   int rows_per_commit, int n_keys, uint64_t seed) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_table *t = make_table(cat, name, opts, n_opts);
  json_t *model = json_object(), *all = json_array(), *before = json_object(), *touched = json_object();
  json_t *retired = json_object();
  paimon_error err = {0};
  int64_t del_seq = 0;
  int max_levels = 0;
  for (int c = 0; c < n_commits; c++) {
    char *rows = ec_gen(&seed, e, model, retired, rows_per_commit, n_keys, c, &del_seq);
    int64_t prev = snapshot_count(name);
    CHECK_OK(write_commit_id(t, rows, -1, &err), &err);
    ec_apply(model, touched, retired, rows, e);
    json_t *changes = json_array();
    model_changes(before, model, touched, changes, 0, 0);
    json_decref(before);
    before = json_deep_copy(model);
    json_object_clear(touched);
    char what[128];
    snprintf(what, sizeof what, "%s commit %d", name, c + 1);
    int last = c == n_commits - 1;
    /* paimon-table read does not read aggregation tables: check only */
    check_commit(t, name, model, changes, prev, with_cl, last && e != EC_AGG, what);
    if (last && e == EC_AGG && ot_available()) CHECK_MSG(ot_check_ok(table_dir(name), 0, what), "%s", what);
    json_array_extend(all, changes);
    json_decref(changes);
    free(rows);
    int lv = ec_live_levels(cat, name);
    if (lv > max_levels) max_levels = lv;
  }
  /* level-0 keys were looked up in levels above the compactions' outputs */
  CHECK_MSG(max_levels >= 2, "%s: live files on at most %d levels", name, max_levels);
  if (with_cl) check_changelog_files(name, all);
  json_decref(retired);
  json_decref(before);
  json_decref(touched);
  json_decref(all);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

#endif
