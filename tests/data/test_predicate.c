/* Predicates: literal typing, parser, row truth, Java stats rules, Arrow batch bitmaps. */
#include <math.h>

#include "arrow/arrow.h"
#include "data/predicate.h"
#include "harness.h"

static pm_data_type T_INT = {.root = PM_DT_INT, .nullable = 1};
static pm_data_type T_STR = {.root = PM_DT_VARCHAR, .nullable = 1, .length = PM_DT_MAX_LENGTH};
static pm_data_type T_DBL = {.root = PM_DT_DOUBLE, .nullable = 1};
static pm_data_type T_DEC = {.root = PM_DT_DECIMAL, .nullable = 1, .precision = 10, .scale = 2};
static pm_data_type T_DATE = {.root = PM_DT_DATE, .nullable = 1};
static pm_data_type T_TS = {.root = PM_DT_TIMESTAMP, .nullable = 1, .precision = 3};

static pm_pred_column COLS[] = {
    {"id", 0, 0, &T_INT}, {"name", 1, 1, &T_STR}, {"score", 2, 2, &T_DBL},
    {"amt", 3, 3, &T_DEC}, {"d", 4, 4, &T_DATE},  {"ts", 5, 5, &T_TS},
};
#define NCOLS (sizeof COLS / sizeof COLS[0])

static pm_value vint(int64_t x) { pm_value v = {.kind = PM_V_INT}; v.u.i64 = x; return v; }
static pm_value vdbl(double x) { pm_value v = {.kind = PM_V_DOUBLE}; v.u.f64 = x; return v; }
static pm_value vstr(const char *s) {
  pm_value v = {.kind = PM_V_STRING};
  v.u.bytes.data = (const uint8_t *)s;
  v.u.bytes.len = strlen(s);
  return v;
}
static pm_value vnull(void) { pm_value v = {.kind = PM_V_NULL}; return v; }

static int eval_text(const char *text, const pm_value *row) {
  pm_error err = {0};
  pm_predicate *p = NULL;
  int rc = pm_pred_parse(text, COLS, NCOLS, 0, &p, &err);
  if (rc) {
    fprintf(stderr, "parse '%s': %s\n", text, err.message);
    return -1;
  }
  int r = pm_pred_eval_values(p, row, NCOLS);
  pm_pred_free(p);
  return r;
}

static void test_parse_and_rows(void) {
  pm_value row[NCOLS] = {vint(7), vstr("alice"), vdbl(NAN), vnull(), vint(19723), vnull()};
  CHECK_EQ_INT(eval_text("id > 5 and name like 'a%'", row), 1);
  CHECK_EQ_INT(eval_text("id > 7 or name = 'bob'", row), 0);
  CHECK_EQ_INT(eval_text("ID in (1, 7, 9)", row), 1);
  CHECK_EQ_INT(eval_text("id not in (1, null)", row), 0); /* notIn with a null literal is false */
  CHECK_EQ_INT(eval_text("amt is null and ts is null", row), 1);
  CHECK_EQ_INT(eval_text("not (id = 7)", row), 0);
  CHECK_EQ_INT(eval_text("name like '_lic_'", row), 1);
  CHECK_EQ_INT(eval_text("name like 'a\\%'", row), 0);
  CHECK_EQ_INT(eval_text("score > 1e300", row), 1); /* Java order: NaN is greatest */
  CHECK_EQ_INT(eval_text("d = '2024-01-01'", row), 1); /* 19723 days */
  CHECK_EQ_INT(eval_text("id between 1 and 7", row), 1);
  CHECK_EQ_INT(eval_text("amt > 1.5", row), 0); /* null never matches */

  pm_error err = {0};
  pm_predicate *p = NULL;
  CHECK(pm_pred_parse("id > 'abc'", COLS, NCOLS, 1, &p, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "'id'") != NULL);
  CHECK(pm_pred_parse("id > 3000000000", COLS, NCOLS, 1, &p, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(pm_pred_parse("nope = 1", COLS, NCOLS, 1, &p, &err) == PAIMON_ERR_NOT_FOUND);
  CHECK(pm_pred_parse("ID = 1", COLS, NCOLS, 1, &p, &err) == PAIMON_ERR_NOT_FOUND); /* case-sensitive */
  CHECK(pm_pred_parse("id = 1 and", COLS, NCOLS, 1, &p, &err) != 0);
  CHECK(p == NULL);

  CHECK_OK(pm_pred_parse("amt = 12.5 and name <> 'x''y'", COLS, NCOLS, 1, &p, &err), &err);
  pm_buf b;
  pm_buf_init(&b);
  CHECK_OK(pm_pred_to_string(p, &b, &err), &err);
  pm_buf_push_u8(&b, 0);
  CHECK_EQ_STR((const char *)b.data, "(amt = 12.50 AND name <> 'x''y')");
  pm_buf_free(&b);
  /* remap / extract: keep only conjuncts on field 1 (name), moved to index 0 */
  int32_t map[NCOLS] = {-1, 0, -1, -1, -1, -1};
  pm_predicate *ex = NULL;
  CHECK_OK(pm_pred_extract(p, map, NCOLS, &ex, &err), &err);
  CHECK(ex && ex->op == PM_PRED_NOT_EQUAL && ex->field_index == 0);
  pm_pred_free(ex);
  pm_predicate *neg = NULL;
  CHECK_OK(pm_pred_negate(p, &neg, &err), &err);
  CHECK(neg && neg->op == PM_PRED_OR && neg->children[0]->op == PM_PRED_NOT_EQUAL);
  pm_pred_free(neg);
  pm_pred_free(p);
}

static int stats_test(const char *text, int64_t rows, pm_value mn, pm_value mx, int64_t nulls) {
  pm_error err = {0};
  pm_predicate *p = NULL;
  if (pm_pred_parse(text, COLS, NCOLS, 1, &p, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return -1;
  }
  pm_col_stats st = {mn, mx, nulls};
  const pm_col_stats *cols[NCOLS] = {&st, &st, &st, &st, &st, &st};
  int r = pm_pred_test_stats(p, rows, cols, NCOLS);
  pm_pred_free(p);
  return r;
}

static void test_stats(void) {
  CHECK_EQ_INT(stats_test("id = 5", 10, vint(1), vint(4), 0), 0);
  CHECK_EQ_INT(stats_test("id = 4", 10, vint(1), vint(4), 0), 1);
  CHECK_EQ_INT(stats_test("id < 1", 10, vint(1), vint(4), 0), 0);
  CHECK_EQ_INT(stats_test("id <= 1", 10, vint(1), vint(4), 0), 1);
  CHECK_EQ_INT(stats_test("id > 4", 10, vint(1), vint(4), 0), 0);
  CHECK_EQ_INT(stats_test("id <> 3", 10, vint(3), vint(3), 0), 0);
  CHECK_EQ_INT(stats_test("id in (0, 9)", 10, vint(1), vint(4), 0), 0);
  CHECK_EQ_INT(stats_test("id in (0, 2)", 10, vint(1), vint(4), 0), 1);
  CHECK_EQ_INT(stats_test("id is null", 10, vint(1), vint(4), 0), 0);
  CHECK_EQ_INT(stats_test("id is not null", 10, vnull(), vnull(), 10), 0);
  CHECK_EQ_INT(stats_test("id = 1", 10, vnull(), vnull(), 10), 0);   /* all null */
  CHECK_EQ_INT(stats_test("id = 99", 10, vnull(), vnull(), -1), 1);  /* unknown stats never prune */
  CHECK_EQ_INT(stats_test("id = 99", 10, vnull(), vint(4), 3), 1);   /* min unknown */
  CHECK_EQ_INT(stats_test("name like 'zz%'", 10, vstr("a"), vstr("b"), 0), 1);
  CHECK_EQ_INT(stats_test("score > 5", 10, vdbl(1), vdbl(NAN), 0), 1); /* NaN max keeps the file */
  /* absent column: all null */
  pm_error err = {0};
  pm_predicate *p = NULL;
  CHECK_OK(pm_pred_parse("id > 3", COLS, NCOLS, 1, &p, &err), &err);
  const pm_col_stats *none[NCOLS] = {0};
  CHECK_EQ_INT(pm_pred_test_stats(p, 5, none, NCOLS), 0);
  pm_pred_free(p);
  CHECK_OK(pm_pred_parse("id is null", COLS, NCOLS, 1, &p, &err), &err);
  CHECK_EQ_INT(pm_pred_test_stats(p, 5, none, NCOLS), 1);
  pm_pred_free(p);
}

/* A 2-column struct batch: id int32 [1, null, 3, 4], name utf8 ["ab", "b", "ac", null]. */
static void make_batch(struct ArrowSchema *s, struct ArrowArray *a, pm_error *err) {
  pm_schema_init(s, "+s", "", 0, 2, err);
  pm_schema_init(s->children[0], "i", "id", ARROW_FLAG_NULLABLE, 0, err);
  pm_schema_init(s->children[1], "u", "name", ARROW_FLAG_NULLABLE, 0, err);
  pm_array_init(a, 4, 1, 2, err);
  struct ArrowArray *c0 = a->children[0], *c1 = a->children[1];
  pm_array_init(c0, 4, 2, 0, err);
  uint8_t *v0 = pm_aligned_alloc(8);
  v0[0] = 0x0d; /* rows 0, 2, 3 valid */
  int32_t *d0 = pm_aligned_alloc(16);
  d0[0] = 1, d0[1] = 0, d0[2] = 3, d0[3] = 4;
  pm_array_set_buffer(c0, 0, v0);
  pm_array_set_buffer(c0, 1, d0);
  c0->null_count = 1;
  pm_array_init(c1, 4, 3, 0, err);
  uint8_t *v1 = pm_aligned_alloc(8);
  v1[0] = 0x07;
  int32_t *o1 = pm_aligned_alloc(20);
  o1[0] = 0, o1[1] = 2, o1[2] = 3, o1[3] = 5, o1[4] = 5;
  char *b1 = pm_aligned_alloc(8);
  memcpy(b1, "abbac", 5);
  pm_array_set_buffer(c1, 0, v1);
  pm_array_set_buffer(c1, 1, o1);
  pm_array_set_buffer(c1, 2, b1);
  c1->null_count = 1;
}

static int batch_bits(const char *text) {
  pm_error err = {0};
  struct ArrowSchema s;
  struct ArrowArray a;
  make_batch(&s, &a, &err);
  pm_predicate *p = NULL;
  int r = -1;
  if (pm_pred_parse(text, COLS, NCOLS, 1, &p, &err) == 0) {
    uint8_t bits[1] = {0};
    if (pm_pred_eval_batch_by_name(p, &s, &a, 1, bits, &err) == 0) r = bits[0];
    else fprintf(stderr, "%s\n", err.message);
  }
  pm_pred_free(p);
  pm_array_release(&a);
  pm_schema_release(&s);
  return r;
}

static void test_batch(void) {
  CHECK_EQ_INT(batch_bits("id > 1"), 0x0c);
  CHECK_EQ_INT(batch_bits("id is null"), 0x02);
  CHECK_EQ_INT(batch_bits("name like 'a%'"), 0x05);
  CHECK_EQ_INT(batch_bits("name like 'a%' or id = 4"), 0x0d);
  CHECK_EQ_INT(batch_bits("name starts with 'a'") , -1); /* not in the grammar */
  CHECK_EQ_INT(batch_bits("score is null"), 0x0f);       /* column missing from the batch: all null */
  CHECK_EQ_INT(batch_bits("id not in (3)"), 0x09);
}

static void test_like(void) {
  const char *s = "h\xc3\xa9llo\nworld";
  CHECK_EQ_INT(pm_like_match((const uint8_t *)s, strlen(s), (const uint8_t *)"h_llo%", 6), 1);
  CHECK_EQ_INT(pm_like_match((const uint8_t *)s, strlen(s), (const uint8_t *)"%world", 6), 1);
  CHECK_EQ_INT(pm_like_match((const uint8_t *)"a%b", 3, (const uint8_t *)"a\\%b", 4), 1);
  CHECK_EQ_INT(pm_like_match((const uint8_t *)"axb", 3, (const uint8_t *)"a\\%b", 4), 0);
  CHECK_EQ_INT(pm_like_match((const uint8_t *)"abc", 3, (const uint8_t *)"a\\q", 3), -1);
  CHECK_EQ_INT(pm_like_match((const uint8_t *)"aXbXc", 5, (const uint8_t *)"%b%c", 4), 1);
}

/* Error paths of the parser must not leak (checked under ASan): random token soups. */
static void test_parser_token_soup(void) {
  static const char *toks[] = {"id", "name", "amt", "ts", "=", "<>", "<", ">=", "and", "or", "not", "(", ")",
                               "in", ",", "like", "'a%'", "'x''y'", "12", "-3.5", "1e9", "null", "true", "is",
                               "between", "'2024-01-01 10:00:00'", "''", "'", "`id`", "99999999999999999999", "%", "$"};
  size_t nt = sizeof toks / sizeof toks[0];
  unsigned seed = 12345;
  char buf[512];
  int parsed = 0;
  for (int it = 0; it < 20000; it++) {
    size_t k = 0;
    seed = seed * 1103515245u + 12345u;
    int n = (int)((seed >> 16) % 10);
    for (int j = 0; j < n; j++) {
      seed = seed * 1103515245u + 12345u;
      k += (size_t)snprintf(buf + k, sizeof buf - k, "%s ", toks[(seed >> 16) % nt]);
    }
    buf[k] = 0;
    if (it % 3 == 0) { /* well-formed shapes with random columns, operators and literals */
      static const char *c[] = {"id", "name", "amt", "ts"}, *o[] = {"=", "<>", "<", ">=", "in ("},
                        *l[] = {"12", "'a%'", "-3.5", "null", "'2024-01-01 10:00:00'", "99999999999999999999"};
      seed = seed * 1103515245u + 12345u;
      unsigned r = seed >> 8;
      const char *op = o[r % 5];
      snprintf(buf, sizeof buf, "%s %s %s%s %s %s is not null", c[(r / 5) % 4], op, l[(r / 20) % 6],
               op[0] == 'i' ? ")" : "", (r / 120) % 2 ? "and" : "or", c[(r / 240) % 4]);
    }
    pm_error err = {0};
    pm_predicate *p = NULL;
    if (pm_pred_parse(buf, COLS, NCOLS, it & 1, &p, &err) == 0) {
      parsed++;
      pm_value row[NCOLS] = {vint(1), vstr("ab"), vnull(), vnull(), vnull(), vnull()};
      pm_pred_eval_values(p, row, NCOLS);
      pm_pred_free(p);
    } else {
      CHECK(p == NULL && err.message[0]);
    }
  }
  CHECK_MSG(parsed > 10, "%d parsed", parsed);
}

/* Issue 10 #6: literal errors say what the value is, the column's type and why it does not fit. */
static const char *parse_error(const char *text) {
  static pm_error err;
  pm_error_clear(&err);
  pm_predicate *p = NULL;
  if (pm_pred_parse(text, COLS, NCOLS, 1, &p, &err) == 0) {
    pm_pred_free(p);
    return "(parsed)";
  }
  CHECK(p == NULL);
  return err.message;
}

static void test_literal_error_messages(void) {
  CHECK_EQ_STR(parse_error("d = '1970-13-45'"), "'1970-13-45' is not a valid DATE for column 'd'");
  CHECK_EQ_STR(parse_error("d = '2023-02-30'"), "'2023-02-30' is not a valid DATE for column 'd'");
  CHECK_EQ_STR(parse_error("id = 'abc'"), "'abc' is not a valid INT for column 'id'");
  CHECK_EQ_STR(parse_error("amt = 'x1'"), "'x1' is not a valid DECIMAL(10, 2) for column 'amt'");
  CHECK_EQ_STR(parse_error("ts = 'noon'"), "'noon' is not a valid TIMESTAMP(3) for column 'ts'");
  CHECK_EQ_STR(parse_error("id = true"), "true does not fit column 'id' of type INT: a boolean cannot be compared with INT");
  CHECK_EQ_STR(parse_error("id = 1.5"), "1.5 does not fit column 'id' of type INT: the column holds whole numbers");
  CHECK_EQ_STR(parse_error("amt = 1.234"), "'1.234' does not fit column 'amt' of type DECIMAL(10, 2): more fraction "
                                           "digits than the column's scale");
  CHECK(strstr(parse_error("id = 3000000000"), "out of range for column 'id' of type INT") != NULL);
  CHECK(strstr(parse_error("d = true"), "kind") == NULL);
  /* the API's literal kinds through pm_literal_to_value: never "kind N" */
  pm_error err;
  pm_error_clear(&err);
  pm_literal lit = {.kind = PM_LIT_BYTES, .s = "ab", .len = 2};
  pm_value v;
  uint8_t *owned = NULL;
  CHECK(pm_literal_to_value(&lit, &COLS[1], &v, &owned, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_STR(err.message, "a byte string of 2 bytes does not fit column 'name' of type STRING: bytes are not text");
  pm_literal dl = {.kind = PM_LIT_DATE, .i = 1};
  CHECK(pm_literal_to_value(&dl, &COLS[0], &v, &owned, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_STR(err.message, "DATE '1970-01-02' does not fit column 'id' of type INT: a date cannot be compared with INT");
}

static pm_data_type T_LTZ = {.root = PM_DT_TIMESTAMP_LTZ, .nullable = 1, .precision = 0};
static pm_pred_column TS_COLS[] = {{"ts", 0, 0, &T_TS}, {"ts_tz_sec", 1, 1, &T_LTZ}};

/* The one literal of a single-leaf predicate parsed in zone `zone` (NULL = UTC): millis, or INT64_MIN. */
static int64_t ts_literal(const char *text, const char *zone) {
  pm_error err;
  pm_error_clear(&err);
  pm_tz *tz = NULL;
  if (zone && pm_tz_load(zone, &tz, &err)) return INT64_MIN;
  pm_predicate *p = NULL;
  int64_t r = INT64_MIN;
  if (pm_pred_parse_tz(text, TS_COLS, 2, 1, tz, &p, &err) == 0 && p->n_literals == 1 &&
      p->literals[0].kind == PM_V_TIMESTAMP)
    r = p->literals[0].u.ts.millis;
  else if (err.message[0])
    fprintf(stderr, "  %s: %s\n", text, err.message);
  pm_pred_free(p);
  pm_tz_free(tz);
  return r;
}

/* Issue 10 #17 and #7: printed timestamp forms are accepted; LTZ literals honour the zone; numbers are refused. */
static void test_timestamp_literals(void) {
  CHECK_EQ_INT(ts_literal("ts_tz_sec = '1970-01-01T00:00:04Z'", NULL), 4000);
  CHECK_EQ_INT(ts_literal("ts_tz_sec = '1970-01-01T00:00:04Z'", "Asia/Shanghai"), 4000);
  CHECK_EQ_INT(ts_literal("ts_tz_sec = '1970-01-01T08:00:04+08:00'", NULL), 4000);
  CHECK_EQ_INT(ts_literal("ts_tz_sec = '1970-01-01 08:00:04 +0800'", NULL), 4000);
  CHECK_EQ_INT(ts_literal("ts_tz_sec = '1969-12-31T19:00:04-05:00'", NULL), 4000);
  CHECK_EQ_INT(ts_literal("ts_tz_sec = '1970-01-01 00:00:04 UTC'", NULL), 4000);
  /* zone-less text on a local-time-zone column: wall clock of the session zone */
  CHECK_EQ_INT(ts_literal("ts_tz_sec = '1970-01-01 08:00:04'", "Asia/Shanghai"), 4000);
  CHECK_EQ_INT(ts_literal("ts_tz_sec = '1970-01-01 00:00:04'", NULL), 4000);
  CHECK_EQ_INT(ts_literal("ts_tz_sec = TIMESTAMP '1970-01-01 08:00:04'", "Asia/Shanghai"), 4000);
  CHECK_EQ_INT(ts_literal("ts_tz_sec >= DATE '1970-01-02'", "Asia/Shanghai"), 86400000LL - 8 * 3600000LL);
  /* zone-less column: zone-less text is the wall clock; a zoned text is converted to the session zone */
  CHECK_EQ_INT(ts_literal("ts = '1970-01-01T00:00:04'", "Asia/Shanghai"), 4000);
  CHECK_EQ_INT(ts_literal("ts = '1970-01-01T00:00:04Z'", "Asia/Shanghai"), 8 * 3600000LL + 4000);
  CHECK_EQ_INT(ts_literal("ts = TIMESTAMP '1970-01-01 00:00:04.5'", NULL), 4500);
  CHECK_EQ_INT(ts_literal("ts < DATE '1970-01-02'", NULL), 86400000LL);
  /* an integer compared with a timestamp column is an error */
  pm_error err;
  pm_error_clear(&err);
  pm_predicate *p = NULL;
  CHECK(pm_pred_parse("ts > 3", TS_COLS, 2, 1, &p, &err) == PAIMON_ERR_INVALID_ARGUMENT && !p);
  CHECK(strstr(err.message, "3 does not fit column 'ts' of type TIMESTAMP(3): a number is not a timestamp") != NULL);
  CHECK(pm_pred_parse("ts_tz_sec > 3.5", TS_COLS, 2, 1, &p, &err) == PAIMON_ERR_INVALID_ARGUMENT && !p);
  CHECK(pm_pred_parse("ts = TIMESTAMP '1970-01-01 25:00'", TS_COLS, 2, 1, &p, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "is not a valid timestamp") != NULL);
  CHECK(pm_pred_parse("ts = DATE 'x'", TS_COLS, 2, 1, &p, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(pm_pred_parse("ts = '1970-01-01T00:00:04+25:00'", TS_COLS, 2, 1, &p, &err) == PAIMON_ERR_INVALID_ARGUMENT);
}

/* Issue 10 #18: at least 64 levels of nesting; the limit is in the message. */
static void test_nesting_limit(void) {
  char buf[4096];
  for (int depth = 64; depth <= PM_PRED_MAX_NESTING + 1; depth += PM_PRED_MAX_NESTING + 1 - 64) {
    size_t k = 0;
    for (int i = 0; i < depth; i++) k += (size_t)snprintf(buf + k, sizeof buf - k, "(id = %d or ", i);
    k += (size_t)snprintf(buf + k, sizeof buf - k, "id = 7");
    for (int i = 0; i < depth; i++) buf[k++] = ')';
    buf[k] = 0;
    pm_error err;
    pm_error_clear(&err);
    pm_predicate *p = NULL;
    int rc = pm_pred_parse(buf, COLS, NCOLS, 1, &p, &err);
    if (depth <= PM_PRED_MAX_NESTING) {
      CHECK_OK(rc, &err);
      pm_value row[NCOLS] = {vint(7), vstr("a"), vnull(), vnull(), vnull(), vnull()};
      CHECK_EQ_INT(rc ? -1 : pm_pred_eval_values(p, row, NCOLS), 1);
      pm_pred_free(p);
    } else {
      CHECK(rc == PAIMON_ERR_INVALID_ARGUMENT && !p);
      CHECK_MSG(strstr(err.message, "nested deeper than 128 levels") != NULL, "%s", err.message);
    }
  }
  CHECK(PM_PRED_MAX_NESTING >= 64);
  /* NOT counts as a level too: 100 NOTs are fine */
  size_t k = 0;
  for (int i = 0; i < 100; i++) k += (size_t)snprintf(buf + k, sizeof buf - k, "not ");
  snprintf(buf + k, sizeof buf - k, "id = 7");
  pm_value row[NCOLS] = {vint(7), vstr("a"), vnull(), vnull(), vnull(), vnull()};
  CHECK_EQ_INT(eval_text(buf, row), 1);
}

/* Filters UX: NOT LIKE, [NOT] BETWEEN, DATE / TIMESTAMP literals, quoted names, nested fields. */
static void test_grammar_ux(void) {
  pm_value row[NCOLS] = {vint(7), vstr("alice"), vdbl(1.5), vnull(), vint(19723), vnull()};
  CHECK_EQ_INT(eval_text("name not like 'b%'", row), 1);
  CHECK_EQ_INT(eval_text("name not like 'a%'", row), 0);
  CHECK_EQ_INT(eval_text("not (name like 'a%')", row), 0);
  CHECK_EQ_INT(eval_text("not (name not like 'a%')", row), 1);
  CHECK_EQ_INT(eval_text("id not between 1 and 6", row), 1);
  CHECK_EQ_INT(eval_text("id not between 1 and 7", row), 0);
  CHECK_EQ_INT(eval_text("d = DATE '2024-01-01'", row), 1);
  CHECK_EQ_INT(eval_text("d between DATE '2023-12-31' and DATE '2024-01-02'", row), 1);
  CHECK_EQ_INT(eval_text("\"id\" = 7 and \"name\" = 'alice'", row), 1);
  CHECK_EQ_INT(eval_text("`ID` = 7", row), 1);
  pm_value nulls[NCOLS] = {vint(7), vnull(), vnull(), vnull(), vnull(), vnull()};
  CHECK_EQ_INT(eval_text("name not like 'b%'", nulls), 0); /* NULL never matches, negated or not */
  /* NOT LIKE prints back and never prunes */
  pm_error err;
  pm_error_clear(&err);
  pm_predicate *p = NULL;
  CHECK_OK(pm_pred_parse("name not like 'a%'", COLS, NCOLS, 1, &p, &err), &err);
  pm_buf b;
  pm_buf_init(&b);
  CHECK_OK(pm_pred_to_string(p, &b, &err), &err);
  pm_buf_push_u8(&b, 0);
  CHECK_EQ_STR((const char *)b.data, "name NOT LIKE 'a%'");
  pm_buf_free(&b);
  pm_col_stats st = {vstr("a"), vstr("az"), 0};
  const pm_col_stats *cols[NCOLS] = {NULL, &st, NULL, NULL, NULL, NULL};
  CHECK_EQ_INT(pm_pred_test_stats(p, 10, cols, NCOLS), 1);
  pm_pred_free(p);
  /* nested fields: a clear error naming the ROW column */
  static pm_data_type T_ROW = {.root = PM_DT_ROW, .nullable = 1};
  static pm_pred_column NCOLS2[] = {{"id", 0, 0, &T_INT}, {"a", 1, 1, &T_ROW}};
  CHECK(pm_pred_parse("a.b = 1", NCOLS2, 2, 1, &p, &err) == PAIMON_ERR_UNSUPPORTED && !p);
  CHECK_EQ_STR(err.message, "filter: 'a.b' is a field of the ROW column 'a': filters on nested fields are not supported");
  CHECK(pm_pred_parse("x.b = 1", NCOLS2, 2, 1, &p, &err) == PAIMON_ERR_NOT_FOUND);
}

/* IN / NOT IN with many literals (looked up by binary search from IN_SORT_MIN literals on)
 * agree with the SQL rule checked value by value: random int, double and string lists of
 * 0..40 literals with duplicates and NULLs, against random values, also on a copy. */
static int model_in(const pm_value *lits, size_t n, const pm_value *v, int not_in) {
  if (v->kind == PM_V_NULL) return 0;
  int found = 0, has_null = 0;
  for (size_t i = 0; i < n; i++) {
    if (lits[i].kind == PM_V_NULL) has_null = 1;
    else if (pm_pred_value_compare(v, &lits[i]) == 0) found = 1;
  }
  return not_in ? !found && !has_null : found;
}

static void test_in_many_literals(void) {
  uint64_t seed = 12345;
  char sbuf[64][8];
  for (int round = 0; round < 300; round++) {
    int col = round % 3; /* id INT, score DOUBLE, name STRING */
    size_t n = 1 + (size_t)(round * 7 % 40);
    pm_literal lits[40];
    pm_value want[40];
    for (size_t i = 0; i < n; i++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      int64_t r = (int64_t)((seed >> 33) % 50);
      if (r == 0 && round % 4 == 0) {
        lits[i] = (pm_literal){.kind = PM_LIT_NULL};
        want[i] = vnull();
      } else if (col == 0) {
        lits[i] = (pm_literal){.kind = PM_LIT_INT, .i = r - 25};
        want[i] = vint(r - 25);
      } else if (col == 1) {
        lits[i] = (pm_literal){.kind = PM_LIT_DOUBLE, .d = (double)(r - 25) / 4};
        want[i] = vdbl((double)(r - 25) / 4);
      } else {
        snprintf(sbuf[i], sizeof sbuf[i], "k%02d", (int)r);
        lits[i] = (pm_literal){.kind = PM_LIT_STRING, .s = sbuf[i], .len = strlen(sbuf[i])};
        want[i] = vstr(sbuf[i]);
      }
    }
    for (int not_in = 0; not_in < 2; not_in++) {
      pm_error err = {0};
      pm_predicate *p = NULL, *c = NULL;
      CHECK_OK(pm_pred_leaf(not_in ? PM_PRED_NOT_IN : PM_PRED_IN, &COLS[col == 0 ? 0 : col == 1 ? 2 : 1], lits, n,
                            &p, &err), &err);
      if (p) CHECK_OK(pm_pred_copy(p, &c, &err), &err);
      if (p && n >= 8 && col != 1) CHECK(p->in_sorted != NULL);
      for (int64_t x = -30; x <= 55 && p && c; x++) {
        pm_value row[NCOLS];
        for (size_t k = 0; k < NCOLS; k++) row[k] = vnull();
        char vb[8];
        snprintf(vb, sizeof vb, "k%02d", (int)x);
        pm_value v = x == 55 ? vnull() : col == 0 ? vint(x) : col == 1 ? vdbl((double)x / 4) : vstr(vb);
        row[col == 0 ? 0 : col == 1 ? 2 : 1] = v;
        int m = model_in(want, n, &v, not_in);
        CHECK_MSG(pm_pred_eval_values(p, row, NCOLS) == m, "round %d col %d n %zu x %lld not_in %d", round, col, n,
                  (long long)x, not_in);
        CHECK(pm_pred_eval_values(c, row, NCOLS) == m);
      }
      pm_pred_free(p);
      pm_pred_free(c);
    }
  }
}

int main(void) {
  RUN_TEST(test_parse_and_rows);
  RUN_TEST(test_stats);
  RUN_TEST(test_batch);
  RUN_TEST(test_like);
  RUN_TEST(test_parser_token_soup);
  RUN_TEST(test_literal_error_messages);
  RUN_TEST(test_timestamp_literals);
  RUN_TEST(test_nesting_limit);
  RUN_TEST(test_grammar_ux);
  RUN_TEST(test_in_many_literals);
  TEST_MAIN_END();
}
