/* Paimon types (parse/print/JSON/Arrow), BinaryRow codec and bucket hash vs FORMAT.md examples. */
#include "data/binary_row.h"
#include "data/bucket.h"
#include "data/types.h"
#include "arrow/arrow.h"
#include "harness.h"
#include <math.h>

static void hex_to_bytes(const char *hex, uint8_t *out, size_t *n) {
  size_t k = 0;
  for (const char *p = hex; *p;) {
    if (*p == ' ') {
      p++;
      continue;
    }
    unsigned v;
    sscanf(p, "%2x", &v);
    out[k++] = (uint8_t)v;
    p += 2;
  }
  *n = k;
}

static void check_roundtrip(const char *in, const char *canonical) {
  pm_error err = {0};
  pm_data_type *t = NULL;
  CHECK_OK(pm_dtype_parse(in, &t, &err), &err);
  if (!t) return;
  char *s = pm_dtype_to_cstring(t);
  CHECK_EQ_STR(s, canonical);
  free(s);
  pm_dtype_free(t);
}

static void test_type_strings(void) {
  const char *same[] = {"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT NOT NULL", "FLOAT", "DOUBLE",
                        "DECIMAL(10, 2)", "DECIMAL(38, 0) NOT NULL", "CHAR(5)", "VARCHAR(20)", "STRING",
                        "STRING NOT NULL", "BINARY(4)", "VARBINARY(10)", "BYTES", "DATE", "TIME(0)", "TIME(3)",
                        "TIMESTAMP(6)", "TIMESTAMP(9)", "TIMESTAMP(3) WITH LOCAL TIME ZONE",
                        "TIMESTAMP(6) WITH LOCAL TIME ZONE NOT NULL", "VARIANT", "BLOB"};
  for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) check_roundtrip(same[i], same[i]);
  check_roundtrip("integer", "INT");
  check_roundtrip("DECIMAL", "DECIMAL(10, 0)");
  check_roundtrip("NUMERIC(5)", "DECIMAL(5, 0)");
  check_roundtrip("CHAR", "CHAR(1)");
  check_roundtrip("VARCHAR(2147483647)", "STRING");
  check_roundtrip("TIMESTAMP", "TIMESTAMP(6)");
  check_roundtrip("TIMESTAMP_LTZ(3)", "TIMESTAMP(3) WITH LOCAL TIME ZONE");
  check_roundtrip("TIMESTAMP(3) WITHOUT TIME ZONE", "TIMESTAMP(3)");
  check_roundtrip("DOUBLE PRECISION NULL", "DOUBLE");
  check_roundtrip("INT NOT NULL ARRAY", "ARRAY<INT NOT NULL>");
  check_roundtrip("VECTOR<FLOAT, 3>", "VECTOR<FLOAT, 3>");

  pm_error err = {0};
  pm_data_type *t = NULL;
  CHECK_EQ_INT(pm_dtype_parse("FOO", &t, &err), PAIMON_ERR_UNSUPPORTED);
  CHECK(strstr(err.message, "FOO") != NULL);
  CHECK_EQ_INT(pm_dtype_parse("DECIMAL(10,", &t, &err), PAIMON_ERR_CORRUPT);
  CHECK_EQ_INT(pm_dtype_parse("DECIMAL(50, 2)", &t, &err), PAIMON_ERR_CORRUPT);
  CHECK_EQ_INT(pm_dtype_parse("INT NOT", &t, &err), PAIMON_ERR_CORRUPT);
  CHECK_EQ_INT(pm_dtype_parse("INT garbage", &t, &err), PAIMON_ERR_CORRUPT);
}

static void test_type_json(void) {
  const char *js =
      "{\"type\":\"ROW NOT NULL\",\"fields\":[{\"id\":5,\"name\":\"f0\",\"type\":\"STRING\"},"
      "{\"id\":6,\"name\":\"f1\",\"type\":\"INT\",\"description\":\"d\"},"
      "{\"id\":7,\"name\":\"f2\",\"type\":{\"type\":\"ARRAY\",\"element\":\"INT\"}},"
      "{\"id\":8,\"name\":\"m\",\"type\":{\"type\":\"MAP NOT NULL\",\"key\":\"STRING NOT NULL\",\"value\":\"TIMESTAMP(3)\"}}]}";
  json_error_t jerr;
  json_t *j = json_loads(js, 0, &jerr);
  CHECK(j != NULL);
  pm_error err = {0};
  pm_data_type *t = NULL;
  CHECK_OK(pm_dtype_from_json(j, "test", &t, &err), &err);
  if (t) {
    CHECK_EQ_INT(t->root, PM_DT_ROW);
    CHECK_EQ_INT(t->nullable, 0);
    CHECK_EQ_INT(t->n_fields, 4);
    CHECK_EQ_INT(t->fields[2].type->root, PM_DT_ARRAY);
    CHECK_EQ_INT(t->fields[3].type->key->nullable, 0);
    json_t *back = pm_dtype_to_json(t);
    CHECK(json_equal(back, j));
    json_decref(back);
    char *s = pm_dtype_to_cstring(t);
    CHECK_EQ_STR(s, "ROW<`f0` STRING, `f1` INT 'd', `f2` ARRAY<INT>, `m` MAP<STRING NOT NULL, TIMESTAMP(3)> NOT NULL> NOT NULL");
    free(s);
    pm_data_type *c = NULL;
    CHECK_OK(pm_dtype_copy(t, &c, &err), &err);
    CHECK(pm_dtype_equals(t, c));
    pm_dtype_free(c);

    struct ArrowSchema as;
    pm_data_field f = {.id = 4, .name = "col1", .type = t};
    CHECK_OK(pm_dfield_to_arrow(&f, &as, &err), &err);
    CHECK_EQ_STR(as.format, "+s");
    CHECK_EQ_INT(as.n_children, 4);
    CHECK_EQ_STR(as.children[0]->format, "u");
    CHECK_EQ_STR(as.children[2]->format, "+l");
    CHECK_EQ_STR(as.children[3]->format, "+m");
    CHECK_EQ_STR(as.children[3]->children[0]->children[1]->format, "tsm:");
    char *fid = pm_schema_metadata_get(as.children[1], "PARQUET:field_id");
    CHECK_EQ_STR(fid, "6");
    free(fid);
    pm_schema_release(&as);
  }
  pm_dtype_free(t);
  json_decref(j);

  /* unknown nested type */
  j = json_loads("{\"type\":\"STRUCT\",\"fields\":[]}", 0, &jerr);
  CHECK_EQ_INT(pm_dtype_from_json(j, "x", &t, &err), PAIMON_ERR_UNSUPPORTED);
  json_decref(j);
}

static void test_arrow_formats(void) {
  struct { const char *type, *fmt; } cases[] = {
      {"TIMESTAMP(3)", "tsm:"}, {"TIMESTAMP(6)", "tsu:"}, {"TIMESTAMP(9)", "tsn:"},
      {"TIMESTAMP(3) WITH LOCAL TIME ZONE", "tsm:UTC"}, {"TIMESTAMP(9) WITH LOCAL TIME ZONE", "tsn:UTC"},
      {"DECIMAL(23, 5)", "d:23,5"}, {"DATE", "tdD"}, {"TIME(0)", "ttm"}, {"CHAR(3)", "u"}, {"BYTES", "z"},
      {"BLOB", "z"}, {"TINYINT", "c"}, {"SMALLINT", "s"}, {"BOOLEAN", "b"}, {"FLOAT", "f"}, {"DOUBLE", "g"}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    pm_error err = {0};
    pm_data_type *t = NULL;
    CHECK_OK(pm_dtype_parse(cases[i].type, &t, &err), &err);
    char buf[32];
    if (t) CHECK_EQ_STR(pm_dtype_arrow_format(t, buf, sizeof buf), cases[i].fmt);
    pm_dtype_free(t);
  }
}

/* FORMAT.md 5.5: _MAX_KEY of parquet/pk_09 with key (f0 STRING, f2 INT). */
static void test_worked_example(void) {
  const char *s = "Whether I shall turn out to be the hero of my own life.";
  uint8_t row[4 + 24 + 56];
  memset(row, 0, sizeof row);
  row[3] = 2;
  row[4 + 8] = 0x37;
  row[4 + 12] = 0x18;
  row[4 + 16] = 1;
  memcpy(row + 4 + 24, s, 55);
  pm_error err = {0};
  pm_binary_row r;
  CHECK_OK(pm_binary_row_open_serialized(row, sizeof row, "max key", &r, &err), &err);
  CHECK_EQ_INT(r.arity, 2);
  pm_data_type str = {.root = PM_DT_VARCHAR, .nullable = 0, .length = PM_DT_MAX_LENGTH};
  pm_data_type i32 = {.root = PM_DT_INT, .nullable = 0};
  pm_value v;
  CHECK_OK(pm_binary_row_get(&r, 0, &str, &v, &err), &err);
  CHECK_EQ_INT(v.kind, PM_V_STRING);
  CHECK(v.u.bytes.len == 55 && memcmp(v.u.bytes.data, s, 55) == 0);
  CHECK_OK(pm_binary_row_get(&r, 1, &i32, &v, &err), &err);
  CHECK_EQ_INT(v.u.i64, 1);

  /* encode it back: identical bytes */
  pm_binary_row_writer w;
  pm_buf out;
  pm_buf_init(&out);
  CHECK_OK(pm_row_writer_init(&w, 2, &err), &err);
  pm_value sv = {.kind = PM_V_STRING};
  sv.u.bytes.data = (const uint8_t *)s;
  sv.u.bytes.len = 55;
  pm_value iv = {.kind = PM_V_INT};
  iv.u.i64 = 1;
  CHECK_OK(pm_row_writer_write(&w, 0, &str, &sv, &err), &err);
  CHECK_OK(pm_row_writer_write(&w, 1, &i32, &iv, &err), &err);
  CHECK_OK(pm_row_writer_finish(&w, 1, &out, &err), &err);
  CHECK(out.len == sizeof row && memcmp(out.data, row, sizeof row) == 0);
  pm_row_writer_free(&w);
  pm_buf_free(&out);

  /* inline "Alice" */
  uint8_t slot_row[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0x41, 0x6c, 0x69, 0x63, 0x65, 0, 0, 0x85};
  CHECK_OK(pm_binary_row_open(slot_row, 16, 1, "k", &r, &err), &err);
  CHECK_OK(pm_binary_row_get(&r, 0, &str, &v, &err), &err);
  CHECK(v.u.bytes.len == 5 && memcmp(v.u.bytes.data, "Alice", 5) == 0);

  /* out-of-bounds offset is an error, not a crash */
  uint8_t bad[4 + 16] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0x30, 0, 0, 0, 0x40, 0, 0, 0};
  CHECK_OK(pm_binary_row_open_serialized(bad, sizeof bad, "bad", &r, &err), &err);
  CHECK_EQ_INT(pm_binary_row_get(&r, 0, &str, &v, &err), PAIMON_ERR_CORRUPT);
  CHECK_EQ_INT(pm_binary_row_open_serialized(bad, 10, "short", &r, &err), PAIMON_ERR_CORRUPT);
}

/* FORMAT.md 6.3(c): Java reference rows and hashes. */
static void test_bucket_hash_rows(void) {
  pm_error err = {0};
  struct {
    const char *type;
    const char *text; /* string/bytes payload, or NULL */
    int64_t i;
    int32_t nanos;
    const char *hex;
    int32_t hash;
  } cases[] = {
      {"STRING", "hello", 0, 0, "0000000000000000 68656c6c6f000085", 243722546},
      {"STRING", "hello-java", 0, 0, "0000000000000000 0a00000010000000 68656c6c6f2d6a61 7661000000000000", -201703277},
      {"DECIMAL(10, 2)", NULL, 1234567, 0, "0000000000000000 87d6120000000000", 754928256},
      {"TIMESTAMP(3)", NULL, 1767323045123LL, 0, "0000000000000000 038da97c9b010000", -1766746798},
      {"TIMESTAMP(6)", NULL, 1767323045123LL, 456000, "0000000000000000 40f5060010000000 038da97c9b010000", 1245041971},
      {"BYTES", "\x00\x01\xff\x7f", 4, 0, "0000000000000000 0001ff7f00000084", 586821318},
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    uint8_t expect[64];
    size_t n;
    hex_to_bytes(cases[c].hex, expect, &n);
    CHECK_EQ_INT(pm_bucket_hash(expect, n), cases[c].hash);
    pm_data_type *t = NULL;
    CHECK_OK(pm_dtype_parse(cases[c].type, &t, &err), &err);
    pm_value v = {0};
    if (t->root == PM_DT_VARCHAR || t->root == PM_DT_VARBINARY) {
      v.kind = t->root == PM_DT_VARCHAR ? PM_V_STRING : PM_V_BINARY;
      v.u.bytes.data = (const uint8_t *)cases[c].text;
      v.u.bytes.len = t->root == PM_DT_VARCHAR ? strlen(cases[c].text) : (size_t)cases[c].i;
    } else if (t->root == PM_DT_DECIMAL) {
      v.kind = PM_V_DECIMAL;
      pm_decimal_from_int64(&v.u.dec, cases[c].i, t->precision, t->scale);
    } else {
      v.kind = PM_V_TIMESTAMP;
      v.u.ts.millis = cases[c].i;
      v.u.ts.nanos = cases[c].nanos;
    }
    pm_binary_row_writer w;
    pm_buf out;
    pm_buf_init(&out);
    CHECK_OK(pm_row_writer_init(&w, 1, &err), &err);
    CHECK_OK(pm_row_writer_write(&w, 0, t, &v, &err), &err);
    CHECK_OK(pm_row_writer_finish(&w, 0, &out, &err), &err);
    CHECK_MSG(out.len == n && memcmp(out.data, expect, n) == 0, "case %zu", c);
    /* decode back */
    pm_binary_row r;
    pm_value back;
    CHECK_OK(pm_binary_row_open(out.data, out.len, 1, "r", &r, &err), &err);
    CHECK_OK(pm_binary_row_get(&r, 0, t, &back, &err), &err);
    CHECK_EQ_INT(pm_value_compare(&v, &back), 0);
    pm_row_writer_free(&w);
    pm_buf_free(&out);
    pm_dtype_free(t);
  }
  /* two-field row: STRING, BIGINT */
  {
    uint8_t expect[64];
    size_t n;
    hex_to_bytes("0000000000000000 0a00000018000000 2a00000000000000 68656c6c6f2d6a61 7661000000000000", expect, &n);
    CHECK_EQ_INT(pm_bucket_hash(expect, n), -2066620165);
  }
  /* DECIMAL(25,2) non-compact */
  {
    uint8_t expect[64];
    size_t n;
    hex_to_bytes("0000000000000000 0b00000010000000 01056e0f36a6443d e2df790000000000", expect, &n);
    CHECK_EQ_INT(pm_bucket_hash(expect, n), 1388205002);
    pm_binary_row r;
    pm_data_type *t = NULL;
    CHECK_OK(pm_dtype_parse("DECIMAL(25, 2)", &t, &err), &err);
    CHECK_OK(pm_binary_row_open(expect, n, 1, "r", &r, &err), &err);
    pm_value v;
    CHECK_OK(pm_binary_row_get(&r, 0, t, &v, &err), &err);
    char s[64];
    pm_decimal_to_string(&v.u.dec, s, sizeof s);
    CHECK_EQ_STR(s, "12345678901234567890123.45");
    pm_binary_row_writer w;
    pm_buf out;
    pm_buf_init(&out);
    CHECK_OK(pm_row_writer_init(&w, 1, &err), &err);
    CHECK_OK(pm_row_writer_write(&w, 0, t, &v, &err), &err);
    CHECK_OK(pm_row_writer_finish(&w, 0, &out, &err), &err);
    CHECK(out.len == n && memcmp(out.data, expect, n) == 0);
    pm_row_writer_free(&w);
    pm_buf_free(&out);
    pm_dtype_free(t);
  }
  /* FORMAT.md 6.3(a): INT 1 ⇒ bucket 0 of 2, and the other bucket counts */
  uint8_t int1[16] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  int32_t h = pm_bucket_hash(int1, 16);
  CHECK_EQ_INT(h, 1465514398);
  CHECK_EQ_INT(pm_bucket_of_hash(h, 2), 0);
  CHECK_EQ_INT(pm_bucket_of_hash(h, 3), 1);
  CHECK_EQ_INT(pm_bucket_of_hash(h, 16), 14);
  CHECK_EQ_INT(pm_bucket_of_hash(-300363099, 2), 1);
  CHECK_EQ_INT(pm_bucket_mod(-7, 3), 2);
}

static void test_nulls_and_arrays(void) {
  pm_error err = {0};
  /* a null non-compact timestamp and decimal keep their reservations */
  pm_data_type *ts9 = NULL, *d23 = NULL;
  CHECK_OK(pm_dtype_parse("TIMESTAMP(9)", &ts9, &err), &err);
  CHECK_OK(pm_dtype_parse("DECIMAL(23, 5)", &d23, &err), &err);
  pm_binary_row_writer w;
  pm_buf out;
  pm_buf_init(&out);
  CHECK_OK(pm_row_writer_init(&w, 2, &err), &err);
  pm_value nul = {.kind = PM_V_NULL};
  CHECK_OK(pm_row_writer_write(&w, 0, d23, &nul, &err), &err);
  CHECK_OK(pm_row_writer_write(&w, 1, ts9, &nul, &err), &err);
  CHECK_OK(pm_row_writer_finish(&w, 0, &out, &err), &err);
  CHECK_EQ_INT(out.len, 8 + 16 + 16 + 8);
  CHECK_EQ_INT(out.data[1], 0x03);                  /* null bits 8 and 9 */
  CHECK_EQ_INT(out.data[8 + 4], 24);                /* decimal slot offset 24 */
  CHECK_EQ_INT(out.data[16 + 4], 40);               /* timestamp slot offset 40 */
  pm_row_writer_free(&w);
  pm_buf_free(&out);
  /* -123.45000 as minimal BE bytes ff43a158 */
  pm_decimal d;
  pm_decimal_from_int64(&d, -12345000, 23, 5);
  uint8_t be[16];
  size_t n = pm_decimal_to_be_bytes(&d, be);
  CHECK(n == 4 && be[0] == 0xff && be[1] == 0x43 && be[2] == 0xa1 && be[3] == 0x58);
  pm_decimal_from_int64(&d, 0, 23, 5);
  n = pm_decimal_to_be_bytes(&d, be);
  CHECK(n == 1 && be[0] == 0);
  char s[64];
  pm_decimal_from_int64(&d, -12345000, 23, 5);
  pm_decimal_to_string(&d, s, sizeof s);
  CHECK_EQ_STR(s, "-123.45000");

  /* array of strings round trip */
  pm_data_type str = {.root = PM_DT_VARCHAR, .nullable = 1, .length = PM_DT_MAX_LENGTH};
  pm_binary_array_writer aw;
  CHECK_OK(pm_array_writer_init(&aw, 3, &str, &err), &err);
  pm_value a = {.kind = PM_V_STRING}, b = {.kind = PM_V_STRING};
  a.u.bytes.data = (const uint8_t *)"ab";
  a.u.bytes.len = 2;
  b.u.bytes.data = (const uint8_t *)"a longer string";
  b.u.bytes.len = 15;
  CHECK_OK(pm_array_writer_write(&aw, 0, &str, &a, &err), &err);
  CHECK_OK(pm_array_writer_write(&aw, 1, &str, &nul, &err), &err);
  CHECK_OK(pm_array_writer_write(&aw, 2, &str, &b, &err), &err);
  pm_buf_init(&out);
  CHECK_OK(pm_array_writer_finish(&aw, &out, &err), &err);
  pm_binary_array arr;
  CHECK_OK(pm_binary_array_open(out.data, out.len, &arr, &err), &err);
  CHECK_EQ_INT(arr.n, 3);
  pm_value v;
  CHECK_OK(pm_binary_array_get(&arr, 0, &str, &v, &err), &err);
  CHECK(v.u.bytes.len == 2 && !memcmp(v.u.bytes.data, "ab", 2));
  CHECK(pm_binary_array_is_null(&arr, 1));
  CHECK_OK(pm_binary_array_get(&arr, 2, &str, &v, &err), &err);
  CHECK(v.u.bytes.len == 15 && !memcmp(v.u.bytes.data, "a longer string", 15));
  pm_array_writer_free(&aw);
  pm_buf_free(&out);
  pm_dtype_free(ts9);
  pm_dtype_free(d23);

  /* Java Float.compare order */
  pm_value x = {.kind = PM_V_DOUBLE}, y = {.kind = PM_V_DOUBLE};
  x.u.f64 = -0.0;
  y.u.f64 = 0.0;
  CHECK(pm_value_compare(&x, &y) < 0);
  x.u.f64 = NAN;
  y.u.f64 = 1e300;
  CHECK(pm_value_compare(&x, &y) > 0);
}

static void test_map_and_nested(void) {
  pm_error err = {0};
  pm_data_type i32 = {.root = PM_DT_INT, .nullable = 0};
  pm_data_type str = {.root = PM_DT_VARCHAR, .nullable = 1, .length = PM_DT_MAX_LENGTH};
  pm_binary_array_writer kw, vw;
  pm_buf kb, vb, mb;
  pm_buf_init(&kb);
  pm_buf_init(&vb);
  pm_buf_init(&mb);
  CHECK_OK(pm_array_writer_init(&kw, 2, &i32, &err), &err);
  CHECK_OK(pm_array_writer_init(&vw, 2, &str, &err), &err);
  for (int i = 0; i < 2; i++) {
    pm_value k = {.kind = PM_V_INT}, v = {.kind = PM_V_STRING};
    k.u.i64 = 7 + i;
    v.u.bytes.data = (const uint8_t *)(i ? "second value" : "one");
    v.u.bytes.len = i ? 12 : 3;
    CHECK_OK(pm_array_writer_write(&kw, i, &i32, &k, &err), &err);
    CHECK_OK(pm_array_writer_write(&vw, i, &str, &v, &err), &err);
  }
  CHECK_OK(pm_array_writer_finish(&kw, &kb, &err), &err);
  CHECK_OK(pm_array_writer_finish(&vw, &vb, &err), &err);
  CHECK_OK(pm_binary_map_build(kb.data, kb.len, vb.data, vb.len, &mb, &err), &err);
  /* the map inside a row, read back */
  pm_data_type mt = {.root = PM_DT_MAP, .nullable = 1, .key = &i32, .value = &str};
  pm_binary_row_writer w;
  pm_buf row;
  pm_buf_init(&row);
  CHECK_OK(pm_row_writer_init(&w, 1, &err), &err);
  pm_value mv = {.kind = PM_V_MAP};
  mv.u.bytes.data = mb.data;
  mv.u.bytes.len = mb.len;
  CHECK_OK(pm_row_writer_write(&w, 0, &mt, &mv, &err), &err);
  CHECK_OK(pm_row_writer_finish(&w, 0, &row, &err), &err);
  pm_binary_row r;
  pm_value got;
  CHECK_OK(pm_binary_row_open(row.data, row.len, 1, "m", &r, &err), &err);
  CHECK_OK(pm_binary_row_get(&r, 0, &mt, &got, &err), &err);
  pm_binary_array keys, vals;
  CHECK_OK(pm_binary_map_open(got.u.bytes.data, got.u.bytes.len, &keys, &vals, &err), &err);
  CHECK_EQ_INT(keys.n, 2);
  pm_value k1, v1;
  CHECK_OK(pm_binary_array_get(&keys, 1, &i32, &k1, &err), &err);
  CHECK_OK(pm_binary_array_get(&vals, 1, &str, &v1, &err), &err);
  CHECK(k1.u.i64 == 8 && v1.u.bytes.len == 12 && !memcmp(v1.u.bytes.data, "second value", 12));
  /* corrupt key-array size */
  mb.data[0] = 0xff;
  CHECK_EQ_INT(pm_binary_map_open(mb.data, mb.len, &keys, &vals, &err), PAIMON_ERR_CORRUPT);
  pm_row_writer_free(&w);
  pm_array_writer_free(&kw);
  pm_array_writer_free(&vw);
  pm_buf_free(&kb);
  pm_buf_free(&vb);
  pm_buf_free(&mb);
  pm_buf_free(&row);
}

int main(void) {
  RUN_TEST(test_type_strings);
  RUN_TEST(test_type_json);
  RUN_TEST(test_arrow_formats);
  RUN_TEST(test_worked_example);
  RUN_TEST(test_bucket_hash_rows);
  RUN_TEST(test_nulls_and_arrays);
  RUN_TEST(test_map_and_nested);
  TEST_MAIN_END();
}
