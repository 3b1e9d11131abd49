/* One executor for planning and reading (issue 9 #4): with `threads = 1` a process that plans and
 * reads multi-file tables with read.parallelism / scan.manifest.parallelism > 1 never has a second
 * thread (counted in /proc/self/task); without it, the parallel plans + reads run on the pool, whose
 * workers later rounds reuse (10 rounds: no more threads than one round's largest demand), with
 * the same rows. */
#include <dirent.h>

#include "harness.h"
#include "paimon/paimon.h"
#include "util/executor.h"

#define WH PM_SHARED("fixtures/warehouse/parquet")

static int os_threads(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

/* Rows of plan + read with options o; -1 on error. Reports the most OS threads seen mid-read. */
static int64_t read_rows(paimon_table *t, const paimon_option *o, size_t n, int *max_threads, paimon_error *err) {
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  int64_t rows = -1;
  if (paimon_read_builder_new(t, o, n, &rb, err) || paimon_read_builder_plan(rb, &plan, err)) goto done;
  struct ArrowArrayStream s;
  if (paimon_read_plan(rb, plan, &s, err)) goto done;
  rows = 0;
  for (;;) {
    struct ArrowArray a;
    if (s.get_next(&s, &a)) {
      rows = -1;
      break;
    }
    int th = os_threads();
    if (th > *max_threads) *max_threads = th;
    if (!a.release) break;
    rows += a.length;
    a.release(&a);
  }
  s.release(&s);
done:
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  return rows;
}

static const char *const TABLES[] = {"append_09.append_09", "pk_09.pk_09"};
static int64_t single_rows[2];

static void test_single_threaded_process(void) {
  paimon_error err = {0};
  CHECK_EQ_INT(os_threads(), 1);
  paimon_option co[] = {{"warehouse", WH}, {"threads", "1"}};
  paimon_catalog *cat = NULL;
  CHECK_OK(paimon_catalog_open(co, 2, &cat, &err), &err);
  if (!cat) return;
  paimon_option par[] = {{"read.parallelism", "4"}, {"scan.manifest.parallelism", "8"}};
  int max_threads = 0;
  for (int k = 0; k < 2; k++) {
    paimon_table *t = NULL;
    CHECK_OK(paimon_catalog_get_table(cat, TABLES[k], &t, &err), &err);
    if (!t) continue;
    single_rows[k] = read_rows(t, par, 2, &max_threads, &err);
    CHECK_MSG(single_rows[k] > 0, "%s: %s", TABLES[k], err.message);
    paimon_table_free(t);
  }
  paimon_catalog_free(cat);
  CHECK_EQ_INT(max_threads, 1);
  CHECK_EQ_INT(os_threads(), 1);
  CHECK_EQ_INT(pm_executor_threads_created(), 0);
  CHECK_EQ_INT(pm_executor_pool_size(), 0);
}

static void test_pool_reused(void) {
  paimon_error err = {0};
  paimon_option co[] = {{"warehouse", WH}};
  paimon_catalog *cat = NULL;
  CHECK_OK(paimon_catalog_open(co, 1, &cat, &err), &err);
  if (!cat) return;
  paimon_option par[] = {{"read.parallelism", "4"}, {"scan.manifest.parallelism", "8"}};
  uint64_t after_first = 0, tasks_before = pm_executor_tasks_run();
  for (int round = 0; round < 10; round++) {
    int max_threads = 0;
    for (int k = 0; k < 2; k++) {
      paimon_table *t = NULL;
      CHECK_OK(paimon_catalog_get_table(cat, TABLES[k], &t, &err), &err);
      if (!t) continue;
      CHECK_EQ_INT(read_rows(t, par, 2, &max_threads, &err), single_rows[k]);
      paimon_table_free(t);
    }
    if (round == 0) {
      after_first = pm_executor_threads_created();
      CHECK_MSG(after_first > 0, "the parallel reads created no thread");
    }
    CHECK(max_threads <= 1 + pm_executor_pool_size()); /* every extra thread is a pool worker */
  }
  /* Ten rounds of parallel plans and reads (each the old executor served with new threads) are
   * served by a pool no larger than the largest single demand: 7 planning helpers
   * (scan.manifest.parallelism 8, the caller included) or 4 read workers. */
  CHECK_MSG(pm_executor_threads_created() <= 7, "%llu threads for 10 rounds (first round: %llu)",
            (unsigned long long)pm_executor_threads_created(), (unsigned long long)after_first);
  CHECK(pm_executor_tasks_run() - tasks_before >= 10); /* and they did the work of every round */
  CHECK_EQ_INT(os_threads(), 1 + pm_executor_pool_size()); /* idle workers persist */
  paimon_catalog_free(cat);
}

int main(void) {
  RUN_TEST(test_single_threaded_process);
  RUN_TEST(test_pool_reused);
  TEST_MAIN_END();
}
