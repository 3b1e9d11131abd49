/*
 * Schema evolution on read: field-id mapping (renamed, reordered, dropped and
 * added columns) and the casts Java applies to values of altered columns
 * (fixtures README "Schema evolution"; values taken from the
 * append_table_alter_table_with_cast and append_with_cast_timestamp fixtures).
 */
#include <math.h>

#include "arrow/builder.h"
#include "harness.h"
#include "table/evolution.h"

static pm_error err;

static void type1(pm_type *t, pm_type_id id) { pm_type_init(t, id, "c", 1, 0, &err); }

static struct ArrowArray strings(const char *const *v, int n) {
  pm_type t;
  type1(&t, PM_T_UTF8);
  pm_builder *b;
  pm_builder_new(&t, &b, &err);
  for (int i = 0; i < n; i++) {
    if (v[i]) pm_builder_append_str(b, v[i], &err);
    else pm_builder_append_null(b, &err);
  }
  struct ArrowArray a;
  pm_builder_finish(b, &a, &err);
  pm_builder_free(b);
  pm_type_free(&t);
  return a;
}

static const char *str_at(const struct ArrowArray *a, int64_t i, char *buf, size_t cap) {
  if (!pm_array_is_valid(a, i)) return "(null)";
  const int32_t *o = a->buffers[1];
  snprintf(buf, cap, "%.*s", (int)(o[i + 1] - o[i]), (const char *)a->buffers[2] + o[i]);
  return buf;
}

static void test_string_to_bool_and_int(void) {
  const char *in[] = {"True", "1", "Yes", "nO", "0", "f", NULL};
  struct ArrowArray a = strings(in, 7), out;
  pm_type from, to;
  type1(&from, PM_T_UTF8);
  type1(&to, PM_T_BOOL);
  CHECK_OK(pm_cast_array(&a, &from, &to, NULL, &out, &err), &err);
  int want[] = {1, 1, 1, 0, 0, 0};
  for (int i = 0; i < 6; i++) {
    CHECK(pm_array_is_valid(&out, i));
    CHECK_EQ_INT(pm_bit_get(out.buffers[1], i), want[i]);
  }
  CHECK(!pm_array_is_valid(&out, 6));
  out.release(&out);
  a.release(&a);
  const char *bad[] = {"maybe"};
  a = strings(bad, 1);
  CHECK_EQ_INT(pm_cast_array(&a, &from, &to, NULL, &out, &err), PAIMON_ERR_INVALID_ARGUMENT);
  a.release(&a);
  pm_type_free(&to);
  const char *nums[] = {"100", " -44 ", "12.9"};
  a = strings(nums, 3);
  type1(&to, PM_T_INT32);
  CHECK_OK(pm_cast_array(&a, &from, &to, NULL, &out, &err), &err);
  CHECK_EQ_INT(((const int32_t *)out.buffers[1])[0], 100);
  CHECK_EQ_INT(((const int32_t *)out.buffers[1])[1], -44);
  CHECK_EQ_INT(((const int32_t *)out.buffers[1])[2], 12);
  out.release(&out);
  a.release(&a);
  pm_type_free(&to);
  pm_type_free(&from);
}

static void test_numeric_casts(void) {
  pm_type d, i, s, l;
  type1(&d, PM_T_DOUBLE);
  type1(&i, PM_T_INT32);
  type1(&s, PM_T_UTF8);
  type1(&l, PM_T_INT64);
  pm_builder *b;
  pm_builder_new(&d, &b, &err);
  double vals[] = {110.0, 11.1, -12.9, NAN, 1e20};
  for (int k = 0; k < 5; k++) pm_builder_append_double(b, vals[k], &err);
  struct ArrowArray a, out;
  pm_builder_finish(b, &a, &err);
  pm_builder_free(b);
  CHECK_OK(pm_cast_array(&a, &d, &i, NULL, &out, &err), &err);
  const int32_t *o = out.buffers[1];
  CHECK_EQ_INT(o[0], 110);
  CHECK_EQ_INT(o[1], 11);
  CHECK_EQ_INT(o[2], -12); /* truncation toward zero */
  CHECK_EQ_INT(o[3], 0);   /* NaN -> 0 */
  CHECK_EQ_INT(o[4], 2147483647);
  out.release(&out);
  /* DOUBLE -> STRING as Java's Double.toString */
  CHECK_OK(pm_cast_array(&a, &d, &s, NULL, &out, &err), &err);
  char buf[64];
  CHECK_EQ_STR(str_at(&out, 0, buf, sizeof buf), "110.0");
  CHECK_EQ_STR(str_at(&out, 1, buf, sizeof buf), "11.1");
  CHECK_EQ_STR(str_at(&out, 3, buf, sizeof buf), "NaN");
  CHECK_EQ_STR(str_at(&out, 4, buf, sizeof buf), "1.0E20");
  out.release(&out);
  a.release(&a);
  /* INT -> BIGINT */
  pm_builder_new(&i, &b, &err);
  pm_builder_append_int(b, -7, &err);
  pm_builder_append_null(b, &err);
  pm_builder_finish(b, &a, &err);
  pm_builder_free(b);
  CHECK_OK(pm_cast_array(&a, &i, &l, NULL, &out, &err), &err);
  CHECK_EQ_INT(((const int64_t *)out.buffers[1])[0], -7);
  CHECK(!pm_array_is_valid(&out, 1));
  out.release(&out);
  a.release(&a);
  /* BOOLEAN -> STRING */
  pm_type bo;
  type1(&bo, PM_T_BOOL);
  pm_builder_new(&bo, &b, &err);
  pm_builder_append_bool(b, 1, &err);
  pm_builder_append_bool(b, 0, &err);
  pm_builder_finish(b, &a, &err);
  pm_builder_free(b);
  CHECK_OK(pm_cast_array(&a, &bo, &s, NULL, &out, &err), &err);
  CHECK_EQ_STR(str_at(&out, 0, buf, sizeof buf), "true");
  CHECK_EQ_STR(str_at(&out, 1, buf, sizeof buf), "false");
  out.release(&out);
  a.release(&a);
  pm_type_free(&bo);
  pm_type_free(&d);
  pm_type_free(&i);
  pm_type_free(&s);
  pm_type_free(&l);
}

static void test_decimal_rescale(void) {
  pm_type from, to;
  type1(&from, PM_T_DECIMAL128);
  from.precision = 5, from.scale = 2;
  type1(&to, PM_T_DECIMAL128);
  to.precision = 6, to.scale = 3;
  pm_builder *b;
  pm_builder_new(&from, &b, &err);
  pm_builder_append_decimal_i64(b, 2, &err);     /* 0.02 */
  pm_builder_append_decimal_i64(b, -44442, &err); /* -444.42 */
  struct ArrowArray a, out;
  pm_builder_finish(b, &a, &err);
  pm_builder_free(b);
  CHECK_OK(pm_cast_array(&a, &from, &to, NULL, &out, &err), &err);
  int64_t lo0, lo1;
  memcpy(&lo0, (const uint8_t *)out.buffers[1], 8);
  memcpy(&lo1, (const uint8_t *)out.buffers[1] + 16, 8);
  CHECK_EQ_INT(lo0, 20);
  CHECK_EQ_INT(lo1, -444420);
  out.release(&out);
  /* to DECIMAL(3,1): 0.02 -> 0.0, -444.42 overflows -> null */
  to.precision = 3, to.scale = 1;
  CHECK_OK(pm_cast_array(&a, &from, &to, NULL, &out, &err), &err);
  CHECK(pm_array_is_valid(&out, 0));
  CHECK(!pm_array_is_valid(&out, 1));
  out.release(&out);
  a.release(&a);
  pm_type_free(&from);
  pm_type_free(&to);
}

static void test_temporal_casts(void) {
  pm_tz *sh;
  CHECK_OK(pm_tz_load("Asia/Shanghai", &sh, &err), &err);
  if (!sh) return;
  CHECK_EQ_INT(pm_tz_offset_at_utc(sh, 0), 8 * 3600);
  CHECK_EQ_INT(pm_tz_local_to_utc(sh, 0), -8 * 3600);
  pm_tz *fixed;
  CHECK_OK(pm_tz_load("+05:30", &fixed, &err), &err);
  CHECK_EQ_INT(pm_tz_offset_at_utc(fixed, 12345), 5 * 3600 + 1800);
  pm_tz_free(fixed);
  pm_cast_options opt = {sh};

  pm_type ts_s, ts_n, ltz_n, ltz_u, i32, date, str;
  type1(&ts_s, PM_T_TIMESTAMP);
  ts_s.unit = PM_UNIT_S;
  type1(&ts_n, PM_T_TIMESTAMP);
  ts_n.unit = PM_UNIT_NS;
  type1(&ltz_n, PM_T_TIMESTAMP);
  ltz_n.unit = PM_UNIT_NS;
  ltz_n.tz = strdup("UTC");
  type1(&ltz_u, PM_T_TIMESTAMP);
  ltz_u.unit = PM_UNIT_US;
  ltz_u.tz = strdup("UTC");
  type1(&i32, PM_T_INT32);
  type1(&date, PM_T_DATE32);
  type1(&str, PM_T_UTF8);
  pm_builder *b;
  struct ArrowArray a, out;
  char buf[64];

  /* TIMESTAMP(0) 1970-01-01T00:00:01 -> INT in Shanghai: -28799 */
  pm_builder_new(&ts_s, &b, &err);
  pm_builder_append_int(b, 1, &err);
  pm_builder_finish(b, &a, &err);
  pm_builder_free(b);
  CHECK_OK(pm_cast_array(&a, &ts_s, &i32, &opt, &out, &err), &err);
  CHECK_EQ_INT(((const int32_t *)out.buffers[1])[0], -28799);
  out.release(&out);
  a.release(&a);

  /* TIMESTAMP(9) local 00:00:00.000000001 -> LTZ: 1969-12-31T16:00:00.000000001Z */
  pm_builder_new(&ts_n, &b, &err);
  pm_builder_append_int(b, 1, &err);
  pm_builder_finish(b, &a, &err);
  pm_builder_free(b);
  CHECK_OK(pm_cast_array(&a, &ts_n, &ltz_n, &opt, &out, &err), &err);
  CHECK_EQ_INT(((const int64_t *)out.buffers[1])[0], -8LL * 3600 * 1000000000 + 1);
  out.release(&out);
  /* TIMESTAMP(9) -> STRING: "1970-01-01 00:00:00.000000001" */
  CHECK_OK(pm_cast_array(&a, &ts_n, &str, &opt, &out, &err), &err);
  CHECK_EQ_STR(str_at(&out, 0, buf, sizeof buf), "1970-01-01 00:00:00.000000001");
  out.release(&out);
  a.release(&a);

  /* LTZ(6) 2 micros -> STRING in Shanghai: "1970-01-01 08:00:00.000002" */
  pm_builder_new(&ltz_u, &b, &err);
  pm_builder_append_int(b, 2, &err);
  pm_builder_finish(b, &a, &err);
  pm_builder_free(b);
  CHECK_OK(pm_cast_array(&a, &ltz_u, &str, &opt, &out, &err), &err);
  CHECK_EQ_STR(str_at(&out, 0, buf, sizeof buf), "1970-01-01 08:00:00.000002");
  out.release(&out);
  /* LTZ -> DATE in Shanghai */
  CHECK_OK(pm_cast_array(&a, &ltz_u, &date, &opt, &out, &err), &err);
  CHECK_EQ_INT(((const int32_t *)out.buffers[1])[0], 0);
  out.release(&out);
  a.release(&a);

  /* INT epoch seconds -> TIMESTAMP(0): shown in Shanghai local time; -> LTZ: the instant */
  pm_builder_new(&i32, &b, &err);
  pm_builder_append_int(b, -1, &err);
  pm_builder_finish(b, &a, &err);
  pm_builder_free(b);
  CHECK_OK(pm_cast_array(&a, &i32, &ts_s, &opt, &out, &err), &err);
  CHECK_EQ_INT(((const int64_t *)out.buffers[1])[0], 8 * 3600 - 1);
  out.release(&out);
  CHECK_OK(pm_cast_array(&a, &i32, &ltz_u, &opt, &out, &err), &err);
  CHECK_EQ_INT(((const int64_t *)out.buffers[1])[0], -1000000);
  out.release(&out);
  a.release(&a);

  /* DATE -> TIMESTAMP(9): midnight */
  pm_builder_new(&date, &b, &err);
  pm_builder_append_int(b, 4, &err);
  pm_builder_finish(b, &a, &err);
  pm_builder_free(b);
  CHECK_OK(pm_cast_array(&a, &date, &ts_n, &opt, &out, &err), &err);
  CHECK_EQ_INT(((const int64_t *)out.buffers[1])[0], 4LL * 86400 * 1000000000);
  out.release(&out);
  a.release(&a);

  pm_type_free(&ts_s);
  pm_type_free(&ts_n);
  pm_type_free(&ltz_n);
  pm_type_free(&ltz_u);
  pm_type_free(&i32);
  pm_type_free(&date);
  pm_type_free(&str);
  pm_tz_free(sh);
}

/* Field-id mapping: renamed + reordered + dropped + added + retyped columns. */
static void test_mapping(void) {
  /* file: (id 0 "a" INT, id 1 "b" STRING, id 2 "gone" INT) */
  struct ArrowSchema fs;
  pm_schema_init(&fs, "+s", "", 0, 3, &err);
  const char *names[3] = {"a", "b", "gone"};
  const char *fmts[3] = {"i", "u", "i"};
  for (int i = 0; i < 3; i++) {
    pm_schema_init(fs.children[i], fmts[i], names[i], ARROW_FLAG_NULLABLE, 0, &err);
    char id[16];
    snprintf(id, sizeof id, "%d", i);
    const char *k[1] = {"PARQUET:field_id"}, *v[1] = {id};
    pm_schema_set_metadata(fs.children[i], 1, k, v, &err);
  }
  /* read: (id 1 "renamed_b" BOOLEAN, id 0 "a" BIGINT, id 5 "added" STRING) */
  pm_type tb, tl, ts;
  type1(&tb, PM_T_BOOL);
  type1(&tl, PM_T_INT64);
  type1(&ts, PM_T_UTF8);
  pm_evo_field fields[3] = {{1, "renamed_b", &tb, NULL}, {0, "a", &tl, NULL}, {5, "added", &ts, NULL}};
  pm_evo_mapping m;
  CHECK_OK(pm_evo_mapping_init(&m, &fs, fields, 3, NULL, NULL, NULL, "f.parquet", &err), &err);
  pm_type ft;
  pm_type_from_schema(&fs, &ft, &err);
  pm_builder *b;
  pm_builder_new(&ft, &b, &err);
  const char *bv[2] = {"yes", "0"};
  for (int r = 0; r < 2; r++) {
    pm_builder_append_int(pm_builder_child(b, 0), 10 + r, &err);
    pm_builder_append_str(pm_builder_child(b, 1), bv[r], &err);
    pm_builder_append_int(pm_builder_child(b, 2), 99, &err);
    pm_builder_append_valid(b, &err);
  }
  struct ArrowArray in, out;
  pm_builder_finish(b, &in, &err);
  pm_builder_free(b);
  CHECK_OK(pm_evo_apply(&m, &in, &out, &err), &err);
  CHECK_EQ_INT(out.n_children, 3);
  CHECK_EQ_INT(pm_bit_get(out.children[0]->buffers[1], 0), 1);
  CHECK_EQ_INT(pm_bit_get(out.children[0]->buffers[1], 1), 0);
  CHECK_EQ_INT(((const int64_t *)out.children[1]->buffers[1])[1], 11);
  CHECK_EQ_INT(out.children[2]->null_count, 2);
  CHECK(!pm_array_is_valid(out.children[2], 0));
  out.release(&out);
  pm_evo_mapping_free(&m);
  pm_type_free(&ft);
  pm_type_free(&tb);
  pm_type_free(&tl);
  pm_type_free(&ts);
  pm_schema_release(&fs);
}

static void set_id(struct ArrowSchema *s, int id) {
  char buf[16];
  snprintf(buf, sizeof buf, "%d", id);
  const char *k[1] = {"PARQUET:field_id"}, *v[1] = {buf};
  pm_schema_set_metadata(s, 1, k, v, &err);
}

/* ROW columns evolve member by member: reordered, retyped, added nested fields; ROW nulls kept. */
static void test_nested_row_mapping(void) {
  struct ArrowSchema fs; /* file: s ROW<a INT (10), b STRING (11)> (id 1) */
  pm_schema_init(&fs, "+s", "", 0, 1, &err);
  pm_schema_init(fs.children[0], "+s", "s", ARROW_FLAG_NULLABLE, 2, &err);
  set_id(fs.children[0], 1);
  pm_schema_init(fs.children[0]->children[0], "i", "a", ARROW_FLAG_NULLABLE, 0, &err);
  set_id(fs.children[0]->children[0], 10);
  pm_schema_init(fs.children[0]->children[1], "u", "b", ARROW_FLAG_NULLABLE, 0, &err);
  set_id(fs.children[0]->children[1], 11);
  struct ArrowSchema rs; /* read: s ROW<b STRING (11), c INT (12), a BIGINT (10)> */
  pm_schema_init(&rs, "+s", "s", ARROW_FLAG_NULLABLE, 3, &err);
  set_id(&rs, 1);
  pm_schema_init(rs.children[0], "u", "b", ARROW_FLAG_NULLABLE, 0, &err);
  set_id(rs.children[0], 11);
  pm_schema_init(rs.children[1], "i", "c", ARROW_FLAG_NULLABLE, 0, &err);
  set_id(rs.children[1], 12);
  pm_schema_init(rs.children[2], "l", "a", ARROW_FLAG_NULLABLE, 0, &err);
  set_id(rs.children[2], 10);
  pm_type rt, ft;
  pm_type_from_schema(&rs, &rt, &err);
  pm_type_from_schema(&fs, &ft, &err);
  pm_evo_field fields[1] = {{1, "s", &rt, &rs}};
  pm_evo_mapping m;
  CHECK_OK(pm_evo_mapping_init(&m, &fs, fields, 1, NULL, NULL, NULL, "nested.parquet", &err), &err);
  pm_builder *b;
  pm_builder_new(&ft, &b, &err);
  pm_builder *sb = pm_builder_child(b, 0);
  pm_builder_append_int(pm_builder_child(sb, 0), 7, &err);
  pm_builder_append_str(pm_builder_child(sb, 1), "x", &err);
  pm_builder_append_valid(sb, &err);
  pm_builder_append_valid(b, &err);
  pm_builder_append_null(sb, &err); /* null ROW */
  pm_builder_append_valid(b, &err);
  struct ArrowArray in, out;
  pm_builder_finish(b, &in, &err);
  pm_builder_free(b);
  CHECK_OK(pm_evo_apply(&m, &in, &out, &err), &err);
  if (out.release) {
    const struct ArrowArray *s = out.children[0];
    CHECK_EQ_INT(s->n_children, 3);
    CHECK(pm_array_is_valid(s, 0));
    CHECK(!pm_array_is_valid(s, 1));
    char buf[16];
    CHECK_EQ_STR(str_at(s->children[0], 0, buf, sizeof buf), "x");
    CHECK(!pm_array_is_valid(s->children[1], 0)); /* added member */
    CHECK_EQ_INT(((const int64_t *)s->children[2]->buffers[1])[0], 7);
    out.release(&out);
  }
  pm_evo_mapping_free(&m);
  pm_type_free(&rt);
  pm_type_free(&ft);
  pm_schema_release(&rs);
  pm_schema_release(&fs);
}

int main(void) {
  RUN_TEST(test_nested_row_mapping);
  RUN_TEST(test_string_to_bool_and_int);
  RUN_TEST(test_numeric_casts);
  RUN_TEST(test_decimal_rescale);
  RUN_TEST(test_temporal_casts);
  RUN_TEST(test_mapping);
  TEST_MAIN_END();
}
