/* Predicate builders of the public API: literal errors (issue 10 #6), timestamp literals
 * (#17, #7), paimon_predicate_not and paimon_predicate_between. */
#include <stdlib.h>

#include "harness.h"
#include "paimon/paimon.h"

#define WH PM_SHARED("fixtures/warehouse/parquet")
#define TS "append_with_multiple_ts_precision_and_timezone.append_with_multiple_ts_precision_and_timezone"

static paimon_catalog *cat;

static paimon_read_builder *builder(const char *table, const paimon_option *dyn, size_t n_dyn, paimon_table **t) {
  paimon_error err = {0};
  paimon_read_builder *rb = NULL;
  *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, table, t, &err), &err);
  if (*t) CHECK_OK(paimon_read_builder_new(*t, dyn, n_dyn, &rb, &err), &err);
  return rb;
}

/* Rows read with predicate p (consumed), or -1. */
static int64_t count_rows(paimon_read_builder *rb, paimon_predicate *p) {
  paimon_error err = {0};
  if (paimon_read_builder_with_filter(rb, p, &err)) {
    fprintf(stderr, "with_filter: %s\n", err.message);
    return -1;
  }
  paimon_plan *plan = NULL;
  struct ArrowArrayStream s;
  int64_t n = -1;
  if (paimon_read_builder_plan(rb, &plan, &err) == 0 && paimon_read_plan(rb, plan, &s, &err) == 0) {
    n = 0;
    for (;;) {
      struct ArrowArray a;
      if (s.get_next(&s, &a)) {
        n = -1;
        break;
      }
      if (!a.release) break;
      n += a.length;
      a.release(&a);
    }
    s.release(&s);
  } else {
    fprintf(stderr, "read: %s\n", err.message);
  }
  paimon_plan_free(plan);
  return n;
}

static int64_t count_where(paimon_read_builder *rb, const char *where) {
  paimon_error err = {0};
  paimon_predicate *p = NULL;
  if (paimon_predicate_parse(rb, where, &p, &err)) {
    fprintf(stderr, "parse %s: %s\n", where, err.message);
    return -1;
  }
  return count_rows(rb, p);
}

/* #6: say what the value is, the column's type and why; never "kind -1" or "make_leaf". */
static void test_literal_errors(void) {
  paimon_table *t;
  paimon_read_builder *rb = builder(TS, NULL, 0, &t);
  if (!rb) return;
  paimon_error err = {0};
  paimon_predicate *p = NULL;
  paimon_literal bad = paimon_literal_int64(1);
  bad.kind = (paimon_literal_kind)99;
  CHECK(paimon_predicate_equal(rb, "ts_sec", bad, &p, &err) == PAIMON_ERR_INVALID_ARGUMENT && !p);
  CHECK_MSG(!strstr(err.message, "kind -1") && strstr(err.message, "paimon_predicate_equal: value 1 for column 'ts_sec' "
                                                                   "is not a paimon_literal"),
            "%s", err.message);
  CHECK(paimon_predicate_in(rb, "ts_sec", &bad, 1, &p, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "paimon_predicate_in: value 1") != NULL);
  CHECK(paimon_predicate_equal(rb, NULL, paimon_literal_int64(1), &p, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_STR(err.message, "paimon_predicate_equal: column is NULL");
  CHECK(paimon_predicate_is_null(NULL, "ts_sec", &p, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_STR(err.message, "paimon_predicate_is_null: read builder is NULL");
  CHECK(paimon_predicate_equal(rb, "ts_sec", paimon_literal_string("1970-13-45"), &p, &err) ==
        PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_STR(err.message, "'1970-13-45' is not a valid TIMESTAMP(0) for column 'ts_sec'");
  /* #17: an integer compared with a timestamp column is an error */
  CHECK(paimon_predicate_greater_than(rb, "ts_sec", paimon_literal_int64(3), &p, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "a number is not a timestamp") != NULL);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
}

/* #17 / #7: printed forms of zoned values, and zone-less text in the session zone. */
static void test_timestamp_literals(void) {
  setenv("TZ", "Asia/Shanghai", 1);
  paimon_table *t;
  paimon_read_builder *rb = builder(TS, NULL, 0, &t);
  if (!rb) return;
  paimon_error err = {0};
  CHECK_EQ_INT(count_where(rb, "ts_tz_sec = '1970-01-01T00:00:04Z'"), 1);
  CHECK_EQ_INT(count_where(rb, "ts_tz_sec = '1970-01-01 08:00:04'"), 1); /* Shanghai wall clock */
  CHECK_EQ_INT(count_where(rb, "ts_tz_sec = '1970-01-01 00:00:04'"), 0);
  CHECK_EQ_INT(count_where(rb, "ts_tz_sec >= TIMESTAMP '1970-01-01 08:00:04'"), 2);
  paimon_predicate *p = NULL;
  CHECK_OK(paimon_predicate_equal(rb, "ts_tz_sec", paimon_literal_string("1970-01-01T08:00:04+08:00"), &p, &err), &err);
  CHECK_EQ_INT(p ? count_rows(rb, p) : -1, 1);
  CHECK_OK(paimon_predicate_equal(rb, "ts_tz_sec", paimon_literal_timestamp(4000, 0), &p, &err), &err);
  CHECK_EQ_INT(p ? count_rows(rb, p) : -1, 1);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  /* an explicit session zone wins over TZ */
  paimon_option o[] = {{"session_time_zone", "UTC"}};
  rb = builder(TS, o, 1, &t);
  if (rb) {
    CHECK_EQ_INT(count_where(rb, "ts_tz_sec = '1970-01-01 00:00:04'"), 1);
    CHECK_EQ_INT(count_where(rb, "ts_tz_sec = '1970-01-01 08:00:04'"), 0);
    paimon_read_builder_free(rb);
  }
  paimon_table_free(t);
  unsetenv("TZ");
}

/* paimon_predicate_not and paimon_predicate_between. */
static void test_not_and_between(void) {
  paimon_table *t;
  paimon_read_builder *rb = builder("pk_09.pk_09", NULL, 0, &t);
  if (!rb) return;
  paimon_error err = {0};
  int64_t total = count_where(rb, "f1 is not null or f1 is null");
  paimon_predicate *p = NULL, *n = NULL;
  CHECK_OK(paimon_predicate_between(rb, "f1", paimon_literal_int64(10), paimon_literal_int64(10), &p, &err), &err);
  int64_t in = p ? count_rows(rb, p) : -1;
  CHECK_EQ_INT(in, count_where(rb, "f1 = 10"));
  CHECK(in > 0 && in < total);
  CHECK_OK(paimon_predicate_between(rb, "f1", paimon_literal_int64(10), paimon_literal_int64(10), &p, &err), &err);
  CHECK_OK(paimon_predicate_not(p, &n, &err), &err);
  CHECK_EQ_INT(n ? count_rows(rb, n) : -1, total - in);
  /* not over a string function */
  CHECK_OK(paimon_predicate_like(rb, "f0", "A%", &p, &err), &err);
  CHECK_OK(paimon_predicate_not(p, &n, &err), &err);
  char *text = NULL;
  CHECK_OK(paimon_predicate_to_string(n, &text, &err), &err);
  CHECK_EQ_STR(text, "f0 NOT LIKE 'A%'");
  paimon_free_string(text);
  CHECK_EQ_INT(count_rows(rb, n), total - count_where(rb, "f0 like 'A%'"));
  /* errors: NULL child, bad literal in between (and nothing leaks) */
  CHECK(paimon_predicate_not(NULL, &n, &err) == PAIMON_ERR_INVALID_ARGUMENT && !n);
  CHECK(paimon_predicate_between(rb, "f1", paimon_literal_int64(1), paimon_literal_string("x"), &p, &err) ==
        PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(!p && strstr(err.message, "'x' is not a valid INT for column 'f1'"));
  CHECK(paimon_predicate_between(rb, "nope", paimon_literal_int64(1), paimon_literal_int64(2), &p, &err) ==
        PAIMON_ERR_NOT_FOUND);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
}

int main(void) {
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", WH}};
  CHECK_OK(paimon_catalog_open(o, 1, &cat, &err), &err);
  if (!cat) TEST_MAIN_END();
  RUN_TEST(test_literal_errors);
  RUN_TEST(test_timestamp_literals);
  RUN_TEST(test_not_and_between);
  paimon_catalog_free(cat);
  TEST_MAIN_END();
}
