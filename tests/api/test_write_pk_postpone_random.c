/*
 * Postpone buckets (`bucket` = -2), randomized and with schema evolution
 * (issue 12 §4):
 *   - random rounds (fixed seeds; PAIMON_LONG_TESTS=1: more rounds and keys)
 *     of 1-3 postpone commits of upserts / deletes over three partitions (one
 *     with an existing bucket count, new ones taking postpone.default-bucket-num),
 *     then a compaction (minor, or full every third round) with a low
 *     num-sorted-run.compaction-trigger, so the real buckets' own compactions
 *     run too; after every compaction our reader returns the model
 *     (tests/support/pk_model.h; deduplicate), before it the previous state;
 *     `paimon-table read` and check at the end;
 *   - a column added between two postpone writes: the compaction replays the
 *     older files under the new schema (the new column null), both readers agree.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "paimon/compact.h"
#include "paimon/ddl.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/postpone_table.h"

static char wh[256];
static int long_mode;

static const char *table_dir(const char *name) {
  static char d[512];
  snprintf(d, sizeof d, "%s/d.db/%s", wh, name);
  return d;
}

static uint64_t rnd_state;
static uint32_t rnd(void) {
  rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rnd_state >> 33);
}

static void expect(paimon_table *t, const pkm_model *m, const char *what) {
  json_t *want = pkm_rows(m);
  paimon_error err = {0};
  json_t *ours = ow_read_ours(t, &err);
  char msg[8192];
  CHECK_MSG(ours && ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader: %s", what, ours ? msg : err.message);
  json_decref(ours);
  json_decref(want);
}

static void test_random(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  const char *opts[] = {"postpone.default-bucket-num=3", "num-sorted-run.compaction-trigger=2"};
  paimon_table *t = pp_create(cat, "rnd", opts, 2);
  pkm_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.engine = PKM_DEDUPLICATE;
  cfg.n_cols = 4;
  cfg.cols = PP_MODEL_COLS;
  cfg.n_keys = 2;
  pkm_model *m = pkm_new(&cfg);
  pkm_model *seen = pkm_clone(m); /* the state readers must show: the last compaction's */
  static const char *const parts[] = {"p0", "p1", "p2"};
  int rounds = long_mode ? 40 : 10, keys = long_mode ? 500 : 60;
  paimon_error err = {0};
  pp_row r[200];
  char vals[200][24];
  rnd_state = 12;
  for (int round = 0; round < rounds; round++) {
    int commits = 1 + (int)(rnd() % 3);
    for (int c = 0; c < commits; c++) {
      int n = 1 + (int)(rnd() % (long_mode ? 200 : 60));
      for (int i = 0; i < n; i++) {
        int kind = rnd() % 4 == 0 ? PKM_DELETE : rnd() % 5 == 0 ? PKM_UPDATE_AFTER : PKM_INSERT;
        snprintf(vals[i], sizeof vals[i], "r%dc%di%d", round, c, i);
        /* partition p2 only from round 4 on: a new partition next to existing ones */
        const char *dt = parts[rnd() % (round < 4 ? 2 : 3)];
        r[i] = (pp_row){(int)(rnd() % (uint32_t)keys), dt, rnd() % 7 == 0 ? NULL : vals[i], (long long)rnd() % 1000,
                        kind};
      }
      CHECK_OK(pp_write(t, NULL, r, (size_t)n, m, &err), &err);
    }
    char what[64];
    snprintf(what, sizeof what, "round %d before compaction", round);
    expect(t, seen, what);
    paimon_compact_options o;
    paimon_compact_options_init(&o);
    o.full = round % 3 == 2;
    paimon_compact_result res;
    CHECK_OK(paimon_table_compact(t, &o, &res, &err), &err);
    if (o.full) pkm_compact(m, 1);
    else pkm_flush(m);
    pkm_free(seen);
    seen = pkm_clone(m);
    snprintf(what, sizeof what, "round %d", round);
    expect(t, m, what);
  }
  if (ot_available()) {
    json_t *want = pkm_rows(m);
    CHECK(pp_check_ok(table_dir("rnd"), 0, "random"));
    CHECK(ot_read_equals(table_dir("rnd"), NULL, want, "random"));
    json_decref(want);
  }
  fprintf(stderr, "%d rounds, %zu live rows\n", rounds, pkm_count(m));
  pkm_free(seen);
  pkm_free(m);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_schema_evolution(void) {
  paimon_catalog *cat = pkw_open_catalog(wh);
  paimon_table *t = pp_create(cat, "evo", NULL, 0);
  paimon_error err = {0};
  pp_row r[] = {{1, "a", "x", 1, PKM_INSERT}, {2, "a", "y", 2, PKM_INSERT}};
  CHECK_OK(pp_write(t, NULL, r, 2, NULL, &err), &err);
  paimon_schema_change *ch = NULL;
  CHECK_OK(paimon_schema_change_add_column("w", "INT", NULL, PAIMON_COLUMN_LAST, NULL, &ch, &err), &err);
  const paimon_schema_change *const chs[] = {ch};
  CHECK_OK(paimon_catalog_alter_table(cat, "d.evo", chs, 1, 0, &err), &err);
  paimon_schema_change_free(ch);
  paimon_table_free(t);
  t = pkw_get_table(cat, "d.evo");
  static const char *const cols[] = {"id:i:notnull", "dt:u:notnull", "v:u", "n:l", "w:i"};
  pkw_how how = {cols, 5, NULL, -1, NULL};
  pkw_part p[] = {{"{\"id\":2,\"dt\":\"a\",\"v\":\"y2\",\"n\":3,\"w\":5}\n{\"id\":3,\"dt\":\"a\",\"v\":\"z\",\"n\":4,\"w\":6}\n", 0}};
  CHECK_OK(pkw_write_commit(t, &how, p, 1, &err), &err);
  paimon_compact_result res;
  CHECK_OK(paimon_table_compact(t, NULL, &res, &err), &err);
  json_t *want = ot_parse_lines("{\"id\":1,\"dt\":\"a\",\"v\":\"x\",\"n\":1,\"w\":null}\n"
                                "{\"id\":2,\"dt\":\"a\",\"v\":\"y2\",\"n\":3,\"w\":5}\n"
                                "{\"id\":3,\"dt\":\"a\",\"v\":\"z\",\"n\":4,\"w\":6}\n",
                                NULL);
  json_t *ours = ow_read_ours(t, &err);
  char msg[4096];
  CHECK_MSG(ours && ot_rows_match(want, ours, msg, sizeof msg), "evolution: %s", ours ? msg : err.message);
  json_decref(ours);
  if (ot_available()) {
    CHECK(pp_check_ok(table_dir("evo"), 0, "evolution"));
    CHECK(ot_read_equals(table_dir("evo"), "--schema-id 1", want, "evolution"));
  }
  json_decref(want);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  snprintf(wh, sizeof wh, "/tmp/pm_pk_postpone_random_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_random);
  RUN_TEST(test_schema_evolution);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && !getenv("PM_KEEP") && system(cmd)) return 1;
  TEST_MAIN_END();
}
