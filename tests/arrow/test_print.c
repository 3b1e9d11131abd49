/* Printing goldens: every type in JSONL, CSV and table form; the expected strings are hand-written from the
 * fixtures README "Value encoding" and are the spec. */
#include <math.h>

#include "arrow/builder.h"
#include "support/arrow_test_util.h"
#include "harness.h"

static pm_error err;

static const char *SPEC =
    "b:+s{bool:b;i8:c;i16:s;i32:i;i64:l;u64:L;f32:f;f64:g;dec:d:7,5;date:tdD;time:ttm;ts0:tsm:;ts3:tsm:;"
    "ts6z:tsu:UTC;ts9:tsn:;str:u;bin:z;fix:w:2;arr:+l{item:i};map:+m{entries:+s{key:+l{item:i};value:u}};"
    "row:+s{f0:b;f1:l};vec:+w:2{item:f}}";

static void fill_row0(pm_builder *b) {
  pm_builder_append_bool(pm_builder_child(b, 0), 1, &err);
  pm_builder_append_int(pm_builder_child(b, 1), -128, &err);
  pm_builder_append_int(pm_builder_child(b, 2), 32767, &err);
  pm_builder_append_int(pm_builder_child(b, 3), -7, &err);
  pm_builder_append_int(pm_builder_child(b, 4), 9007199254740993LL, &err);
  pm_builder_append_uint(pm_builder_child(b, 5), 18446744073709551615ULL, &err);
  pm_builder_append_double(pm_builder_child(b, 6), 0.1, &err);
  pm_builder_append_double(pm_builder_child(b, 7), 12.1, &err);
  pm_builder_append_decimal_i64(pm_builder_child(b, 8), -12345000, &err);
  pm_builder_append_int(pm_builder_child(b, 9), -1, &err);
  pm_builder_append_int(pm_builder_child(b, 10), 45296789, &err);
  pm_builder_append_int(pm_builder_child(b, 11), 1000, &err);        /* TIMESTAMP(0) stored as ms */
  pm_builder_append_int(pm_builder_child(b, 12), 1732603136054LL, &err);
  pm_builder_append_int(pm_builder_child(b, 13), 2, &err);
  pm_builder_append_int(pm_builder_child(b, 14), 1732603136054000054LL, &err);
  pm_builder_append_str(pm_builder_child(b, 15), "a,b \"q\"\n\xe4\xb8\xad", &err);
  pm_builder_append_bytes(pm_builder_child(b, 16), "hi", 2, &err);
  pm_builder_append_bytes(pm_builder_child(b, 17), "\x00\x01", 2, &err);
  pm_builder *arr = pm_builder_child(b, 18);
  pm_builder_append_int(pm_builder_child(arr, 0), 1, &err);
  pm_builder_append_null(pm_builder_child(arr, 0), &err);
  pm_builder_append_valid(arr, &err);
  pm_builder *map = pm_builder_child(b, 19), *e = pm_builder_child(map, 0), *k = pm_builder_child(e, 0);
  pm_builder_append_int(pm_builder_child(k, 0), 5, &err);
  pm_builder_append_valid(k, &err);
  pm_builder_append_str(pm_builder_child(e, 1), "five", &err);
  pm_builder_append_valid(e, &err);
  pm_builder_append_valid(map, &err);
  pm_builder *row = pm_builder_child(b, 20);
  pm_builder_append_bool(pm_builder_child(row, 0), 0, &err);
  pm_builder_append_int(pm_builder_child(row, 1), 2222, &err);
  pm_builder_append_valid(row, &err);
  pm_builder *vec = pm_builder_child(b, 21);
  pm_builder_append_double(pm_builder_child(vec, 0), 1.5, &err);
  pm_builder_append_double(pm_builder_child(vec, 0), NAN, &err);
  pm_builder_append_valid(vec, &err);
  CHECK_OK(pm_builder_append_valid(b, &err), &err);
}

static void fill_row_nulls(pm_builder *b) {
  for (int c = 0; c < 22; c++) {
    pm_builder *cb = pm_builder_child(b, c);
    if (c == 15) {
      pm_builder_append_str(cb, "", &err); /* empty string, not null */
      continue;
    }
    if (c == 18) {
      pm_builder_append_valid(cb, &err); /* empty list */
      continue;
    }
    pm_builder_append_null(cb, &err);
  }
  CHECK_OK(pm_builder_append_valid(b, &err), &err);
}

static void build(struct ArrowSchema *s, struct ArrowArray *a) {
  tu_schema(SPEC, s);
  pm_builder *b;
  CHECK_OK(pm_builder_new_from_schema(s, &b, &err), &err);
  fill_row_nulls(b); /* row 0: sliced away below */
  fill_row0(b);
  fill_row_nulls(b);
  CHECK_OK(pm_builder_finish(b, a, &err), &err);
  pm_builder_free(b);
  a->offset = 1; /* print rows 1..2 only: every printer must honour the batch offset */
  a->length = 2;
  a->null_count = 0;
}

static const int DIGITS[13] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, -1};

static char *print(pm_print_format f, int max_width) {
  static char text[16384];
  struct ArrowSchema s;
  struct ArrowArray a;
  build(&s, &a);
  pm_print_options o = {.format = f, .fraction_digits = DIGITS, .n_fraction_digits = 13, .max_cell_width = max_width};
  pm_buf out;
  pm_buf_init(&out);
  CHECK_OK(pm_print_batch_to_buf(&s, &a, &o, &out, &err), &err);
  size_t n = out.len < sizeof text - 1 ? out.len : sizeof text - 1;
  memcpy(text, out.data, n);
  text[n] = 0;
  pm_buf_free(&out);
  a.offset = 0;
  pm_array_release(&a);
  pm_schema_release(&s);
  return text;
}

static void test_jsonl_every_type(void) {
  CHECK_EQ_STR(print(PM_PRINT_JSONL, 0),
               "{\"bool\":true,\"i8\":-128,\"i16\":32767,\"i32\":-7,\"i64\":9007199254740993,"
               "\"u64\":18446744073709551615,\"f32\":0.1,\"f64\":12.1,\"dec\":\"-123.45000\",\"date\":\"1969-12-31\","
               "\"time\":\"12:34:56.789\",\"ts0\":\"1970-01-01T00:00:01\",\"ts3\":\"2024-11-26T06:38:56.054\","
               "\"ts6z\":\"1970-01-01T00:00:00.000002Z\",\"ts9\":\"2024-11-26T06:38:56.054000054\","
               "\"str\":\"a,b \\\"q\\\"\\n\xe4\xb8\xad\",\"bin\":\"aGk=\",\"fix\":\"AAE=\",\"arr\":[1,null],"
               "\"map\":[[[5],\"five\"]],\"row\":{\"f0\":false,\"f1\":2222},\"vec\":[1.5,\"NaN\"]}\n"
               "{\"bool\":null,\"i8\":null,\"i16\":null,\"i32\":null,\"i64\":null,\"u64\":null,\"f32\":null,"
               "\"f64\":null,\"dec\":null,\"date\":null,\"time\":null,\"ts0\":null,\"ts3\":null,\"ts6z\":null,"
               "\"ts9\":null,\"str\":\"\",\"bin\":null,\"fix\":null,\"arr\":[],\"map\":null,\"row\":null,"
               "\"vec\":null}\n");
}

static void test_csv_every_type(void) {
  CHECK_EQ_STR(print(PM_PRINT_CSV, 0),
               "bool,i8,i16,i32,i64,u64,f32,f64,dec,date,time,ts0,ts3,ts6z,ts9,str,bin,fix,arr,map,row,vec\n"
               "true,-128,32767,-7,9007199254740993,18446744073709551615,0.1,12.1,-123.45000,1969-12-31,"
               "12:34:56.789,1970-01-01T00:00:01,2024-11-26T06:38:56.054,1970-01-01T00:00:00.000002Z,"
               "2024-11-26T06:38:56.054000054,\"a,b \"\"q\"\"\n\xe4\xb8\xad\",aGk=,AAE=,\"[1,null]\","
               "\"[[[5],\"\"five\"\"]]\",\"{\"\"f0\"\":false,\"\"f1\"\":2222}\",\"[1.5,\"\"NaN\"\"]\"\n"
               ",,,,,,,,,,,,,,,\"\",,,[],,,\n");
}

static void test_table(void) {
  /* Narrow schema to keep the golden readable. */
  struct ArrowSchema s;
  tu_schema("b:+s{id:i;name:u;price:d:5,2;tags:+l{item:u}}", &s);
  pm_builder *b;
  pm_builder_new_from_schema(&s, &b, &err);
  const char *names[3] = {"Alice", "a very long name that will be cut", NULL};
  for (int r = 0; r < 3; r++) {
    pm_builder_append_int(pm_builder_child(b, 0), r == 2 ? 1000 : r + 1, &err);
    if (names[r])
      pm_builder_append_str(pm_builder_child(b, 1), names[r], &err);
    else
      pm_builder_append_null(pm_builder_child(b, 1), &err);
    pm_builder_append_decimal_i64(pm_builder_child(b, 2), r == 1 ? -5 : 1999, &err);
    pm_builder *t = pm_builder_child(b, 3);
    for (int k = 0; k < r; k++) pm_builder_append_str(pm_builder_child(t, 0), "x\ty", &err);
    pm_builder_append_valid(t, &err);
    pm_builder_append_valid(b, &err);
  }
  struct ArrowArray a;
  pm_builder_finish(b, &a, &err);
  pm_builder_free(b);
  pm_print_options o = {.format = PM_PRINT_TABLE, .max_cell_width = 12};
  pm_buf out;
  pm_buf_init(&out);
  CHECK_OK(pm_print_batch_to_buf(&s, &a, &o, &out, &err), &err);
  pm_buf_push_u8(&out, 0);
  CHECK_EQ_STR((char *)out.data,
               "  id | name         | price | tags\n"
               "-----+--------------+-------+-------------\n"
               "   1 | Alice        | 19.99 | []\n"
               "   2 | a very lo... | -0.05 | [\"x\\ty\"]\n"
               "1000 | NULL         | 19.99 | [\"x\\ty\",\"...\n");
  /* A second batch through the same printer reuses widths and prints no header. */
  pm_printer *p;
  CHECK_OK(pm_printer_new(&s, &o, &p, &err), &err);
  out.len = 0;
  CHECK_OK(pm_printer_write(p, &a, &out, &err), &err);
  size_t first = out.len;
  struct ArrowArray one = a;
  one.offset = 2;
  one.length = 1;
  CHECK_OK(pm_printer_write(p, &one, &out, &err), &err);
  pm_buf_push_u8(&out, 0);
  CHECK_EQ_STR((char *)out.data + first, "1000 | NULL         | 19.99 | [\"x\\ty\",\"...\n");
  pm_printer_free(p);
  pm_buf_free(&out);
  pm_array_release(&a);
  pm_schema_release(&s);
}

static void test_header_only_and_file(void) {
  struct ArrowSchema s;
  tu_schema("b:+s{x:i;\"y:u}", &s);
  pm_printer *p;
  pm_print_options o = {.format = PM_PRINT_CSV};
  CHECK_OK(pm_printer_new(&s, &o, &p, &err), &err);
  pm_buf out;
  pm_buf_init(&out);
  CHECK_OK(pm_printer_finish(p, &out, &err), &err);
  pm_buf_push_u8(&out, 0);
  CHECK_EQ_STR((char *)out.data, "x,\"\"\"y\"\n");
  pm_printer_free(p);
  pm_buf_free(&out);
  /* FILE output: a batch larger than the internal chunk. */
  pm_builder *b;
  pm_builder_new_from_schema(&s, &b, &err);
  for (int r = 0; r < 10000; r++) {
    pm_builder_append_int(pm_builder_child(b, 0), r, &err);
    pm_builder_append_str(pm_builder_child(b, 1), "v", &err);
    pm_builder_append_valid(b, &err);
  }
  struct ArrowArray a;
  pm_builder_finish(b, &a, &err);
  pm_builder_free(b);
  FILE *f = tmpfile();
  o.format = PM_PRINT_JSONL;
  CHECK_OK(pm_print_batch(&s, &a, &o, f, &err), &err);
  long size = ftell(f);
  rewind(f);
  char line[64];
  int lines = 0, ok = 1;
  while (fgets(line, sizeof line, f)) {
    char want[64];
    snprintf(want, sizeof want, "{\"x\":%d,\"\\\"y\":\"v\"}\n", lines);
    ok &= strcmp(line, want) == 0;
    lines++;
  }
  CHECK(ok);
  CHECK_EQ_INT(lines, 10000);
  CHECK(size > 0);
  fclose(f);
  pm_array_release(&a);
  pm_schema_release(&s);
}

static void test_null_top_level_row(void) {
  struct ArrowSchema s;
  tu_schema("b:+s{x:i;y:u}", &s);
  pm_builder *b;
  pm_builder_new_from_schema(&s, &b, &err);
  pm_builder_append_int(pm_builder_child(b, 0), 1, &err);
  pm_builder_append_str(pm_builder_child(b, 1), "a", &err);
  pm_builder_append_valid(b, &err);
  pm_builder_append_null(b, &err);
  struct ArrowArray a;
  pm_builder_finish(b, &a, &err);
  pm_builder_free(b);
  const char *want[3] = {"{\"x\":1,\"y\":\"a\"}\nnull\n", "x,y\n1,a\n,\n",
                         "x | y\n--+--\n1 | a\nnull | null\n"};
  for (int f = 0; f < 3; f++) {
    pm_print_options o = {.format = (pm_print_format)f};
    pm_buf out;
    pm_buf_init(&out);
    CHECK_OK(pm_print_batch_to_buf(&s, &a, &o, &out, &err), &err);
    pm_buf_push_u8(&out, 0);
    if (f < 2) CHECK_EQ_STR((char *)out.data, want[f]);
    else CHECK(strstr((char *)out.data, "NULL | NULL") != NULL); /* table view: NULL, not the string "null" */
    pm_buf_free(&out);
  }
  pm_array_release(&a);
  pm_schema_release(&s);
}

static void test_formatters(void) {
  char buf[64];
  int n;
  uint8_t d[16] = {0};
  n = pm_format_decimal128(d, 2, buf);
  buf[n] = 0;
  CHECK_EQ_STR(buf, "0.00");
  d[0] = 5;
  n = pm_format_decimal128(d, -3, buf);
  buf[n] = 0;
  CHECK_EQ_STR(buf, "5000");
  n = pm_format_timestamp(-62135596800LL - 86400, PM_UNIT_S, -1, 0, buf);
  buf[n] = 0;
  CHECK_EQ_STR(buf, "0000-12-31T00:00:00");
  n = pm_format_timestamp(1500, PM_UNIT_MS, 6, 1, buf); /* more digits than the unit: zero padded */
  buf[n] = 0;
  CHECK_EQ_STR(buf, "1970-01-01T00:00:01.500000Z");
  n = pm_format_timestamp(-1, PM_UNIT_NS, 3, 0, buf); /* fewer digits: floor */
  buf[n] = 0;
  CHECK_EQ_STR(buf, "1969-12-31T23:59:59.999");
  n = pm_format_timestamp(INT64_MIN, PM_UNIT_NS, -1, 0, buf); /* extremes must not overflow */
  buf[n] = 0;
  CHECK_EQ_STR(buf, "1677-09-21T00:12:43.145224192");
  n = pm_format_timestamp(INT64_MAX, PM_UNIT_NS, -1, 0, buf);
  buf[n] = 0;
  CHECK_EQ_STR(buf, "2262-04-11T23:47:16.854775807");
  n = pm_format_timestamp(INT64_MIN, PM_UNIT_MS, -1, 0, buf);
  CHECK(n > 0 && n < 48);
  n = pm_format_timestamp(INT64_MIN, PM_UNIT_S, -1, 0, buf);
  CHECK(n > 0 && n < 48);
  n = pm_format_date(2932897, buf);
  buf[n] = 0;
  CHECK_EQ_STR(buf, "+10000-01-01");
  n = pm_format_time(3723004, PM_UNIT_MS, 0, buf);
  buf[n] = 0;
  CHECK_EQ_STR(buf, "01:02:03");
  n = pm_format_float(3.3f, buf);
  buf[n] = 0;
  CHECK_EQ_STR(buf, "3.3");
  n = pm_format_float(16777217.0f, buf);
  buf[n] = 0;
  CHECK_EQ_STR(buf, "16777216");
  n = pm_format_double(-0.0, buf);
  buf[n] = 0;
  CHECK_EQ_STR(buf, "-0.0");
  n = pm_format_double(5.11, buf);
  buf[n] = 0;
  CHECK_EQ_STR(buf, "5.11");
}

/* Significant digits of a printed number (leading and trailing zeros not counted). */
static int sig_digits(const char *s) {
  char d[64];
  int n = 0;
  for (; *s && *s != 'e'; s++)
    if (*s >= '0' && *s <= '9') d[n++] = *s;
  int i = 0, j = n;
  while (i < n && d[i] == '0') i++;
  while (j > i && d[j - 1] == '0') j--;
  return j - i;
}

/* Every printed float/double parses back to the same value, with no more significant digits than the shortest
 * printf precision that round-trips; decimal literals print as written. */
static void test_float_round_trip(void) {
  int longer = 0;
  uint64_t state = 88172645463325252ULL;
  int bad = 0;
  char buf[64];
  for (int i = 0; i < 200000; i++) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    double d;
    if (i % 2) {
      memcpy(&d, &state, 8); /* any bit pattern */
    } else {
      d = (double)(int64_t)(state % 2000000001ULL - 1000000000LL) / pow(10, (double)(state >> 60)); /* literals */
    }
    if (!isfinite(d)) continue;
    int n = pm_format_double(d, buf);
    buf[n] = 0;
    if (strtod(buf, NULL) != d) bad++;
    if (i % 16 == 0) {
      char ref[64];
      for (int p = 1; p <= 17; p++) {
        snprintf(ref, sizeof ref, "%.*g", p, d);
        if (strtod(ref, NULL) == d) break;
      }
      longer += sig_digits(buf) > sig_digits(ref);
    }
    float f = (float)d;
    if (!isfinite(f)) continue;
    n = pm_format_float(f, buf);
    buf[n] = 0;
    if (strtof(buf, NULL) != f) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(longer, 0);
  const char *lits[] = {"0.1", "3.3", "5.11", "-77.022", "1234.5", "0.0001", "999999.9", "12.1", "-0.5", "100"};
  for (size_t i = 0; i < sizeof lits / sizeof *lits; i++) {
    int n = pm_format_double(strtod(lits[i], NULL), buf);
    buf[n] = 0;
    CHECK_EQ_STR(buf, lits[i]);
    n = pm_format_float(strtof(lits[i], NULL), buf);
    buf[n] = 0;
    CHECK_EQ_STR(buf, lits[i]);
  }
}

int main(void) {
  RUN_TEST(test_float_round_trip);
  RUN_TEST(test_jsonl_every_type);
  RUN_TEST(test_csv_every_type);
  RUN_TEST(test_table);
  RUN_TEST(test_header_only_and_file);
  RUN_TEST(test_null_top_level_row);
  RUN_TEST(test_formatters);
  TEST_MAIN_END();
}
