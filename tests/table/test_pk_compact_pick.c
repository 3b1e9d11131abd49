/* The LSM levels of a bucket (kv_levels.h) and universal compaction picking
 * (kv_compact.h): run order and counts as SEMANTICS 3.1 lays them out, and
 * the picks of SEMANTICS 3.3 (size amplification, size ratio, run count,
 * never to level 0, early full compaction by interval / total size, full
 * compaction requests, force-up of level 0, dropDelete), each case worked
 * out from the rules. */
#include <time.h>

#include "harness.h"
#include "table/kv_compact.h"
#include "table/partition.h"

/* ------------------------------------------------------------ picker */

typedef struct rs {
  int level;
  int64_t size;
} rs;

static size_t mk(const rs *in, size_t n, pm_kv_run_info *out) {
  for (size_t i = 0; i < n; i++) out[i] = (pm_kv_run_info){in[i].level, in[i].size, 1};
  return n;
}

static pm_kv_picker plain(int amp, int ratio, int trigger) {
  pm_kv_picker p;
  pm_kv_picker_init(&p, trigger, amp, ratio, -1, -1, -1, -1);
  return p;
}

#define PICK(p, levels, arr, now, u) pm_kv_pick(&(p), (levels), r, mk(arr, sizeof arr / sizeof *arr, r), (now), (u))

static void test_size_amplification(void) {
  pm_kv_run_info r[16];
  pm_kv_unit u;
  pm_kv_picker p = plain(25, 1, 3);
  /* (1+2+3)*100 > 25*3: everything to the max level */
  static const rs a[] = {{0, 1}, {0, 2}, {0, 3}, {0, 3}};
  CHECK(PICK(p, 3, a, 0, &u));
  CHECK_EQ_INT(u.n_runs, 4);
  CHECK_EQ_INT(u.out_level, 2);
  /* below the trigger nothing is looked at */
  static const rs b[] = {{0, 100}, {0, 1}};
  CHECK(!PICK(p, 3, b, 0, &u));
  /* amplification under the limit: 3*100 <= 25*50 */
  pm_kv_picker q = plain(25, 0, 3);
  static const rs c[] = {{0, 1}, {0, 1}, {0, 1}, {5, 50}};
  CHECK(PICK(q, 6, c, 0, &u)); /* picked by size ratio instead (ratio 0: 1 <= 1) */
  CHECK_EQ_INT(u.n_runs, 3);
  CHECK_EQ_INT(u.out_level, 4); /* level of the first run left out, minus one */
}

static void test_size_ratio_and_run_count(void) {
  pm_kv_run_info r[16];
  pm_kv_unit u;
  pm_kv_picker p = plain(25, 1, 3);
  /* size ratio absorbs runs of 1, stops at the big level-3 run */
  static const rs a[] = {{0, 1}, {1, 1}, {2, 1}, {3, 50}};
  CHECK(PICK(p, 4, a, 0, &u));
  CHECK_EQ_INT(u.n_runs, 3);
  CHECK_EQ_INT(u.out_level, 2);
  /* size ratio does not trigger (1 * 1.01 < 2); the run count (4 > 3) starts with 2 runs
   * and the ratio then absorbs the 3 */
  static const rs b[] = {{0, 1}, {1, 2}, {2, 3}, {3, 50}};
  CHECK(PICK(p, 4, b, 0, &u));
  CHECK_EQ_INT(u.n_runs, 3);
  CHECK_EQ_INT(u.out_level, 2);
  /* ratio threshold: 8 * 1.10 < 9 stops, 8 * 1.20 >= 9 goes on to all three */
  pm_kv_picker q10 = plain(1000, 10, 3), q20 = plain(1000, 20, 3);
  static const rs c[] = {{0, 8}, {1, 9}, {2, 10}};
  CHECK(!PICK(q10, 3, c, 0, &u));
  CHECK(PICK(q20, 3, c, 0, &u));
  CHECK_EQ_INT(u.n_runs, 3);
  CHECK_EQ_INT(u.out_level, 2);
  /* once triggered, level 0 / 1 runs are absorbed whatever their size; level 2 ends it only when too big */
  pm_kv_picker s = plain(200, 1, 3);
  static const rs d[] = {{0, 10}, {0, 20}, {1, 97}, {2, 100}};
  CHECK(PICK(s, 3, d, 0, &u));
  CHECK_EQ_INT(u.n_runs, 4);
  CHECK_EQ_INT(u.out_level, 2);
  pm_kv_picker e = plain(200, 1, 5);
  static const rs f[] = {{0, 1}, {0, 1}, {0, 1}, {0, 1024}, {0, 1024 * 1024}};
  CHECK(PICK(e, 6, f, 0, &u));
  CHECK_EQ_INT(u.n_runs, 5);
  CHECK_EQ_INT(u.out_level, 5);
}

static void test_never_level0(void) {
  pm_kv_run_info r[16];
  pm_kv_unit u;
  pm_kv_picker p = plain(25, 1, 3);
  /* the first run left out is at level 1: output level 0 is not allowed, absorb the level-1 run */
  static const rs a[] = {{0, 1}, {0, 1}, {1, 1}, {2, 50}};
  CHECK(PICK(p, 3, a, 0, &u));
  CHECK_EQ_INT(u.n_runs, 3);
  CHECK_EQ_INT(u.out_level, 1);
  static const rs b[] = {{0, 1}, {0, 2}, {1, 3}, {2, 50}};
  CHECK(PICK(p, 3, b, 0, &u));
  CHECK_EQ_INT(u.n_runs, 3);
  CHECK_EQ_INT(u.out_level, 1);
  /* once triggered, level-0 runs of any size are absorbed; the level-3 run ends the unit at level 2 */
  pm_kv_picker q = plain(1000, 0, 2);
  static const rs c[] = {{0, 1}, {0, 1}, {0, 100}, {0, 100}, {3, 1000}};
  CHECK(PICK(q, 5, c, 0, &u));
  CHECK_EQ_INT(u.n_runs, 4);
  CHECK_EQ_INT(u.out_level, 2);
}

static void test_early_full_interval(void) {
  pm_kv_run_info r[16];
  pm_kv_unit u;
  pm_kv_picker p;
  pm_kv_picker_init(&p, 3, 100, 1, 1000, -1, -1, -1);
  static const rs a[] = {{0, 1}, {1, 3}, {2, 5}};
  CHECK(PICK(p, 3, a, 0, &u)); /* never fully compacted: now */
  CHECK_EQ_INT(u.n_runs, 3);
  CHECK_EQ_INT(u.out_level, 2);
  CHECK(PICK(p, 3, a, 1001, &u)); /* interval elapsed */
  CHECK_EQ_INT(u.n_runs, 3);
  CHECK(!PICK(p, 3, a, 1001, &u)); /* just done */
  static const rs b[] = {{0, 3}, {1, 3}, {2, 5}};
  CHECK(PICK(p, 3, b, 1500, &u)); /* size amplification 600 > 500: a full compaction, remembered */
  CHECK_EQ_INT(u.n_runs, 3);
  CHECK(!PICK(p, 3, a, 2001, &u)); /* 2001 - 1500 <= 1000 */
  /* restored: the newest max-level file's creation time */
  pm_kv_picker_init(&p, 3, 100, 1, 1000, -1, -1, 500);
  CHECK(!PICK(p, 3, a, 1400, &u));
  CHECK(PICK(p, 3, a, 1501, &u));
  /* one run: never */
  pm_kv_picker_init(&p, 3, 100, 1, 1000, -1, -1, -1);
  static const rs one[] = {{0, 7}};
  CHECK(!PICK(p, 3, one, 0, &u));
}

static void test_early_full_sizes(void) {
  pm_kv_run_info r[16];
  pm_kv_unit u;
  pm_kv_picker p;
  pm_kv_picker_init(&p, 3, 100, 1, -1, 10, -1, -1);
  static const rs a[] = {{0, 1}, {1, 3}, {2, 5}};
  CHECK(PICK(p, 3, a, 0, &u)); /* total 9 < 10 */
  CHECK_EQ_INT(u.n_runs, 3);
  static const rs b[] = {{0, 2}, {1, 6}, {2, 10}};
  CHECK(!PICK(p, 3, b, 0, &u));
  static const rs one[] = {{3, 5}};
  CHECK(!PICK(p, 4, one, 0, &u));
  /* incremental: bytes outside the max level above the threshold */
  pm_kv_picker_init(&p, 5, 1000, 1, -1, -1, 8, -1);
  static const rs c[] = {{0, 5}, {1, 4}, {2, 100}};
  CHECK(PICK(p, 3, c, 0, &u));
  CHECK_EQ_INT(u.n_runs, 3);
  static const rs d[] = {{0, 5}, {1, 3}, {2, 100}};
  CHECK(!PICK(p, 3, d, 0, &u));
}

static void test_full_and_useful(void) {
  pm_kv_run_info r[8];
  pm_kv_unit u;
  static const rs a[] = {{0, 1}, {2, 5}};
  mk(a, 2, r);
  CHECK(pm_kv_pick_full(3, r, 2, 0, &u));
  CHECK_EQ_INT(u.n_runs, 2);
  CHECK_EQ_INT(u.out_level, 2);
  CHECK(!u.file_rewrite);
  static const rs b[] = {{2, 5}};
  mk(b, 1, r);
  CHECK(!pm_kv_pick_full(3, r, 1, 0, &u)); /* already one max-level run */
  CHECK(pm_kv_pick_full(3, r, 1, 1, &u));  /* compaction.force-rewrite-all-files */
  CHECK(u.file_rewrite);
  CHECK(pm_kv_unit_useful(&u, r));
  static const rs c[] = {{1, 5}};
  mk(c, 1, r);
  CHECK(pm_kv_pick_full(3, r, 1, 0, &u)); /* one run below the max level: up */
  CHECK(pm_kv_unit_useful(&u, r));
  pm_kv_unit same = {1, 1, 0};
  CHECK(!pm_kv_unit_useful(&same, r)); /* one file already at its output level */
  r[0].n_files = 2;
  CHECK(pm_kv_unit_useful(&same, r));
  pm_kv_unit none = {1, 0, 0};
  CHECK(!pm_kv_unit_useful(&none, r));
  CHECK(!pm_kv_pick_full(3, r, 0, 0, &u));
}

static void test_force_level0_and_drop_delete(void) {
  pm_kv_run_info r[8];
  pm_kv_unit u;
  pm_kv_picker p = plain(25, 1, 3);
  static const rs a[] = {{0, 1}, {2, 2}};
  mk(a, 2, r);
  CHECK(!pm_kv_pick(&p, 3, r, 2, 0, &u));
  CHECK(pm_kv_pick_force_l0(&p, 3, r, 2, 0, &u)); /* level 0 forced up into the empty level 1 */
  CHECK_EQ_INT(u.n_runs, 1);
  CHECK_EQ_INT(u.out_level, 1);
  static const rs b[] = {{1, 1}, {2, 2}};
  mk(b, 2, r);
  CHECK(!pm_kv_pick_force_l0(&p, 3, r, 2, 0, &u)); /* no level-0 run */
  CHECK(!pm_kv_drop_delete(0, 0, 1));
  CHECK(pm_kv_drop_delete(2, 2, 0));
  CHECK(!pm_kv_drop_delete(1, 2, 0)); /* older data below the output */
  CHECK(pm_kv_drop_delete(1, 2, 1));  /* deletion vectors */
}

/* ------------------------------------------------------------ levels */

static pm_data_type *int_type;

static void key_of(int32_t k, pm_arena *a, pm_bytes *out) {
  pm_value v = {.kind = PM_V_INT};
  v.u.i64 = k;
  pm_buf b;
  pm_buf_init(&b);
  pm_error err;
  const pm_data_type *types[1] = {int_type};
  CHECK_OK(pm_partition_row_encode(types, &v, 1, &b, &err), &err);
  out->data = pm_arena_memdup(a, b.data, b.len);
  out->len = b.len;
  pm_buf_free(&b);
}

static pm_data_file_meta file(pm_arena *a, const char *name, int level, int32_t lo, int32_t hi, int64_t min_seq,
                              int64_t max_seq, int64_t size) {
  pm_data_file_meta m;
  memset(&m, 0, sizeof m);
  m.file_name = name;
  m.level = level;
  m.file_size = size;
  m.min_sequence_number = min_seq;
  m.max_sequence_number = max_seq;
  m.write_cols.is_null = 1;
  m.write_cols_sequences_is_null = 1;
  key_of(lo, a, &m.min_key);
  key_of(hi, a, &m.max_key);
  return m;
}

static void test_levels(void) {
  pm_error err;
  CHECK_OK(pm_dtype_parse("INT NOT NULL", &int_type, &err), &err);
  pm_arena a;
  pm_arena_init(&a);
  pm_data_file_meta f[6] = {
      file(&a, "l0-old", 0, 1, 9, 0, 10, 100),  file(&a, "l0-new", 0, 1, 9, 11, 20, 10),
      file(&a, "l0-mid", 0, 5, 6, 5, 15, 20),   file(&a, "l3-b", 3, 50, 60, 0, 3, 1000),
      file(&a, "l3-a", 3, 10, 20, 0, 3, 2000),  file(&a, "l1-a", 1, 0, 100, 0, 9, 300),
  };
  const pm_data_file_meta *fp[6] = {&f[0], &f[1], &f[2], &f[3], &f[4], &f[5]};
  pm_kv_levels l;
  const pm_data_type *kt[1] = {int_type};
  CHECK_OK(pm_kv_levels_init(&l, 1, kt, 3, &err), &err);
  CHECK_OK(pm_kv_levels_restore(&l, fp, 6, &err), &err);
  CHECK_EQ_INT(l.n_levels, 4); /* max(num-levels 3, level 3 + 1) */
  CHECK_EQ_INT(pm_kv_levels_max_level(&l), 3);
  CHECK_EQ_INT(pm_kv_levels_sorted_runs(&l), 5);
  CHECK_EQ_INT(pm_kv_levels_highest_nonempty(&l), 3);
  CHECK_EQ_INT(pm_kv_levels_total_size(&l), 3430);
  pm_kv_run *runs = NULL;
  size_t n = 0;
  CHECK_OK(pm_kv_levels_runs(&l, &runs, &n, &err), &err);
  CHECK_EQ_INT(n, 5);
  if (n == 5) {
    /* level 0 newest first (max sequence number descending) */
    CHECK_EQ_STR(runs[0].files[0]->meta.file_name, "l0-new");
    CHECK_EQ_STR(runs[1].files[0]->meta.file_name, "l0-mid");
    CHECK_EQ_STR(runs[2].files[0]->meta.file_name, "l0-old");
    CHECK_EQ_INT(runs[3].level, 1);
    CHECK_EQ_INT(runs[4].level, 3);
    CHECK_EQ_INT(runs[4].n, 2);
    CHECK_EQ_INT(runs[4].size, 3000);
    CHECK_EQ_STR(runs[4].files[0]->meta.file_name, "l3-a"); /* by min key */
    CHECK_EQ_INT(runs[4].files[1]->min[0].u.i64, 50);
  }
  free(runs);
  /* a compaction: the three level-0 files and level 1 into level 2 */
  pm_data_file_meta before[4] = {f[0], f[1], f[2], f[5]};
  pm_data_file_meta after[2] = {file(&a, "l2-x", 2, 0, 40, 0, 20, 250), file(&a, "l2-y", 2, 41, 100, 0, 20, 150)};
  CHECK_OK(pm_kv_levels_update(&l, before, 4, after, 2, &err), &err);
  CHECK_EQ_INT(pm_kv_levels_sorted_runs(&l), 2);
  CHECK_EQ_INT(pm_kv_levels_file_count(&l), 4);
  CHECK_EQ_INT(l.levels[0].n, 0);
  CHECK_EQ_INT(l.levels[2].size, 400);
  /* removing a file that is not there changes nothing */
  pm_data_file_meta gone = f[0];
  CHECK(pm_kv_levels_update(&l, &gone, 1, NULL, 0, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(pm_kv_levels_file_count(&l), 4);
  /* an upgrade: same name, new level */
  pm_data_file_meta up = after[1];
  up.level = 3;
  CHECK_OK(pm_kv_levels_update(&l, &after[1], 1, &up, 1, &err), &err);
  CHECK_EQ_INT(l.levels[3].n, 3);
  CHECK_EQ_STR(l.levels[3].files[1]->meta.file_name, "l2-y"); /* min key 41 between 10 and 50 */
  /* many churns: the arena is rebuilt, files stay readable */
  for (int i = 0; i < 200; i++) {
    char nm[32];
    snprintf(nm, sizeof nm, "churn-%d", i);
    pm_data_file_meta x = file(&a, nm, 0, i, i + 1, 100 + i, 100 + i, 1);
    CHECK_OK(pm_kv_levels_update(&l, NULL, 0, &x, 1, &err), &err);
    CHECK_OK(pm_kv_levels_update(&l, &x, 1, NULL, 0, &err), &err);
  }
  CHECK_EQ_INT(pm_kv_levels_file_count(&l), 4);
  CHECK_EQ_STR(l.levels[3].files[2]->meta.file_name, "l3-b");
  CHECK_EQ_INT(l.levels[3].files[2]->max[0].u.i64, 60);
  pm_kv_levels_free(&l);
  pm_arena_free(&a);
  pm_dtype_free(int_type);
}

/* compaction.offpeak.*: in the off-peak hours (local time, [start, end), wrapping past
 * midnight when start > end) offpeak-ratio is added to the size ratio. */
static void test_offpeak_hours(void) {
  setenv("TZ", "UTC", 1);
  tzset();
  pm_kv_run_info r[16];
  pm_kv_unit u;
  /* 10 * (100 + 0) / 100 < 15: no size-ratio pick; with 60 more: 16 >= 15, both runs */
  static const rs a[] = {{0, 10}, {3, 15}};
  const int64_t hour = 3600 * 1000;
  static const struct {
    int start, end, h, picked;
  } cases[] = {{2, 5, 3, 1}, {2, 5, 5, 0}, {2, 5, 1, 0}, {22, 4, 23, 1}, {22, 4, 0, 1},
               {22, 4, 4, 0}, {22, 4, 12, 0}, {7, 7, 7, 0}, {-1, 5, 3, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pm_kv_picker p = plain(200, 0, 2);
    p.offpeak_start = cases[i].start;
    p.offpeak_end = cases[i].end;
    p.offpeak_ratio = 60;
    int got = PICK(p, 4, a, cases[i].h * hour, &u);
    CHECK_MSG(got == cases[i].picked, "offpeak %d-%d at %d:00: picked %d", cases[i].start, cases[i].end, cases[i].h,
              got);
    if (got) CHECK_EQ_INT(u.n_runs, 2);
  }
}

int main(void) {
  RUN_TEST(test_size_amplification);
  RUN_TEST(test_size_ratio_and_run_count);
  RUN_TEST(test_never_level0);
  RUN_TEST(test_early_full_interval);
  RUN_TEST(test_early_full_sizes);
  RUN_TEST(test_full_and_useful);
  RUN_TEST(test_force_level0_and_drop_delete);
  RUN_TEST(test_levels);
  RUN_TEST(test_offpeak_hours);
  TEST_MAIN_END();
}
