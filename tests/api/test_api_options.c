/* Options through the public API (issue 10 #9): unknown keys are warnings the caller fetches
 * (catalog, table, read builder), invalid values fail naming key and value; `threads = 1` is the
 * single-threaded mode: no thread is created and the rows are the same. */
#include "harness.h"
#include "paimon/paimon.h"
#include "util/executor.h"

#define WH PM_SHARED("fixtures/warehouse/parquet")

static int has_warning(const char *const *w, size_t n, const char *needle) {
  for (size_t i = 0; i < n; i++)
    if (strstr(w[i], needle)) return 1;
  return 0;
}

/* Rows read through plan + read with the given dynamic options; -1 on error (message in err). */
static int64_t read_rows(paimon_table *t, const paimon_option *o, size_t n, paimon_error *err) {
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

static void test_warnings_and_invalid_values(void) {
  paimon_error err = {0};
  paimon_option co[] = {{"warehouse", WH}, {"warehous", "/nowhere"}};
  paimon_catalog *cat = NULL;
  CHECK_OK(paimon_catalog_open(co, 2, &cat, &err), &err);
  if (!cat) return;
  size_t n = 99;
  const char *const *w = paimon_catalog_warnings(cat, &n);
  CHECK_EQ_INT(n, 1);
  CHECK(w && has_warning(w, n, "'warehous'") && has_warning(w, n, "did you mean 'warehouse'"));
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, "append_09.append_09", &t, &err), &err);
  if (t) {
    n = 99;
    CHECK(paimon_table_warnings(t, &n) == NULL);
    CHECK_EQ_INT(n, 0);
    int64_t all = read_rows(t, NULL, 0, &err);
    CHECK(all > 0);
    /* a misspelt selector warns and (as in Java) does not select anything */
    paimon_option typo[] = {{"scan.snapshot-idd", "1"}};
    paimon_read_builder *rb = NULL;
    CHECK_OK(paimon_read_builder_new(t, typo, 1, &rb, &err), &err);
    n = 0;
    w = paimon_read_builder_warnings(rb, &n);
    CHECK_EQ_INT(n, 1);
    CHECK(w && has_warning(w, n, "'scan.snapshot-idd'") && has_warning(w, n, "'scan.snapshot-id'"));
    paimon_read_builder_free(rb);
    CHECK_EQ_INT(read_rows(t, typo, 1, &err), all);
    /* invalid values fail, naming the key and the value */
    paimon_option bad[] = {{"read.batch-size", "-5"}};
    CHECK_EQ_INT(read_rows(t, bad, 1, &err), -1);
    CHECK_EQ_INT(err.code, PAIMON_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(err.message, "read.batch-size") && strstr(err.message, "-5"), "%s", err.message);
    paimon_option bad2[] = {{"merge-engine", "dedupe"}};
    CHECK_EQ_INT(read_rows(t, bad2, 1, &err), -1);
    CHECK_MSG(strstr(err.message, "merge-engine") && strstr(err.message, "dedupe"), "%s", err.message);
    paimon_table_free(t);
  }
  paimon_catalog_free(cat);
}

static void check_single_threaded(paimon_catalog *cat, const char *ident) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  if (!t) return;
  paimon_option par[] = {{"read.parallelism", "4"}, {"scan.manifest.parallelism", "8"}, {"threads", "1"}};
  /* the executor's pool is persistent: a parallel read runs tasks on its workers (created by
   * the first one, reused later), so "used other threads" is counted in tasks run */
  uint64_t before = pm_executor_tasks_run();
  int64_t multi = read_rows(t, par, 2, &err); /* parallel read: tasks run on other threads */
  uint64_t mid = pm_executor_tasks_run(), mid_created = pm_executor_threads_created();
  int64_t single = read_rows(t, par, 3, &err); /* same options plus threads = 1 */
  uint64_t after = pm_executor_tasks_run();
  CHECK_MSG(mid > before, "%s: the parallel read ran nothing on another thread", ident);
  CHECK_MSG(after == mid, "%s: threads = 1 ran %llu tasks on other threads", ident, (unsigned long long)(after - mid));
  CHECK_MSG(pm_executor_threads_created() == mid_created, "%s: threads = 1 created %llu threads", ident,
            (unsigned long long)(pm_executor_threads_created() - mid_created));
  CHECK(multi > 0);
  CHECK_EQ_INT(single, multi);
  paimon_table_free(t);
}

static void test_single_threaded_mode(void) {
  paimon_error err = {0};
  paimon_option co[] = {{"warehouse", WH}};
  paimon_catalog *cat = NULL;
  CHECK_OK(paimon_catalog_open(co, 1, &cat, &err), &err);
  if (!cat) return;
  check_single_threaded(cat, "pk_09.pk_09");
  check_single_threaded(cat, "append_09.append_09");
  paimon_catalog_free(cat);
  /* the catalog's `threads` applies to its tables */
  paimon_option co1[] = {{"warehouse", WH}, {"threads", "1"}};
  CHECK_OK(paimon_catalog_open(co1, 2, &cat, &err), &err);
  if (!cat) return;
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, "pk_09.pk_09", &t, &err), &err);
  paimon_option par[] = {{"read.parallelism", "4"}, {"scan.manifest.parallelism", "8"}};
  uint64_t before = pm_executor_threads_created();
  if (t) CHECK(read_rows(t, par, 2, &err) > 0);
  CHECK_EQ_INT(pm_executor_threads_created(), before);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

int main(void) {
  RUN_TEST(test_warnings_and_invalid_values);
  RUN_TEST(test_single_threaded_mode);
  TEST_MAIN_END();
}
