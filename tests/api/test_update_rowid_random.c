/*
 * Randomized row-id column updates (paimon/update.h): a partitioned data-evolution table takes a
 * random sequence of appends (1..5 rows into one partition: row ids follow commit order, so the
 * model knows them without our reader) and updates of a random non-empty subset of the columns
 * {s, i, d} at random existing row ids (batch or stream commits, random nulls). The model maps
 * row id -> values. After every commit our reader returns exactly the model; paimon-table read
 * and check (strict) at the end (every 10th commit too with PAIMON_LONG_TESTS=1, which also runs
 * 10x the commits). Seed: PAIMON_TEST_SEED (default fixed), printed on failure.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/rowid_update.h"

static char tmp_root[256];
static uint64_t rng;

static uint32_t rnd(uint32_t n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng % n);
}

static void test_random(void) {
  int long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  const char *seed_env = getenv("PAIMON_TEST_SEED");
  uint64_t seed = seed_env ? strtoull(seed_env, NULL, 10) : 20261203;
  rng = seed * 2654435761u + 1;
  char wh[512], dir[1200];
  snprintf(wh, sizeof wh, "%s/wh", tmp_root);
  snprintf(dir, sizeof dir, "%s/db.db/t", wh);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", wh);
  CHECK(system(cmd) == 0);
  paimon_option wo = {"warehouse", wh};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&wo, 1, &cat, &err), &err);
  if (!cat) return;
  static const char *const opts[] = {"row-tracking.enabled=true", "data-evolution.enabled=true"};
  CHECK_OK(ow_create_table(cat, "db", "t", "id INT, s STRING, i INT, d DOUBLE, p STRING", "p", opts, 2, 0, &err), &err);
  CHECK_OK(paimon_catalog_get_table(cat, "db.t", &t, &err), &err);
  json_t *model = json_array();
  int commits = long_mode ? 300 : 30, updates = 0;
  int64_t stream_id = 0;
  char *lines = malloc(1 << 16);
  for (int c = 0; c < commits && t && !pm_test_failures; c++) {
    size_t n = json_array_size(model);
    int do_append = n == 0 || rnd(3) == 0;
    if (do_append) {
      int rows = 1 + (int)rnd(5);
      const char *part = rnd(2) ? "x" : "y";
      lines[0] = 0;
      json_t *batch = json_array();
      for (int r = 0; r < rows; r++) {
        int id = (int)(n + (size_t)r);
        char sv[32];
        snprintf(sv, sizeof sv, "s%d", id);
        json_t *o = json_pack("{s:i, s:s, s:i, s:f, s:s}", "id", id, "s", sv, "i", id, "d", id + 0.5, "p", part);
        char *txt = json_dumps(o, JSON_COMPACT);
        strcat(lines, txt);
        strcat(lines, "\n");
        free(txt);
        json_array_append_new(batch, o);
      }
      CHECK_OK(ow_write_commit(t, NULL, 0, 0, lines, NULL, 0, 0, NULL, &err), &err);
      json_array_extend(model, batch);
      json_decref(batch);
    } else {
      static const char *const all[3] = {"s", "i", "d"};
      static const char *const types[3] = {"STRING", "INT", "DOUBLE"};
      const char *cols[3];
      size_t nc = 0;
      unsigned mask = 1 + rnd(7);
      char fields[256] = "_ROW_ID BIGINT NOT NULL";
      for (int k = 0; k < 3; k++)
        if (mask & (1u << k)) {
          cols[nc++] = all[k];
          snprintf(fields + strlen(fields), sizeof fields - strlen(fields), ", %s %s", all[k], types[k]);
        }
      /* a random subset of row ids, each once, random order */
      size_t want = 1 + rnd((uint32_t)(n < 8 ? n : 8));
      char *picked = calloc(n, 1);
      lines[0] = 0;
      json_t *changes = json_array();
      for (size_t k = 0; k < want; k++) {
        size_t r = rnd((uint32_t)n);
        if (picked[r]) continue;
        picked[r] = 1;
        json_t *o = json_object(), *v = json_object();
        json_object_set_new(o, "_ROW_ID", json_integer((json_int_t)r));
        for (size_t q = 0; q < nc; q++) {
          json_t *x;
          int null = rnd(5) == 0;
          if (null) x = json_null();
          else if (!strcmp(cols[q], "s")) {
            char sv[48];
            snprintf(sv, sizeof sv, "c%d-%zu", c, r);
            x = json_string(sv);
          } else if (!strcmp(cols[q], "i")) x = json_integer((json_int_t)(c * 1000 + (int)r));
          else x = json_real(c + r / 4.0);
          json_object_set(o, cols[q], x);
          json_object_set_new(v, cols[q], x);
        }
        char *txt = json_dumps(o, JSON_COMPACT);
        strcat(lines, txt);
        strcat(lines, "\n");
        free(txt);
        json_decref(o);
        json_array_append_new(changes, json_pack("{s:I, s:o}", "r", (json_int_t)r, "v", v));
      }
      free(picked);
      int streaming = rnd(3) == 0;
      CHECK_OK(ru_update_commit(t, streaming, ++stream_id, cols, nc, fields, lines, NULL, &err), &err);
      size_t k;
      json_t *ch;
      json_array_foreach(changes, k, ch) json_object_update(
          json_array_get(model, (size_t)json_integer_value(json_object_get(ch, "r"))), json_object_get(ch, "v"));
      json_decref(changes);
      updates++;
    }
    paimon_table_free(t);
    t = NULL;
    CHECK_OK(paimon_catalog_get_table(cat, "db.t", &t, &err), &err);
    json_t *ours = t ? ow_read_ours(t, &err) : NULL;
    char msg[8192];
    CHECK_MSG(ours && ot_rows_match(model, ours, msg, sizeof msg), "seed %llu, commit %d (%s): our reader: %s",
              (unsigned long long)seed, c, do_append ? "append" : "update", ours ? msg : err.message);
    json_decref(ours);
    if ((long_mode && c % 10 == 9) || c + 1 == commits) {
      char what[96];
      snprintf(what, sizeof what, "seed %llu, after commit %d", (unsigned long long)seed, c);
      CHECK(ot_read_equals(dir, NULL, model, what));
      CHECK(ot_check_ok(dir, 0, what));
    }
  }
  fprintf(stderr, "%d commits (%d updates), %zu rows\n", commits, updates, json_array_size(model));
  CHECK(updates > commits / 3);
  free(lines);
  json_decref(model);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END();
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_test_update_rowid_random_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  RUN_TEST(test_random);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP") && !pm_test_failures && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
